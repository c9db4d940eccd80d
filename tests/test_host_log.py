"""host_tools log: a board's journal read from a flash image on the host."""

import json
import subprocess
import sys

import littlefs
import pytest

from host_tools import HostToolError, journal_log
from sim import runtime
from sim.paths import ROOT


@pytest.fixture(scope="module")
def image(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("flash") / "flash.img")
    result = runtime.run(
        "tests/vm/journal_image.py", heapsize="8M", input=(path + " 400").encode(), capture_output=True, timeout=120
    )
    assert result.returncode == 0, result.stderr.decode()
    return path, int(result.stdout.split()[-1])


def host_tools(*args):
    return subprocess.run([sys.executable, "-m", "host_tools", *args], capture_output=True, text=True, cwd=ROOT)


def test_log_prints_every_record_from_the_oldest_segment_kept(image):
    path, last = image
    result = host_tools("log", "--image", path)
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in result.stdout.splitlines()]
    seqs = [r["seq"] for r in records]
    assert seqs == list(range(seqs[0], last + 1))
    assert seqs[0] > 1  # older segments were dropped, and that was recorded
    assert any(r["kind"] == "drop" for r in records)
    assert {"n": 390} in [r.get("payload") for r in records]
    rolls = [r for r in records if r["kind"] == "roll"]
    assert all(1 <= d <= 6 for r in rolls for d in r["dice"])


def test_verify_prints_one_summary_line(image):
    path, last = image
    result = host_tools("log", "--image", path, "--verify")
    assert result.returncode == 0
    assert result.stdout.count("\n") == 1 and ("-%d verified" % last) in result.stdout


def test_csv_has_a_header_and_a_row_per_record(image):
    path, last = image
    lines = host_tools("log", "--image", path, "--format", "csv").stdout.splitlines()
    assert lines[0] == "seq,t,kind,arg,dice,state,payload"
    assert lines[-1].startswith(str(last) + ",")


def live_record_spans(files):
    # (file name, start, end) of every record the journal holds now.
    records, _ = journal_log.verify_files(files)
    wanted = {r.seq for r in records}
    spans = []
    for name, data in files.items():
        if name.startswith("g") and data:
            pos = 40
            while pos < len(data):
                n = data[pos] | data[pos + 1] << 8
                spans.append((name, pos, pos + n))
                pos += n
        elif name.rsplit("/", 1)[-1].startswith("s") and data and journal_log.jr.peek_seq(data, 0) in wanted:
            spans.append((name, 0, len(data)))
    return spans


def test_flipping_any_byte_of_any_record_fails_verification(image):
    files = journal_log.read_journal_files(image[0])
    spans = live_record_spans(files)
    assert len(spans) >= 150
    flipped = 0
    for name, start, end in spans:
        for i in range(start, end):
            changed = dict(files)
            data = bytearray(files[name])
            data[i] ^= 0x01
            changed[name] = bytes(data)
            with pytest.raises(HostToolError, match=r"^record \d+"):
                journal_log.verify_files(changed)
            flipped += 1
    assert flipped > 5000


def test_a_flipped_byte_in_the_image_fails_with_one_line_naming_the_seq(image, tmp_path):
    path, last = image
    with open(path, "rb") as f:
        data = bytearray(f.read())
    fs = littlefs.LittleFS(
        context=littlefs.UserContext(buffer=data),
        mount=False,
        block_size=4096,
        block_count=512,
        read_size=32,
        prog_size=32,
        lookahead_size=32,
    )
    fs.mount()
    segment = max((n for n in fs.listdir("journal") if n.startswith("g")), key=lambda n: int(n[1:]))  # the newest
    with fs.open("journal/" + segment, "rb") as f:
        content = bytearray(f.read())
    first = int(segment[1:])
    content[40 + 20] ^= 0x80  # inside the segment's first record
    with fs.open("journal/" + segment, "wb") as f:
        f.write(content)
    bad = tmp_path / "bad.img"
    bad.write_bytes(bytes(data))
    result = host_tools("log", "--image", str(bad), "--verify")
    assert result.returncode == 1
    assert result.stderr == "host_tools log: record %d fails its CRC\n" % first
    assert "Traceback" not in result.stderr
    # Without --verify: the records that verify, up to the bad one, then the error.
    shown = host_tools("log", "--image", str(bad))
    assert shown.returncode == 1
    assert shown.stderr == "host_tools log: record %d fails its CRC\n" % first
    seqs = [json.loads(line)["seq"] for line in shown.stdout.splitlines()]
    assert seqs and seqs[-1] == first - 1 and seqs == list(range(seqs[0], first))


def test_an_unformatted_image_is_refused_and_left_as_it_was(tmp_path):
    blank = tmp_path / "blank.img"
    blank.write_bytes(b"\xff" * 4096 * 512)
    result = host_tools("log", "--image", str(blank))
    assert result.returncode == 2 and "no littlefs filesystem" in result.stderr  # not an image: status 2 (README)
    assert blank.read_bytes() == b"\xff" * 4096 * 512
    odd = tmp_path / "notes.txt"
    odd.write_text("not an image\n")
    result = host_tools("log", "--image", str(odd))
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == "host_tools log: %s is not a flash image of 4 KiB blocks\n" % odd


def test_every_segment_opens_with_the_table_state(image):
    # So a segment restores on its own once the older ones are dropped.
    files = journal_log.read_journal_files(image[0])
    records, _ = journal_log.verify_files(files)
    by_seq = {r.seq: r for r in records}
    firsts = [int(name[1:]) for name in files if name.startswith("g")]
    assert len(firsts) == 3
    for first in firsts:
        assert by_seq[first].kind in (18, 19) and by_seq[first].state


def test_usage_and_unreadable_files_are_one_line_with_status_2(tmp_path):
    for args, words in [
        (("log",), "one of the arguments --image --port/-p is required"),
        (("log", "--image", str(tmp_path / "missing.img")), "cannot read"),
        (("log", "--image", str(tmp_path), "--format", "xml"), "invalid choice"),
        (("roulette",), "invalid choice"),
    ]:
        result = host_tools(*args)
        assert result.returncode == 2, (args, result.stderr)
        assert result.stderr.count("\n") == 1 and words in result.stderr, result.stderr
        assert result.stdout == ""
