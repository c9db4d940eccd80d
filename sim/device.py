"""`python -m sim device --flash FILE`: a virtual board on a pseudo-terminal.

The board is the MicroPython unix VM running sim/portable/vboard.py: FILE is
its flash (littlefs, as the ESP32 mounts it), boot.py and main.py run from it,
and its REPL speaks what real mpremote and pyserial expect of an ESP32. This
side is only what surrounds the chip: the USB-serial bridge (a pseudo-terminal
in raw mode <-> the VM's standard input and output), Ctrl-C (byte 0x03 reaches
the board, whose REPL or link task turns it into a KeyboardInterrupt; code
that reads no input gets a SIGINT instead, as the ESP32's UART driver
interrupts whatever runs), the power (a new VM after machine.reset(), a soft reboot or the watchdog) and the
watchdog itself: 8 s without a feed once the app started it, whatever the VM
is doing, REPL included; and the dealer's hands (sim/keyfeed.py: --keys,
--key-feed), whose presses go to the board's pins on a pipe of their own.
docs/device.md.
"""

import errno
import json
import os
import random
import signal
import subprocess
import tempfile
import time
import tty

from crapsboard.table import layout as lay
from crapsboard.table.keypad import BUTTON_SHIFT
from sim import keyfeed, runtime
from sim.cli import ArgumentParser, CommandError, load_config_text, read_text
from sim.paths import BOARD_JSON
from sim.portable import keyscript
from sim.portable.norflash import BLOCK_COUNT, BLOCK_SIZE, EFUSE_BYTES, EFUSE_TAG

PROGRAM = "sim/portable/vboard.py"
# The firmware plays and serves the link in 320K (docs/board.md, Memory); the REPL
# and the stand-ins need room too.
HEAPSIZE = "512K"
WATCHDOG_MS = 8000  # firmware/lib/crapsboard/table/board.py: the ESP32's watchdog as the app starts it
# machine.unique_id() of an image made before images kept their chip's id (every new image has its own).
FIRST_BOARD_ID = "240ac4000001"
ESPRESSIF_OUI = "240ac4"  # the first three bytes of an ESP32's factory MAC
PARTITION_BYTES = BLOCK_COUNT * BLOCK_SIZE
# machine.reset_cause() values of the ESP32 port (ports/esp32/modmachine.c).
PWRON_RESET, HARD_RESET, WDT_RESET, SOFT_RESET = 1, 2, 3, 5
CTRL_C = 3
# Ctrl-C: the byte goes to the board first; when nothing there reads it (a
# loop that reads no input) a SIGINT follows this much later. The SIGINT's
# KeyboardInterrupt can land anywhere, the flash driver included
# (vboard_flash.py), so the byte, read where the board expects it, comes first.
READ_CTRL_C_S = 0.25
SIGINT_GAP_S = 0.05  # a second SIGINT before the VM took the first would kill it: one per gap
AGAIN_S = 0.02  # a Ctrl-C that landed in a flash operation is delivered again this much later
KEY_WRITE = 512  # POSIX's least PIPE_BUF, a multiple of keyfeed.WORD's 8 bytes
OUTPUT_KEPT = 64 * 1024  # output nobody reads is dropped beyond this, oldest first (a UART would lose it)
QUICK_DEATHS = 3  # the VM ending this many times in a row within START_S of starting: give up
START_S = 2.0


def _die_with_parent():
    # Linux: the VM gets SIGKILL when this process dies, even by SIGKILL: a
    # killed device is a board without power, never a VM left running.
    try:
        import ctypes

        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


class Stop(Exception):
    """SIGINT or SIGTERM: stop serving."""


# ---- the keypad ---------------------------------------------------------------


def pin_map(layout):
    """The pins the VM's machine.Pin wires to the input bitmap (keypad.py's bit order)."""
    buttons = []
    for j, pin in enumerate(layout.button_pins):
        if pin is not None:
            buttons.append([pin, BUTTON_SHIFT + j, 1 if layout.button_active_low[j] else 0])
    return {"rows": list(layout.rows), "cols": list(layout.cols), "buttons": buttons}


# ---- the board ----------------------------------------------------------------


class Device:
    """One virtual board: the pseudo-terminal, the flash image and the VM."""

    def __init__(self, flash, layout, config_text=None, hands=None, heapsize=HEAPSIZE, log=None):
        self.flash = os.path.abspath(flash)
        if not os.path.exists(self.flash):
            new_image(self.flash)
        self.board_id = board_id(self.flash)  # the chip's id: its journal is tied to it
        self.pins = pin_map(layout)
        self.config_text = config_text
        self.hands = hands or keyfeed.Hands(layout)  # what is held down: written to the VM as it changes
        self.keys_fd = None  # the pipe the held inputs go down to this VM
        self.heapsize = heapsize
        self.log = log or (lambda line: None)
        self.master = self.slave = None
        self.port = None
        self.vm = None
        self.workdir = tempfile.mkdtemp(prefix="sim-device-")
        self.settings_path = os.path.join(self.workdir, "settings.json")
        self.to_vm = bytearray()  # host bytes waiting for the VM's standard input
        self.to_host = bytearray()  # board output waiting for the terminal
        self.pending = bytearray()  # host bytes that came before the VM was ready
        self.control = bytearray()
        self.up = False
        self.interrupt_char = CTRL_C
        self.last_sigint = 0.0
        self.sigint_at = None  # a SIGINT scheduled for this time (a Ctrl-C nobody read)
        self.watchdog_ms = None
        self.last_feed = None
        self.resets = []  # (cause, monotonic time), for the log and the tests
        self.started_at = 0.0
        self.chip_reset_at = 0.0
        self.quick_deaths = 0

    # ---- the port ---------------------------------------------------------

    def open_port(self):
        """Make the pseudo-terminal; its path is the serial port."""
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)  # bytes as they are: no echo, no line editing, no signals
        os.set_blocking(self.master, False)
        self.port = os.ttyname(self.slave)
        return self.port

    # ---- the power ----------------------------------------------------------

    def power_on(self, cause=PWRON_RESET, mode="friendly"):
        """Start the VM: a reset of the chip (the flash stays)."""
        if cause != SOFT_RESET:  # the chip's tick counter starts again (a soft reboot keeps it)
            self.chip_reset_at = time.monotonic()
        control_read, control_write = os.pipe()
        keys_read, self.keys_fd = os.pipe()
        os.set_blocking(keys_read, False)  # the board polls it while it scans the keypad
        os.set_blocking(self.keys_fd, False)
        self._keys_at_power_up()
        settings = {
            "channel": control_write,
            "keys": keys_read,
            "flash": self.flash,
            "mode": mode,
            "cause": cause,
            "uptime_ms": round((time.monotonic() - self.chip_reset_at) * 1000),
            "uid": self.board_id,
            "pins": self.pins,
            "config": self.config_text,
        }
        self.config_text = None  # written once, at the first power-up
        with open(self.settings_path, "w", encoding="utf-8") as f:
            json.dump(settings, f)
        self.vm = runtime.start(
            PROGRAM,
            [self.settings_path],
            heapsize=self.heapsize,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,  # the ESP32 has one UART for both
            pass_fds=(control_write, keys_read),
            start_new_session=True,  # a Ctrl-C at this terminal stops the device, not the VM behind its back
            preexec_fn=_die_with_parent,
        )
        os.close(control_write)
        os.close(keys_read)
        self.control_fd = control_read
        for fd in (self.vm.stdin.fileno(), self.vm.stdout.fileno(), control_read):
            os.set_blocking(fd, False)
        self.up = False
        self.control = bytearray()
        self.started_at = time.monotonic()

    def power_off(self):
        """Cut the power: kill the VM, pass on what it had written, close its pipes."""
        vm, self.vm = self.vm, None
        if vm is None:
            return
        if vm.poll() is None:
            vm.kill()
        vm.wait()
        out = vm.stdout.fileno()
        os.set_blocking(out, True)
        while True:
            data = os.read(out, 65536)
            if not data:
                break
            self._output(data)
        for stream in (vm.stdin, vm.stdout):
            try:
                stream.close()
            except OSError:
                pass
        os.close(self.control_fd)
        os.close(self.keys_fd)
        self.keys_fd = None
        self.up = False

    def reset(self, cause, mode="friendly", why=""):
        """A reset: a new VM. The watchdog survives only a soft reboot, as on the ESP32."""
        self.power_off()
        self.resets.append((cause, time.monotonic()))
        self.log("reset: %s" % why if why else "reset")
        self.sigint_at = None
        if cause == SOFT_RESET:  # the UART keeps what it received: the new VM reads it
            self.pending[:0] = self.to_vm
        else:
            self.watchdog_ms = self.last_feed = None
            self.pending.clear()
            self._drop_host_input()  # what the host sends while the chip resets is lost
        self.to_vm.clear()
        self.power_on(cause, mode)

    def _drop_host_input(self):
        try:
            while os.read(self.master, 65536):
                pass
        except OSError:
            pass

    # ---- bytes --------------------------------------------------------------

    def _output(self, data):
        self.to_host += data
        if len(self.to_host) > OUTPUT_KEPT:
            del self.to_host[: len(self.to_host) - OUTPUT_KEPT]

    def _from_host(self, data):
        if not self.up:
            self.pending += data
            return
        self.to_vm += data
        if CTRL_C in data and self.interrupt_char == CTRL_C and self.sigint_at is None:
            self.sigint_at = time.monotonic() + READ_CTRL_C_S  # unless the board says it took it

    def _send_sigint(self, now):
        if now - self.last_sigint < SIGINT_GAP_S:
            self.sigint_at = self.last_sigint + SIGINT_GAP_S  # not yet: the VM may not have taken the last
            return
        self.sigint_at = None
        self.last_sigint = now
        if self.vm is not None and self.vm.poll() is None:
            self.vm.send_signal(signal.SIGINT)

    def _flush_to_vm(self):
        if not self.to_vm or self.vm is None:
            return
        try:
            n = os.write(self.vm.stdin.fileno(), self.to_vm)
        except BlockingIOError:
            return
        except OSError as e:
            if e.errno != errno.EPIPE:
                raise
            self.to_vm.clear()
            return
        del self.to_vm[:n]

    def _flush_to_host(self):
        if not self.to_host:
            return
        try:
            n = os.write(self.master, self.to_host)
        except BlockingIOError:
            return
        del self.to_host[:n]

    def _send_keys(self):
        """Every change of the held inputs to the VM, in order, one word each."""
        unsent = self.hands.unsent
        while unsent and self.keys_fd is not None:
            try:
                # At most KEY_WRITE bytes a write: a pipe takes those whole or not at all,
                # so a word is never split.
                n = os.write(self.keys_fd, unsent[:KEY_WRITE])
            except BlockingIOError:  # the board has not read for a long while: sent when it has room
                return
            except BrokenPipeError:  # the VM is going: the next one gets what is held at power-up
                break
            del unsent[:n]
        del unsent[:]

    def _keys_at_power_up(self):
        """What is held as the chip comes up (changes meant for the VM before are gone with it)."""
        del self.hands.unsent[:]
        self.hands.unsent += self.hands.word()
        self._send_keys()

    # ---- the control channel --------------------------------------------------

    def _control(self, line):
        word, _, arg = line.partition(" ")
        now = time.monotonic()
        if word == "up":
            self.up = True
            pending, self.pending = self.pending, bytearray()
            self._from_host(bytes(pending))
        elif word == "wdt":
            self.watchdog_ms = int(arg)
            self.last_feed = now
            self.log("watchdog started: %d ms" % self.watchdog_ms)
            if not self.hands.started:  # the app runs: the dealer's hands start
                self.hands.start(now)
                self.log("keys: started")
        elif word == "feed":
            self.last_feed = now
        elif word == "reset":
            self.reset(HARD_RESET, why="machine.reset()")
            return False
        elif word == "soft":
            self.reset(SOFT_RESET, mode=arg, why="soft reboot")
            return False
        elif word == "kbd":
            self.interrupt_char = int(arg)
        elif word == "intr":  # the board took a Ctrl-C (read it, or was interrupted)
            self.sigint_at = None
        elif word == "again":
            self.sigint_at = now + AGAIN_S * (1 + random.random())  # no lock-step with the board's writes
        elif word == "error":
            raise CommandError(arg)
        return True

    def _read_control(self):
        try:
            data = os.read(self.control_fd, 4096)
        except BlockingIOError:
            return
        self.control += data
        while b"\n" in self.control:
            line, _, rest = bytes(self.control).partition(b"\n")
            self.control = bytearray(rest)
            if not self._control(line.decode("utf-8", "replace")):
                return  # a new VM: the rest belonged to the old one

    # ---- serving --------------------------------------------------------------

    def _watchdog_left(self, now):
        if self.watchdog_ms is None:
            return None
        return self.last_feed + self.watchdog_ms / 1000 - now

    def _vm_ended(self):
        try:
            status = self.vm.wait(1)
        except subprocess.TimeoutExpired:
            status = None  # it closed its output and lives on: cut its power
        quick = time.monotonic() - self.started_at < START_S
        self.quick_deaths = self.quick_deaths + 1 if quick else 0
        if self.quick_deaths >= QUICK_DEATHS:
            raise CommandError("the board's VM keeps ending at start-up (status %s)" % status)
        self.reset(HARD_RESET, why="the VM ended (status %s), as a panic resets the ESP32" % status)

    def step(self, timeout):
        """Wait up to `timeout` s for something to do, and do it."""
        import select

        vm = self.vm
        readers = [self.master, vm.stdout.fileno(), self.control_fd]
        writers = []
        if self.to_vm:
            writers.append(vm.stdin.fileno())
        if self.to_host:
            writers.append(self.master)
        now = time.monotonic()
        keys_at = self.hands.next_change()
        for left in (
            self._watchdog_left(now),
            None if self.sigint_at is None else self.sigint_at - now,
            None if keys_at is None else keys_at - now,
        ):
            if left is not None:
                timeout = max(0.0, min(timeout, left))
        readable, writable, _ = select.select(readers, writers, [], timeout)
        if self.control_fd in readable:
            self._read_control()
            if self.vm is not vm:
                return
        if vm.stdout.fileno() in readable:
            data = os.read(vm.stdout.fileno(), 65536)
            if data:
                self._output(data)
            else:  # the VM is gone (or going): its last words (a reset) come first
                self._read_control()
                if self.vm is vm:
                    self._vm_ended()
                return
        if self.master in readable:
            try:
                data = os.read(self.master, 65536)
            except BlockingIOError:
                data = b""
            self._from_host(data)
        self._flush_to_vm()
        self._flush_to_host()
        now = time.monotonic()
        if self.hands.advance(now) or self.hands.unsent:
            self._send_keys()
        if self.sigint_at is not None and now >= self.sigint_at:
            self._send_sigint(now)
        left = self._watchdog_left(now)
        if left is not None and left <= 0:
            starved = round((now - self.last_feed) * 1000)
            self.reset(WDT_RESET, why="watchdog: %d ms without a feed (timeout %d ms)" % (starved, self.watchdog_ms))

    def close(self):
        self.power_off()
        for fd in (self.master, self.slave):
            if fd is not None:
                os.close(fd)
        self.master = self.slave = None
        try:
            os.remove(self.settings_path)
        except OSError:
            pass
        try:
            os.rmdir(self.workdir)
        except OSError:
            pass


# ---- the chip's id -----------------------------------------------------------------


def _efuse(board):
    return EFUSE_TAG + board.encode("ascii") + b"\n"


def board_id(path):
    """The id (hex) of the chip whose flash image is `path`: the one its image
    keeps after the partition, or FIRST_BOARD_ID for an image without one."""
    with open(path, "rb") as f:
        f.seek(PARTITION_BYTES)
        tail = f.read()
    if not tail:
        return FIRST_BOARD_ID
    if len(tail) != EFUSE_BYTES or not tail.startswith(EFUSE_TAG) or not tail.endswith(b"\n"):
        raise ValueError("not a chip id")
    board = tail[len(EFUSE_TAG) : -1].decode("ascii")
    int(board, 16)  # ValueError when it is not hex
    if len(board) != 12:
        raise ValueError("not a chip id")
    return board


def new_image(path, board=None):
    """A new chip's flash: every block erased (formatted at its first boot) and
    a new id of its own (`board`, 12 hex digits, or an Espressif MAC at random)."""
    board = board or ESPRESSIF_OUI + os.urandom(3).hex()
    with open(path, "wb") as f:
        f.write(b"\xff" * PARTITION_BYTES + _efuse(board))
    return board


# ---- the command ------------------------------------------------------------------


def check_image(path):
    """Refuse what cannot be this board's flash; a missing file is a new, erased flash."""
    if os.path.isdir(path):
        raise CommandError("flash %s is a directory" % path)
    if not os.path.exists(path):
        try:
            open(path, "ab").close()
            os.remove(path)
        except OSError as e:
            raise CommandError("cannot create flash %s: %s" % (path, e.strerror or e))
        return
    size = os.path.getsize(path)
    if size not in (PARTITION_BYTES, PARTITION_BYTES + EFUSE_BYTES):
        raise CommandError(
            "flash %s is %d bytes, not a flash image (%d blocks of %d bytes, and the chip's id)"
            % (path, size, BLOCK_COUNT, BLOCK_SIZE)
        )
    try:
        board_id(path)
    except (OSError, ValueError):
        raise CommandError("flash %s: its last %d bytes are not a chip's id" % (path, EFUSE_BYTES))
    if not os.access(path, os.R_OK | os.W_OK):
        raise CommandError("flash %s: cannot read and write it" % path)


def build_parser():
    parser = ArgumentParser(prog="python -m sim device", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--flash",
        metavar="FILE",
        help="the board's flash image (made and formatted when missing; kept between runs);"
        " without it a fresh board whose flash is discarded at exit",
    )
    parser.add_argument("--config", metavar="FILE", help="write this config.json onto the board at power-up")
    parser.add_argument(
        "--keys", metavar="SCRIPT", help='press keys once the app runs, e.g. "wait:2000 3 4" (docs/keys.md)'
    )
    parser.add_argument(
        "--key-feed",
        metavar="FILE",
        help="press the key-script lines of FILE as they are appended to it, once the app runs (docs/device.md)",
    )
    parser.add_argument("--board", metavar="FILE", default=BOARD_JSON, help="board description the keys are wired by")
    parser.add_argument("--link", metavar="PATH", help="also make PATH a symbolic link to the serial port")
    parser.add_argument("--heap", metavar="SIZE", help="the VM's heap, e.g. 192K (default %s)" % HEAPSIZE)
    return parser


def _layout(path):
    try:
        return lay.Layout(json.loads(read_text(path, "board description")))
    except ValueError as e:  # LayoutError is one
        raise CommandError("%s: %s" % (path, e))


def main(argv):
    args = build_parser().parse_args(argv)
    scratch = None
    if args.flash is None:  # a fresh board for this run only
        scratch = tempfile.TemporaryDirectory(prefix="sim-device-")
        args.flash = os.path.join(scratch.name, "flash.img")
    check_image(args.flash)
    heapsize = HEAPSIZE
    if args.heap is not None:
        try:
            heapsize = runtime.heap_size(args.heap)
        except ValueError as e:
            raise CommandError(str(e))
    config_text = load_config_text(args.config) if args.config else None
    layout = _layout(args.board)
    steps = []
    if args.keys is not None:
        try:
            steps = keyfeed.script_steps(args.keys, layout)
        except keyscript.KeyScriptError as e:
            raise CommandError("--keys: %s" % e)
    if args.key_feed is not None and os.path.isdir(args.key_feed):
        raise CommandError("--key-feed %s is a directory" % args.key_feed)
    if args.link and os.path.lexists(args.link) and not os.path.islink(args.link):
        raise CommandError("--link %s exists and is not a symbolic link" % args.link)
    try:
        runtime.micropython_binary()
    except runtime.RuntimeMissing as e:
        raise CommandError(str(e))

    def log(line):
        print("sim device: %s" % line, flush=True)

    def stop(signum, frame):
        raise Stop()

    if not os.path.exists(args.flash):
        try:
            new_image(args.flash)
        except OSError as e:
            raise CommandError("cannot create flash %s: %s" % (args.flash, e.strerror or e))
    hands = keyfeed.Hands(layout, steps, args.key_feed, log)
    device = Device(args.flash, layout, config_text, hands, heapsize, log)
    previous = {s: signal.signal(s, stop) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        port = device.open_port()
        if args.link:
            if os.path.islink(args.link):
                os.remove(args.link)
            os.symlink(port, args.link)
        print(port, flush=True)  # the first line is the port alone, for scripts: PORT=$(... | head -1)
        device.power_on()
        while True:
            device.step(1.0)
    except Stop:
        return 0
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        device.close()
        if args.link and os.path.islink(args.link):
            os.remove(args.link)
        if scratch is not None:
            scratch.cleanup()
