"""A paho-mqtt client for the floor's services: the broker URL (`mqtt://`, or
`mqtts://` with TLS: the broker's CA and the account's own certificate), the
account's password, a last will, automatic reconnection, and a broker that
refuses the credentials or the certificate told apart from one that is only
away.
"""

import ssl
import threading
import time
from urllib.parse import urlsplit

from host_tools import EXIT_USAGE, HostToolError
from host_tools.floor import EXIT_NO_BROKER

DEFAULT_URL = "mqtt://127.0.0.1:1883"
PORTS = {"mqtt": 1883, "mqtts": 8883}
KEEPALIVE_S = 10
# CONNACK refusals that waiting will not cure (MQTT 3.1.1 return codes 4 and 5 as paho v2 reports them).
_REFUSED = {
    "Bad user name or password": "bad user name or password",
    "Not authorized": "not authorised",  # mosquitto's answer to a wrong password
}


def parse_url(url):
    """(host, port) of mqtt://HOST[:PORT] or mqtts://HOST[:PORT]; HostToolError (exit 2) otherwise."""
    parts = urlsplit(url)
    if parts.scheme not in PORTS or not parts.hostname:
        raise HostToolError("broker %r: give mqtt://HOST[:PORT] or mqtts://HOST[:PORT]" % url, EXIT_USAGE)
    try:
        port = parts.port or PORTS[parts.scheme]
    except ValueError:
        raise HostToolError("broker %r: the port is not a number" % url, EXIT_USAGE)
    return parts.hostname, port


def tls_context(url, ca_file=None, cert_file=None, key_file=None):
    """The TLS context for `url` (None for mqtt://): the broker checked against
    `ca_file` (else the system's CAs) and its host name; the account's own
    certificate and key when given. HostToolError (exit 2) with one line for a
    file missing or unreadable, one that is not what it should be, or TLS
    options on a plain mqtt:// URL."""
    given = [(o, f) for o, f in (("--ca-file", ca_file), ("--cert-file", cert_file), ("--key-file", key_file)) if f]
    if urlsplit(url).scheme != "mqtts":
        if given:
            raise HostToolError("%s needs an mqtts:// broker URL (TLS), not %s" % (given[0][0], url), EXIT_USAGE)
        return None
    if bool(cert_file) != bool(key_file):
        raise HostToolError(
            "--cert-file and --key-file go together (the account's certificate and its key)", EXIT_USAGE
        )
    for option, path in given:
        try:
            with open(path, "rb"):
                pass
        except OSError as e:
            raise HostToolError("cannot read %s %s: %s" % (option, path, e.strerror or e), EXIT_USAGE)
    try:
        context = ssl.create_default_context(cafile=ca_file)
    except ssl.SSLError as e:
        raise HostToolError("--ca-file %s holds no CA certificate (%s)" % (ca_file, e.reason or e), EXIT_USAGE)
    if cert_file:
        try:
            context.load_cert_chain(cert_file, key_file)
        except ssl.SSLError as e:
            raise HostToolError(
                "--cert-file %s and --key-file %s are not a certificate and its key (%s)"
                % (cert_file, key_file, e.reason or e),
                EXIT_USAGE,
            )
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    return context


def certificate_name(cert_file):
    """The CN of a PEM certificate's subject (with `use_identity_as_username`, its account on the broker)."""
    from cryptography import x509
    from cryptography.x509.oid import NameOID

    try:
        with open(cert_file, "rb") as f:
            cert = x509.load_pem_x509_certificate(f.read())
    except (OSError, ValueError) as e:
        raise HostToolError(
            "cannot read --cert-file %s: %s" % (cert_file, getattr(e, "strerror", None) or e), EXIT_USAGE
        )
    names = cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)
    return str(names[0].value) if names else None


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
        tls=None,
        manual_ack=False,
    ):
        """`tls`: an ssl.SSLContext from tls_context() for an mqtts:// URL. `manual_ack`:
        on_message gets a fourth argument, a call that acknowledges the message (QoS 1's
        PUBACK); until it is made the broker holds the message for the session and sends
        it again after a reconnect (the recorder acknowledges once it has committed)."""
        import paho.mqtt.client as mqtt

        self.host, self.port = parse_url(url)
        self.url = url
        self.user = user
        self.connections = 0
        self.refused = None
        self.connected = threading.Event()
        # Set once the broker has acknowledged (SUBACK) every subscription of this
        # connection: from then on it delivers what anyone publishes to them.
        self.subscribed = threading.Event()
        self._subscribing = set()  # the ids of the SUBSCRIBEs not acknowledged yet
        self._subscribe_lock = threading.Lock()
        self._on_message = on_message
        self._on_connect = on_connect
        self._manual_ack = manual_ack
        self.client = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2,
            client_id=client_id,
            clean_session=clean,
            protocol=mqtt.MQTTv311,
            manual_ack=manual_ack,
        )
        if user is not None:
            self.client.username_pw_set(user, password)
        self.tls = tls
        if tls is not None:
            self.client.tls_set_context(tls)
            self.client.on_log = self._log
        if will is not None:
            topic, payload = will
            self.client.will_set(topic, payload, qos=1, retain=True)
        self.client.max_queued_messages_set(0)
        self.client.max_inflight_messages_set(50)
        self.client.reconnect_delay_set(0.2, 2)
        self.client.on_connect = self._connected
        self.client.on_disconnect = self._disconnected
        self.client.on_message = self._message
        self.client.on_subscribe = self._subacked
        self.keepalive = keepalive

    def start(self):
        try:
            if self.tls is not None and self._first_tls_connection():
                self.client.loop_start()
                return self
            self.client.connect_async(self.host, self.port, keepalive=self.keepalive)
        except (OSError, ValueError) as e:
            raise HostToolError("cannot reach the broker at %s: %s" % (self.url, e), EXIT_NO_BROKER)
        self.client.loop_start()
        return self

    def _first_tls_connection(self):
        """Connect at once, so that a TLS handshake the broker or we refuse is
        an error with its reason (paho's own retries would only wait); False
        when the broker is only away (then waited for, as over plain MQTT)."""
        try:
            self.client.connect(self.host, self.port, keepalive=self.keepalive)
            return True
        except ssl.SSLCertVerificationError as e:
            raise HostToolError(
                "TLS with the broker at %s failed: its certificate is not trusted (%s): is --ca-file the floor's CA?"
                % (self.url, e.verify_message),
                EXIT_NO_BROKER,
            )
        except ssl.SSLError as e:
            raise HostToolError(
                "TLS with the broker at %s failed: %s" % (self.url, e.reason or e.strerror or e), EXIT_NO_BROKER
            )
        except OSError:
            return False

    def _log(self, client, userdata, level, text):
        """paho's log: a TLS alert from the broker after the handshake (TLS 1.3
        refuses a client's certificate there) is a refusal, not an absence."""
        import paho.mqtt.client as mqtt

        if level == mqtt.MQTT_LOG_ERR and "alert" in text and self.refused is None:
            reason = text.split("] ", 1)[-1].split(" (_ssl")[0]
            self.refused = "the broker at %s refused the certificate of %s: %s" % (self.url, self.user, reason)
            client.disconnect()

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
        with self._subscribe_lock:
            self._subscribing.clear()
            self.subscribed.clear()

    def _subacked(self, client, userdata, mid, reason_codes, properties):
        with self._subscribe_lock:
            self._subscribing.discard(mid)
            if not self._subscribing:
                self.subscribed.set()

    def _message(self, client, userdata, message):
        if not self._on_message:
            return
        if not self._manual_ack:
            self._on_message(message.topic, message.payload, bool(message.retain))
            return
        mid, qos, connection = message.mid, message.qos, self.connections

        def ack():
            # After a reconnect the session sends the message again if it kept it, and if it did
            # not, this id may name another message: the new copy is acknowledged, never this one.
            if self.connections == connection:
                client.ack(mid, qos)

        self._on_message(message.topic, message.payload, bool(message.retain), ack)

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
        with self._subscribe_lock:  # its SUBACK may come on paho's thread before this returns
            self.subscribed.clear()
            result, mid = self.client.subscribe(topic, qos=qos)
            if result == 0:
                self._subscribing.add(mid)

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
