"""The virtual board's keypad input after the VM was held up (a loaded
machine stops it for longer than a press): sim/portable/vboard_machine.py's
`_held` hands the keypad each change the CPython side wrote, so the debounce
(30 ms, docs/keys.md) sees every press a dealer made and no blip grows into
one. Its clock is the VM's ticks_ms, driven here by hand; the pipe is a real
one, as on the virtual board."""

import importlib.util
import os

import pytest

from sim.keyfeed import WORD
from sim.paths import ROOT

DOWN, UP = 1 << 3, 0  # a key's bit held, then nothing


class Clock:
    def __init__(self):
        self.ms = 1000

    def ticks_ms(self):
        return self.ms

    def ticks_diff(self, a, b):
        return a - b


@pytest.fixture
def board():
    spec = importlib.util.spec_from_file_location(
        "vboard_machine_under_test", os.path.join(ROOT, "sim", "portable", "vboard_machine.py")
    )
    machine = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(machine)
    clock = Clock()
    machine.time = clock
    read, write = os.pipe()
    os.set_blocking(read, False)
    machine._keys_in[0] = open(read, "rb", buffering=0)
    yield machine, clock, lambda *words: os.write(write, b"".join(WORD.pack(w) for w in words))
    machine._keys_in[0].close()
    os.close(write)


def look(machine, clock, at):
    clock.ms = at
    return machine._held()


def test_a_press_held_across_a_stall_is_shown_after_it_before_its_release(board):
    machine, clock, write = board
    assert look(machine, clock, 1000) == 0
    write(DOWN)
    assert look(machine, clock, 1010) == DOWN  # the VM keeps up: at once
    write(UP)  # released while the VM is stopped
    assert look(machine, clock, 1300) == DOWN  # the first look after the stall: still down
    assert look(machine, clock, 1310) == UP  # the keypad saw it down from 1010 to 1300: a press


def test_a_press_shown_once_before_a_stall_is_shown_again_after_it(board):
    machine, clock, write = board
    look(machine, clock, 1000)
    write(DOWN)
    assert look(machine, clock, 1010) == DOWN
    write(UP)
    assert look(machine, clock, 1300) == DOWN and look(machine, clock, 1310) == UP
    write(DOWN, UP, DOWN, UP)  # two presses made while stopped: each held 50 ms in turn
    seen = [look(machine, clock, t) for t in range(2000, 2300, 10)]
    assert [seen[i] for i in range(len(seen)) if i == 0 or seen[i] != seen[i - 1]] == [UP, DOWN, UP, DOWN, UP]


def test_a_vm_that_keeps_up_gets_each_change_as_it_comes_short_blips_included(board):
    machine, clock, write = board
    look(machine, clock, 1000)
    write(DOWN)
    assert look(machine, clock, 1010) == DOWN
    write(UP)  # a 10 ms blip: shorter than the debounce, and kept so
    assert look(machine, clock, 1020) == UP


def test_slow_looks_still_get_every_change(board):
    # a keypad scanning slower than the stall bound (here every 40 ms) gets each
    # word one look late, never stuck
    machine, clock, write = board
    look(machine, clock, 1000)
    write(DOWN)
    got = [look(machine, clock, t) for t in (1040, 1080, 1120)]
    assert DOWN in got
    write(UP)
    got = [look(machine, clock, t) for t in (1160, 1200, 1240)]
    assert got[-1] == UP
