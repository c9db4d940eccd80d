"""host_tools log: a changed byte in a record still staged in littlefs's metadata fails --verify.

The staged records live inline in the journal directory's metadata. A changed
byte there fails littlefs's commit CRC and littlefs mounts the directory as it
was before that commit, so the files alone verify on a shorter trail; the
metadata walk (host_tools/littlefs_meta.py) tells that damage from the torn
last write a power cut leaves.
"""

import json
import subprocess
import sys

import pytest

from host_tools import HostToolError, journal_log, littlefs_meta
from sim import runtime
from sim.paths import ROOT
from sim.portable.norflash import apply_write

STAGED_ROLLS = 45  # one batch of 32 in a segment, the rest staged


def sim(*args):
    result = subprocess.run(
        [sys.executable, "-m", "sim", "run", "--runtime", "micropython", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def board_image(tmp_path_factory):
    path = tmp_path_factory.mktemp("flash") / "board.img"
    keys = " ".join("%d %d" % (1 + i % 6, 1 + (i * 5 + 2) % 6) for i in range(STAGED_ROLLS))
    sim("--flash", str(path), "--keys", keys)
    return bytearray(path.read_bytes())


def is_slot(name):
    return name.rsplit("/", 1)[-1].startswith("s")  # s0, odd/s1, ...


def staged(image):
    # {seq: record bytes} of the records staged past the last segment.
    files = journal_log.read_journal_files("board.img", image)
    records, _ = journal_log.verify_files(files)
    segment_end = max(r.seq for r in records) - sum(
        1 for n, d in files.items() if is_slot(n) and d and journal_log.jr.peek_seq(d, 0) > 32
    )
    out = {}
    for name, data in files.items():
        if is_slot(name) and data and journal_log.jr.peek_seq(data, 0) > segment_end:
            out[journal_log.jr.peek_seq(data, 0)] = data
    return out


def live_copy(image, record):
    # The offset of the record in the block littlefs mounts for the journal
    # directory: found in exactly one place there.
    offsets = []
    start = image.find(record)
    while start >= 0:
        offsets.append(start)
        start = image.find(record, start + 1)
    assert offsets, "record not in the image"
    return offsets[-1] if len(offsets) == 1 else mounted_copy(image, offsets)


def mounted_copy(image, offsets):
    blocks = {o // 4096 for o in offsets}
    for block in blocks:
        log = littlefs_meta.Log(image[block * 4096 : (block + 1) * 4096])
        if log.commits:
            return max(o for o in offsets if o // 4096 == block)
    raise AssertionError("no mounted copy")


def test_both_runtimes_write_littlefs_disk_version_2_1(board_image):
    # The walk relies on 2.1 (FCRC: littlefs never commits after a torn commit).
    from sim.portable import flashfs
    from sim.portable.norflash import NorFlash

    assert littlefs_meta.disk_version(board_image) == 0x00020001  # MicroPython's VfsLfs2
    dev = NorFlash()
    flashfs.mount(dev, True)  # littlefs-python, as the simulator under CPython formats
    flashfs.unmount()
    assert littlefs_meta.disk_version(dev.data) == 0x00020001


def test_the_board_image_verifies_clean(board_image):
    records, summary = journal_log.verify_image(board_image)
    assert records[-1].seq == STAGED_ROLLS + 1  # the journal start and every roll
    assert "torn" not in summary


@pytest.mark.parametrize("which", ["newest", "oldest"])
def test_flipping_any_byte_of_a_staged_record_fails_verification(board_image, which):
    records = staged(board_image)
    assert len(records) == STAGED_ROLLS + 1 - 32  # the rest of the batch is still staged
    seq = max(records) if which == "newest" else min(records)
    record = records[seq]
    at = live_copy(board_image, record)
    for i in range(len(record)):
        for flip in (0x01, 0x80, 0xFF):
            image = bytearray(board_image)
            image[at + i] ^= flip
            files = journal_log.read_journal_files("flipped", image)
            if which == "newest":
                # littlefs mounts the directory as it was before that commit:
                # the files alone verify, one record short (as after a power
                # cut), and only the metadata walk names the damaged record.
                assert journal_log.verify_files(files)[0][-1].seq == seq - 1
                words = (
                    r"cannot be proven, littlefs metadata damaged after record %d \(block \d+ offset \d+: commit CRC"
                    % (seq - 1)
                )
            else:
                # The rollback took the later records of its slots' directory
                # (even or odd slots) with it, but not those of the other: a
                # gap the files show, as the board's mount does.
                with pytest.raises(HostToolError, match=r"^record %d: staged records out of order" % seq):
                    journal_log.verify_files(files)
                words = "staged records out of order"
            with pytest.raises(HostToolError, match=r"^record %d: %s" % (seq, words)):
                journal_log.verify_image(image)
            # The metadata walk sees the damage either way.
            assert littlefs_meta.DAMAGED in [f.kind for f in littlefs_meta.check_directory(image, "journal")]


def test_the_command_exits_1_naming_the_record(board_image, tmp_path):
    records = staged(board_image)
    seq = max(records)
    image = bytearray(board_image)
    image[live_copy(image, records[seq]) + 7] ^= 0x10  # inside the record's t
    path = tmp_path / "flipped.img"
    path.write_bytes(bytes(image))
    result = subprocess.run(
        [sys.executable, "-m", "host_tools", "log", "--image", str(path), "--verify"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert result.returncode == 1
    assert result.stderr.startswith(
        "host_tools log: record %d: cannot be proven, littlefs metadata damaged after record %d (block "
        % (seq, seq - 1)
    )
    assert "commit CRC" in result.stderr and result.stderr.count("\n") == 1


@pytest.fixture(scope="module")
def write_log():
    result = runtime.run("tests/vm/journal_write_log.py", heapsize="8M", input=b"120", capture_output=True, timeout=300)
    assert result.returncode == 0, result.stderr.decode()
    image = bytearray(b"\xff" * 4096 * 512)
    writes = []
    for line in result.stdout.decode().splitlines():
        word = line.split()
        if word[0] == "b":
            block = int(word[1])
            image[block * 4096 : (block + 1) * 4096] = bytes.fromhex(word[2])
        elif word[0] == "e":
            writes.append(("e", int(word[1]), 0, None))
        else:
            writes.append(("p", int(word[1]), int(word[2]), bytes.fromhex(word[3])))
    return image, writes


def apply(image, write, half=False):
    op, block, offset, data = write
    apply_write(image, op, block, offset, data, half)


def test_a_power_cut_before_or_inside_any_write_still_verifies(write_log):
    base, writes = write_log
    assert len(writes) > 200
    image = bytearray(base)
    torn = 0
    last = 0
    for k, write in enumerate(writes):
        for half in (False, True):
            cut = bytearray(image)
            if half:
                apply(cut, write, True)
            try:
                records, summary = journal_log.verify_image(cut)  # no damage reported
            except HostToolError as e:
                # Cut while the journal was being started: nothing acknowledged yet.
                assert not last and "littlefs metadata" not in str(e), (k, half, e)
                continue
            assert records or not last
            last = records[-1].seq if records else 0
            torn += "torn last write" in summary
        apply(image, write)
    records, summary = journal_log.verify_image(image)
    assert records[-1].seq > 121 and "torn" not in summary  # 120 events, the start and a snapshot
    assert torn > 50  # the torn commits were seen, and told apart from damage


def test_a_whole_commit_after_a_damaged_one_is_damage(board_image):
    # The oldest staged record's commit is followed by the newer ones: a flip
    # there leaves valid commits after a bad one, never what a power cut does.
    records = staged(board_image)
    seq = min(records)
    image = bytearray(board_image)
    image[live_copy(image, records[seq]) + 3] ^= 0x04
    findings = littlefs_meta.check_directory(image, "journal")
    assert [f.kind for f in findings] == [littlefs_meta.DAMAGED]
    assert "commit CRC" in findings[0].reason


def sim_boot(runtime, image, tmp_path):
    path = tmp_path / ("boot-%s.img" % runtime)
    path.write_bytes(bytes(image))
    return subprocess.run(
        [sys.executable, "-m", "sim", "run", "--runtime", runtime, "--flash", str(path), "--keys", "wait:100"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )


@pytest.mark.parametrize("runtime", ["cpython", "micropython"])
def test_the_board_refuses_a_staged_record_damaged_before_the_newest(board_image, tmp_path, runtime):
    # Even and odd slots sit in two metadata pairs: littlefs rolls back the
    # damaged one, the other keeps its later records, and mount sees the gap.
    records = staged(board_image)
    for seq in sorted(records)[:-1]:
        image = bytearray(board_image)
        image[live_copy(image, records[seq]) + 9] ^= 0x01
        out = sim_boot(runtime, image, tmp_path)
        assert out.returncode == 2, (seq, out.stdout[:200])
        assert out.stderr == (
            "sim run: start-up failed, the board shows the fault: chain: staged records out of order after %d\n"
            % (seq - 1)
        )
        if runtime == "micropython":
            break  # one on the VM: each boot takes seconds


def test_the_board_restores_without_a_damaged_newest_record_as_after_a_power_cut(board_image, tmp_path):
    # What the board cannot tell from a torn last write; host_tools log --verify can.
    records = staged(board_image)
    image = bytearray(board_image)
    image[live_copy(image, records[max(records)]) + 9] ^= 0x01
    out = sim_boot("cpython", image, tmp_path)
    assert out.returncode == 0 and json.loads(out.stdout)["state"]["rolls"] == STAGED_ROLLS - 1
