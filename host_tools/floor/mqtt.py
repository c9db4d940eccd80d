"""A paho-mqtt client for the floor's services: the broker URL, the account's
password, a last will, automatic reconnection, and a broker that refuses the
credentials told apart from one that is only away.
"""

import threading
import time
from urllib.parse import urlsplit

from host_tools import EXIT_USAGE, HostToolError
from host_tools.floor import EXIT_NO_BROKER

DEFAULT_URL = "mqtt://127.0.0.1:1883"
KEEPALIVE_S = 10
# CONNACK refusals that waiting will not cure (MQTT 3.1.1 return codes 4 and 5 as paho v2 reports them).
_REFUSED = {
    "Bad user name or password": "bad user name or password",
    "Not authorized": "not authorised",  # mosquitto's answer to a wrong password
}


def parse_url(url):
    """(host, port) of mqtt://HOST[:PORT]; HostToolError (exit 2) otherwise."""
    parts = urlsplit(url)
    if parts.scheme != "mqtt" or not parts.hostname:
        raise HostToolError("broker %r: give mqtt://HOST[:PORT]" % url, EXIT_USAGE)
    try:
        port = parts.port or 1883
    except ValueError:
        raise HostToolError("broker %r: the port is not a number" % url, EXIT_USAGE)
    return parts.hostname, port


class Client:
    """A connected-or-reconnecting client. `on_message(topic, payload, retained)`
    runs on paho's thread (`retained`: a retained message the broker sent on
    subscribing, as opposed to one published since); `connections` counts successful CONNACKs (a new value means
    a reconnect: subscriptions and presence are made again by the caller)."""

    def __init__(
        self,
        url,
        user,
        password,
        client_id,
        keepalive=KEEPALIVE_S,
        will=None,
        clean=True,
        on_message=None,
        on_connect=None,
    ):
        import paho.mqtt.client as mqtt

        self.host, self.port = parse_url(url)
        self.url = url
        self.user = user
        self.connections = 0
        self.refused = None
        self.connected = threading.Event()
        self._on_message = on_message
        self._on_connect = on_connect
        self.client = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=clean, protocol=mqtt.MQTTv311
        )
        self.client.username_pw_set(user, password)
        if will is not None:
            topic, payload = will
            self.client.will_set(topic, payload, qos=1, retain=True)
        self.client.max_queued_messages_set(0)
        self.client.max_inflight_messages_set(50)
        self.client.reconnect_delay_set(0.2, 2)
        self.client.on_connect = self._connected
        self.client.on_disconnect = self._disconnected
        self.client.on_message = self._message
        self.keepalive = keepalive

    def start(self):
        try:
            self.client.connect_async(self.host, self.port, keepalive=self.keepalive)
        except (OSError, ValueError) as e:
            raise HostToolError("cannot reach the broker at %s: %s" % (self.url, e), EXIT_NO_BROKER)
        self.client.loop_start()
        return self

    def _connected(self, client, userdata, flags, reason, properties):
        if reason.is_failure:
            text = str(reason)
            if text in _REFUSED:
                self.refused = "the broker at %s refused user %s: %s" % (self.url, self.user, _REFUSED[text])
                client.disconnect()
            return
        self.connections += 1
        self.connected.set()
        if self._on_connect:
            self._on_connect()

    def _disconnected(self, client, userdata, flags, reason, properties):
        self.connected.clear()

    def _message(self, client, userdata, message):
        if self._on_message:
            self._on_message(message.topic, message.payload, bool(message.retain))

    def check_refused(self):
        if self.refused:
            raise HostToolError(self.refused, EXIT_NO_BROKER)

    def wait_connected(self, timeout):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            self.check_refused()
            if self.connected.wait(0.05):
                return True
        self.check_refused()
        return False

    def publish(self, topic, payload, retain=False, qos=1):
        return self.client.publish(topic, payload, qos=qos, retain=retain)

    def subscribe(self, topic, qos=1):
        self.client.subscribe(topic, qos=qos)

    def stop(self, last=None):
        """Publish `last` (topic, payload, retained) if connected, then disconnect cleanly."""
        if last is not None and self.connected.is_set():
            info = self.publish(last[0], last[1], retain=True)
            try:
                info.wait_for_publish(2.0)
            except (RuntimeError, ValueError):
                pass
        self.client.disconnect()
        self.client.loop_stop()
