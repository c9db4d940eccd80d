# Power-up diagnostics and the rule for failed start-ups, kept apart from the
# app so they load first and cost little.
#
# A board never goes dark and dead: whatever fails before the app runs (a
# missing or broken board.json or config.json, a misspelt lamp, MemoryError,
# a journal fault) shows the fault pattern and resets after FAULT_RESET_MS.
# diag.json keeps a count of failed start-ups in a row across resets; after
# MAX_FAILED_BOOTS the board stops rebooting and holds the fault, so a
# technician finds it showing rather than cycling. It also keeps the boot
# count, the last reset cause and the last error for the host tools.
import json

FIRMWARE_VERSION = "0.3.0"
DIAG_FILE = "diag.json"
MAX_FAILED_BOOTS = 3
FAULT_RESET_MS = 5000  # not const(): the tests shorten it
_ERROR_CHARS = 72  # keeps diag.json small enough to be rewritten in place
measured = None  # the hash of the files this boot runs (crapsboard/boot/measure.py), set by main.py


def read_diag(path=DIAG_FILE):
    """The kept diagnostics; a missing or unreadable file starts them afresh."""
    diag = {"boots": 0, "failed": 0, "cause": None, "error": None}
    try:
        with open(path) as f:
            kept = json.loads(f.read())
    except (OSError, ValueError):
        return diag
    if isinstance(kept, dict):
        for key in diag:
            value = kept.get(key)
            if key in ("boots", "failed"):
                if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
                    diag[key] = value
            elif value is None or isinstance(value, (str, int)):
                diag[key] = value
    return diag


def write_diag(diag, path=DIAG_FILE):
    """Best effort: a full or broken filesystem must not stop the fault showing."""
    try:
        with open(path, "w") as f:
            f.write(json.dumps(diag))
    except OSError:
        pass


def maintenance_marker(path="maintenance"):
    """The maintenance marker's content, or None when there is none (main.py
    then boots to maintenance mode: docs/link.md). A `once` marker is removed
    now, so only this boot is in maintenance; `deploy` stays until the deploy
    that wrote it removes it."""
    try:
        with open(path) as f:
            mode = f.read().strip()
    except OSError:
        return None
    if mode == "once":
        import os

        os.remove(path)
    return mode


def begin(reset_cause, path=DIAG_FILE):
    """Count this boot; the diagnostics to carry through start-up."""
    diag = read_diag(path)
    diag["boots"] += 1
    diag["cause"] = reset_cause
    write_diag(diag, path)
    return diag


def describe(error):
    """One short line for an exception: its type and message."""
    text = type(error).__name__
    if error.args:
        text += ": " + str(error.args[0])
    return text[:_ERROR_CHARS]


def failed(diag, error, path=DIAG_FILE):
    """Record a failed start-up; True when the board should hold the fault
    instead of resetting (too many failures in a row)."""
    diag["failed"] += 1
    diag["error"] = describe(error)
    write_diag(diag, path)
    return diag["failed"] >= MAX_FAILED_BOOTS


def started(diag, path=DIAG_FILE):
    """The app is running: the next failure starts a new count."""
    if diag["failed"]:
        diag["failed"] = 0
        write_diag(diag, path)


def crashed(diag, error, path=DIAG_FILE):
    """The running app stopped with `error`; the watchdog resets the board."""
    diag["error"] = describe(error)
    write_diag(diag, path)


def shut_repl(key_file="link_key"):
    """Ctrl-C off for the rest of this boot once the board has a key
    (main.py: the REPL is shut while the table plays); True when shut."""
    import micropython

    from crapsboard.base import files

    if not files.exists(key_file):
        return False  # not provisioned: nothing to protect yet, the first deploy needs the REPL
    micropython.kbd_intr(-1)
    return True


def measure_firmware():
    """Hash the files this boot runs (crapsboard/boot/measure.py) for hello, as
    `measured`."""
    global measured
    try:
        from crapsboard.boot import measure

        measured = measure.firmware_hash()
    except Exception as e:  # MemoryError, OSError: hello then says null, never a wrong hash
        print("crapsboard: firmware not measured:", describe(e))
