"""The floor's commands as README.md's command table and docs/floor.md show
them, run against a floor (`make floor`, two tables from the session's
deployed template) and checked for the documented answer: its exit status
and the shape of its output (docs/floor.md's examples, with their numbers,
ids and times taken as any). Every command the docs name has a check here,
so a command documented anew (or renamed) fails until it is run."""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import pytest
from test_floor_make import processes_naming

from bench.floor import localfloor as floor_rig
from host_tools.floor import floor_init
from host_tools.floor.bus import broker
from sim.paths import ROOT

pytestmark = pytest.mark.skipif(
    not floor_rig.have_mosquitto(), reason="mosquitto is not installed (make test installs it as root)"
)

# The command each documented form is checked by (the words before its options).
KNOWN = {
    "make floor",
    "floor keys",
    "floor status",
    "floor events",
    "gateway",
    "recorder",
    "floor init",
    "floor provision",
    "floor db migrate",
    "floor db version",
    "floor user add",
    "floor user list",
    "floor page",
    "floor progressive",
    "floor meter",
    "floor progressive-params",
    "floor board-erased",
}
ISO = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d"


def read(name):
    with open(os.path.join(ROOT, name), encoding="utf-8") as f:
        return f.read()


def _top_level_split(text, sep):
    """`text` split at `sep` outside brackets."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(text):
        if text[i] == "[":
            depth += 1
        elif text[i] == "]":
            depth -= 1
        elif depth == 0 and text.startswith(sep, i):
            parts.append(text[start:i])
            start = i + len(sep)
            i += len(sep)
            continue
        i += 1
    return parts + [text[start:]]


def command_of(form):
    """`floor events` for `python -m host_tools floor events --table …`; None for another tool's."""
    words = form.replace("python -m host_tools ", "").split()
    if not words or words[0] not in ("make", "floor", "gateway", "recorder"):
        return None
    if words[0] == "make" and words[1:2] != ["floor"]:
        return None  # the other make targets are not the floor's
    taken = []
    for w in words:
        if w.startswith(("-", "[", '"', "<")) or w.isupper() or w == "…" or "=" in w:
            break
        taken.append(w)
    return " ".join(taken)


def documented_forms():
    """Every floor command README.md's command table and docs/floor.md's command blocks show."""
    forms = []
    for line in read("README.md").splitlines():
        if not line.startswith("| `"):
            continue
        first = line.split("` | ", 1)[0][2:]  # the command column
        for span in re.findall(r"`([^`]+)`", "`" + first + "`"):
            alternatives = _top_level_split(span.replace("\\|", "|"), " | ")
            prefix = "floor " if alternatives[0].startswith(("python -m host_tools floor", "floor")) else ""
            for i, alt in enumerate(alternatives):
                alt = alt.strip()
                forms.append(alt if i == 0 or alt.startswith(("python", "floor", "make")) else prefix + alt)
    inside = False
    for line in read("docs/floor.md").splitlines():
        if line.startswith("```"):
            inside = not inside
        elif inside and line.startswith(("python -m host_tools ", "make floor")):
            forms.append(line.split("  #")[0].strip())
    return {c for c in (command_of(f) for f in forms) if c}


def example_outputs():
    """{command line: [output lines]} of docs/floor.md's `$ ` examples."""
    found, current = {}, None
    for line in read("docs/floor.md").splitlines():
        if line.startswith("$ python -m host_tools floor "):
            current = line[2:]
            found[current] = []
        elif line.startswith("```") or not line:
            current = None
        elif current is not None:
            found[current].append(line)
    return found


def shape(line):
    """A documented output line as a regex over the line with its runs of spaces made one:
    times, board ids, numbers, the table a line starts with, a table's presence and `…` taken as any."""
    line = " ".join(line.split())
    for pattern, token in (
        (ISO, "QQISOQQ"),
        (r"240ac4[0-9a-f]{6}", "QQBOARDQQ"),
        (r"^T\d+\b", "QQTABLEQQ"),
        (r"(?<!\w)\d+(?!\w)", "QQNQQ"),
        (r"\b(online|offline)\b", "QQPQQ"),
        ("…", "QQANYQQ"),
    ):
        line = re.sub(pattern, token, line)
    out = re.escape(line)
    for token, regex in (
        ("QQISOQQ", ISO),
        ("QQBOARDQQ", "240ac4[0-9a-f]{6}"),
        ("QQTABLEQQ", r"T\d+"),
        ("QQNQQ", r"\d+"),
        ("QQPQQ", "(online|offline|no word yet)"),
        ("QQANYQQ", ".*"),
    ):
        out = out.replace(token, regex)
    return out


def matches(documented, shown):
    return re.fullmatch(shape(documented), " ".join(shown.split())) is not None


def test_every_documented_floor_command_has_a_check_here():
    assert documented_forms() == KNOWN
    examples = example_outputs()
    assert {e.split()[4] for e in examples} == {"keys", "status", "events"}  # `python -m host_tools floor X`


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    return floor_rig.shared_template(tmp_path_factory)


def run(*args, stdin=None, timeout=60):
    return subprocess.run(
        [sys.executable, "-m", "host_tools", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=timeout,
    )


def one_error_line(done, status, text):
    assert (done.returncode, done.stdout) == (status, ""), (done.returncode, done.stdout, done.stderr)
    assert done.stderr.count("\n") == 1 and text in done.stderr and "Traceback" not in done.stderr, done.stderr


@pytest.mark.timeout(420)
def test_the_documented_commands_answer_as_documented_on_a_floor(tmp_path, template):
    folder = str(tmp_path / "floor")
    floor_init.init(folder, 2, "main", broker.free_port(), broker.free_port())
    image, key_file, firmware_hash = template
    for t in ("T1", "T2"):
        shutil.copy(image, os.path.join(folder, "boards", t + ".img"))
        shutil.copy(key_file, os.path.join(folder, "keys", t + ".key"))
        with open(os.path.join(folder, "boards", t + ".deployed"), "w") as f:
            f.write(firmware_hash + "\n")
    env = dict(os.environ, CRAPSFLOOR_DIR=folder)
    # make floor [TABLES=3] [KEYS="3 4 …"] (the venv taken as made)
    up = subprocess.Popen(
        ["make", "-s", "-o", "venv", "floor", "TABLES=2", "KEYS=3 4"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines = []
    try:
        end = time.monotonic() + 120
        while time.monotonic() < end:
            line = up.stdout.readline()
            assert line, (lines, up.stderr.read() if up.poll() is not None else "")
            lines.append(line.rstrip("\n"))
            if "2 tables up" in line:
                break
        assert re.fullmatch(
            r"\d\d:\d\d:\d\d make floor: pit page on http://127\.0\.0\.1:\d+/ \(people: .*\)", lines[-2]
        )
        os.environ["CRAPSFLOOR_DIR"] = folder  # the commands below find the floor as a user's would
        check_commands(folder)
    finally:
        os.environ.pop("CRAPSFLOOR_DIR", None)
        for p in descendants(up.pid):  # the supervisor under make (SIGTERM: it stops the floor, exit 0)
            if _argv(p)[3:5] == ["floor", "up"]:
                os.kill(p, signal.SIGTERM)
        out, _ = up.communicate(timeout=90)
        lines += out.splitlines()
    assert up.returncode == 0 and lines[-1].endswith("make floor: stopped; nothing left running")
    assert processes_naming(folder) == []


def descendants(pid):
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open("/proc/%s/stat" % entry) as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _argv(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return [a.decode() for a in f.read().split(b"\0")]
    except OSError:
        return []


def wait_records(table, at_least, timeout=90):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        done = run("floor", "events", "--table", table)
        rolls = [json.loads(x) for x in done.stdout.splitlines() if '"roll"' in x]
        if len(rolls) >= at_least:
            return rolls
        time.sleep(0.3)
    raise AssertionError("table %s recorded %s" % (table, [r["dice"] for r in rolls]))


def check_commands(folder):
    examples = example_outputs()
    keys_line = next(e for e in examples if " keys " in e)
    # floor keys --table T1 "3 4 6 6": the documented line, queued and echoed.
    done = run("floor", "keys", "--table", "T1", "3 4 6 6")
    assert done.returncode == 0 and matches(examples[keys_line][0], done.stdout)
    # KEYS="3 4" once, then at least one more roll (a loaded machine may miss a press: the dice
    # are test_floor_keys_once.py's to check, the answers' shapes this test's).
    rolls = wait_records("T1", 2)
    assert rolls[0]["dice"] == [3, 4]
    wait_records("T2", 1)

    # floor status [--json]
    status_shapes = examples[next(e for e in examples if e.endswith("floor status"))]
    end = time.monotonic() + 30
    while True:
        done = run("floor", "status")
        shown = done.stdout.splitlines()
        ok = len(shown) == 2 and all(any(matches(s, line) for s in status_shapes) for line in shown)
        if ok and all(" online " in line and "(lag 0)" in line for line in shown) or time.monotonic() > end:
            break
        time.sleep(0.5)
    assert done.returncode == 0 and ok, (shown, status_shapes)
    assert "-" not in "".join(line.split()[2] for line in shown)  # no number shown as a dash
    rows = json.loads(run("floor", "status", "--json").stdout)
    assert [r["table"] for r in rows] == ["T1", "T2"]
    assert all({"table", "presence", "judged_by", "gateway", "seq", "recorded", "lag", "link"} <= set(r) for r in rows)

    # floor events --table T1 [--since SEQ] [--journal N] [--format jsonl|csv]
    since_line = next(e for e in examples if "--since" in e)
    documented = json.loads(examples[since_line][0])
    last = rolls[-1]["seq"]
    done = run("floor", "events", "--table", "T1", "--since", str(last - 1), "--journal", str(rolls[-1]["journal"]))
    got = json.loads(done.stdout.splitlines()[0])  # the roll (the dealer may have keyed more since)
    assert got["seq"] == last and set(got) == set(documented) and got["dice"] == rolls[-1]["dice"]
    assert re.fullmatch(ISO, got["time"]) and got["time_from"] in ("board", "host estimate")
    assert re.fullmatch(r"240ac4[0-9a-f]{6}", got["board"])
    as_csv = run("floor", "events", "--table", "T1", "--format", "csv").stdout.splitlines()
    assert as_csv[0].split(",")[:6] == ["table", "board", "journal", "seq", "time", "time_from"]
    unknown = next(e for e in examples if "T9" in e)
    done = run(*unknown.split()[3:])
    assert matches(examples[unknown][0], done.stderr) and done.returncode == 2

    # recorder [--broker URL] [--ca-file F …]: a TLS file missing, exit 2 (the exit-status table).
    tls = run("recorder", "--broker", "mqtts://127.0.0.1:%d" % broker.free_port(), "--ca-file", "/nonexistent/ca.pem")
    one_error_line(tls, 2, "host_tools recorder: cannot read --ca-file /nonexistent/ca.pem")

    # floor init [--tables N] [--name NAME] [--port P] [--ws-port P]: a new floor's one line.
    other = os.path.join(folder, "other-floor")
    done = run("floor", "init", "--dir", other, "--tables", "2", "--name", "annex", "--port", "18990")
    assert done.returncode == 0
    assert done.stdout == "floor annex in %s: 2 tables, broker on 127.0.0.1:18990\n" % other

    # floor db migrate | version --db postgresql://…: not a PostgreSQL URL is one line, exit 2
    # (tests/test_floor_postgres.py runs both on a real server).
    for action in ("migrate", "version"):
        done = run("floor", "db", action, "--db", os.path.join(other, "recorder.sqlite"))
        one_error_line(done, 2, "postgresql://")

    # floor board-erased --table T --board ID --by NAME: a table the floor does not have, a board id
    # that is not one: one line, exit 2 (tests/test_floor_board_erased.py takes the step on a floor).
    done = run("floor", "board-erased", "--table", "T9", "--board", "240ac4000001", "--by", "T. Tech")
    one_error_line(done, 2, "no table T9 on this floor (tables: T1, T2)")
    done = run("floor", "board-erased", "--table", "T1", "--board", "BOARD-1", "--by", "T. Tech")
    one_error_line(done, 2, "--board BOARD-1: a board id is the chip id in lower-case hex")

    # floor provision --table T1 --key FILE [--roles …]: each role's key written, one line each; a role
    # that is not one is one line, exit 2.
    key_file = os.path.join(other, "keys", "T1.key")
    done = run("floor", "provision", "--dir", other, "--table", "T1", "--key", key_file, "--roles", "journal,gateway")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "wrote %s" % os.path.join(other, "keys", "T1." + r) for r in ("journal", "gateway")
    ]
    wrong = run("floor", "provision", "--dir", other, "--table", "T1", "--key", key_file, "--roles", "dealer")
    one_error_line(wrong, 2, "host_tools floor: --roles: dealer is not one of journal,gateway,floor,receipt")

    # gateway --port PORT --table ID …: no board on the port, exit 3 (the exit-status table); on
    # the new floor, so as not to stand in for the running floor's own T1 gateway on its broker.
    no_board = run("gateway", "--dir", other, "--port", "/dev/nonexistent-board", "--table", "T1")
    one_error_line(no_board, 3, "host_tools gateway: cannot open /dev/nonexistent-board")

    # floor user add NAME --role …; floor user list
    done = run("floor", "user", "add", "tina", "--role", "technician", stdin="tina's long password\n")
    assert (done.returncode, done.stdout) == (0, "tina added as technician\n"), done.stderr
    done = run("floor", "user", "add", "mia", "--role", "shift_manager", stdin="mia's long password\n")
    assert (done.returncode, done.stdout) == (0, "mia added as shift manager\n"), done.stderr
    assert {"tina technician", "mia shift_manager"} <= set(run("floor", "user", "list").stdout.splitlines())
    one_error_line(run("floor", "user", "add", "tim", "--role", "dealer", stdin="x" * 12 + "\n"), 2, "")

    # floor page [--http-port N]: make floor's page answers at the address it printed; another page starts and stops.
    port = broker.free_port()
    page = subprocess.Popen(
        [sys.executable, "-m", "host_tools", "floor", "page", "--http-port", str(port)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert page.stdout.readline() == "pit page: http://127.0.0.1:%d/\n" % port
        assert broker.wait_listening(port, 20, page)
    finally:
        page.send_signal(signal.SIGTERM)
        page.wait(20)
    assert page.returncode == 0, page.stderr.read()

    # floor progressive (make floor runs it) and floor meter [--json]
    assert [p for p in processes_naming(folder) if _argv(p)[3:5] == ["floor", "progressive"]]
    end = time.monotonic() + 30
    while True:
        meter = run("floor", "meter")
        if meter.returncode == 0 or time.monotonic() > end:
            break
        time.sleep(0.5)
    assert meter.returncode == 0, meter.stderr
    games = [line for line in meter.stdout.splitlines() if re.match(r"(MEA|FUP) (open|locked|pending|closed) ", line)]
    assert len(games) == 2, meter.stdout
    for line in games:  # docs/progressive.md, `floor meter`
        assert re.fullmatch(
            r"(MEA|FUP) (open|locked|pending|closed) +\$[\d,]+\.\d\d \(\d+ cents\)  reserve \d+ cents"
            r"  overflow \d+ cents  PT-BJS-(MEA|FUP)-0\d"
            r" (shared by winning wagers|each winning wager in position order)"
            r"  return per wager [\d.]+% / [\d.]+% / [\d.]+% \(1 / 2 / 3 winning wagers\)"
            r"  winning wagers per hit seen [\d.]+ \(\d+ hits\)  break-even \$[\d,]+\.\d\d.*",
            line,
        ), line
    as_json = json.loads(run("floor", "meter", "--json").stdout)
    assert {"game", "amount", "state", "return_pct", "break_even"} <= set(as_json[0])

    # floor progressive-params --game G --set F=V --technician N --manager N: refused while tables are live.
    done = run(
        "floor", "progressive-params", "--game", "MEA", "--set", "cap=6000000", "--technician", "tina",
        "--manager", "mia", stdin="tina's long password\nmia's long password\n",
    )  # fmt: skip
    one_error_line(done, 1, "host_tools floor: tables T1, T2 are live: parameters change only while no table is")
