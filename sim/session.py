"""Drive the firmware app on a simulated board, under CPython or MicroPython.

    from sim.session import Session
    with Session("micropython") as s:
        state = s.send("3 4 6 6")   # lamps, new events, hand, status
        state = s.advance(5000)     # let the clock run

Both runtimes run the same code (sim/run_core.py) and answer with the same
JSON text; `send_text` returns that text, `send` the parsed dict. For
MicroPython a `micropython sim/mp_run.py` process answers one line per line.
"""

import json
import os
import subprocess

from sim import ROOT, runtime

BOARD_JSON = os.path.join(ROOT, "hardware", "board.json")
RUNTIMES = ("cpython", "micropython")
# The firmware app alone runs in runtime.HEAPSIZE (tests/test_board_memory.py);
# the simulator's key scripts, simulated board and JSON need ~40 KB more.
HEAPSIZE = "192K"


class KeyScriptError(ValueError):
    """A key script token the simulator does not know; nothing was run."""


class SessionError(RuntimeError):
    """The simulator could not start or stopped answering."""


class Session:
    def __init__(self, runtime="cpython", config_text=None, board_path=BOARD_JSON, start_ms=0):
        if runtime not in RUNTIMES:
            raise ValueError("runtime must be one of " + ", ".join(RUNTIMES))
        self.runtime = runtime
        self._driver = None
        self._proc = None
        if runtime == "cpython":
            from sim.run_core import Driver

            self._driver = Driver(board_path, config_text, start_ms)
            return
        self._start_micropython(board_path, config_text, start_ms)

    def _start_micropython(self, board_path, config_text, start_ms):
        args = [board_path, "--start", str(start_ms)]
        if config_text:
            args += ["--config", config_text]
        self._proc = subprocess.Popen(
            runtime.micropython_command("mp_run.py", args, HEAPSIZE),
            env=runtime.micropython_env(),
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
        """One JSON line from mp_run.py; anything else (a traceback) ends the session."""
        line = self._proc.stdout.readline()
        if not line.startswith("{"):
            self._proc.stdin.close()
            rest = line + self._proc.stdout.read() + self._proc.stderr.read()
            self.close()
            raise SessionError("micropython stopped: " + (rest.strip() or "no output"))
        return line.rstrip("\n")

    def send_text(self, keys):
        """Run a key script (tokens separated by spaces or newlines): the state JSON text."""
        keys = " ".join(keys.split())
        if self._driver is not None:
            parts = []
            self._driver.send(keys, parts.append)
            text = "".join(parts)
        else:
            if self._proc is None:
                raise SessionError("session is closed")
            self._proc.stdin.write(keys + "\n")
            self._proc.stdin.flush()
            text = self._read_line()
        if text.startswith('{"error": '):
            raise KeyScriptError(json.loads(text)["error"])
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

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def lit(state):
    """The lit lamps of a state: name -> (color, blink, alt or None)."""
    return {name: (s["color"], s["blink"], s.get("alt")) for name, s in state["lamps"].items() if s["on"]}
