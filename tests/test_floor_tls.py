"""TLS between the floor's clients and the broker (docs/floor.md, TLS on a
real floor): a real mosquitto with the project's configuration and a TLS
listener on loopback (`require_certificate true`, `use_identity_as_username
true`), certificates made in the test (tests/tls_certs.py). A gateway and the
recorder with their own certificates carry a board's rolls to the floor; a
certificate the broker does not trust, a broker the gateway does not trust,
files missing or wrong, and another table's certificate each end in one line
and a documented exit status with nothing changed; a client showing another
table's certificate is refused by the ACL."""

import os
import subprocess

import pytest
from tls_certs import CA

from bench.floor import localfloor as floor_rig
from bench.floor.localfloor import PY, Rig
from host_tools.floor import cli
from host_tools.floor.base import floordir, topics
from host_tools.floor.bus import broker
from host_tools.floor.bus.mqtt import Client, tls_context
from sim.paths import ROOT

pytestmark = pytest.mark.skipif(
    not floor_rig.have_mosquitto(), reason="mosquitto is not installed (make test installs it as root)"
)


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    return floor_rig.shared_template(tmp_path_factory)


class TlsFloor:
    """A two-table Rig whose broker also listens with TLS; the floor's CA, and a stranger's."""

    def __init__(self, folder, template):
        self.rig = Rig(folder, ("T1", "T2"), template)
        tls = os.path.join(folder, "tls")
        os.makedirs(tls)
        self.ca = CA(tls)
        self.stranger = CA(tls, "stranger-ca", "someone-else")
        cert, key = self.ca.issue("broker", server=True)
        floor = dict(
            self.rig.floor,
            tls={"port": broker.free_port(), "cafile": self.ca.cert_file, "certfile": cert, "keyfile": key},
        )
        floordir.write_json(os.path.join(self.rig.dir, "floor.json"), floor)
        broker.write_config(self.rig.dir, floor)
        self.rig.floor = floor
        self.rig.broker = broker.Broker(self.rig.dir)
        self.url = "mqtts://127.0.0.1:%d" % floor["tls"]["port"]

    def tls_options(self, cn, ca=None, issuer=None):
        cert, key = (issuer or self.ca).issue(cn, stem="%s-by-%s" % (cn, id(issuer or self.ca)))
        return ["--ca-file", (ca or self.ca).cert_file, "--cert-file", cert, "--key-file", key]

    def gateway_argv(self, table, *options):
        argv = self.rig.gateway_argv(table)
        argv[argv.index("--broker") + 1] = self.url
        return argv + list(options)


@pytest.fixture
def floor(tmp_path, template):
    f = TlsFloor(str(tmp_path), template)
    f.rig.start_broker()
    yield f
    f.rig.stop()


def one_line(result):
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    return lines[0]


def run(argv):
    return subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, timeout=60)


def nothing_changed(f, table="T1"):
    assert not os.path.exists(os.path.join(f.rig.dir, "gateways", table + ".sqlite"))
    rows = {r["table"]: r for r in cli.status(f.rig.dir, f.rig.url, 0.5)}
    assert rows[table]["presence"] is None and rows[table]["seq"] is None  # nothing said on the table's topics


def test_a_gateway_and_the_recorder_with_their_certificates_carry_the_rolls(floor):
    rig = floor.rig
    rig.start_board("T1")
    with open(rig.log("recorder"), "ab") as log:
        rig.recorder = subprocess.Popen(
            [PY, "-m", "host_tools", "recorder", "--dir", rig.dir, "--broker", floor.url]
            + floor.tls_options("recorder"),
            stdout=log,
            stderr=log,
            cwd=ROOT,
        )
    rig.wait_log("recorder", "connected to the broker")
    with open(rig.log("gateway-T1"), "ab") as log:
        rig.gateways["T1"] = subprocess.Popen(
            floor.gateway_argv("T1", *floor.tls_options("gateway-T1")), stdout=log, stderr=log, cwd=ROOT
        )
    rig.wait_log("gateway-T1", "broker connection")
    before = len(rig.recorded("T1"))
    rig.press("T1", "3 4")
    floor_rig.wait_for(lambda: len(rig.recorded("T1")) > before, 60, "the roll in the recorder")
    kinds = [r[1] for r in rig.recorded("T1")]
    assert len(kinds) > before
    (row,) = [r for r in cli.status(rig.dir, rig.url, 0.5) if r["table"] == "T1"]
    assert (row["presence"], row["judged_by"]) == ("online", "recorder")
    assert rig.alerts() == []
    # the broker knew each client by its certificate's CN, without a password
    with open(os.path.join(rig.dir, "mosquitto.log"), encoding="utf-8") as f:
        text = f.read()
    assert "u'gateway-T1'" in text and "u'recorder'" in text


def test_a_certificate_from_another_ca_is_refused_by_the_broker_exit_4(floor):
    result = run(floor.gateway_argv("T1", *floor.tls_options("gateway-T1", issuer=floor.stranger)))
    assert result.returncode == 4, result.stderr
    line = one_line(result)
    assert line.startswith("host_tools gateway: the broker at %s refused the certificate of gateway-T1: " % floor.url)
    nothing_changed(floor)


def test_the_recorder_shown_a_refused_certificate_is_exit_4_too(floor):
    argv = [PY, "-m", "host_tools", "recorder", "--dir", floor.rig.dir, "--broker", floor.url]
    result = run(argv + floor.tls_options("recorder", issuer=floor.stranger))
    assert result.returncode == 4, result.stderr
    assert one_line(result).startswith(
        "host_tools recorder: the broker at %s refused the certificate of recorder: " % floor.url
    )


def test_a_broker_the_gateway_does_not_trust_is_exit_4(floor):
    result = run(floor.gateway_argv("T1", *floor.tls_options("gateway-T1", ca=floor.stranger)))
    assert result.returncode == 4, result.stderr
    line = one_line(result)
    assert line.startswith("host_tools gateway: TLS with the broker at %s failed: " % floor.url)
    assert "its certificate is not trusted (" in line and line.endswith("): is --ca-file the floor's CA?")
    nothing_changed(floor)


def test_files_missing_or_wrong_are_exit_2_and_change_nothing(floor, tmp_path):
    good = floor.tls_options("gateway-T1")
    not_pem = tmp_path / "not.pem"
    not_pem.write_text("hello\n")
    unreadable = tmp_path / "unreadable.pem"
    unreadable.mkdir()
    cases = [
        (
            ["--ca-file", "/no/such/ca.crt"] + good[2:],
            "cannot read --ca-file /no/such/ca.crt: No such file or directory",
        ),
        (good[:2] + ["--cert-file", "/no/such.crt", "--key-file", good[5]], "cannot read --cert-file /no/such.crt: "),
        (good[:4] + ["--key-file", str(unreadable)], "cannot read --key-file %s: Is a directory" % unreadable),
        (["--ca-file", str(not_pem)] + good[2:], "--ca-file %s holds no CA certificate" % not_pem),
        (good[:2] + ["--cert-file", str(not_pem), "--key-file", good[5]], "--cert-file %s and --key-file" % not_pem),
        (good[:4], "--cert-file and --key-file go together"),
    ]
    for options, start in cases:
        result = run(floor.gateway_argv("T1", *options))
        assert result.returncode == 2, (options, result.stderr)
        assert one_line(result).startswith("host_tools gateway: " + start), (options, result.stderr)
    plain = run(floor.rig.gateway_argv("T1") + good)  # TLS options on the plain mqtt:// URL
    assert plain.returncode == 2
    assert one_line(plain) == "host_tools gateway: --ca-file needs an mqtts:// broker URL (TLS), not %s" % floor.rig.url
    nothing_changed(floor)


def test_a_gateway_given_another_tables_certificate_refuses_to_start_exit_2(floor):
    result = run(floor.gateway_argv("T1", *floor.tls_options("gateway-T2")))
    assert result.returncode == 2
    assert one_line(result).startswith("host_tools gateway: --cert-file ")
    assert one_line(result).endswith("is the certificate of gateway-T2 (its CN), not of gateway-T1")
    nothing_changed(floor)


def test_a_client_showing_another_tables_certificate_is_refused_by_the_acl(floor):
    """T2's certificate, used by something that is not T2's gateway: the
    broker takes it for gateway-T2 and its ACL drops every write on T1's
    topics (MQTT 3.1.1 acknowledges them all the same), while T2's own go through."""
    rig = floor.rig
    seen = []
    watcher = Client(
        rig.url,
        "floorctl",
        floordir.password(rig.dir, "floorctl"),
        "",
        on_message=lambda topic, payload, retained: seen.append(topic),
        on_connect=lambda: watcher.subscribe(topics.floor_root(rig.floor["floor"]) + "/table/#"),
    )
    watcher.start()
    options = floor.tls_options("gateway-T2")
    context = tls_context(floor.url, *options[1::2])
    client = Client(floor.url, "gateway-T2", None, "", tls=context)
    client.start()
    try:
        assert watcher.wait_connected(5) and client.wait_connected(5)
        name = rig.floor["floor"]
        beat = topics.table(name, "T2", "heartbeat")

        def heard_a_probe():  # the watcher's subscription is live once it hears T2's own heartbeat
            if beat not in seen:
                client.publish(beat, b"probe").wait_for_publish(5)
            return beat in seen

        floor_rig.wait_for(heard_a_probe, 10, "T2's own heartbeat")
        for leaf in ("event", "state", "presence", "heartbeat"):
            info = client.publish(topics.table(name, "T1", leaf), b"forged", retain=leaf != "event")
            info.wait_for_publish(5)
            assert info.is_published()  # acknowledged: the stranger cannot tell
        info = client.publish(topics.table(name, "T2", "presence"), b"online", retain=True)
        info.wait_for_publish(5)
        floor_rig.wait_for(lambda: topics.table(name, "T2", "presence") in seen, 10, "T2's own presence")
        assert [t for t in seen if "/T1/" in t] == []
    finally:
        client.stop()
        watcher.stop()
    rows = {r["table"]: r for r in cli.status(rig.dir, rig.url, 0.5)}
    assert rows["T1"]["presence"] is None and rows["T2"]["presence"] == "online"


def test_floor_init_keeps_the_tls_listener_and_refuses_an_incomplete_one(tmp_path):
    folder = str(tmp_path / "floor")
    argv = [PY, "-m", "host_tools", "floor", "init", "--dir", folder, "--tables", "2"]
    assert run(argv).returncode == 0
    floor = floordir.read_floor(folder)
    tls = {
        "port": 8883,
        "address": "0.0.0.0",
        "cafile": "/etc/f/ca.crt",
        "certfile": "/etc/f/b.crt",
        "keyfile": "/etc/f/b.key",
    }
    floordir.write_json(os.path.join(folder, "floor.json"), dict(floor, tls=tls))
    assert run(argv).returncode == 0  # made again (as `make floor` does): the operator's tls stays
    assert floordir.read_floor(folder)["tls"] == tls
    with open(os.path.join(folder, "mosquitto.conf"), encoding="utf-8") as f:
        conf = f.read()
    assert conf.endswith(
        "listener 8883 0.0.0.0\ncafile /etc/f/ca.crt\ncertfile /etc/f/b.crt\nkeyfile /etc/f/b.key\n"
        "require_certificate true\nuse_identity_as_username true\ntls_version tlsv1.2\n"
    )
    del tls["keyfile"]
    floordir.write_json(os.path.join(folder, "floor.json"), dict(floor, tls=tls))
    result = run(argv)
    assert result.returncode == 2
    assert one_line(result) == "host_tools floor: floor.json's tls needs a port number, cafile, certfile and keyfile"
    with open(os.path.join(folder, "mosquitto.conf"), encoding="utf-8") as f:
        assert f.read() == conf  # nothing changed
