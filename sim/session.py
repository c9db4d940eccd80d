"""Drive the firmware app on a simulated board, under CPython or MicroPython.

    from sim.session import Session
    with Session("micropython") as s:
        state = s.send("3 4 6 6")   # lamps, new events, hand, status
        state = s.advance(5000)     # let the clock run

Both runtimes run the same code (sim/portable/run_core.py) and answer with the
same JSON text; `send_text` returns that text, `send` the parsed dict. For
MicroPython a `sim/portable/mp_run.py` process takes the configuration as a
file and each script as a stream of short lines, so neither has a size limit.
"""

import json
import os
import subprocess
import tempfile
import threading

from crapsboard.table import layout as lay
from sim import runtime as vm  # `runtime` names the Session's runtime
from sim.paths import BOARD_JSON
from sim.portable import keyscript

RUNTIMES = ("cpython", "micropython")
# The firmware app alone runs in runtime.HEAPSIZE (tests/test_board_memory.py).
# Here the VM also compiles the firmware from source (a board loads .mpy) and
# holds the simulator's key scripts, board and JSON: sessions start from ~170K
# but fail at some sizes up to 197K, where the compiler's large blocks no
# longer fit the fragmented heap (docs/board.md); 256K is clear of all that.
HEAPSIZE = "256K"
FLASH_HEAPSIZE = "4M"  # with --flash the VM also holds the 2 MiB flash image
TOKENS_PER_LINE = 64  # a script reaches the VM in lines this long


class KeyScriptError(ValueError):
    """A key script token the simulator does not know; nothing was run."""


class SessionError(RuntimeError):
    """The simulator could not start or stopped answering."""


class Session:
    def __init__(
        self,
        runtime="cpython",
        config_text=None,
        board_path=BOARD_JSON,
        start_ms=0,
        heapsize=None,
        flash=None,
        cut_after=0,
        new_journal=False,
    ):
        """`heapsize` (micropython only): the VM's heap, as runtime.heap_size
        spells it. `flash`: a file keeping the board's flash image (created
        and formatted on first use), so each session is a boot of one board
        with its journal; `cut_after` K cuts the power after the K-th block
        program or erase (half done); `new_journal`: power up with END HAND
        held and the keyswitch on (a supervisor starts a new journal)."""
        if runtime not in RUNTIMES:
            raise ValueError("runtime must be one of " + ", ".join(RUNTIMES))
        if heapsize is not None and runtime != "micropython":
            raise ValueError("a heap size is for the MicroPython VM: use it with --runtime micropython")
        self.runtime = runtime
        self._heapsize = heapsize or HEAPSIZE
        self._heapsize_given = heapsize is not None
        self._driver = None
        self._proc = None
        self._config_file = None
        self.flash_path = flash
        if runtime == "cpython":
            from sim.portable.run_core import BootError, Driver

            device = None
            if flash is not None:
                from sim.portable.run_core import open_flash

                device = _checked(open_flash, flash, cut_after)
            try:
                self._driver = Driver(
                    board_path,
                    config_text,
                    start_ms,
                    device,
                    flash is not None and not os.path.exists(flash),
                    new_journal,
                )
            except BootError as e:
                raise SessionError(str(e))
            self._layout = self._driver.layout
            self._save()
            return
        self._layout = lay.load(board_path)
        extra = []
        if flash is not None:
            _checked(lambda path, cut: None, flash, cut_after)
            extra = ["--flash", vm.vm_path(flash), "--cut-after-writes", str(cut_after)]
            extra += ["--fresh"] if not os.path.exists(flash) else []
            extra += ["--new-journal"] if new_journal else []
        self._start_micropython(board_path, config_text, start_ms, extra)

    def _save(self):
        if self._driver is not None and self._driver.flash is not None:
            self._driver.flash.save(self.flash_path)

    def _start_micropython(self, board_path, config_text, start_ms, extra=()):
        args = [vm.vm_path(board_path), "--start", str(start_ms), *extra]
        if config_text:
            fd, self._config_file = tempfile.mkstemp(prefix="sim-config-", suffix=".json")
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(config_text)
            args += ["--config", self._config_file]
        self._proc = vm.start(
            "sim/portable/mp_run.py",
            args,
            self._heapsize if self._heapsize_given or "--flash" not in args else FLASH_HEAPSIZE,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        ready = json.loads(self._read_line())
        if ready.get("ready") is not True:
            self.close()
            raise SessionError(ready.get("error", "micropython did not start"))

    def _read_line(self):
        """One JSON line from mp_run.py; anything else (an error) ends the session."""
        line = self._proc.stdout.readline()
        if not line.startswith("{"):
            self._proc.stdin.close()
            rest = (line + self._proc.stdout.read() + self._proc.stderr.read()).strip()
            self.close()
            if rest.startswith("Traceback"):  # failed before vmmain could word it (an import)
                rest = rest.splitlines()[-1]
            if "MemoryError" in rest or "out of memory" in rest:
                rest = "out of memory in a %s-byte heap (the default is %s)" % (self._heapsize, HEAPSIZE)
            raise SessionError("micropython stopped: " + (rest or "no output"))
        return line.rstrip("\n")

    def _stream(self, keys):
        """Write the script a few tokens a line, then the end mark. Runs beside
        the reader: the VM writes events while it reads, so neither pipe fills."""
        try:
            line = []
            for token in keyscript.tokens(keys):
                line.append(token)
                if len(line) == TOKENS_PER_LINE:
                    self._proc.stdin.write("k " + " ".join(line) + "\n")
                    line = []
            if line:
                self._proc.stdin.write("k " + " ".join(line) + "\n")
            self._proc.stdin.write(".\n")
            self._proc.stdin.flush()
        except (BrokenPipeError, ValueError):
            pass  # the VM has gone; the reader reports why

    def send_text(self, keys):
        """Run a key script (tokens separated by white space): the state JSON text."""
        try:
            keyscript.check(keys, self._layout)
        except keyscript.KeyScriptError as e:
            raise KeyScriptError(str(e.args[0]))
        if self._driver is not None:
            parts = []
            self._driver.send(keys, parts.append)
            self._save()
            return "".join(parts)
        if self._proc is None:
            raise SessionError("session is closed")
        writer = threading.Thread(target=self._stream, args=(keys,), daemon=True)
        writer.start()
        text = self._read_line()
        writer.join()
        return text

    def send(self, keys):
        """Run a key script; the state after it as a dict: t, status, pending,
        supervisor, hand {shooter, point, fire_points, rolls}, events (new
        since the last call), lamps {name: {on, color, blink[, alt]}}."""
        return json.loads(self.send_text(keys))

    def advance(self, ms):
        """Let `ms` milliseconds pass with nothing pressed."""
        return self.send("wait:%d" % ms)

    def close(self):
        if self._driver is not None:
            self._driver.close()
        proc, self._proc = self._proc, None
        if proc is not None:
            proc.stdin.close()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            proc.stdout.close()
            proc.stderr.close()
        if self._config_file is not None:
            os.remove(self._config_file)
            self._config_file = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _checked(opener, path, cut_after):
    # The image file must be one flash's worth; a missing one is a new board.
    if cut_after < 0:
        raise SessionError("--cut-after-writes must be 1 or more")
    if os.path.isdir(path):
        raise SessionError(path + " is a directory, not a flash image")
    if os.path.exists(path):
        from sim.portable.norflash import BLOCK_COUNT, BLOCK_SIZE

        if os.path.getsize(path) != BLOCK_COUNT * BLOCK_SIZE:
            raise SessionError(
                "%s is not a flash image (%d bytes, not %d)" % (path, os.path.getsize(path), BLOCK_COUNT * BLOCK_SIZE)
            )
    return opener(path, cut_after)


def lit(state):
    """The lit lamps of a state: name -> (color, blink, alt or None)."""
    return {name: (s["color"], s["blink"], s.get("alt")) for name, s in state["lamps"].items() if s["on"]}
