# The virtual board's program under the MicroPython unix VM (`python -m sim device`).
#
# argv: SETTINGS (a JSON file sim/device.py writes for each boot). It does what
# the ESP32's firmware does between reset and the REPL: mounts the flash image
# (vboard_flash.py, VfsLfs2 with MicroPython's defaults, formatted when it is
# erased) as the root filesystem, with `lib` on sys.path and the VM's own
# filesystem unmounted, so the board imports only what is on its flash; puts
# the ESP32's machine, neopixel, micropython and time in place; runs boot.py, then
# main.py (not after a soft reboot from the raw REPL); then serves the REPL
# (vboard_repl.py) on standard input and output, which sim/device.py bridges
# to a pseudo-terminal.
#
# The control channel (a pipe to sim/device.py, its number in SETTINGS) takes
# one line per event: `up` (ready for input and Ctrl-C), `wdt MS`, `feed`,
# `reset`, `soft MODE`, `kbd CHAR`. The held keys come on a second pipe
# (vboard_machine.py).
import gc
import json
import os
import sys

import vfs

from sim.portable import vboard_flash, vboard_machine, vboard_micropython, vboard_neopixel, vboard_repl, vboard_time
from sim.portable.norflash import BLOCK_COUNT, BLOCK_SIZE

_HIDE = "vboard"  # this program's files, kept out of the tracebacks users see


def erased(image):
    """Every byte of the partition is 0xFF: a flash never used (made, then cut
    before its format). The chip's id after it (norflash.EFUSE_TAG) is not flash."""
    chunk = bytearray(BLOCK_SIZE)
    image.seek(0)
    for _ in range(BLOCK_COUNT):
        if image.readinto(chunk) != len(chunk) or chunk.count(b"\xff") != len(chunk):
            return False
    return True


def main(settings_path):
    with open(settings_path) as f:
        settings = json.load(f)
    channel = open(settings["channel"], "wb")
    pins = settings["pins"]
    vboard_machine.setup(
        channel,
        settings["cause"],
        bytes.fromhex(settings["uid"]),
        pins,
        settings["keys"],
        vboard_repl.soft_reboot,
    )
    # asyncio first, on the unix port's own ticks: its C task queue (_asyncio)
    # stamps tasks with those, so its Python half must count on the same clock.
    import asyncio  # noqa: F401  (frozen into the VM, as on the ESP32)

    vboard_time.setup(settings["uptime_ms"])
    sys.modules["time"] = vboard_time  # every other import: ticks from the chip's reset, the board's uptime
    sys.modules["machine"] = vboard_machine
    sys.modules["neopixel"] = vboard_neopixel
    sys.modules["micropython"] = vboard_micropython

    mode = settings["mode"]
    image, fresh = vboard_flash.open_image(settings["flash"])
    # A Ctrl-C swallowed inside a flash operation is asked for again (the line
    # made in advance: this may run with the heap locked).
    again = b"again\n"
    device = vboard_flash.FileFlash(image, lambda: channel.write(again))
    if fresh:
        vfs.VfsLfs2.mkfs(device)  # a freshly flashed ESP32 formats its partition at first boot
    try:
        filesystem = vfs.VfsLfs2(device)
    except OSError as e:
        if not erased(image):  # never formatted over: someone's data may be in it
            vboard_machine.tell("error the flash image has no filesystem (error " + str(e.args[0]) + ")")
            return
        vfs.VfsLfs2.mkfs(device)
        filesystem = vfs.VfsLfs2(device)
    vfs.umount("/")
    vfs.mount(filesystem, "/")
    os.chdir("/")
    sys.path[:] = ["", ".frozen", "/lib"]
    config = settings.get("config")
    if config is not None:
        with open("config.json", "w") as f:
            f.write(config)
    repl = vboard_repl.Repl(_HIDE)
    del settings, pins, config
    gc.collect()
    vboard_machine.tell("up")
    if repl.run_file("boot.py") and mode == "friendly":
        repl.run_file("main.py")
        vboard_micropython.kbd_intr(3)  # as pyexec: whatever main.py set, the REPL takes Ctrl-C again
    repl.serve(mode)


main(sys.argv[1])
