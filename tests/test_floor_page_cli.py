"""`python -m host_tools floor page` refusing to start: one line on stderr, a documented exit status."""

import os
import socket
import subprocess
import sys

import pytest

from host_tools.floor.base import floordir
from host_tools.floor.bus import broker

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def page(*args):
    return subprocess.run(
        [sys.executable, "-m", "host_tools", "floor", "page", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )


@pytest.fixture
def floor_dir(tmp_path):
    floordir.new_floor(str(tmp_path), tables=("T1",), port=broker.free_port(), ws_port=broker.free_port())
    return str(tmp_path)


def test_no_floor_here(tmp_path):
    done = page("--dir", str(tmp_path / "none"))
    assert done.returncode == 2
    assert (
        done.stderr
        == "host_tools floor: no floor in %s (floor.json missing): run `make floor` or `floor init`\n"
        % (tmp_path / "none")
    )


def test_no_broker_is_exit_4(floor_dir):
    done = page("--dir", floor_dir, "--http-port", str(broker.free_port()))
    assert done.returncode == 4
    assert done.stderr.startswith("host_tools floor: page: the broker at 127.0.0.1:")
    assert done.stderr.endswith("cannot be reached (Connection refused)\n")
    assert done.stdout == ""


def test_a_port_in_use_is_one_line(floor_dir):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = page("--dir", floor_dir, "--http-port", str(port))
    assert done.returncode == 2
    assert done.stderr == "host_tools floor: page: cannot serve on 127.0.0.1:%d: Address already in use\n" % port


def test_times_must_be_positive(floor_dir):
    done = page("--dir", floor_dir, "--idle", "0")
    assert (done.returncode, done.stderr) == (
        2,
        "host_tools floor: --escalate-after, --idle and --lifetime must be positive\n",
    )


def test_a_certificate_without_its_key_or_a_bad_one_is_one_line(floor_dir, tmp_path):
    done = page("--dir", floor_dir, "--cert-file", str(tmp_path / "page.crt"))
    assert (done.returncode, done.stderr) == (2, "host_tools floor: page: --cert-file and --key-file go together\n")
    (tmp_path / "page.crt").write_text("not a certificate\n")
    (tmp_path / "page.key").write_text("not a key\n")
    done = page("--dir", floor_dir, "--cert-file", str(tmp_path / "page.crt"), "--key-file", str(tmp_path / "page.key"))
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert done.stderr.startswith("host_tools floor: page: cannot serve HTTPS with %s" % (tmp_path / "page.crt"))


def test_the_page_serves_https_with_a_secure_cookie(tmp_path):
    import ssl

    import httpx
    from progressive_floor import PEOPLE, Floor
    from tls_certs import CA

    from bench.floor.page_drive import PageProcess

    floor = Floor(tmp_path / "floor", tables=("T1",))
    page_proc = None
    try:
        ca = CA(str(tmp_path))
        cert, key = ca.issue("pit.example", server=True)
        port = broker.free_port()
        page_proc = PageProcess(floor.dir, port, "--cert-file", cert, "--key-file", key)
        assert page_proc.first_line == "pit page: https://127.0.0.1:%d/\n" % port
        context = ssl.create_default_context(cafile=ca.cert_file)
        with httpx.Client(base_url="https://127.0.0.1:%d" % port, verify=context) as client:
            form = client.get("/login")
            assert form.status_code == 200 and "Secure" in form.headers["set-cookie"]
            csrf = form.text.split('name="csrf" value="', 1)[1].split('"', 1)[0]
            name, (_, password) = "sam", PEOPLE["sam"]
            ok = client.post("/login", data={"user": name, "password": password, "csrf": csrf})
            assert ok.status_code == 303 and "Secure" in ok.headers["set-cookie"]
            assert "HttpOnly" in ok.headers["set-cookie"]
        with pytest.raises(httpx.HTTPError):  # plain HTTP on the same port is not served
            httpx.get("http://127.0.0.1:%d/login" % port, timeout=5)
    finally:
        if page_proc is not None:
            page_proc.stop()
        floor.close()
