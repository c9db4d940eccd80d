// The pit page's live updates: the service pushes a line on /events (Server-Sent
// Events) each time the floor changes; the page then fetches /fragment, the live
// part of the floor view rendered by the service, and puts it in place. A note
// being typed is never thrown away: the swap waits until the field is left.
// Fetches may answer out of order: a fragment older than the one shown (its
// data-version, the service's count of changes) is dropped, or it would stay on
// the screen until the floor changes again. A new /events connection (the
// service restarted: its count starts again) takes whatever comes next.
"use strict";
(function () {
  var pending = false;
  var shownVersion = -1;
  function typing() {
    var a = document.activeElement;
    return a && a.tagName === "INPUT" && a.closest("#live") && a.value !== "";
  }
  function versionOf(text) {
    var m = /data-version="(\d+)"/.exec(text);
    return m ? Number(m[1]) : -1;
  }
  function refresh() {
    var live = document.getElementById("live");
    if (!live) return;
    if (typing()) { pending = true; return; }
    pending = false;
    fetch("/fragment", { credentials: "same-origin", cache: "no-store" }).then(function (r) {
      if (r.status === 401) { window.location.assign("/login"); return null; }
      return r.ok ? r.text() : null;
    }).then(function (text) {
      if (text === null || text === undefined) return;
      var version = versionOf(text);
      if (version < shownVersion) return; // answered after a newer one
      var now = document.getElementById("live");
      if (!now) return;
      shownVersion = version;
      now.outerHTML = text;
    });
  }
  document.addEventListener("focusout", function () { if (pending) setTimeout(refresh, 0); });
  function connect() {
    if (!document.getElementById("live")) return;
    var source = new EventSource("/events");
    source.onopen = function () { shownVersion = -1; document.body.classList.remove("disconnected"); };
    source.onmessage = function () { refresh(); };
    source.addEventListener("expired", function () { window.location.assign("/login"); });
    source.onerror = function () { document.body.classList.add("disconnected"); };
  }
  document.addEventListener("DOMContentLoaded", connect);
})();
