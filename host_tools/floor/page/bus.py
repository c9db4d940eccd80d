"""The pit page's broker connections (paho-mqtt): its own, and one per person logged in.

- `ServiceBus`, as the floor's `page` account: reads the floor (events,
  states, presence and the recorder's verdict (availability), what the recorder recorded and found, acknowledgements)
  into the FloorView and publishes each
  alert, retained, on `alert/<id>`. The broker's ACL lets this account write
  alerts and nothing else: it cannot acknowledge for anyone.
- `PersonBus`, as the person, opened at login with the password they typed:
  the broker checks it (so a person the broker does not know cannot log in),
  and every acknowledgement is published on the person's own connection, on
  `ack/<role>/<user>`, which the ACL allows for that person only.

paho reconnects by itself (1 s, backing off to 8 s) after the broker goes
away; the service re-subscribes on each connect, and its session is kept
(clean_session off), so what the broker queued meanwhile arrives then.
"""

import sys
import threading
import time

import paho.mqtt.client as mqtt

from host_tools.floor.base import topics

QOS = 1
CONNECT_TIMEOUT = 5.0
RECONNECT_WAIT = 10.0  # paho's reconnect backs off to 8 s


class BrokerRefused(Exception):
    """The broker refused the credentials, or did not answer."""


def _client(client_id, user, password, clean):
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=clean)
    c.username_pw_set(user, password)
    c.reconnect_delay_set(1, 8)
    return c


def _connect(client, port, host="127.0.0.1"):
    """Connect and wait for the broker's answer; BrokerRefused when it refuses or is silent."""
    answered = threading.Event()
    reasons = []
    previous = client.on_connect

    def first(c, userdata, flags, reason, properties):
        reasons.append(reason)
        answered.set()
        if previous:
            previous(c, userdata, flags, reason, properties)

    client.on_connect = first
    try:
        client.connect(host, port, keepalive=10)
    except OSError as e:
        raise BrokerRefused("the broker at %s:%d cannot be reached (%s)" % (host, port, e.strerror or e))
    client.loop_start()
    if not answered.wait(CONNECT_TIMEOUT) or reasons[0].is_failure:
        client.loop_stop()
        client.disconnect()
        raise BrokerRefused("the broker refused: %s" % (reasons[0] if reasons else "no answer"))
    client.on_connect = previous
    return client


class ServiceBus:
    def __init__(self, floor, password, view):
        self.floor = floor
        self.view = view
        root = topics.floor_root(floor["floor"])
        self.subscriptions = [
            (root + "/table/+/" + leaf, QOS) for leaf in ("event", "state", "presence", "availability", "recorded")
        ] + [(root + "/ack/#", QOS), (root + "/alert/+", QOS)]
        self.client = _client("page-service-" + floor["floor"], "page", password, clean=False)
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_message
        self.connected = threading.Event()
        self.client.on_disconnect = lambda *a: self.connected.clear()
        view.listeners.append(self._publish_pending)
        # The progressive controller's meters: a hit it holds PENDING is the shift manager's alert;
        # its presence (a meter is shown closed unless it is online) and its self-check.
        self.subscriptions.append((root + "/progressive/+/meter", QOS))
        self.subscriptions.append((root + "/progressive/presence", QOS))
        self.subscriptions.append((root + "/progressive/check", QOS))

    def _on_message(self, client, userdata, message):
        try:
            self.view.message(message.topic, message.payload)
        except Exception as e:  # paho ends its network loop on a callback's exception: the page would go deaf
            print("page: %s not taken: %s: %s" % (message.topic, type(e).__name__, e), file=sys.stderr, flush=True)

    def _on_connect(self, client, userdata, flags, reason, properties):
        if reason.is_failure:
            return
        client.subscribe(self.subscriptions)
        self.connected.set()
        self._publish_pending()

    def _publish_pending(self, *_):
        with self.view.lock:
            pending, self.view.published[:] = list(self.view.published), []
            downlinks, self.view.downlinks[:] = list(self.view.downlinks), []
        for alert in pending:
            topic = topics.alert(self.floor["floor"], alert["id"])
            self.client.publish(topic, topics.encode({"alert": alert}), qos=QOS, retain=True)
        for table, payload in downlinks:  # a HOLD cleared: the signed request for the table's board
            self.client.publish(topics.table(self.floor["floor"], table, "downlink"), topics.encode(payload), qos=QOS)

    def start(self):
        _connect(self.client, self.floor["port"])
        return self

    def stop(self):
        self.client.disconnect()  # first: the network loop then ends at once, not at its next 1 s wake-up
        self.client.loop_stop()


class PersonBus:
    """A person's own connection; BrokerRefused from the constructor when the broker says no."""

    def __init__(self, floor, user, role, password):
        self.floor = floor
        self.user = user
        self.role = role
        client_id = "person-%s-%d" % (user, time.monotonic_ns() % 10**9)
        self.connected = threading.Event()
        client = _client(client_id, user, password, clean=True)
        client.on_connect = lambda c, u, f, reason, p: None if reason.is_failure else self.connected.set()
        client.on_disconnect = lambda *a: self.connected.clear()
        self.client = _connect(client, floor["port"])

    def acknowledge(self, alert_id, note):
        """Publish the acknowledgement on ack/<role>/<user>; False when the broker did not take it in time
        (after a broker restart paho reconnects by itself: the acknowledgement waits for that first)."""
        if not self.connected.wait(RECONNECT_WAIT):
            return False
        topic = topics.ack(self.floor["floor"], self.role, self.user)
        body = topics.encode({"alert": alert_id, "note": note, "at": time.time()})
        info = self.client.publish(topic, body, qos=QOS)
        try:
            info.wait_for_publish(CONNECT_TIMEOUT)
        except (RuntimeError, ValueError):
            return False
        return info.is_published()

    def close(self):
        self.client.disconnect()  # first: the network loop then ends at once, not at its next 1 s wake-up
        self.client.loop_stop()
