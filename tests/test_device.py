"""`python -m sim device`: the virtual board, driven by the real tools a
technician uses on an ESP32 — the `mpremote` command from the venv and
pyserial — over its pseudo-terminal, with the real MicroPython VM and real
littlefs behind it. Times are the device's own measurements (its log lines),
never wall-clock limits here."""

import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time

import pytest
import serial
from conftest import ROOT

from sim import devlayout
from sim.device import FIRST_BOARD_ID, board_id
from sim.portable import flashfs
from sim.portable.norflash import NorFlash

MPREMOTE = os.path.join(os.path.dirname(sys.executable), "mpremote")
WATCHDOG_MS = 8000  # the ESP32's watchdog as the firmware starts it (crapsboard/table/board.py)
PWRON_RESET, HARD_RESET, WDT_RESET, SOFT_RESET = 1, 2, 3, 5  # the ESP32 port's machine.*_RESET
WAIT_S = 20  # how long a test waits for something that takes well under a second


def image_with(path, files):
    """A flash image holding `files` ({name: bytes}), written offline with
    littlefs-python as flashfs.py mounts it (the board then mounts it with VfsLfs2)."""
    dev = NorFlash()
    fs = flashfs._lfs(dev)
    fs.format()
    fs.mount()
    made = set()
    for name, data in sorted(files.items()):
        parts = name.split("/")
        for depth in range(1, len(parts)):
            folder = "/".join(parts[:depth])
            if folder not in made:
                fs.mkdir(folder)
                made.add(folder)
        with fs.open(name, "wb") as f:
            f.write(data)
    fs.unmount()
    dev.save(str(path))


def files_in(path):
    """{name: bytes} of the root of a flash image, read offline."""
    with open(path, "rb") as f:
        dev = NorFlash(f.read())
    fs = flashfs._lfs(dev)
    fs.mount()
    found = {}
    for name in fs.listdir("/"):
        if fs.stat("/" + name).type == 1:  # a file
            with fs.open("/" + name, "rb") as f:
                found[name] = f.read()
    return found


class Device:
    """`python -m sim device` as a process: its port and its log lines."""

    def __init__(self, flash, *args, env=None):
        flash_args = [] if flash is None else ["--flash", str(flash)]
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "sim", "device", *flash_args, *args],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        first = self.proc.stdout.readline()
        match = re.fullmatch(r"(/dev/pts/\d+)\n", first)  # the port alone, first
        assert match, (first, self.proc.stderr.read() if self.proc.poll() is not None else "")
        self.port = match.group(1)
        self.lines = []
        self.changed = threading.Condition()
        threading.Thread(target=self._collect, daemon=True).start()

    def _collect(self):
        for line in self.proc.stdout:
            with self.changed:
                self.lines.append(line.rstrip("\n"))
                self.changed.notify_all()

    def wait_line(self, pattern, start=0):
        """The first log line from index `start` matching `pattern` (a regex), as a match."""
        deadline = time.monotonic() + WAIT_S + WATCHDOG_MS / 1000
        with self.changed:
            while True:
                for line in self.lines[start:]:
                    match = re.search(pattern, line)
                    if match:
                        return match
                left = deadline - time.monotonic()
                assert left > 0, "no log line %r in %r" % (pattern, self.lines)
                self.changed.wait(left)

    def mpremote(self, *args, check=True):
        """Run the real mpremote CLI against the port; its stdout."""
        done = subprocess.run([MPREMOTE, "connect", self.port, *args], capture_output=True, text=True, timeout=60)
        if check:
            assert done.returncode == 0, (args, done.stdout, done.stderr)
        return done.stdout

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            assert self.proc.wait(timeout=10) == 0
        self.proc.stdout.close()
        self.proc.stderr.close()


@pytest.fixture
def device(tmp_path):
    started = []

    def start(files=None, *args):
        flash = tmp_path / "flash.img"
        if files is not None:
            image_with(flash, files)
        dev = Device(flash, *args)
        started.append(dev)
        return dev

    yield start
    for dev in started:
        dev.stop()


def read_until(port, ending, what=""):
    """Bytes from a pyserial port up to and including `ending`."""
    data = b""
    deadline = time.monotonic() + WAIT_S + WATCHDOG_MS / 1000
    while not data.endswith(ending):
        assert time.monotonic() < deadline, "no %r %s in %r" % (ending, what, data[-300:])
        data += port.read(1)
    return data


def open_port(path):
    port = serial.Serial(path, 115200, timeout=0.1)
    port.reset_input_buffer()
    return port


# ---- mpremote --------------------------------------------------------------------


def test_mpremote_lists_copies_there_and_back_and_hashes(device, tmp_path):
    dev = device()
    assert dev.mpremote("resume", "fs", "ls").splitlines() == ["ls :"]  # a fresh flash: empty
    data = os.urandom(4000) + bytes(range(256))  # every byte value, 0x03 and 0x04 among them
    (tmp_path / "data.bin").write_bytes(data)
    dev.mpremote("resume", "fs", "cp", str(tmp_path / "data.bin"), ":data.bin")
    listing = dev.mpremote("resume", "fs", "ls")
    assert re.search(r"^\s+%d data\.bin$" % len(data), listing, re.M), listing
    dev.mpremote("resume", "fs", "cp", ":data.bin", str(tmp_path / "back.bin"))
    assert (tmp_path / "back.bin").read_bytes() == data
    hashed = dev.mpremote("resume", "fs", "sha256sum", ":data.bin")
    assert hashlib.sha256(data).hexdigest() in hashed
    assert dev.mpremote("resume", "exec", "print(6 * 7)") == "42\n"
    # The board's own hashlib, through exec, over what it holds on its flash.
    code = "import hashlib; f = open('data.bin', 'rb'); print(hashlib.sha256(f.read()).digest().hex())"
    assert dev.mpremote("resume", "exec", code).strip() == hashlib.sha256(data).hexdigest()


def test_an_error_on_the_board_is_an_error_for_mpremote(device):
    dev = device()
    done = subprocess.run(
        [MPREMOTE, "connect", dev.port, "resume", "exec", "1 / 0"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1
    assert "ZeroDivisionError" in done.stdout + done.stderr
    missing = subprocess.run(
        [MPREMOTE, "connect", dev.port, "resume", "fs", "cat", ":nothing.txt"], capture_output=True, text=True
    )
    assert missing.returncode == 1 and "nothing.txt" in missing.stdout + missing.stderr
    assert dev.mpremote("resume", "exec", "print('still here')") == "still here\n"


UNIQUE_ID = "import machine, binascii; print(binascii.hexlify(machine.unique_id()).decode())"


def test_each_new_flash_image_is_its_own_chip_and_keeps_its_id(tmp_path):
    # Two new images, two chips: each id is kept in its image (after the
    # partition, as an ESP32's eFuse MAC) and answered across a restart of the
    # device; an image made before images held an id is the first virtual chip.
    ids = []
    for name in ("a.img", "b.img"):
        dev = Device(tmp_path / name)
        try:
            ids.append(dev.mpremote("resume", "exec", UNIQUE_ID).strip())
        finally:
            dev.stop()
    assert ids[0] != ids[1] and all(re.fullmatch(r"240ac4[0-9a-f]{6}", i) for i in ids), ids
    assert [board_id(str(tmp_path / n)) for n in ("a.img", "b.img")] == ids
    assert os.path.getsize(tmp_path / "a.img") == 512 * 4096 + 24
    dev = Device(tmp_path / "a.img")
    try:
        assert dev.mpremote("resume", "exec", UNIQUE_ID).strip() == ids[0]
        dev.mpremote("resume", "reset")
        dev.wait_line(r"^sim device: reset: machine\.reset\(\)$")
        assert dev.mpremote("resume", "exec", UNIQUE_ID).strip() == ids[0]
    finally:
        dev.stop()
    image_with(tmp_path / "old.img", {})
    dev = Device(tmp_path / "old.img")
    try:
        assert dev.mpremote("resume", "exec", UNIQUE_ID).strip() == FIRST_BOARD_ID == "240ac4000001"
    finally:
        dev.stop()
    # A file that ends in anything else is not this board's flash.
    with open(tmp_path / "a.img", "r+b") as f:
        f.seek(512 * 4096 + 11)
        f.write(b"zz")
    refused = subprocess.run(
        [sys.executable, "-m", "sim", "device", "--flash", str(tmp_path / "a.img")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (refused.returncode, refused.stdout) == (2, "")
    assert refused.stderr == "sim device: flash %s: its last 24 bytes are not a chip's id\n" % (tmp_path / "a.img")


def test_reset_restarts_the_vm_and_the_flash_keeps_the_file(device, tmp_path):
    dev = device({"kept.txt": b"across a reset\n"})
    assert dev.mpremote("resume", "exec", "import machine; print(machine.reset_cause())") == "%d\n" % PWRON_RESET
    dev.mpremote("resume", "exec", "x = 'held in RAM'")
    assert dev.mpremote("resume", "exec", "print(x)") == "held in RAM\n"
    dev.mpremote("resume", "reset")
    dev.wait_line(r"^sim device: reset: machine\.reset\(\)$")
    after = dev.mpremote("resume", "exec", "import machine; print(machine.reset_cause()); print('x' in globals())")
    assert after == "%d\nFalse\n" % HARD_RESET  # a new VM: RAM is gone...
    assert dev.mpremote("resume", "fs", "cat", ":kept.txt") == "across a reset\n"  # ...the flash is not


def test_mpremote_without_resume_soft_reboots_and_skips_main(device):
    # mpremote's default: Ctrl-D in the raw REPL; boot.py runs again, main.py
    # does not (as pyexec on the ESP32); machine.reset_cause() says so.
    boot = b"f = open('log.txt', 'a'); f.write('boot '); f.close()\n"
    main = b"f = open('log.txt', 'a'); f.write('main '); f.close()\n"
    dev = device({"boot.py": boot, "main.py": main})
    assert dev.mpremote("exec", "import machine; print(machine.reset_cause())") == "%d\n" % SOFT_RESET
    dev.wait_line(r"^sim device: reset: soft reboot$")
    assert dev.mpremote("resume", "fs", "cat", ":log.txt") == "boot main boot "


def test_a_killed_device_keeps_its_flash(device, tmp_path):
    dev = device()
    data = os.urandom(5000)
    (tmp_path / "data.bin").write_bytes(data)
    dev.mpremote("resume", "fs", "cp", str(tmp_path / "data.bin"), ":data.bin")
    dev.proc.kill()  # no goodbye: the power cut
    dev.proc.wait()
    assert files_in(tmp_path / "flash.img")["data.bin"] == data  # the image mounts offline too
    again = device()  # the same FILE
    assert hashlib.sha256(data).hexdigest() in again.mpremote("resume", "fs", "sha256sum", ":data.bin")


# ---- Ctrl-C, the REPL and the watchdog, through pyserial --------------------------

TICKER = b"""import time
n = 0
while True:
    print('tick', n)
    n += 1
    time.sleep_ms(20)
"""


def test_ctrl_c_breaks_into_a_running_main_py(device):
    dev = device({"main.py": TICKER})
    with open_port(dev.port) as port:
        read_until(port, b"tick 3", "from main.py")
        port.write(b"\x03")
        broke = read_until(port, b">>> ", "after Ctrl-C")
        assert b"KeyboardInterrupt" in broke
        port.write(b"print(n >= 3, 6 * 7)\r")  # main.py's globals are the REPL's
        assert read_until(port, b">>> ").endswith(b"True 42\n>>> ")
        # The raw REPL by hand: code, Ctrl-D, OK, output, 0x04, error text, 0x04, prompt.
        port.write(b"\x01")
        read_until(port, b"raw REPL; CTRL-B to exit\r\n>")
        port.write(b"print('out')\x04")
        assert read_until(port, b"\x04>") == b"OKout\n\x04\x04>"
        port.write(b"1/0\x04")
        failed = read_until(port, b"\x04>")
        assert failed.startswith(b"OK\x04Traceback") and b"ZeroDivisionError" in failed
        port.write(b"\x02")
        read_until(port, b">>> ")
    assert dev.mpremote("resume", "exec", "print(n >= 3)") == "True\n"


def test_keys_press_the_keypad_and_buttons_once_the_app_runs(device):
    # Key "1" is row 0 (GPIO 32) x column 0 (GPIO 18), UNDO is GPIO 21, active
    # low (hardware/board.json); the script starts with the watchdog.
    main = b"""import machine, time
row = machine.Pin(32, machine.Pin.OPEN_DRAIN, value=0)
col = machine.Pin(18, machine.Pin.IN, machine.Pin.PULL_UP)
undo = machine.Pin(21, machine.Pin.IN, machine.Pin.PULL_UP)
print('idle', col.value(), undo.value())
dog = machine.WDT(timeout=8000)
t0 = time.ticks_ms()
seen = []
while len(seen) < 2 and time.ticks_diff(time.ticks_ms(), t0) < 3000:
    dog.feed()
    if col.value() == 0 and 'key' not in seen:
        seen.append('key')
    if undo.value() == 0 and 'undo' not in seen:
        seen.append('undo')
    time.sleep_ms(5)
print('seen', ' '.join(seen))
"""
    dev = device({"main.py": main}, "--keys", "wait:100 1 btn:undo")
    with open_port(dev.port) as port:
        port.write(b"\r")
        assert b"idle 1 1" in read_until(port, b"seen key undo")
    dev.wait_line(r"^sim device: keys: started$")


# ---- the real firmware -------------------------------------------------------------


def deployed_files(mpy_lib):
    """{path: bytes} of what a deploy puts on the board, as sim/devlayout.py
    writes it: main.py, boot.py, the package as .mpy (conftest's mpy_lib, made
    by devlayout.compile_package once per session) and layout.json."""
    files = {}
    for name in ("main.py", "boot.py"):
        with open(os.path.join(ROOT, "firmware", name), "rb") as f:
            files[name] = f.read()
    for folder, _, names in os.walk(os.path.join(mpy_lib, "crapsboard")):
        for name in names:
            path = os.path.join(folder, name)
            with open(path, "rb") as f:
                files["lib/" + os.path.relpath(path, mpy_lib).replace(os.sep, "/")] = f.read()
    with open(os.path.join(ROOT, "hardware", "board.json"), encoding="utf-8") as f:
        files[devlayout.DEVICE_FILE] = devlayout.compact_text(f.read()).encode()
    return files


def request(port, frame, request_id):
    """Send one link frame; the reply with that id (pushed events and other output skipped)."""
    port.write(json.dumps(frame).encode() + b"\n")
    while True:
        line = read_until(port, b"\n", "reply to %r" % frame)
        try:
            reply = json.loads(line)
        except ValueError:
            continue
        if isinstance(reply, dict) and reply.get("id") == request_id:
            return reply


WATCHDOG_RESET = r"^sim device: reset: watchdog: (\d+) ms without a feed \(timeout (\d+) ms\)$"


def test_the_deployed_firmware_answers_hello_and_its_watchdog_resets_it_after_a_ctrl_c(device, mpy_lib):
    files = deployed_files(mpy_lib)
    assert "main.py" in files and "lib/crapsboard/link/link_task.mpy" in files
    dev = device(files)
    started = dev.wait_line(r"^sim device: watchdog started: (\d+) ms$")  # the app runs
    assert int(started.group(1)) == WATCHDOG_MS  # as crapsboard/table/board.py starts it
    with open_port(dev.port) as port:
        port.write(b"\n")  # the link at the start of a line
        hello = request(port, {"id": 1, "cmd": "hello"}, 1)
    assert hello["ok"] is True and hello["protocol"] == 1
    assert hello["board"] == "240ac4000001"  # machine.unique_id() of the virtual board, as hex
    assert (hello["reset_cause"], hello["boot_count"]) == (PWRON_RESET, 1)
    assert hello["firmware"] is None  # no firmware.json: host_tools deploy did not put it there
    # mpremote breaks into the running app (Ctrl-C) and finds the deployed files...
    listing = dev.mpremote("resume", "exec", "import os; print(sorted(os.listdir('lib/crapsboard/table'))[:2])")
    assert listing == "['__init__.mpy', 'app.mpy']\n"
    mark = len(dev.lines)
    # ...but the app's watchdog, once started, cannot be stopped: nobody feeds it now.
    reset = dev.wait_line(WATCHDOG_RESET, mark)
    starved, timeout = int(reset.group(1)), int(reset.group(2))
    assert timeout == WATCHDOG_MS
    assert WATCHDOG_MS <= starved < WATCHDOG_MS + 1000  # the device's own clock
    dev.wait_line(r"^sim device: watchdog started: %d ms$" % WATCHDOG_MS, mark + 1)  # the app again
    with open_port(dev.port) as port:
        port.write(b"\n")
        hello = request(port, {"id": 2, "cmd": "hello"}, 2)
    assert (hello["reset_cause"], hello["boot_count"]) == (WDT_RESET, 2)


# ---- the command line -------------------------------------------------------------


def test_link_and_config_and_a_clean_stop_on_sigint(device, tmp_path):
    config = '{"paytables": {"fire": "3"}}\n'
    (tmp_path / "config.json").write_text(config)
    link = tmp_path / "port"
    dev = device(None, "--link", str(link), "--config", str(tmp_path / "config.json"))
    assert os.path.realpath(link) == dev.port
    assert dev.mpremote("resume", "fs", "cat", ":config.json") == config  # written onto the board's flash
    dev.proc.send_signal(signal.SIGINT)
    assert dev.proc.wait(timeout=10) == 0
    assert not os.path.lexists(link)
    assert "config.json" in files_in(tmp_path / "flash.img")


def test_without_flash_a_fresh_board_is_served_and_thrown_away(tmp_path):
    # The board under test gets a temporary root of its own (TMPDIR), and only
    # that is checked: another virtual board running meanwhile (the other test
    # worker, a second checkout's `make test`) makes its folders in the shared
    # temporary directory, here on purpose.
    own_tmp = tmp_path / "tmp"
    own_tmp.mkdir()
    neighbour = Device(None)  # in the shared temporary directory, running all along
    dev = Device(None, env=dict(os.environ, TMPDIR=str(own_tmp)))
    try:
        assert [n for n in os.listdir(own_tmp) if n.startswith("sim-device-")]  # its flash is in its own root
        assert dev.mpremote("resume", "exec", "import os; print(os.listdir())") == "[]\n"  # erased, formatted
        dev.mpremote("resume", "exec", "open('x', 'w').write('1')")
    finally:
        dev.stop()
        left = os.listdir(own_tmp)
        neighbour.stop()
    assert left == []  # its flash went with it, while the neighbour's stayed


def test_bad_arguments_are_one_line_and_exit_2(tmp_path):
    short = tmp_path / "short.img"
    short.write_bytes(b"\xff" * 100)
    cases = [
        (["--flash", str(short)], "is 100 bytes, not a flash image"),
        (["--flash", str(tmp_path / "f.img"), "--keys", "1 nokey"], "--keys: token 'nokey'"),
        (["--flash", str(tmp_path / "f.img"), "--heap", "2K"], "--heap"),
        (["--flash", str(tmp_path)], "is a directory"),
    ]
    for args, words in cases:
        done = subprocess.run(
            [sys.executable, "-m", "sim", "device", *args], cwd=ROOT, capture_output=True, text=True, timeout=30
        )
        assert done.returncode == 2, (args, done.stderr)
        assert done.stdout == ""
        assert len(done.stderr.splitlines()) == 1 and done.stderr.startswith("sim device: "), done.stderr
        assert words in done.stderr
    assert not (tmp_path / "f.img").exists()  # refused before anything was made
