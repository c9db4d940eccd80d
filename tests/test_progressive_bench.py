"""`python -m bench.floor.progressive_bench` runs end to end on a real broker and
controller and writes its figures (figures, not limits: nothing here is timed)."""

import json

import pytest

from bench.floor import progressive_bench as bench

pytestmark = pytest.mark.timeout(180)


def test_the_bench_writes_its_figures(tmp_path, capsys):
    out = tmp_path / "progressive_bench.json"
    bench.main(["--contributions", "30", "--hits", "3", "--board-hits", "2", "--out", str(out)])
    got = json.loads(out.read_text())
    assert got["contributions_per_s"] > 0
    assert got["hit_to_pending_ms"]["samples"] == 3
    assert 0 < got["hit_to_pending_ms"]["p50"] <= got["hit_to_pending_ms"]["p99"]
    assert set(got["notes"]) == {"contributions_per_s", "hit_to_pending_ms", "controller_presence"}
    loss = got["controller_presence"]
    assert set(loss) == {"silent_to_offline_s", "resumed_to_online_s", "killed_to_offline_s", "restarted_to_online_s"}
    assert all(v >= 0 for v in loss.values())
    boards = got["with_boards"]
    for figure in ("hit_to_meter_pending_ms", "hit_to_pending_on_every_board_ms"):
        assert boards[figure]["samples"] == 2
        assert 0 < boards[figure]["p50"] <= boards[figure]["p99"]
    # each sample's boards took PENDING after its meter said it, so the medians are in that order too
    assert boards["hit_to_meter_pending_ms"]["p50"] < boards["hit_to_pending_on_every_board_ms"]["p50"]
    for figure in ("controller_killed_to_closed_on_every_board_ms", "controller_restarted_to_open_on_every_board_ms"):
        assert boards[figure]["samples"] == bench.LOSS_SAMPLES == 3
        assert 0 < boards[figure]["p50"] <= boards[figure]["p99"]
    figures = {
        "hit_to_meter_pending_ms",
        "hit_to_pending_on_every_board_ms",
        "controller_killed_to_closed_on_every_board_ms",
        "controller_restarted_to_open_on_every_board_ms",
        "keyed_again",
    }
    assert set(boards["notes"]) == figures | {"contributions_per_s"}
    assert set(boards) == figures | {"notes"}
    assert json.loads(capsys.readouterr().out) == got


def test_percentiles_of_a_few_samples():
    assert bench.percentile([3, 1, 2], 50) == 2
    assert bench.percentile([3, 1, 2], 99) == 3
    assert bench.percentile([5], 99) == 5
