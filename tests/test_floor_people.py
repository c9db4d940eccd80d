"""The floor's people (host_tools/floor/people/accounts.py, `floor user add`): Argon2id
hashes, no default account, and the same password as the person's own
identity on a real mosquitto, whose ACL lets them acknowledge only as their role."""

import json
import os
import subprocess
import sys
import threading

import paho.mqtt.client as mqtt
import pytest

from bench.floor import localfloor
from host_tools import HostToolError
from host_tools.floor.base import floordir, topics
from host_tools.floor.bus import broker
from host_tools.floor.people import accounts as people

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PASSWORD = "correct horse battery"

pytestmark = pytest.mark.skipif(
    not localfloor.have_mosquitto(), reason="mosquitto is not installed (make test installs it as root)"
)


def user_add(directory, name, role, password_line):
    return subprocess.run(
        [sys.executable, "-m", "host_tools", "floor", "user", "add", name, "--role", role, "--dir", str(directory)],
        input=password_line,
        capture_output=True,
        text=True,
        cwd=ROOT,
    )


def test_user_add_hashes_with_argon2id_and_verify_knows_the_password_only(tmp_path):
    done = user_add(tmp_path, "ann", "surveillance", PASSWORD + "\n")
    assert (done.returncode, done.stdout, done.stderr) == (0, "ann added as surveillance\n", "")
    stored = json.loads((tmp_path / "people.json").read_text())["people"]["ann"]
    assert stored["role"] == "surveillance"
    assert stored["hash"].startswith("$argon2id$")
    assert PASSWORD not in (tmp_path / "people.json").read_text()
    assert PASSWORD not in (tmp_path / "passwd").read_text()
    assert oct(os.stat(tmp_path / "people.json").st_mode & 0o777) == "0o600"
    assert people.verify(str(tmp_path), "ann", PASSWORD) == "surveillance"
    assert people.verify(str(tmp_path), "ann", PASSWORD + "x") is None
    assert people.verify(str(tmp_path), "nobody", PASSWORD) is None


@pytest.mark.parametrize(
    "name, role, line, message",
    [
        ("bob", "supervisor", "short\n", "host_tools floor: a password needs at least 10 characters\n"),
        ("bob", "supervisor", "", "host_tools floor: no password on stdin; nothing changed\n"),
        ("bob/x", "supervisor", PASSWORD + "\n", "host_tools floor: name 'bob/x': use 1-32 letters"),
        ("bob", "supervisor", "has:colon12\n", "host_tools floor: a password may not hold ':'"),
    ],
)
def test_bad_input_is_one_line_and_changes_nothing(tmp_path, name, role, line, message):
    done = user_add(tmp_path, name, role, line)
    assert done.returncode == 2
    assert done.stderr.startswith(message)
    assert len(done.stderr.splitlines()) == 1
    assert sorted(os.listdir(tmp_path)) == []


def test_a_new_floor_has_no_person_until_one_is_added(tmp_path):
    floor = floordir.new_floor(str(tmp_path), tables=("T1",))
    assert floor["people"] == []
    assert people.read_people(str(tmp_path)) == {}
    assert [kind for _, kind, _ in floordir.accounts(floor)].count("person") == 0


def test_a_person_is_who_the_broker_says_and_acknowledges_only_as_their_role(tmp_path):
    d = str(tmp_path)
    floor = floordir.new_floor(d, tables=("T1",), port=broker.free_port(), ws_port=broker.free_port())
    broker.write_config(d, floor)
    people.add_person(d, "ann", "surveillance", PASSWORD)
    people.add_person(d, "tom", "technician", PASSWORD + "2")
    broker.write_config(d, floordir.read_floor(d))  # a rewrite keeps the people's hashed lines
    b = broker.Broker(d).start()
    try:
        seen = []
        got = threading.Event()
        watcher = connect(floor, "page", floordir.password(d, "page"))
        watcher.on_message = lambda c, u, m: (seen.append(m.topic), got.set() if m.topic.endswith("done") else None)
        watcher.subscribe(topics.floor_root("main") + "/#", qos=1)
        ann = connect(floor, "ann", PASSWORD)
        tom = connect(floor, "tom", PASSWORD + "2")
        ann.publish(topics.ack("main", "supervisor", "ann"), b"{}", qos=1).wait_for_publish(5)  # not her role
        tom.publish(topics.ack("main", "technician", "tom"), b"{}", qos=1).wait_for_publish(5)  # reads only
        ann.publish(topics.ack("main", "surveillance", "ann"), b"{}", qos=1).wait_for_publish(5)
        watcher.publish(topics.alert("main", "done"), b"{}", qos=1)  # the page may write alerts
        assert got.wait(5)
        assert seen == [topics.ack("main", "surveillance", "ann"), topics.alert("main", "done")]
        with pytest.raises(ConnectionRefusedError):
            connect(floor, "ann", PASSWORD + "wrong")
        for c in (watcher, ann, tom):
            c.loop_stop()
            c.disconnect()
    finally:
        b.stop()


def connect(floor, user, password):
    done = threading.Event()
    result = []
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="test-" + user)
    c.username_pw_set(user, password)

    def on_connect(client, userdata, flags, reason, properties):
        result.append(reason)
        done.set()

    c.on_connect = on_connect
    c.connect("127.0.0.1", floor["port"])
    c.loop_start()
    assert done.wait(5)
    if result[0].is_failure:
        c.loop_stop()
        raise ConnectionRefusedError(str(result[0]))
    return c


def test_add_person_refuses_an_unknown_role_before_touching_anything(tmp_path):
    with pytest.raises(HostToolError, match="role 'boss'"):
        people.add_person(str(tmp_path), "ann", "boss", PASSWORD)
    assert os.listdir(tmp_path) == []


def test_people_added_stay_when_the_floor_is_made_again(tmp_path):
    d = str(tmp_path)
    floordir.new_floor(d, tables=("T1",))
    people.add_person(d, "ann", "surveillance", PASSWORD)
    again = floordir.new_floor(d, tables=("T1", "T2"))  # `make floor` with more tables
    assert again["people"] == [{"user": "ann", "role": "surveillance"}]
    assert "user ann\n" in broker.acl_text(again)
