"""One error path for every command: each bad input is one line
`sim <command>: <message>` on stderr, exit status 2, no traceback and nothing
half-written or foreign on stdout; a closed pipe is quiet; Ctrl-C exits 130."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from conftest import ROOT
from interrupt import default_sigint

CONFIG_COMMANDS = [
    ("replay", "--runtime", "cpython"),
    ("replay", "--runtime", "micropython"),
    ("run", "--keys", "3 4", "--runtime", "cpython"),
    ("run", "--keys", "3 4", "--runtime", "micropython"),
    ("play",),
    ("board",),
]


def sim(*args, stdin=b"", stdout=subprocess.PIPE, timeout=300):
    return subprocess.run(
        [sys.executable, "-m", "sim", *args],
        input=stdin,
        stdout=stdout,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        timeout=timeout,
    )


def assert_one_line_error(out, command, *words):
    err = out.stderr.decode()
    assert out.returncode == 2, err
    assert err.count("\n") == 1 and err.startswith("sim %s: " % command), err
    assert "Traceback" not in err
    for word in words:
        assert word in err, err
    return err


def config_cases(tmp_path):
    not_utf8 = tmp_path / "latin1.json"
    not_utf8.write_bytes('{"offered": ["fire"]} // caf\xe9'.encode("latin-1"))
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 10000 + "]" * 10000)
    deep_small = tmp_path / "deep-small.json"
    deep_small.write_text('{"offered": ' + "[" * 100 + "]" * 100 + "}")
    folder = tmp_path / "folder.json"
    folder.mkdir()
    return [
        (str(not_utf8), "is not UTF-8 text"),
        (str(deep), "at most 4096 are read"),
        (str(deep_small), "nested more than 8 levels deep"),
        (str(tmp_path / "missing.json"), "cannot read config"),
        (str(folder), "is a directory"),
        ("/proc/self/mem", "cannot read config"),  # unreadable even for root
    ]


@pytest.mark.parametrize("command", CONFIG_COMMANDS, ids=lambda c: "-".join(c))
def test_a_bad_config_file_is_one_line(command, tmp_path):
    for path, words in config_cases(tmp_path):
        out = sim(*command, "--config", path, stdin=b"3 4\n")
        assert_one_line_error(out, command[0], words)
        assert out.stdout == b"", (path, out.stdout)


@pytest.mark.parametrize(
    "config, words",
    [
        ({"offered": [True]}, "unknown wager true ("),
        ({"offered": ["fire", "fire"]}, '"fire" is listed twice'),
        ({"paytables": {"all_small": "PT9"}}, '"PT9" is not an all_small paytable'),
        ({"paytables": {"fire": "9"}}, '"9" is not a fire paytable'),
    ],
)
def test_messages_spell_values_as_json_with_correct_grammar(config, words, tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    err = assert_one_line_error(sim("replay", "--config", str(path), stdin=b"3 4\n"), "replay", words)
    assert "True" not in err and "'" not in err


@pytest.mark.parametrize(
    "command",
    [
        ("run", "--keys", "3 4", "--svg"),
        ("odds", "--plot"),
        ("bench", "--quick", "--no-micropython", "--out"),
    ],
    ids=lambda c: c[0],
)
def test_an_output_file_that_cannot_be_written_is_one_line(command, tmp_path):
    suffix = ".svg" if command[0] != "bench" else ".json"
    (tmp_path / "a-file").write_text("")
    for target, words in [
        (str(tmp_path / "a-file" / ("out" + suffix)), "Not a directory"),
        (str(tmp_path), "Is a directory"),
        ("/dev/full", "No space left on device"),
    ]:
        if command[0] == "odds" and target == str(tmp_path):
            target = str(tmp_path) + "/"  # a folder, named as one
            words = "cannot write"
        if command[0] == "odds" and target == "/dev/full":
            target = str(tmp_path / "full.svg")  # a plot's name says its format
            os.symlink("/dev/full", target)
        out = sim(*command, target)
        assert_one_line_error(out, command[0], words)


@pytest.mark.parametrize(
    "command",
    [
        ("replay", "--runtime", "cpython"),
        ("replay", "--runtime", "micropython"),
        ("run", "--keys", "3 4"),
        ("odds",),
        ("play",),
    ],
    ids=lambda c: "-".join(c),
)
def test_stdout_on_a_full_disk_is_one_line(command):
    with open("/dev/full", "wb") as full:
        out = sim(*command, stdin=b"3 4\n" * 2000, stdout=full)
    assert_one_line_error(out, command[0], "No space left on device")


@pytest.mark.parametrize("runtime", ["cpython", "micropython"])
def test_a_closed_pipe_is_quiet(runtime):
    rolls = b"3 4\n" * 100_000
    out = subprocess.run(
        "%s -m sim replay --runtime %s | head -1" % (sys.executable, runtime),
        shell=True,
        input=rolls,
        capture_output=True,
        cwd=ROOT,
        timeout=300,
    )
    assert out.stderr == b""
    assert json.loads(out.stdout)["n"] == 1


def test_odds_into_a_closed_pipe_is_quiet():
    out = subprocess.run(
        "%s -m sim odds | head -1" % sys.executable, shell=True, capture_output=True, cwd=ROOT, timeout=300
    )
    assert out.stderr == b"" and out.stdout.startswith(b"Exact odds")


@pytest.mark.parametrize("runtime", ["cpython", "micropython"])
def test_stdin_that_is_not_utf8_is_one_line_after_the_good_lines(runtime):
    out = sim("replay", "--runtime", runtime, stdin=b"3 4\n\xff\xfe 1\n2 2\n")
    assert_one_line_error(out, "replay", "line 2: not UTF-8 text")
    lines = out.stdout.decode().splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["n"] == 1


def test_a_key_script_on_stdin_that_is_not_utf8_is_one_line():
    out = sim("run", "--keys-file", "-", stdin=b"3 4 \xff")
    assert_one_line_error(out, "run", "not UTF-8")
    assert out.stdout == b""


def test_usage_mistakes_are_one_line():
    assert_one_line_error(sim("replay", "--runtime", "jvm"), "replay", "invalid choice")
    assert_one_line_error(sim("odds", "--simulate", "0"), "odds", "must be at least 1")
    assert_one_line_error(sim("run"), "run", "one of the arguments --keys --keys-file is required")
    out = sim("roulette")
    assert out.returncode == 2 and out.stderr.decode().count("\n") == 1


@pytest.mark.parametrize(
    "command",
    [
        ("replay", "--runtime", "cpython"),
        ("replay", "--runtime", "micropython"),
        ("odds", "--simulate", "1000000000", "--no-progress"),
        ("bench", "--no-micropython", "--rolls", "100000000"),
    ],
    ids=lambda c: "-".join(c),
)
def test_ctrl_c_exits_130_without_a_traceback(command, tmp_path):
    # A terminal's Ctrl-C signals the whole foreground process group, VM included.
    proc = subprocess.Popen(
        [sys.executable, "-m", "sim", *command],
        stdin=subprocess.PIPE,  # replay waits here for dice that never come
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        start_new_session=True,
        preexec_fn=default_sigint,
    )
    if command[0] == "replay":
        proc.stdin.write(b"3 4\n")
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["n"] == 1  # running, and mid-stream
    else:
        time.sleep(3)  # into the long computation; any moment will do
    os.killpg(proc.pid, signal.SIGINT)
    try:
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:  # never leave a billion-roll run behind
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130, err
    assert b"Traceback" not in err and b"Traceback" not in out
