"""`make floor PITS=2 TABLES=4 METRICS_PORT=P` (`floor up --pits 2 --tables 4
--metrics-port P`): the floor's broker and two pit brokers bridged to it,
four virtual boards with a gateway each on its pit's broker, the recorder
on the floor's; a roll on a table of the second pit is in the floor's
record; every process serves its figures (the supervisor's own, a gateway's
read from its board); Ctrl-C leaves nothing running."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.request

import pytest
from test_floor_make import host_tools, processes_naming, read_until

from bench.floor import localfloor as floor_rig
from bench.floor import record_feed
from host_tools.floor import floor_init
from host_tools.floor.bus import broker
from sim.paths import ROOT

pytestmark = pytest.mark.skipif(
    not floor_rig.have_mosquitto(), reason="mosquitto is not installed (make test installs it as root)"
)


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    return floor_rig.shared_template(tmp_path_factory)


def scrape(port):
    with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=5) as r:
        return r.read().decode()


@pytest.mark.timeout(300)
def test_a_floor_of_two_pits_runs_bridged_and_measured(tmp_path, template):
    folder = str(tmp_path / "floor")
    floor = floor_init.init(folder, 4, "main", broker.free_port(), broker.free_port(), pits=2)
    floor = record_feed.free_pit_ports(folder, floor)  # floor up keeps them
    image, key_file, firmware_hash = template
    for t in floor["tables"]:
        shutil.copy(image, os.path.join(folder, "boards", t + ".img"))
        shutil.copy(key_file, os.path.join(folder, "keys", t + ".key"))
        with open(os.path.join(folder, "boards", t + ".deployed"), "w") as f:
            f.write(firmware_hash + "\n")
    metrics = broker.free_port()
    up = subprocess.Popen(
        [sys.executable, "-m", "host_tools", "floor", "up", "--dir", folder, "--tables", "4", "--pits", "2"]
        + ["--metrics-port", str(metrics)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    lines = []
    try:
        read_until(up, "4 tables up", lines)
        assert any("pit P2: broker on" in line and "for T3 T4, bridged" in line for line in lines), lines
        result = host_tools("floor", "keys", "--dir", folder, "--table", "T3", "3 4")
        assert result.returncode == 0, result.stderr
        rolls = []
        end = time.monotonic() + 60
        while not rolls and time.monotonic() < end:
            result = host_tools("floor", "events", "--dir", folder, "--table", "T3")
            rolls = [json.loads(x)["dice"] for x in result.stdout.splitlines() if '"roll"' in x]
            time.sleep(0.5)
        assert rolls == [[3, 4]]  # from T3's board through pit P2's broker and its bridge to the floor's record
        own = scrape(metrics)
        for name in ("broker", "pit broker P1", "pit broker P2", "recorder", "gateway T3"):
            assert 'crapsfloor_supervised_up{service="%s"} 1.0' % name in own
        gateway_t3 = metrics + 10 + 2  # the gateways from P+10, in floor.json's order
        end = time.monotonic() + 30
        while 'crapsfloor_gateway_board_connected{table="T3"} 1.0' not in scrape(gateway_t3):
            assert time.monotonic() < end, scrape(gateway_t3)
            time.sleep(0.2)
        assert 'crapsfloor_gateway_broker_connected{table="T3"} 1.0' in scrape(gateway_t3)
    finally:
        up.send_signal(signal.SIGINT)
        out, err = up.communicate(timeout=60)
    lines += out.splitlines()
    assert up.returncode == 0, err
    assert lines[-1].endswith("make floor: stopped; nothing left running")
    assert processes_naming(folder) == []
