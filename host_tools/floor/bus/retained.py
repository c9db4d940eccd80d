"""What the broker holds for a topic filter now, read once by the floor's
command-line tools (`floor status`, `floor meter`, the progressive's
maintenance) as the `floorctl` account: connect, subscribe, let the retained
messages arrive for `wait` s, disconnect. `first` reads one topic's retained
message as a person's account (`journal-reset`'s receipt, a technician's)."""

import time

from host_tools import HostToolError
from host_tools.floor import EXIT_NO_BROKER
from host_tools.floor.base import floordir
from host_tools.floor.bus import mqtt


def read(directory, url, filters, wait, unreachable="no broker at %s"):
    """[(topic, payload)] the broker sent within `wait` s of subscribing to
    each of `filters`, in arrival order; HostToolError(unreachable % url,
    EXIT_NO_BROKER) when no broker answers within 5 s."""
    got = []

    def subscribe():
        for topic_filter in filters:
            client.subscribe(topic_filter)

    client = mqtt.Client(
        url,
        "floorctl",
        floordir.password(directory, "floorctl"),
        "",
        on_message=lambda topic, payload, retained: got.append((topic, payload)),
        on_connect=subscribe,
    )
    client.start()
    try:
        if not client.wait_connected(5.0):
            raise HostToolError(unreachable % url, EXIT_NO_BROKER)
        time.sleep(wait)
    finally:
        client.stop()
    return list(got)


def first(url, user, password, topic, wait, tls=None):
    """The retained payload the broker holds on `topic` for account `user`, read
    as soon as it arrives; None when none came within `wait` s of connecting
    (the broker holds none, or the account may not read it). HostToolError
    (EXIT_NO_BROKER) when the broker refuses the account or does not answer."""
    import threading

    got = []
    arrived = threading.Event()

    def message(t, payload, was_retained):
        if was_retained and not got:
            got.append(payload)
            arrived.set()

    client = mqtt.Client(
        url, user, password, "", on_message=message, on_connect=lambda: client.subscribe(topic), tls=tls
    )
    client.start()
    try:
        if not client.wait_connected(5.0):
            raise HostToolError("no broker at %s" % url, EXIT_NO_BROKER)
        arrived.wait(wait)
    finally:
        client.stop()
    return got[0] if got else None
