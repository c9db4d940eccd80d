"""The ports the floor's tests and rigs give their services are below the
kernel's ephemeral range, so no outgoing connection can take one between
the choice and the service's listen (a pit broker once failed to start so)."""

import socket

from host_tools.floor.bus import broker


def test_a_free_port_is_free_and_below_the_ephemeral_range():
    low = broker._ephemeral_low()
    ports = {broker.free_port() for _ in range(20)}
    assert all(10000 <= p < low for p in ports)
    assert len(ports) > 1  # chosen at random, not one fixed port
    for port in ports:
        with socket.socket() as s:
            s.bind(("127.0.0.1", port))


def test_a_taken_port_is_never_given(monkeypatch):
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        taken = held.getsockname()[1]
        picks = iter([taken, taken, 12345])
        monkeypatch.setattr("random.randrange", lambda a, b: next(picks))
        held.listen()
        assert broker.free_port() == 12345
