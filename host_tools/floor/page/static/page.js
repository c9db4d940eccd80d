// The pit page's live updates: the service pushes a line on /events (Server-Sent
// Events) each time the floor changes; the page then fetches /fragment, the live
// part of the floor view rendered by the service, and puts it in place. A note
// being typed is never thrown away: the swap waits until the field is left.
// One fetch at a time, and one more after it when the floor changed meanwhile:
// two fetches in flight can answer out of order, and an older fragment put in
// place last would stay until the floor changes again.
"use strict";
(function () {
  var pending = false;
  var fetching = false;
  var again = false;
  function typing() {
    var a = document.activeElement;
    return a && a.tagName === "INPUT" && a.closest("#live") && a.value !== "";
  }
  function refresh() {
    var live = document.getElementById("live");
    if (!live) return;
    if (typing()) { pending = true; return; }
    pending = false;
    if (fetching) { again = true; return; }
    fetching = true;
    again = false;
    fetch("/fragment", { credentials: "same-origin", cache: "no-store" }).then(function (r) {
      if (r.status === 401) { window.location.assign("/login"); return null; }
      return r.ok ? r.text() : null;
    }).then(function (text) {
      if (text === null || text === undefined) return;
      var now = document.getElementById("live");
      if (now) now.outerHTML = text;
    }).catch(function () {
      // the service away for a moment: /events reconnects and pushes again
    }).then(function () {
      fetching = false;
      if (again) setTimeout(refresh, 0);
    });
  }
  document.addEventListener("focusout", function () { if (pending) setTimeout(refresh, 0); });
  function connect() {
    if (!document.getElementById("live")) return;
    var source = new EventSource("/events");
    source.onopen = function () { document.body.classList.remove("disconnected"); };
    source.onmessage = function () { refresh(); };
    source.addEventListener("expired", function () { window.location.assign("/login"); });
    source.onerror = function () { document.body.classList.add("disconnected"); };
  }
  document.addEventListener("DOMContentLoaded", connect);
})();
