# Runs an event script through the engine; shared by both runtimes.
#
# CPython imports `run`; MicroPython runs this file with the script on stdin.
# Lines: "D1 D2" (a roll), "end" (end hand), "undo", "config {json}".
# Output: one JSON line per event: {"event", "ok", "error", "state"}, and
# "reversed" (the resolutions taken back) after a successful undo.
import sys

from crapsboard.rules import config as cfg
from crapsboard.rules import report
from crapsboard.rules.engine import Table


def _line(event, ok, error, table):
    err = "null" if error is None else '"' + error + '"'
    ok_text = "true" if ok else "false"
    return (
        '{"event": "'
        + event
        + '", "ok": '
        + ok_text
        + ', "error": '
        + err
        + ', "state": '
        + report.roll_json(table)
        + (', "reversed": ' + report.dumps(report.reversed_resolutions(table)) if event == "undo" and ok else "")
        + "}"
    )


def run(lines, write):
    table = Table()
    for raw in lines:
        line = raw.strip()
        if not line:
            continue
        ok = True
        error = None
        if line == "end":
            event = "end"
            table.end_hand()
        elif line == "undo":
            event = "undo"
            ok = table.undo()
        elif line.startswith("config "):
            event = "config"
            try:
                table.configure(cfg.loads(line[7:], table.config))
            except cfg.ConfigError as e:
                ok = False
                error = e.key
            table.res_count = 0
        else:
            event = "roll"
            faces = line.replace(",", " ").split()
            table.roll(int(faces[0]), int(faces[1]))
        write(_line(event, ok, error, table) + "\n")


if __name__ == "__main__":
    run(sys.stdin.read().split("\n"), sys.stdout.write)
