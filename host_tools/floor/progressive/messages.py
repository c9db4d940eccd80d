"""The progressive's messages on the floor's bus (docs/progressive.md).

Up, from the tables: three **board journal records** that the table's gateway
carries on `table/<t>/event` like every other record, so they are in the
board's hash chain and the floor's recorder holds them:

    kind 23 `prog_wager`: arg = the count of progressive wagers placed (1-99),
                          payload = JSON {"game": "MEA"}
    kind 24 `prog_hit`:   arg = the count of winning wagers of a top award,
                          payload = JSON {"game": "MEA"} (optionally
                          "positions": the betting positions, ascending)
    kind 25 `prog_void`:  arg = the voided hit's count of winning wagers,
                          payload = JSON {"game": "MEA", "hit": N}, N the seq of
                          the prog_hit record (same table, board, journal) whose
                          roll a supervisor's undo reversed

Until the firmware names these kinds, a board's link sends them by number
("23", "24", "25"); both spellings are taken.

And the board's **configuration**: every record that carries the table's
state (kind 16 `config` at each configuration change and at boot, 18
`journal_start`, 19 `snapshot`) holds the paytables in force, so the
controller knows which progressive paytable each table plays
(`parse_config`) and refuses a table on another one than its meter's.

Down, from the controller (the only account the broker lets write them):
`progressive/<game>/meter` (retained, the meter's view: amount, reserve,
state, …, `at` its time) and `progressive/presence` (retained `online` /
`offline`, the controller's last will).
"""

import json

from host_tools import sync
from host_tools.floor.base import floordir, floorkeys, topics
from host_tools.floor.progressive.params import GAMES

PROG_WAGER, PROG_HIT, PROG_VOID = 23, 24, 25
KINDS = {PROG_WAGER: "prog_wager", PROG_HIT: "prog_hit", PROG_VOID: "prog_void"}
_BY_NAME = {name: code for code, name in KINDS.items()}
MAX_WAGERS = 99  # positions on a craps layout are far fewer; a larger count is a keying error


REFUSED = "refused"  # the controller's presence when its self-check failed (integrity.py)


def presence_topic(floor):
    return "%s/progressive/presence" % topics.floor_root(floor)


def check_topic(floor):
    """The controller's self-check report (integrity.py), retained."""
    return "%s/progressive/check" % topics.floor_root(floor)


def meter_topic(floor, game):
    return topics.meter(floor, game)


CONFIG_KINDS = {16: "config", 18: "journal_start", 19: "snapshot"}  # records carrying the table's state


class TableConfig:
    """The progressive paytables a table's board plays, from a record carrying its state:
    {game: paytable id}, with the record's identity on the floor."""

    def __init__(self, table, board, journal, seq, paytables):
        self.table, self.board, self.journal, self.seq = table, board, journal, seq
        self.paytables = paytables
        self.epoch = 0  # the table's board-erased step it came after (Input's)
        self.link = self.prev = None

    def key(self):
        return (self.table, self.board, self.journal, self.seq, self.epoch)


def parse_config(table, payload, keys):
    """The TableConfig in a table's `event` payload when its record carries the table's
    state, None for other records; ValueError (one line) when the record's link does
    not match its fields, its MAC does not check under the table's journal key (a
    configuration the board did not write closes no table), or its state is not a snapshot."""
    from crapsboard.journal import snapshot_read
    from crapsboard.rules import paytables as pt

    obj = topics.decode(payload)
    record, journal = obj.get("record"), obj.get("journal")
    if not isinstance(record, dict) or not isinstance(journal, dict):
        return None
    kind = record.get("kind")
    code = next((k for k, name in CONFIG_KINDS.items() if kind in (name, str(k), k)), None)
    if code is None or obj.get("table") != table:
        return None
    board, jid, seq = _written_by_the_board(table, obj, code, keys, "changed no table's paytables")
    try:
        _, _, config = snapshot_read.decode(bytes.fromhex(record.get("state", "")))
    except (KeyError, TypeError, ValueError, OverflowError, AttributeError, snapshot_read.SnapshotError) as e:
        raise ValueError("record %s of journal %s: its state is not the table's: %s" % (seq, jid, e))
    games = {"MEA": pt.MEA_PROGRESSIVE, "FUP": pt.FIRED_UP}
    cfg = TableConfig(table, board, jid, seq, {g: config.paytables[w].ident for g, w in games.items()})
    cfg.link, cfg.prev = record.get("link"), obj.get("prev")
    return cfg


def kind_code(kind):
    """The record kind's number if it is one of the progressive's, else None."""
    if kind in _BY_NAME:
        return _BY_NAME[kind]
    if isinstance(kind, str) and kind.isdigit() and int(kind) in KINDS:
        return int(kind)
    return None


class Input:
    """One progressive record from a table: kind (PROG_WAGER, PROG_HIT or PROG_VOID),
    game, count, its identity on the floor (table, board, journal, seq, and `epoch`,
    the table's board-erased step it came after: an erased board's new journal
    numbers its records from 1 again), and for a void the seq of the hit record
    it voids. `link` and `prev`: its chain link and the chain hash before it, when
    it came on the bus (the recorder's copy judges whether it continues the floor's)."""

    def __init__(self, kind, game, count, table, board, journal, seq, positions=None, hit=None):
        self.kind = kind
        self.game = game
        self.count = count
        self.table = table
        self.board = board
        self.journal = journal
        self.seq = seq
        self.positions = positions
        self.hit = hit
        self.epoch = 0
        self.link = self.prev = None

    def key(self):
        return (self.table, self.board, self.journal, self.seq, self.epoch)

    def __repr__(self):
        return "%s %s x%d from %s journal %s record %s%s" % (
            KINDS[self.kind],
            self.game,
            self.count,
            self.table,
            self.journal,
            self.seq,
            "" if self.hit is None else " (of record %d)" % self.hit,
        )


def parse_event(table, payload, keys):
    """The Input in a table's `event` payload; None for a record of another kind;
    ValueError (one line) for a progressive record that is malformed, whose
    own chain link does not match its fields, or whose MAC is not the MAC of
    its chain hash under the table's journal key (`keys`: floorkeys.JournalKeys):
    a record the board did not write moves no meter."""
    obj = topics.decode(payload)
    record, journal = obj.get("record"), obj.get("journal")
    if not isinstance(record, dict) or not isinstance(journal, dict):
        raise ValueError("no journal or record")
    code = kind_code(record.get("kind"))
    if code is None:
        return None
    if obj.get("table") != table:
        raise ValueError("a record of table %r on table %s's topic" % (obj.get("table"), table))
    board, jid, _ = _written_by_the_board(table, obj, code, keys, "moved no meter")
    inp = from_record(table, board, jid, record)
    inp.link, inp.prev = record.get("link"), obj.get("prev")
    return inp


def _written_by_the_board(table, obj, code, keys, consequence):
    """(board, journal, seq) of the record in `obj` (kind number `code`) once its own chain
    link matches its fields and its MAC is the table's board's; ValueError (one line) else."""
    record, journal = obj["record"], obj["journal"]
    board, jid, seq = journal.get("board"), journal.get("id"), record.get("seq")
    if not isinstance(board, str) or not isinstance(jid, int) or not isinstance(seq, int) or seq < 1:
        raise ValueError("journal identity or seq missing")
    try:
        prev = bytes.fromhex(obj.get("prev", ""))
        _, digest = sync.encode_fields(dict(record, kind=str(code)), prev)
        link_ok = len(prev) == 32 and digest[:8].hex() == record.get("link")
    except (KeyError, TypeError, ValueError, OverflowError, AttributeError):
        raise ValueError("record %s of journal %s is malformed" % (seq, jid))
    if not link_ok:
        raise ValueError("record %s of journal %s: its link does not match its fields" % (seq, jid))
    if not floorkeys.record_mac_ok(keys.mac(table), record, digest):
        raise ValueError(
            "record %s of journal %s: not written by table %s's board (its MAC does not check under the table's "
            "journal key); from %s, %s" % (seq, jid, table, floordir.gateway_user(table), consequence)
        )
    return board, jid, seq


def from_record(table, board, jid, record):
    """The Input of a progressive record whose chain is already checked (by the
    recorder, or parse_event); ValueError (one line) when its fields are wrong."""
    code, seq = kind_code(record.get("kind")), record.get("seq")
    try:
        body = json.loads(bytes.fromhex(record.get("payload", "")).decode("utf-8"))
    except (ValueError, TypeError, AttributeError, UnicodeDecodeError):
        raise ValueError("record %s of journal %s: the payload is not JSON" % (seq, jid))
    game = body.get("game") if isinstance(body, dict) else None
    if game not in GAMES:
        raise ValueError("record %s of journal %s: game %r is not a linked game" % (seq, jid, game))
    count = record.get("arg")
    if not isinstance(count, int) or not 1 <= count <= MAX_WAGERS:
        raise ValueError("record %s of journal %s: a count of %r wagers (1-%d)" % (seq, jid, count, MAX_WAGERS))
    positions = body.get("positions")
    if positions is not None and (not isinstance(positions, list) or len(positions) != count):
        raise ValueError("record %s of journal %s: positions do not match the count" % (seq, jid))
    hit = body.get("hit")
    if code == PROG_VOID and (isinstance(hit, bool) or not isinstance(hit, int) or not 1 <= hit < seq):
        raise ValueError("record %s of journal %s: a void of record %r, not an earlier record" % (seq, jid, hit))
    return Input(code, game, count, table, board, jid, seq, positions, hit if code == PROG_VOID else None)


def payload_bytes(game, positions=None, hit=None):
    """A progressive record's payload as the board writes it (the tests' gateway uses it)."""
    body = {"game": game}
    if positions is not None:
        body["positions"] = positions
    if hit is not None:
        body["hit"] = hit
    return json.dumps(body, separators=(",", ":"), sort_keys=True).encode()
