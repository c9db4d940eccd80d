"""`python -m sim bench`: the stream it uses and a tiny end-to-end run. Speed is never asserted."""

import json

import pytest

from sim import runtime
from sim.analysis import bench
from sim.cli import CommandError
from sim.portable import dice_stream


def test_stream_is_deterministic_and_uniform_enough():
    a = dice_stream.rolls(7, 36_000)
    assert a == dice_stream.rolls(7, 36_000)
    assert a != dice_stream.rolls(8, 36_000)
    counts = [a.count(r) for r in range(36)]
    assert min(counts) > 0 and max(a) == 35
    chi2 = sum((c - 1000) ** 2 / 1000 for c in counts)
    assert chi2 < 100  # 35 degrees of freedom; a broken generator lands in the thousands
    pairs = bench.dice_pairs(7, 10)
    assert all(1 <= d <= 6 for pair in pairs for d in pair)
    assert pairs == [(r // 6 + 1, r % 6 + 1) for r in a[:10]]


def test_micropython_sees_the_same_stream():
    done = runtime.run("tests/vm/dice_stream_hex.py", capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == bytes(dice_stream.rolls(12345, 500)).hex()


def test_quick_bench_writes_json(tmp_path, capsys):
    out = tmp_path / "bench.json"
    assert bench.main(["--quick", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "ratio engine / crapssim" in text and "MicroPython bytes/roll, non-resolving" in text
    data = json.loads(out.read_text())
    cp, mp = data["cpython"], data["micropython"]
    assert cp["engine_rolls_per_s"] > 0 and cp["crapssim_rolls_per_s"] > 0
    assert cp["ratio"] == pytest.approx(cp["pairs"][0]["ratio"])
    assert mp["rolls"] == 4000 and mp["quiet_rolls"] + mp["resolving_rolls"] == 1000
    assert mp["matches_cpython"]  # same stream, same engine, same resolutions
    assert mp["quiet_bytes_per_roll"] is not None and mp["bytes_per_roll"] is not None
    assert data["odds_report_seconds"] > 0
    board = data["board"]  # figures only: speed is never asserted
    for key in ("idle_scan_us", "idle_render_us", "key_to_frame_us", "boot_heap_bytes", "smallest_heap_kb"):
        assert board[key] > 0, key
    assert board["frames_per_idle_s"] == 0 and board["frames_per_blinking_s"] == 2  # one frame per blink edge
    assert board["idle_render_writes"] == 0
    assert "board: frames written per idle second" in text and "smallest heap that boots and plays" in text
    assert data["targets"] == {"ratio_min": 30, "quiet_bytes_per_roll": 0}
    journal = data["journal"]["compact_records"]
    assert journal["rolls"] == 3000 and journal["rolls_restored"] == 3000
    assert journal["erases_per_roll"] <= 0.1  # the goal: at most 0.1 erase per roll on average
    # device time = programs x page program + erases x sector erase (W25Q32JV: 0.4/3 ms, 45/400 ms)
    typical, worst = data["journal"]["device_ms_per_roll"]
    assert typical == pytest.approx(journal["programs_per_roll"] * 0.4 + journal["erases_per_roll"] * 45)
    assert worst == pytest.approx(journal["programs_per_roll"] * 3 + journal["erases_per_roll"] * 400)
    best, least = data["journal"]["wear_years"]
    assert best == pytest.approx(100_000 * 512 / (journal["erases_per_roll"] * 3000) / 365)
    assert least == pytest.approx(best * 72 / 512)
    assert "journal: block erases per roll" in text


def test_digest_detects_a_different_stream():
    a = bench.engine_digest(bench.dice_pairs(1, 3000))
    assert a == bench.engine_digest(bench.dice_pairs(1, 3000))
    assert a != bench.engine_digest(bench.dice_pairs(2, 3000))


def test_bad_arguments():
    with pytest.raises(CommandError, match="must be at least 1"):
        bench.main(["--rolls", "0", "--no-micropython"])
