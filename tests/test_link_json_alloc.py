"""link_json.line builds a reply without allocating many times its size
(docs/link.md, Memory): under the MicroPython unix port, mem_total() around
the call stays within twice the frame's length for a small reply, a
mid-sized one and the longest the board sends (status during the lamp test,
47 lamps lit). The frame itself is one block of exactly its length."""

from sim import runtime

AT_MOST = 2.0  # bytes allocated per byte of the frame


def measured():
    done = runtime.run("tests/vm/link_json_alloc.py", heapsize="1M", capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    return [tuple(int(w) for w in line.split()) for line in done.stdout.splitlines()]


def test_a_reply_allocates_at_most_twice_its_length():
    rows = measured()
    assert [lamps for lamps, _, _ in rows] == [0, 10, 47]
    for lamps, length, allocated in rows:
        assert allocated >= length  # the frame itself is counted: the measure sees allocation
        assert allocated <= AT_MOST * length, (lamps, length, allocated)


def test_the_longest_reply_is_the_lamp_tests_status_and_still_fits_the_bound():
    rows = {lamps: (length, allocated) for lamps, length, allocated in measured()}
    assert rows[47][0] > 3000 > rows[10][0] > rows[0][0]
    assert rows[47][1] <= AT_MOST * rows[47][0]
