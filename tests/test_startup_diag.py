"""diag.json's `error` (docs/board.md, "diag.json keeps ..."): the last
start-up failure as one short line, the exception's type and message, cut to
72 characters (crapsboard/boot/startup.py under CPython)."""

from crapsboard.boot import startup


def test_an_error_is_its_type_and_message():
    assert startup.describe(ValueError("config.json: fire_window: unknown")) == (
        "ValueError: config.json: fire_window: unknown"
    )
    assert startup.describe(MemoryError()) == "MemoryError"
    # MicroPython's OSError carries the errno first: that is the one shown, as on the board.
    assert startup.describe(OSError(28, "No space left on device")) == "OSError: 28"


def test_a_long_error_is_cut_to_72_characters():
    line = startup.describe(OSError("x" * 200))
    assert line == ("OSError: " + "x" * 200)[:72]
    assert len(line) == 72
    assert startup.describe(OSError("y" * 63)) == "OSError: " + "y" * 63  # 72 exactly: whole


def test_what_diag_json_keeps_is_read_back_at_the_next_start_up(tmp_path):
    path = str(tmp_path / "diag.json")
    kept = {"boots": 4, "failed": 2, "cause": 1, "error": "ValueError: config.json: fire_window: unknown"}
    startup.write_diag(kept, path)
    assert startup.read_diag(path) == kept


def test_a_missing_or_broken_diag_json_starts_afresh(tmp_path):
    fresh = {"boots": 0, "failed": 0, "cause": None, "error": None}
    assert startup.read_diag(str(tmp_path / "none.json")) == fresh
    (tmp_path / "diag.json").write_text("{not json")
    assert startup.read_diag(str(tmp_path / "diag.json")) == fresh


def test_a_count_in_diag_json_that_is_no_whole_number_of_0_or_more_starts_at_0(tmp_path):
    # The boot and failed-boot counts decide when start-up holds its fault (3 failed in a
    # row): a negative, true, fractional or text count read back from the file counts as 0.
    import json

    path = str(tmp_path / "diag.json")
    for count in (-1, True, 2.5, "3"):
        with open(path, "w") as f:
            json.dump({"boots": count, "failed": count, "cause": 1, "error": None}, f)
        assert startup.read_diag(path) == {"boots": 0, "failed": 0, "cause": 1, "error": None}, count
    with open(path, "w") as f:
        json.dump({"boots": 0, "failed": 2, "cause": 1, "error": None}, f)
    assert startup.read_diag(path)["failed"] == 2


def test_a_cause_or_error_in_diag_json_that_is_no_text_or_number_is_read_as_none(tmp_path):
    # `cause` (a reset cause) and `error` (a line) are shown by `status`: a list, a dict
    # or a fraction read back from a damaged file is none of them, and reads as None.
    import json

    path = str(tmp_path / "diag.json")
    for odd in ([1], {"a": 1}, 2.5):
        with open(path, "w") as f:
            json.dump({"boots": 1, "failed": 0, "cause": odd, "error": odd}, f)
        assert startup.read_diag(path) == {"boots": 1, "failed": 0, "cause": None, "error": None}, odd


def test_each_start_up_is_counted_in_diag_json_as_it_begins(tmp_path):
    # docs/board.md: `boots` counts start-ups and `cause` is the last reset's, written at
    # once, so a start-up that then hangs or resets is counted all the same.
    path = str(tmp_path / "diag.json")
    startup.begin(5, path)
    assert startup.read_diag(path) == {"boots": 1, "failed": 0, "cause": 5, "error": None}
    startup.begin(1, path)
    assert startup.read_diag(path) == {"boots": 2, "failed": 0, "cause": 1, "error": None}


def test_a_once_maintenance_marker_holds_for_this_boot_only_and_a_deploy_marker_stays(tmp_path):
    # docs/link.md, `maintenance`: a `once` marker is removed at the boot that reads it, so
    # the next boot runs the table again; `deploy` stays until the deploy that wrote it ends.
    once, deploy = tmp_path / "once", tmp_path / "deploy"
    once.write_text("once\n")
    deploy.write_text("deploy")
    assert startup.maintenance_marker(str(once)) == "once"
    assert not once.exists()
    assert startup.maintenance_marker(str(once)) is None
    assert [startup.maintenance_marker(str(deploy)) for _ in range(2)] == ["deploy", "deploy"]
    assert deploy.read_text() == "deploy"


def test_a_running_app_that_stops_keeps_its_error_in_diag_json(tmp_path):
    # docs/board.md, diag.json: the app stopped by an error is written down before the
    # watchdog resets the board, so the next start-up (and `status`) can tell why.
    path = str(tmp_path / "diag.json")
    diag = startup.begin(1, path)
    startup.crashed(diag, MemoryError(), path)
    assert startup.read_diag(path)["error"] == "MemoryError"


def test_a_failed_start_up_resets_after_5_s_and_the_third_in_a_row_holds_the_fault():
    # docs/board.md, "start-up failed": "the board resets after 5 s. After 3 failed
    # start-ups in a row it stops resetting". main.py passes FAULT_RESET_MS to
    # reset_after; the VM tests set it to 0 so as not to wait.
    assert startup.FAULT_RESET_MS == 5_000
    assert startup.MAX_FAILED_BOOTS == 3


def test_the_repl_is_shut_only_on_a_board_that_has_a_key(tmp_path, monkeypatch):
    # docs/link.md: once a board has its link key, Ctrl-C is off while the table plays;
    # a board not provisioned yet keeps its REPL for the first deploy.
    import micropython

    calls = []
    monkeypatch.setattr(micropython, "kbd_intr", calls.append)
    key = tmp_path / "link_key"
    assert startup.shut_repl(str(key)) is False and calls == []
    key.write_text("ab" * 32)
    assert startup.shut_repl(str(key)) is True and calls == [-1]


def test_a_firmware_hash_that_cannot_be_made_is_said_on_the_console_and_left_unset(monkeypatch, capsys):
    # docs/link.md, `hello`: firmware_hash is null when this boot could not measure the
    # files, never a wrong hash; the console says why.
    from crapsboard.boot import measure

    def no_room():
        raise MemoryError

    monkeypatch.setattr(measure, "firmware_hash", no_room)
    monkeypatch.setattr(startup, "measured", "stale")
    startup.measure_firmware()
    assert startup.measured == "stale"  # nothing assigned: main.py's None stands
    assert capsys.readouterr().out == "crapsboard: firmware not measured: MemoryError\n"
