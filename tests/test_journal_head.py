"""The journal head signed in every hello (docs/link.md, hello):
deleting the newest records of a board's journal looks like a power cut to
the board, but a host that saw a later signed head says so. The board is the
firmware's App and link on littlefs-backed files (tests/vm/link_app_session.py
under CPython, as test_link_app.py runs it); the host side is
host_tools.board_records with its records beside the key file."""

import functools
import json
import os

import pytest
from test_link_app import KEY, request, session

from host_tools import HostToolError, board_records, sync

BOARD = "73696d626f617264"  # the session's board id


@pytest.fixture
def host(tmp_path, monkeypatch):
    folder = tmp_path / "keys"
    folder.mkdir(mode=0o700)
    key_file = folder / (BOARD + ".key")
    key_file.write_text(KEY.hex() + "\n")
    key_file.chmod(0o600)
    monkeypatch.setenv("CRAPSBOARD_KEYS", str(folder))
    monkeypatch.delenv("CRAPSBOARD_PASSPHRASE", raising=False)
    return folder


def hello(board):
    return json.loads(session("cpython", board, [request(1, "hello")])[0][0])


def newest_staged(board):
    """The staging file of the journal's newest record."""
    journal = board / "journal"
    files = [journal / n for n in os.listdir(journal) if n.startswith("s")]
    files += [journal / "odd" / n for n in os.listdir(journal / "odd")]
    return max(files, key=lambda p: int.from_bytes(p.read_bytes()[2:6], "little"))


def test_a_host_that_saw_a_later_head_reports_deleted_records(tmp_path, host):
    board = tmp_path / "board"
    board.mkdir()
    session("cpython", board, ["keys 3 3 2 2 5 5"])
    seen = hello(board)
    assert seen["head"]["seq"] == seen["journal"]["seq"] == 5  # start, three rolls, the restart of this session
    assert board_records.check_head(seen) is None  # signed by the board's key: kept
    assert json.loads((host / (BOARD + ".head")).read_text())["seq"] == 5
    # The two newest records deleted (the restart and the last roll): the board
    # restores three, records its restart as 4 and plays on, as after a power cut.
    newest_staged(board).unlink()
    newest_staged(board).unlink()
    after = hello(board)
    assert after["ok"] and after["journal"]["fault"] is None and after["head"]["seq"] == 4
    with pytest.raises(HostToolError) as e:
        board_records.check_head(after)
    saw = json.loads((host / (BOARD + ".head")).read_text())["seen"]
    assert str(e.value) == (
        "board %s's journal went back: it is at journal 1 record 4, this host saw journal 1 record 5 (seen %s):"
        " records were deleted or an older journal restored%s" % (BOARD, saw, board_records.ERASED_STEP)
    )
    assert e.value.code == 1


def test_a_head_behind_the_one_seen_is_reported_as_gone_back(tmp_path, host):
    board = tmp_path / "board"
    board.mkdir()
    session("cpython", board, ["keys 3 3 2 2 5 5 6 6"])
    assert board_records.check_head(hello(board)) is None
    for _ in range(4):
        newest_staged(board).unlink()
    with pytest.raises(
        HostToolError, match="journal went back: it is at journal 1 record 3, this host saw journal 1 record 6"
    ):
        board_records.check_head(hello(board))


def test_a_head_not_signed_by_the_board_s_key_is_refused(tmp_path, host):
    board = tmp_path / "board"
    board.mkdir()
    seen = hello(board)
    forged = dict(seen, head=dict(seen["head"], seq=99))
    with pytest.raises(HostToolError, match="journal head is not signed by its key: not the real board"):
        board_records.check_head(forged)
    assert not (host / (BOARD + ".head")).exists()
    assert board_records.check_head(seen) is None and (host / (BOARD + ".head")).exists()
    # A host without the board's key cannot check it, and says so.
    (host / (BOARD + ".key")).unlink()
    assert board_records.check_head(seen) == "journal head not checked: no key for board %s on this host" % BOARD


class SessionLink:
    """The board's link for sync.still_holds: each request a session of its own."""

    def __init__(self, board):
        self.board = board

    def request(self, cmd, **args):
        return json.loads(session("cpython", self.board, [request(1, cmd, **args)])[0][0])


def test_records_deleted_then_played_past_went_back(tmp_path, host):
    board = tmp_path / "board"
    board.mkdir()
    session("cpython", board, ["keys 3 3 2 2 5 5"])
    assert (
        board_records.check_head(hello(board), holds=functools.partial(sync.still_holds, SessionLink(board))) is None
    )  # record 5 seen
    newest_staged(board).unlink()
    newest_staged(board).unlink()
    session("cpython", board, ["keys 6 6 4 4 3 3"])  # restart 4, then three rolls: past record 5 again
    after = hello(board)
    assert after["head"]["seq"] > 5 and after["journal"]["fault"] is None
    with pytest.raises(HostToolError) as e:
        board_records.check_head(after, holds=functools.partial(sync.still_holds, SessionLink(board)))
    assert e.value.code == 1
    assert str(e.value).startswith(
        "board %s's journal went back: record 5 no longer has the chain hash of journal 1 record 5" % BOARD
    )
    assert json.loads((host / (BOARD + ".head")).read_text())["seq"] == 5  # the saved head is kept


def test_a_board_that_played_on_still_holds_the_record_seen(tmp_path, host):
    board = tmp_path / "board"
    board.mkdir()
    session("cpython", board, ["keys 3 3 2 2"])
    first = hello(board)
    assert board_records.check_head(first, holds=functools.partial(sync.still_holds, SessionLink(board))) is None
    session("cpython", board, ["keys 5 5 6 6"])
    after = hello(board)
    assert after["head"]["seq"] > first["head"]["seq"]
    assert board_records.check_head(after, holds=functools.partial(sync.still_holds, SessionLink(board))) is None
    assert json.loads((host / (BOARD + ".head")).read_text())["seq"] == after["head"]["seq"]
