"""The controller checks itself before it opens a meter (docs/progressive.md, "Self-check").

- **Its code.** `code_digest()` hashes the modules the controller's process
  runs of the floor (every .py of host_tools/floor/progressive, base and
  bus): a SHA-256 per file and one over the sorted list. The installation
  step (`floor progressive-install`, and `floor init`) writes that record to
  DIR/progressive.code.json; at start the controller computes it again and
  compares. The record is the machine's, never the ledger's: each machine
  installs its own code, in its own floor directory, while two machines'
  controllers may share one ledger on PostgreSQL. A missing record or any file that differs is a refusal, naming
  the files.
- **Its ledger.** SQLite's own integrity check (on PostgreSQL: the schema's
  version; the server keeps its pages whole), then `ledger.replay` of the
  whole log compared with every stored meter (amount, reserve, overflow,
  house, paid, each fraction of a cent, every hit) and the parameters in
  force. A log that cannot be folded (a row that does not parse, a step its
  meter refuses) is a refusal too.

`check(...)` returns a report: {"ok", "code": {...}, "ledger": {...}, "reason"};
the service publishes it retained on progressive/check and, when it is not
ok, stays closed (presence `refused`).
"""

import hashlib
import json
import os
import sqlite3

from host_tools import HostToolError
from host_tools.floor.base import floordir

CODE_RECORD = "progressive.code.json"
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
_PACKAGES = ("host_tools/floor/progressive", "host_tools/floor/base", "host_tools/floor/bus")


def record_path(directory):
    return os.path.join(directory, CODE_RECORD)


def code_files(root=_ROOT):
    """{relative path: sha256 hex} of every module the controller runs of the floor."""
    out = {}
    for package in _PACKAGES:
        folder = os.path.join(root, package)
        for name in sorted(os.listdir(folder)):
            if name.endswith(".py"):
                with open(os.path.join(folder, name), "rb") as f:
                    out["%s/%s" % (package, name)] = hashlib.sha256(f.read()).hexdigest()
    return out


def code_digest(files):
    text = "".join("%s %s\n" % (path, files[path]) for path in sorted(files))
    return hashlib.sha256(text.encode()).hexdigest()


def install(directory, root=_ROOT):
    """The installation step: record the controller's code as it is now. Returns the digest."""
    files = code_files(root)
    digest = code_digest(files)
    floordir.write_json(record_path(directory), {"v": 1, "digest": digest, "files": files})
    return digest


def check_code(directory, root=_ROOT):
    """{"ok", "digest" (now), "recorded", "changed": [paths], "reason"}."""
    files = code_files(root)
    digest = code_digest(files)
    out = {"ok": False, "digest": digest, "recorded": None, "changed": []}
    try:
        with open(record_path(directory), encoding="utf-8") as f:
            rec = json.load(f)
        recorded, rec_files = rec["digest"], rec["files"]
    except (OSError, ValueError, KeyError, TypeError):
        out["reason"] = "no record of the controller's code at %s: run floor progressive-install" % record_path(
            directory
        )
        return out
    out["recorded"] = recorded
    out["changed"] = sorted(p for p in set(files) | set(rec_files) if files.get(p) != rec_files.get(p))
    if digest == recorded and not out["changed"]:
        out["ok"], out["reason"] = True, "code %s as installed" % digest[:12]
    else:
        shown = ", ".join(out["changed"][:3]) + (" …" if len(out["changed"]) > 3 else "")
        out["reason"] = "the controller's code differs from the installed record (%s)" % (shown or "the digest")
    return out


def check_ledger(ledger):
    """{"ok", "rows", "reason"}: the ledger's integrity and its replay against the stored figures."""
    from host_tools.floor.progressive import ledger as lg

    out = {"ok": False, "rows": 0}
    try:
        verdict = ledger.integrity()
        if verdict != "ok":
            out["reason"] = "the ledger's SQLite integrity check says: %s" % verdict
            return out
        rows = ledger.log_rows()
        out["rows"] = len(rows)
        params = ledger.params()
        stored = ledger.meters(params)
        replayed = lg.replay(rows)
    except (ledger.Error, ValueError, KeyError, TypeError, IndexError, StopIteration) as e:
        out["reason"] = "the ledger cannot be read or replayed: %s" % (str(e).splitlines() or [type(e).__name__])[0]
        return out
    for game in sorted(set(stored) | set(replayed)):
        if game not in stored or game not in replayed:
            out["reason"] = "the ledger's %s meter is not in both its stored meters and its log" % game
            return out
        if replayed[game].params != params[game]:
            out["reason"] = "the ledger's %s parameters differ from its log's" % game
            return out
        a, b = stored[game].dump(), replayed[game].dump()
        for key in sorted(set(a) | set(b)):
            if a.get(key) != b.get(key):
                out["reason"] = "the ledger's stored %s %s differs from its log's replay (%s, replay %s)" % (
                    game,
                    key,
                    _short(a.get(key)),
                    _short(b.get(key)),
                )
                return out
    out["ok"], out["reason"] = True, "ledger replay matches (%d log rows)" % len(rows)
    return out


def check(directory, ledger_path, root=_ROOT):
    """The whole self-check, before the controller opens its ledger to write:
    {"ok", "code", "ledger", "reason"}. `directory`: this machine's floor directory, which
    holds the install record; `ledger_path`: a SQLite file or a postgresql:// URL
    (ledgers.py). No ledger yet (the first start) is a clean one."""
    from host_tools.floor.progressive import ledgers

    code = check_code(directory, root)
    if not ledgers.is_url(ledger_path) and not os.path.exists(ledger_path):
        book = {"ok": True, "rows": 0, "reason": "no ledger yet: the first start"}
    else:
        try:
            ledger = ledgers.open_ledger(ledger_path, readonly=True)
        except (sqlite3.Error, HostToolError) as e:
            book = {"ok": False, "rows": 0, "reason": "the ledger cannot be opened: %s" % e}
        else:
            try:
                book = check_ledger(ledger)
            finally:
                ledger.close()
            if book["ok"] and book["rows"] == 0:  # a migrated database the controller has not written
                book["reason"] = "no ledger yet: the first start"
    reasons = [r["reason"] for r in (code, book) if not r["ok"]]
    ok = not reasons
    return {
        "v": 1,
        "ok": ok,
        "code": code,
        "ledger": book,
        "reason": "; ".join(reasons) if reasons else "%s; %s" % (code["reason"], book["reason"]),
    }


def _short(value):
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= 60 else text[:57] + "…"
