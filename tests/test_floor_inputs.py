"""Bad input on the floor: each ends in one clear line on stderr and a
documented exit status (docs/floor.md), and changes nothing: a gateway given a
wrong port, a port with no board, a board holding another table's key, a
broker refusing its password; a stranger publishing on a table's topic
(refused by the broker's ACL, nothing recorded); a second floor in the same
directory. Real mosquitto, real gateway processes, a virtual board."""

import os
import shutil
import subprocess
import sys
import time

import pytest

from bench.floor import localfloor as floor_rig
from bench.floor.localfloor import Rig
from host_tools import HostToolError, keys
from host_tools.floor import supervise
from host_tools.floor.base import floordir, topics
from host_tools.floor.bus.mqtt import Client
from host_tools.floor.people import accounts as people
from host_tools.floor.recorder import service as rec
from sim.paths import ROOT

SUP1 = "sup1's own password"  # a person's password is theirs: the test knows it, the floor keeps its hash

pytestmark = pytest.mark.skipif(
    not floor_rig.have_mosquitto(), reason="mosquitto is not installed (make test installs it as root)"
)


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    return floor_rig.shared_template(tmp_path_factory)


@pytest.fixture
def rig(tmp_path, template):
    rig = Rig(str(tmp_path), ("T1", "T2"), template)
    rig.start_broker()
    yield rig
    rig.stop()


def one_line(result):
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    return lines[0]


def gateway(rig, *change, table="T1"):
    argv = rig.gateway_argv(table)
    for name, value in zip(change[::2], change[1::2]):
        if name in argv:
            argv[argv.index(name) + 1] = value
        else:
            argv += [name, value]
    return subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, timeout=60)


def nothing_changed(rig, table="T1"):
    assert not os.path.exists(os.path.join(rig.dir, "gateways", table + ".sqlite"))
    rows = {r["table"]: r for r in floor_status(rig)}
    assert rows[table]["presence"] is None and rows[table]["seq"] is None  # nothing said on the table's topics


def floor_status(rig):
    from host_tools.floor import cli

    return cli.status(rig.dir, rig.url, 0.5)


def test_a_wrong_port_is_exit_3(rig):
    result = gateway(rig, "--port", "/dev/no-such-board")
    assert result.returncode == 3
    assert one_line(result).startswith("host_tools gateway: cannot open /dev/no-such-board: ")
    nothing_changed(rig)


def test_a_port_with_no_board_is_exit_3(rig):
    master, slave = os.openpty()
    try:
        result = gateway(rig, "--port", os.ttyname(slave), "--timeout", "1")
    finally:
        os.close(master)
        os.close(slave)
    assert result.returncode == 3
    assert "no reply to hello from /dev/pts/" in one_line(result)
    nothing_changed(rig)


def test_a_board_holding_another_tables_key_is_exit_1(rig, tmp_path):
    other = str(tmp_path / "other.key")
    keys.save_key(other, keys.new_key())
    rig.start_board("T1")
    result = gateway(rig, "--key", other)
    assert result.returncode == 1
    line = one_line(result)
    assert line.startswith("host_tools gateway: the board on %s does not hold table T1's key" % rig.port("T1"))
    assert line.endswith("(bad tag): another table's board?")
    nothing_changed(rig)


def test_a_broker_refusing_the_password_is_exit_4(rig, tmp_path):
    wrong = tmp_path / "wrong"
    wrong.write_text("not-the-password\n")
    result = gateway(rig, "--password-file", str(wrong))
    assert result.returncode == 4
    assert one_line(result) == (
        "host_tools gateway: the broker at %s refused user gateway-T1: not authorised" % rig.url
    )
    nothing_changed(rig)


@pytest.mark.parametrize(
    "change, message",
    [
        (("--table", "T/1"), "table 'T/1': use 1-32 letters, digits, '-' or '_'"),
        (
            ("--broker", "http://127.0.0.1:1"),
            "broker 'http://127.0.0.1:1': give mqtt://HOST[:PORT] or mqtts://HOST[:PORT]",
        ),
        (("--keepalive", "0"), "--keepalive must be at least 1 second"),
    ],
)
def test_usage_mistakes_are_exit_2(rig, change, message):
    result = gateway(rig, *change)
    assert result.returncode == 2
    assert one_line(result) == "host_tools gateway: " + message


def wait_until(predicate, timeout=10.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def accepted(rig, user, password):
    """Whether the broker takes `user`'s password now (a connection it acknowledges)."""
    probe = Client(rig.url, user, password, "probe-" + user)
    try:
        return probe.start().wait_connected(2)
    except HostToolError:  # refused: not (yet) in the broker's password file
        return False
    finally:
        probe.stop()


def test_a_stranger_on_a_tables_topic_is_refused_by_the_broker_and_nothing_is_recorded(rig):
    people.add_person(rig.dir, "sup1", "supervisor", SUP1)  # no default person: one added, the broker told
    assert wait_until(lambda: accepted(rig, "sup1", SUP1))  # the broker reread its password file on the SIGHUP
    rig.start_recorder()
    rig.wait_log("recorder", "connected to the broker")
    seen = []
    root = topics.floor_root(rig.floor["floor"])
    watcher = Client(
        rig.url,
        "floorctl",
        floordir.password(rig.dir, "floorctl"),
        "",
        on_message=lambda t, p, r: seen.append(t),
        on_connect=lambda: (watcher.subscribe(root + "/table/+/event"), watcher.subscribe(root + "/ack/#")),
    )
    subscribed = []
    watcher.client.on_subscribe = lambda client, userdata, mid, reason_codes, properties: subscribed.append(mid)
    watcher.start()
    try:
        assert watcher.wait_connected(5)
        assert wait_until(lambda: len(subscribed) == 2)
        payload = topics.encode({"table": "T1", "journal": {"board": "x", "id": 1}, "record": {"seq": 1}})
        t1_event = topics.table(rig.floor["floor"], "T1", "event")
        # the broker acknowledges (MQTT 3.1.1 has no refusal in PUBACK) and drops each of these
        assert floor_rig.publish(rig, "gateway-T2", t1_event, payload)  # another table's gateway
        assert floor_rig.publish(rig, "sup1", t1_event, payload, password=SUP1)  # a person
        ack_surv1 = topics.ack(rig.floor["floor"], "surveillance", "surv1")
        assert floor_rig.publish(rig, "sup1", ack_surv1, b"{}", password=SUP1)
        # the one allowed: a person's acknowledgement under their own role and name
        ack_sup1 = topics.ack(rig.floor["floor"], "supervisor", "sup1")
        assert floor_rig.publish(rig, "sup1", ack_sup1, b"{}", password=SUP1)
        # Each publish above waited for its PUBACK: the broker had handled (and
        # dropped) the three refused ones before it took the allowed one.
        assert wait_until(lambda: seen)
    finally:
        watcher.stop()
    assert seen == [root + "/ack/supervisor/sup1"]
    store = rig.store()
    try:
        assert store.db.execute("select count(*) from events").fetchone()[0] == 0
    finally:
        store.close()


def test_a_second_floor_in_the_same_directory_says_so_in_one_line(tmp_path):
    folder = str(tmp_path / "floor")
    held = supervise.lock(folder)
    try:
        result = subprocess.run(
            [sys.executable, "-m", "host_tools", "floor", "up", "--dir", folder],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=60,
        )
    finally:
        os.close(held)
    assert result.returncode == 5
    assert one_line(result) == "host_tools floor: a floor is already running in %s (pid %d): Ctrl-C it first" % (
        folder,
        os.getpid(),
    )
    assert os.listdir(folder) == ["floor.lock"]


def rolls_recorded(rig):
    store = rig.store()
    try:
        return store.db.execute("select count(*) from events where tbl='T1' and kind='roll'").fetchone()[0]
    finally:
        store.close()


def test_a_board_back_with_fewer_records_than_it_published_is_an_alert(rig):
    rig.start_recorder()
    rig.start_board("T1")
    rig.start_gateway("T1")
    rig.wait_log("gateway-T1", "broker connection")
    rig.press("T1", "3 4 2 2 5 5")
    floor_rig.wait_for(lambda: rolls_recorded(rig) == 3, 60, "the rolls in the recorder")
    held = rig.recorded("T1")
    rig.kill_gateway("T1")
    rig.kill_board("T1")
    shutil.copy(rig.template_image, rig.image("T1"))  # the board's flash rewound to before the rolls
    size = rig.log_size("gateway-T1")
    rig.start_board("T1")
    rig.restart_gateway("T1")
    rig.wait_log("gateway-T1", "journal differs", since=size)
    finding = "table T1's board came back with journal 1 ending at record %d; the floor recorded up to %d"
    floor_rig.wait_for(
        lambda: any(a["text"].startswith(finding.split(" ending")[0]) for a in rig.alerts()), 60, "the alert"
    )
    alerts = rig.alerts()
    assert {a["kind"] for a in alerts} == {"journal differs from the floor's copy"}
    [short] = [a["text"] for a in alerts if a["text"].startswith("table T1's board came back")]
    board_seq = int(short.split("ending at record ")[1].split(";")[0])
    board = floor_rig.state_of(rig, "T1")["board"]
    step = rec.erased_step("T1", board)  # each alert names the step for a board whose flash was erased
    assert short == finding % (board_seq, held[-1][1]) + step and board_seq < held[-1][1]
    # the records the rewound board wrote again under the same numbers: each refused, each an alert
    others = [a["text"] for a in alerts if a["text"] != short]
    assert all(t.endswith("differs from the one the floor recorded" + step) for t in others)
    assert rig.recorded("T1")[: len(held)] == held  # the floor's copy is kept as it was


def test_the_websockets_listener_for_the_page_takes_mqtt_on_loopback_with_a_password(rig):
    import paho.mqtt.client as paho

    results = {}

    def connect(password):
        c = paho.Client(paho.CallbackAPIVersion.VERSION2, transport="websockets", protocol=paho.MQTTv311)
        c.username_pw_set("floorctl", password)
        c.on_connect = lambda client, userdata, flags, reason, props: results.setdefault(password, str(reason))
        c.connect("127.0.0.1", rig.floor["ws_port"])
        c.loop_start()
        floor_rig.wait_for(lambda: password in results, 30, "a CONNACK over WebSockets")
        c.disconnect()
        c.loop_stop()
        return results[password]

    assert connect(floordir.password(rig.dir, "floorctl")) == "Success"
    assert connect("wrong") == "Not authorized"
