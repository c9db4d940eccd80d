"""The changeover keyswitch (two contacts: one closed means on or off, both or
neither is a fault) and the keypad scan's settle wait. Both runtimes where the
app runs; the settle wait against a column that rises like a real RC."""

import json
import os

import pytest
import vm_program
from conftest import ROOT

from crapsboard.table import keypad
from crapsboard.table import layout as lay
from sim.session import HEAPSIZE, KeyScriptError, Session

BOARD_JSON = os.path.join(ROOT, "hardware", "board.json")


@pytest.fixture(params=["cpython", "micropython"])
def session(request):
    with Session(request.param) as s:
        yield s


def errors(state):
    return [e["reason"] for e in state["events"] if e["event"] == "error"]


def test_the_shipped_board_has_a_changeover_keyswitch():
    layout = lay.load(BOARD_JSON)
    assert layout.button_pins[lay.BUTTONS.index("supervisor_key")] == 27
    assert layout.button_pins[-1] == 39  # the normally-closed contact, input-only: no internal pull
    assert layout.button_pull[-1] == "none"
    assert layout.settle_us == 8


def test_the_keyswitch_on_and_off_authorises_as_before(session):
    assert session.send("key:on")["supervisor"] is True
    state = session.send("3 4 undo key:off")
    assert [e["event"] for e in state["events"]] == ["roll", "undo", "supervisor_off"]
    assert state["supervisor"] is False


@pytest.mark.parametrize("fault", ["key:both", "key:neither"])
def test_a_shorted_or_broken_lead_is_a_fault_never_supervisor_mode(session, fault):
    state = session.send("3 4 " + fault + " wait:3000")
    assert errors(state) == ["keyswitch_fault"]  # recorded once
    assert state["supervisor"] is False
    assert state["status"] == "ready"  # the entry is fine...
    assert (
        state["lamps"]["status"]["color"] == "#ff0000" and state["lamps"]["status"]["blink"]
    )  # ...the lamp says fault
    state = session.send("undo")
    assert errors(state) == ["not_authorised"]
    assert state["hand"]["rolls"] == 1


def test_a_fault_while_authorised_ends_the_authorisation(session):
    session.send("key:on")
    state = session.send("key:both")
    assert [e["event"] for e in state["events"]] == ["error", "supervisor_off"]
    assert state["supervisor"] is False


def test_the_fault_clears_when_the_switch_is_whole_again(session):
    # "key:neither" from the first scan is a fault present at power-up: it is
    # recorded (an error, shown 2 s) one debounce window in; wait that out.
    assert errors(session.send("key:neither wait:500")) == ["keyswitch_fault"]
    state = session.send("key:off wait:2000")
    assert state["lamps"]["status"]["color"] == "#00ff00"  # ready
    assert session.send("key:on")["supervisor"] is True


def test_a_single_contact_board_refuses_the_fault_tokens(tmp_path):
    board = json.load(open(BOARD_JSON, encoding="utf-8"))
    del board["buttons"]["supervisor_key"]["contact"]
    del board["buttons"]["supervisor_key"]["nc_pin"]
    path = tmp_path / "board.json"
    path.write_text(json.dumps(board))
    with Session("cpython", board_path=str(path)) as s:
        assert s.send("key:on")["supervisor"] is True
        with pytest.raises(KeyScriptError, match="one contact"):
            s.send("key:both")


def test_an_nc_pin_without_changeover_is_refused():
    board = json.load(open(BOARD_JSON, encoding="utf-8"))
    del board["buttons"]["supervisor_key"]["contact"]
    with pytest.raises(lay.LayoutError, match="changeover"):
        lay.Layout(board)


class Clock:
    us = 0

    def sleep_us(self, us):
        self.us += us


class RcRow:
    def __init__(self, clock):
        self.clock, self.level, self.changed = clock, 1, 0

    def value(self, v=None):
        if v is None:
            return self.level
        self.level, self.changed = v, self.clock.us


class RcColumn:
    """A column whose level follows the keys only `rise_us` after a row changes:
    before that it still reads what it read under the previous row."""

    def __init__(self, clock, rows, col, down, rise_us):
        self.clock, self.rows, self.col, self.down, self.rise_us = clock, rows, col, down, rise_us
        self.last = 1

    def value(self, v=None):
        settled = all(self.clock.us - r.changed >= self.rise_us for r in self.rows)
        if settled:
            self.last = 0 if any(r.level == 0 and (i, self.col) in self.down for i, r in enumerate(self.rows)) else 1
        return self.last


def rc_matrix(down, settle_us, rise_us=6):
    clock = Clock()
    rows = [RcRow(clock) for _ in range(4)]
    cols = [RcColumn(clock, rows, c, down, rise_us) for c in range(4)]
    return keypad.Matrix(rows, cols, settle_us, clock.sleep_us)


def test_the_scan_waits_for_the_columns_to_settle():
    # Key (row 0, col 1) held: read at once, the slow column ghosts it into rows 1-3.
    assert rc_matrix({(0, 1)}, settle_us=0).scan() != 1 << 1
    assert rc_matrix({(0, 1)}, settle_us=8).scan() == 1 << 1


def test_no_wait_without_a_delay_function():
    m = keypad.Matrix([RcRow(Clock())], [], settle_us=8, sleep_us=None)
    assert m.scan() == 0


# --- the keyswitch at power-up ----------------------------------------

POWER_UP = "tests/vm/keyswitch_power_up.py"


def power_up(runtime_name, position):
    out = vm_program.run(runtime_name, POWER_UP, [BOARD_JSON, position], HEAPSIZE, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    return json.loads(out.stdout)


@pytest.mark.parametrize("runtime_name", ["cpython", "micropython"])
@pytest.mark.parametrize("position", ["neither", "both"])
def test_a_keyswitch_fault_present_at_power_up_is_detected(runtime_name, position):
    # X3 unplugged (neither contact) never changes an input: the board must
    # still judge the contacts once, one debounce window after the first scan.
    state = power_up(runtime_name, position)
    assert state["fault"] is True
    assert state["errors"] == 1  # recorded once
    assert state["status_rgb"] == "#ff0000" and state["blink"] == 2  # red, fast blink (lamps.BLINK_FAST)


@pytest.mark.parametrize("runtime_name", ["cpython", "micropython"])
def test_a_whole_keyswitch_at_power_up_is_no_fault(runtime_name):
    state = power_up(runtime_name, "off")
    assert state == {"fault": False, "status_rgb": "#00ff00", "blink": 0, "errors": 0}
