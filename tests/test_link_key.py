"""The board's link key file (docs/link.md, "Keys"): 64 lowercase hex
characters in `link_key`, read as the 32-byte key; a file missing, of another
length, in capitals or not hex gives no key, so signed requests are refused
with "no key" (crapsboard/base/link_key.py, under CPython)."""

import pytest

from crapsboard.base import link_key

KEY = bytes(range(32))


def write(tmp_path, text):
    path = tmp_path / "link_key"
    path.write_text(text)
    return str(path)


def test_sixty_four_lowercase_hex_characters_are_the_32_byte_key(tmp_path):
    assert link_key.read_key(write(tmp_path, KEY.hex())) == KEY


def test_a_trailing_newline_or_spaces_around_the_key_are_read_past(tmp_path):
    assert link_key.read_key(write(tmp_path, " " + KEY.hex() + "\n")) == KEY


@pytest.mark.parametrize(
    "text",
    [
        KEY.hex()[:-1],  # 63 characters
        KEY.hex() + "0",  # 65
        KEY.hex()[:-2],  # 62
        KEY.hex().upper(),
        "0" * 63 + "A",  # one capital is enough
        "0" * 63 + "g",  # not hex
        "",
    ],
)
def test_a_key_file_of_another_form_gives_no_key(tmp_path, text):
    assert link_key.read_key(write(tmp_path, text)) is None


def test_no_key_file_gives_no_key(tmp_path):
    assert link_key.read_key(str(tmp_path / "link_key")) is None


def test_the_default_file_is_link_key_in_the_working_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert link_key.read_key() is None
    write(tmp_path, KEY.hex())
    assert link_key.read_key() == KEY
    assert link_key.KEY_FILE == "link_key"


def test_the_roles_labels_are_those_of_docs_link_md():
    assert link_key.ROLE_GATEWAY == b"crapsboard role gateway"
    assert link_key.ROLE_FLOOR == b"crapsboard role floor"
    assert link_key.ROLE_RECEIPT == b"crapsboard role receipt"
