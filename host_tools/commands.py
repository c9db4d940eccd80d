"""The commands that talk to a running board over the link: ports, status,
monitor, config, selftest, time, maintenance.

Each command is a plain function taking an open BoardLink (the Python API)
and a `run_*` wrapper for the command line, which prints the result for
people or, with --json, as one JSON document for scripts.
"""

import json
import sys
import time

from host_tools import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_USAGE, HostToolError, keys
from host_tools.link import DEFAULT_TIMEOUT, BoardLink

# ---- shared options and output ------------------------------------------------------


def add_port_options(parser, json_option=True):
    parser.add_argument("--port", "-p", required=True, help="serial port of the board (/dev/ttyUSB0, COM3, a pty)")
    parser.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        help="seconds to wait for each reply (default %g)" % DEFAULT_TIMEOUT,
    )
    if json_option:
        parser.add_argument("--json", action="store_true", help="print one JSON document for scripts")


def add_key_option(parser):
    parser.add_argument(
        "--key", metavar="FILE", help="the board's key file (default: the key kept on this host for the board's id)"
    )


def connect(args):
    return BoardLink(args.port, timeout=args.timeout)


def emit(args, obj, human):
    """Print `obj` as JSON with --json, else the lines `human` gives for it."""
    if getattr(args, "json", False):
        print(json.dumps(obj, sort_keys=True))
    else:
        for line in human(obj):
            print(line)


def lamp_text(lamp):
    if not lamp["on"]:
        return "off"
    text = "on " + lamp["color"]
    if lamp.get("blink"):
        text += " blinking" + (" to " + lamp["alt"] if lamp.get("alt") else "")
    return text


def flat_lines(obj, prefix=""):
    """A nested reply as `name: value` lines (dotted names), for people."""
    lines = []
    for key in sorted(obj):
        value = obj[key]
        name = prefix + str(key)
        if isinstance(value, dict) and {"on", "color"} <= set(value) <= {"on", "color", "blink", "alt"}:
            lines.append("%s: %s" % (name, lamp_text(value)))  # a lamp: one line
        elif isinstance(value, dict) and value:
            lines.extend(flat_lines(value, name + "."))
        else:
            lines.append("%s: %s" % (name, json.dumps(value) if not isinstance(value, str) else value))
    return lines


# ---- the Python API ----------------------------------------------------------------


def board_key(link, key_file=None):
    """The key for `link`'s board: `key_file`, else the host's key for its id."""
    return keys.find_key(key_file, link.hello().get("board"))


def status(link):
    return link.request("status")


def config_get(link):
    reply = link.request("config_get")
    if not isinstance(reply.get("config"), dict):
        raise HostToolError("the board's config_get reply has no config object", EXIT_FAILED)
    return reply["config"]


def config_set(link, config, key):
    return link.signed("config_set", key, config=config)


def config_diff(board_config, file_config):
    """[(dotted name, on the board, in the file)] for every value that differs
    (a value missing on one side is None there)."""
    out = []

    def walk(a, b, prefix):
        for name in sorted(set(a) | set(b)):
            x, y = a.get(name), b.get(name)
            if isinstance(x, dict) and isinstance(y, dict):
                walk(x, y, prefix + name + ".")
            elif x != y:
                out.append((prefix + name, x, y))

    walk(board_config, file_config, "")
    return out


def effective_config(file_config):
    """The configuration a board makes of `file_config` (a checked config.json
    object), spelt as config_get spells it: a key the file leaves out takes
    its default, so a diff shows what would change, not what the file omits."""
    from crapsboard import config as cfg
    from crapsboard import link_config

    return link_config.as_json(cfg.parse(file_config))


def selftest(link, timeout=10.0):
    return link.request("selftest", timeout=timeout)


def set_time(link, key, unix=None):
    unix = int(time.time()) if unix is None else unix
    reply = link.signed("time", key, unix=unix)
    return dict(reply, unix=unix)


def maintenance(link, key):
    return link.signed("maintenance", key)


def probe(port, timeout=1.0):
    """hello's reply from `port`, or None when nothing there answers the link."""
    try:
        with BoardLink(port, timeout=timeout) as link:
            return link.hello()
    except HostToolError:
        return None


def list_ports(extra=(), timeout=1.0):
    """Serial ports found by pyserial (and `extra` ones, e.g. a virtual board's
    pty), each with the hello of the board answering on it, or None."""
    from serial.tools import list_ports as lp

    found = [(p.device, p.description) for p in sorted(lp.comports(), key=lambda p: p.device)]
    found += [(p, "given with --port") for p in extra if p not in [d for d, _ in found]]
    return [{"port": d, "description": desc, "hello": probe(d, timeout)} for d, desc in found]


def monitor(link, on_event, count=None, seconds=None):
    """Subscribe and pass each pushed event to `on_event` until `count` events
    or `seconds` have passed (both None: until interrupted)."""
    link.request("subscribe", on=True)
    seen = 0
    end = None if seconds is None else time.monotonic() + seconds
    try:
        while count is None or seen < count:
            wait = 0.5 if end is None else min(0.5, end - time.monotonic())
            if wait <= 0:
                break
            event = link.next_event(wait)
            if event is not None:
                on_event(event)
                seen += 1
    finally:
        try:
            link.request("subscribe", on=False)
        except HostToolError:
            pass  # the board went away: nothing to unsubscribe
    return seen


# ---- command-line handlers ---------------------------------------------------------


def _ports_arguments(parser):
    parser.add_argument(
        "--port", "-p", action="append", default=[], help="also probe this port (a virtual board's pty)"
    )
    parser.add_argument("--timeout", type=float, default=1.0, help="seconds to wait for hello on each port (default 1)")
    parser.add_argument("--json", action="store_true")


def _run_ports(args):
    rows = list_ports(args.port, args.timeout)

    def human(rows):
        if not rows:
            return ["no serial ports found"]
        lines = []
        for r in rows:
            h = r["hello"]
            who = "board %s, firmware %s" % (h.get("board"), h.get("firmware")) if h else "no answer to hello"
            lines.append("%-20s %-32s %s" % (r["port"], r["description"][:32], who))
        return lines

    emit(args, rows, human)


def _status_arguments(parser):
    add_port_options(parser)


def _run_status(args):
    from host_tools import board_records

    with connect(args) as link:
        reply = dict(hello=link.hello(), status=status(link))
    ok, firmware_line = board_records.check_firmware(reply["hello"])
    reply["checks"] = {"firmware": firmware_line, "journal_head": board_records.check_head(reply["hello"]) or "ok"}
    emit(args, reply, flat_lines)
    if not ok:
        raise HostToolError("board %s: %s" % (reply["hello"].get("board"), firmware_line), EXIT_FAILED)


def _monitor_arguments(parser):
    add_port_options(parser)
    parser.add_argument("--count", type=int, help="stop after this many events")
    parser.add_argument("--seconds", type=float, help="stop after this many seconds")


def _run_monitor(args):
    if args.json:

        def show(event):
            print(json.dumps(event, sort_keys=True), flush=True)
    else:
        from rich.console import Console

        console = Console(highlight=False)

        def show(event):
            fields = " ".join("%s=%s" % (k, json.dumps(v)) for k, v in sorted(event.items()) if k != "event")
            console.print("[dim]%s[/dim] [bold]%s[/bold] %s" % (time.strftime("%H:%M:%S"), event["event"], fields))

    with connect(args) as link:
        if not args.json and sys.stdout.isatty():
            print("monitoring %s: Ctrl-C to stop" % args.port, file=sys.stderr)
        try:
            monitor(link, show, args.count, args.seconds)
        except KeyboardInterrupt:
            raise HostToolError("stopped", EXIT_INTERRUPTED)


def _config_arguments(parser):
    sub = parser.add_subparsers(dest="action", required=True, parser_class=type(parser))
    get = sub.add_parser("get", help="print the configuration in force")
    add_port_options(get)
    for name, what in (("set", "apply a configuration file (signed)"), ("diff", "compare a file with the board")):
        p = sub.add_parser(name, help=what)
        p.add_argument("file", metavar="FILE", help="configuration JSON (docs/board.md's config.json)")
        add_port_options(p)
        if name == "set":
            add_key_option(p)


def read_config_file(path):
    """The configuration in `path`, checked by the firmware's own checker first,
    so a file the board would refuse is refused here (exit 2), nothing sent."""
    from crapsboard import config as cfg

    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise HostToolError("cannot read %s: %s" % (path, e.strerror), EXIT_USAGE)
    except UnicodeDecodeError:
        raise HostToolError(path + " is not UTF-8 text", EXIT_USAGE)
    try:
        obj = json.loads(text)
    except ValueError as e:
        raise HostToolError("%s: not valid JSON (%s)" % (path, e), EXIT_USAGE)
    try:
        cfg.loads(text)
    except ValueError as e:  # ConfigError is one
        raise HostToolError("%s: %s" % (path, str(e).splitlines()[0] if str(e) else "refused"), EXIT_USAGE)
    if not isinstance(obj, dict):
        raise HostToolError(path + ": a configuration is a JSON object", EXIT_USAGE)
    return obj


def _run_config(args):
    if args.action == "get":
        with connect(args) as link:
            config = config_get(link)
        print(json.dumps(config, sort_keys=True) if args.json else json.dumps(config, indent=2, sort_keys=True))
        return
    wanted = read_config_file(args.file)
    with connect(args) as link:
        if args.action == "set":
            key = board_key(link, args.key)
            reply = config_set(link, wanted, key)
            emit(args, reply, lambda r: ["configuration applied"] + flat_lines(r))
            return
        differences = config_diff(config_get(link), effective_config(wanted))
    rows = [{"name": n, "board": b, "file": f} for n, b, f in differences]
    emit(
        args,
        rows,
        lambda rows: (
            ["%s: board %s, file %s" % (r["name"], json.dumps(r["board"]), json.dumps(r["file"])) for r in rows]
            or ["same as the board"]
        ),
    )
    if differences:
        raise _Quiet(EXIT_FAILED)


class _Quiet(HostToolError):
    """An exit status with nothing more to say (the differences were the output)."""

    def __init__(self, code):
        super().__init__("", code)


def _selftest_arguments(parser):
    add_port_options(parser)


def _run_selftest(args):
    with connect(args) as link:
        reply = selftest(link, max(args.timeout, 10.0))
    emit(args, reply, flat_lines)


def _signed_arguments(parser):
    add_port_options(parser)
    add_key_option(parser)


def _run_time(args):
    with connect(args) as link:
        reply = set_time(link, board_key(link, args.key))
    emit(
        args,
        reply,
        lambda r: ["board clock set to %s UTC" % time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(r["unix"]))],
    )


def _run_maintenance(args):
    with connect(args) as link:
        reply = maintenance(link, board_key(link, args.key))
    emit(args, reply, lambda r: ["board rebooting into maintenance mode (REPL free); the next reset returns to play"])


# name -> (add_arguments, run, help): host_tools/__main__.py's table reads this.
COMMANDS = {
    "ports": (_ports_arguments, _run_ports, "serial ports, and which answer hello"),
    "status": (_status_arguments, _run_status, "the board's hello and table status"),
    "monitor": (_monitor_arguments, _run_monitor, "live events from the board"),
    "config": (_config_arguments, _run_config, "config get | set FILE | diff FILE"),
    "selftest": (_selftest_arguments, _run_selftest, "lamp walk; keys or buttons held or chattering"),
    "time": (_signed_arguments, _run_time, "set the board's clock from this host's (signed)"),
    "maintenance": (_signed_arguments, _run_maintenance, "reboot the board into maintenance mode (signed)"),
}
