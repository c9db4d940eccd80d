"""norflash: NOR flash semantics and power cuts, under CPython (the VM runs it in the journal proof)."""

import pytest

from sim.portable.norflash import BLOCK_COUNT, BLOCK_SIZE, NorFlash, PowerCut


def test_starts_erased_with_the_esp32_vfs_geometry():
    dev = NorFlash()
    assert (dev.ioctl(4, 0), dev.ioctl(5, 0)) == (512, 4096) == (BLOCK_COUNT, BLOCK_SIZE)
    buf = bytearray(8)
    dev.readblocks(511, buf, 4088)
    assert buf == b"\xff" * 8


def test_a_program_only_clears_bits_and_an_erase_sets_the_whole_block():
    dev = NorFlash()
    dev.writeblocks(3, b"\x0f\xf0", 100)
    dev.writeblocks(3, b"\xf3\x3f", 100)
    buf = bytearray(2)
    dev.readblocks(3, buf, 100)
    assert buf == b"\x03\x30"
    dev.ioctl(6, 3)
    dev.readblocks(3, buf, 100)
    assert buf == b"\xff\xff"
    assert (dev.programs, dev.erases, dev.bytes_programmed, dev.writes) == (2, 1, 4, 3)


@pytest.mark.parametrize("mode,expected", [("before", b"\xff\xff\xff\xff"), ("half", b"\x00\x00\xff\xff")])
def test_a_cut_leaves_the_kth_write_undone_or_half_done_and_the_device_dead(mode, expected):
    dev = NorFlash()
    dev.cut_at, dev.cut_mode = 2, mode
    dev.writeblocks(0, b"\x00", 0)
    with pytest.raises(PowerCut):
        dev.writeblocks(1, b"\x00\x00\x00\x00", 0)
    assert dev.data[4096:4100] == expected
    with pytest.raises(PowerCut):
        dev.readblocks(0, bytearray(1))


def test_a_cut_erase_leaves_half_the_block_erased():
    dev = NorFlash()
    dev.writeblocks(2, b"\x00" * 4096, 0)
    dev.cut_at, dev.cut_mode = 2, "half"
    with pytest.raises(PowerCut):
        dev.ioctl(6, 2)
    assert dev.data[8192 : 8192 + 2048] == b"\xff" * 2048 and dev.data[8192 + 2048 : 12288] == b"\x00" * 2048


def test_the_image_file_keeps_the_flash(tmp_path):
    dev = NorFlash()
    dev.writeblocks(5, b"abc", 7)
    dev.save(tmp_path / "f.img")
    again = NorFlash.load(tmp_path / "f.img")
    assert again.data[5 * 4096 + 7 : 5 * 4096 + 10] == b"abc"
    assert NorFlash.load(tmp_path / "missing.img").data[:4] == b"\xff" * 4
