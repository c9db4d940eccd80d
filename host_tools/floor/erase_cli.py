"""`python -m host_tools floor board-erased --table T --board ID --by NAME`:
the technician's step for a table whose board's flash was erased
(re-flashed, or replaced by one with the same chip id) and which starts its
journals again (docs/floor.md, "A board erased"). The step is signed under
the table's journal key, derived from the board's link key (`--key`, the file
deploy wrote), and published as the `floorctl` account, the only one the
broker lets write it; the recorder answers with an alert: taken (who, when,
up to which record the old journal reached the floor) or refused (why).

Exit status: 0 taken; 1 refused, or no answer from the recorder within
--wait; 2 a usage mistake (no such table, no key, no name); 4 no broker.
"""

import os
import re
import threading
import time

from host_tools import EXIT_FAILED, EXIT_USAGE, HostToolError, keys
from host_tools.floor import EXIT_NO_BROKER
from host_tools.floor.base import erasure, floordir, floorkeys, topics
from host_tools.floor.bus import mqtt

_BOARD_ID = re.compile(r"^[0-9a-f]{4,64}$")  # machine.unique_id() in hex, as hello gives it


def add_arguments(parser):
    parser.add_argument("--table", required=True)
    parser.add_argument("--board", required=True, help="the board's id (hello's `board`, deploy's output)")
    parser.add_argument("--by", required=True, help="the technician's name, kept with the step")
    parser.add_argument("--key", help="the board's link key file (default DIR/keys/TABLE.key, make floor's)")
    parser.add_argument("--broker", help="mqtt://HOST[:PORT] (default: the floor's, on this machine)")
    parser.add_argument("--wait", type=float, default=10.0, help="seconds to wait for the recorder's answer")
    parser.add_argument("--dir", help="the floor's directory (default $CRAPSFLOOR_DIR, else build/floor)")


def run(args):
    d = floordir.floor_dir(args.dir)
    floor = floordir.read_floor(d)
    if args.table not in floor["tables"]:
        raise HostToolError(
            "no table %s on this floor (tables: %s)" % (args.table, ", ".join(floor["tables"])), EXIT_USAGE
        )
    if not _BOARD_ID.match(args.board):
        raise HostToolError("--board %s: a board id is the chip id in lower-case hex" % args.board, EXIT_USAGE)
    if not args.by.strip() or len(args.by.strip()) > erasure.MAX_NAME:
        raise HostToolError("--by: the technician's name, 1 to %d characters" % erasure.MAX_NAME, EXIT_USAGE)
    link_key = keys.read_key(args.key or os.path.join(d, "keys", args.table + ".key"))
    step = erasure.sign(floorkeys.derive(link_key, "journal"), args.table, args.board, args.by.strip(), time.time())
    url = args.broker or "mqtt://127.0.0.1:%d" % floor["port"]
    answer = publish(d, url, floor["floor"], step, args.wait)
    if answer is None:
        raise HostToolError(
            "the recorder did not answer within %g s: the step waits for it on the broker (taken within %d s"
            " of its signing); see the page's alerts" % (args.wait, erasure.MAX_AGE_S),
            EXIT_FAILED,
        )
    if answer.get("kind") != erasure.KIND:
        raise HostToolError(str(answer.get("text")), EXIT_FAILED)
    print(answer.get("text"))


def publish(directory, url, floor_name, step, wait):
    """Publish `step` as floorctl and return the recorder's alert answering it (its nonce), or None."""
    root = topics.floor_root(floor_name)
    answered = threading.Event()
    got = {}

    def on_message(topic, payload, retained):
        try:
            body = topics.decode(payload)
        except ValueError:
            return
        if body.get("nonce") == step["nonce"] and body.get("kind") in (erasure.KIND, erasure.REFUSED):
            got.update(body)
            answered.set()

    client = mqtt.Client(
        url,
        "floorctl",
        floordir.password(directory, "floorctl"),
        "",
        on_message=on_message,
        on_connect=lambda: client.subscribe(root + "/alert/#"),
    )
    client.start()
    try:
        if not client.wait_connected(5.0):
            raise HostToolError("no broker at %s" % url, EXIT_NO_BROKER)
        time.sleep(0.2)  # the subscription in place before the answer can come
        info = client.publish(topics.table(floor_name, step["table"], "erased"), topics.encode(step))
        info.wait_for_publish(5.0)
        answered.wait(wait)
    finally:
        client.stop()
    return got or None


SUBCOMMANDS = {
    "board-erased": (
        add_arguments,
        run,
        "a table's board erased (re-flashed or replaced): its old records archived, its new journal taken",
    )
}
