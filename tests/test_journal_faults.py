"""Journal faults on the board's own filesystem (MicroPython VM, littlefs, NOR-flash model):
each is a clear fault, names the record when there is one, and writes nothing."""

import pytest

from sim import runtime


@pytest.fixture(scope="module")
def results():
    out = runtime.run("tests/vm/journal_faults.py", heapsize="24M", capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return dict(line.split(": ", 1) for line in out.stdout.splitlines())


def test_an_image_from_another_board_is_refused_untouched(results):
    assert results["foreign"] == "('foreign', None, 0, True)"


def test_every_flipped_byte_of_a_segment_is_a_fault_naming_a_record_of_it(results):
    # caught, distinct records named, records in the segment, first misses, fault after repair
    caught, named, records, missed, after = results["flips"].split(" ", 4)
    assert int(caught) > 1000 and named == records == "32"  # 2 KiB segments of 34-byte records (format 2)
    assert missed == "[]" and after == "none"


def test_a_staged_record_rewritten_to_hide_the_end_of_the_trail_is_a_fault(results):
    assert results["truncation"].startswith("('corrupt', ") and results["truncation"].endswith(", 0, True)")


def test_a_full_filesystem_refuses_the_event_and_keeps_every_acknowledged_one(results):
    # fault, later appends refused, acknowledged records kept, journal restores once there is room
    assert results["full"] == "full True True True"


def test_starting_a_new_journal_is_recorded_and_names_the_old_one(results):
    # kind, reason, old journal id, old last seq, old chain head, old journal kept, fresh table
    assert results["start_new"] == "journal_start 3 1 True True True 0"
