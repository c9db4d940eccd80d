"""The board's REPL through mpremote's Python API (mpremote 1.29, pinned).

mpremote breaks into the running app with Ctrl-C and enters the raw REPL
without a soft reset (what `mpremote connect PORT resume` does): the app's
watchdog then resets a board in play about 8 s later, so deploy first puts
the board into maintenance (host_tools/deploy.py). Failures are HostToolError:
exit 3 when the board cannot be reached, 1 when code on it fails.
"""

import ast
import contextlib
import io
import time

from host_tools import EXIT_FAILED, EXIT_NO_BOARD, HostToolError

READ_TIMEOUT = 5.0  # seconds for one read from the board (the "OK" after code is sent)
ENTER_TIMEOUT = 5.0  # seconds to reach the raw REPL prompt after Ctrl-C, Ctrl-A
CHUNK = 256  # bytes per write: mpremote's own default, safe for the ESP32's 260-byte USB buffer


class Repl:
    def __init__(self, port, wait=0.0):
        """Open `port` and enter the raw REPL, retrying for up to `wait` seconds
        (a board that is still booting after a reset)."""
        from mpremote.transport import TransportError
        from mpremote.transport_serial import SerialTransport

        self.port = port
        self.transport = None
        end = time.monotonic() + wait
        while True:
            try:
                # A read timeout: without one mpremote waits forever on a pty
                # (a virtual board) that does not answer. Its failures print
                # what it read to stdout: kept off ours.
                with contextlib.redirect_stdout(io.StringIO()):
                    self.transport = SerialTransport(port, 115200, timeout=READ_TIMEOUT)
                    self.transport.enter_raw_repl(soft_reset=False, timeout_overall=ENTER_TIMEOUT)
                return
            except (TransportError, OSError, Exception) as e:
                self.close()
                if time.monotonic() >= end:
                    raise HostToolError("cannot reach the REPL on %s: %s" % (port, _first_line(e)), EXIT_NO_BOARD)
                time.sleep(0.5)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        if self.transport is None:
            return
        try:
            if self.transport.in_raw_repl:
                self.transport.exit_raw_repl()
            self.transport.close()
        except Exception:
            pass  # the port is already gone (a reset, the virtual board stopped)
        self.transport = None

    def exec(self, code, timeout=10):
        """Run `code` on the board; its printed output (text)."""
        from mpremote.transport import TransportError

        try:
            with contextlib.redirect_stdout(io.StringIO()):  # mpremote prints what it read on failures
                out, err = self.transport.exec_raw(code, timeout=timeout)
        except TransportError as e:
            raise HostToolError("lost the REPL on %s: %s" % (self.port, _first_line(e)), EXIT_NO_BOARD)
        except OSError as e:
            raise HostToolError("lost %s: %s" % (self.port, _first_line(e)), EXIT_NO_BOARD)
        if err:
            lines = err.decode("utf-8", "replace").strip().splitlines()
            raise HostToolError("on the board: " + (lines[-1] if lines else "error"), EXIT_FAILED)
        return out.decode("utf-8", "replace")

    def eval(self, expression):
        """A Python literal computed on the board."""
        return ast.literal_eval(self.exec("print(repr(%s))" % expression).strip())

    def write_file(self, path, data, progress=None):
        """Write `data` (bytes) to `path` on the board, CHUNK bytes a step;
        `progress(n)` after each step with the bytes just written."""
        self.exec("f=open(%r,'wb')\nw=f.write" % path)
        for i in range(0, len(data), CHUNK):
            chunk = data[i : i + CHUNK]
            self.exec("w(%r)" % chunk)
            if progress:
                progress(len(chunk))
        self.exec("f.close()\ndel f,w")

    def read_file(self, path):
        """The bytes of `path` on the board, or None when it does not exist."""
        code = "try:\n f=open(%r,'rb')\n d=f.read()\n f.close()\nexcept OSError:\n d=None\nprint(repr(d))\ndel d\n"
        return ast.literal_eval(self.exec(code % path).strip())

    def hashes(self, paths):
        """{path: sha256 hex or None when missing} computed on the board."""
        code = (
            "import hashlib,binascii\n"
            "def _h(p):\n"
            " try:\n  f=open(p,'rb')\n except OSError:\n  return None\n"
            " h=hashlib.sha256();b=bytearray(512)\n"
            " while True:\n  n=f.readinto(b)\n  if not n:\n   break\n  h.update(b[:n])\n"
            " f.close()\n return binascii.hexlify(h.digest()).decode()\n"
            "print(repr({p:_h(p) for p in %r}))\ndel _h\n" % (list(paths),)
        )
        return ast.literal_eval(self.exec(code, timeout=30).strip())

    def walk(self, top):
        """Every file path under directory `top` on the board (none if it is missing)."""
        code = (
            "import os\n"
            "def _w(d,o):\n"
            " try:\n  es=list(os.ilistdir(d))\n except OSError:\n  return o\n"
            " for e in es:\n  p=d+'/'+e[0]\n  _w(p,o) if e[1]==0x4000 else o.append(p)\n"
            " return o\n"
            "print(repr(_w(%r,[])))\ndel _w\n" % top
        )
        return ast.literal_eval(self.exec(code).strip())

    def reset(self):
        """machine.reset(): the board restarts (main.py runs); this connection ends."""
        try:
            self.transport.exec_raw_no_follow("import machine\nmachine.reset()")
        except Exception:
            pass  # the reset can cut the reply short
        time.sleep(0.2)
        self.close()


def _first_line(e):
    text = str(e).strip() or type(e).__name__
    return text.splitlines()[0]


def reset(port):
    """Reset the board on `port` through its REPL (what `mpremote reset` does)."""
    with Repl(port) as repl:
        repl.reset()
