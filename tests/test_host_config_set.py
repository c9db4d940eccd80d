"""`host_tools config set`: what a file changes is shown against the board
first, and nothing is sent without the technician's yes; `--merge` changes
only the keys the file gives. Real pyserial to the firmware's link core on a
pty, with config_get / config_set handlers that hold a configuration made by
the firmware's own code."""

import json
import subprocess
import sys

from pty_link import PtyLink
from test_host_link import KEY, board

from crapsboard.link import link_config
from crapsboard.rules import config as cfg
from sim.paths import ROOT

BOARD_CONFIG = {"paytables": {"fire": "3"}}  # the Fire paytable changed from its default "1"


def table_board():
    """A board whose configuration is BOARD_CONFIG; `sent` collects what config_set got."""
    held = {"config": link_config.as_json(cfg.parse(BOARD_CONFIG))}
    sent = []

    def config_set(request):
        sent.append(request["config"])
        held["config"] = link_config.as_json(cfg.parse(request["config"]))
        return {"config": held["config"]}

    return board(config_get=lambda request: {"config": held["config"]}, config_set=config_set), held, sent


def config_set(port, path, *options, stdin=None):
    return subprocess.run(
        [sys.executable, "-m", "host_tools", "config", "set", str(path), "--port", port, *options],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )


def test_a_partial_file_shows_what_it_resets_and_sends_nothing_without_yes(tmp_path):
    path = tmp_path / "one.json"
    path.write_text(json.dumps({"rebet_after_win": False}))
    key = tmp_path / "board.key"
    key.write_text(KEY.hex())
    key.chmod(0o600)  # a key file others can read is refused
    link, held, sent = table_board()
    with PtyLink(link) as pty:
        refused = config_set(pty.port, path, "--key", str(key), stdin="")
        assert refused.returncode == 2 and sent == []  # nothing sent
        assert refused.stdout.splitlines() == [
            'paytables.fire: "3" -> "1"  (not in the file: back to its default)  [payout]',
            "rebet_after_win: true -> false",
        ]
        assert refused.stderr == (
            "host_tools config: 2 values would change (listed above): nothing sent; run again with --yes to apply,"
            " or --merge to change only the keys the file gives\n"
        )
        applied = config_set(pty.port, path, "--key", str(key), "--yes")
        assert applied.returncode == 0, applied.stderr
        assert sent == [{"rebet_after_win": False}] and held["config"]["paytables"]["fire"] == "1"


def test_merge_changes_only_the_keys_given(tmp_path):
    path = tmp_path / "one.json"
    path.write_text(json.dumps({"rebet_after_win": False}))
    key = tmp_path / "board.key"
    key.write_text(KEY.hex())
    key.chmod(0o600)  # a key file others can read is refused
    link, held, sent = table_board()
    with PtyLink(link) as pty:
        listed = config_set(pty.port, path, "--key", str(key), "--merge", "--yes")
        assert listed.returncode == 0, listed.stderr
        assert listed.stdout.splitlines()[0] == "rebet_after_win: true -> false"
        assert held["config"]["paytables"]["fire"] == "3" and held["config"]["rebet_after_win"] is False
        again = config_set(pty.port, path, "--key", str(key), "--merge")
        assert (again.returncode, again.stdout) == (0, "same as the board: nothing sent\n")
    assert len(sent) == 1
