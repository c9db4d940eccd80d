# link.CounterFile on littlefs (VfsLfs2 on a RAM block device of 4 KiB
# blocks, as on the ESP32), through the link: a signed request's counter
# survives a new Link (a restart), a replay after it is refused, a damaged
# file refuses signed commands. Prints one reply per line.
import os
import sys

import vfs

from crapsboard.base import hmac256  # noqa: F401  (loaded before the chdir below: the VM finds modules relative to the repository root)
from crapsboard.base.link_key import ROLE_GATEWAY
from crapsboard.link.link import CounterFile, Link
from crapsboard.link.link_auth import sign

KEY = b"lfs board key"


class RamBlocks:
    def __init__(self, count, size=4096):
        self.size = size
        self.data = bytearray(count * size)

    def readblocks(self, block, buf, offset=0):
        start = block * self.size + offset
        buf[:] = self.data[start : start + len(buf)]

    def writeblocks(self, block, buf, offset=None):
        start = block * self.size + (offset or 0)
        self.data[start : start + len(buf)] = buf

    def ioctl(self, op, arg):
        if op == 4:  # block count
            return len(self.data) // self.size
        if op == 5:  # block size
            return self.size
        if op == 6:  # erase
            start = arg * self.size
            self.data[start : start + self.size] = b"\xff" * self.size
            return 0
        return 0


blocks = RamBlocks(8)  # 32 KiB: the 128 KB heap holds it
vfs.VfsLfs2.mkfs(blocks)
vfs.mount(vfs.VfsLfs2(blocks), "/lfs")
os.chdir("/lfs")
clock = [0]


def set_time(request):
    clock[0] = request["unix"]


def signed_time(rid, unix, ctr):
    request = {"id": rid, "cmd": "time", "unix": unix, "ctr": ctr}
    request["tag"] = sign(hmac256.hmac_sha256(KEY, ROLE_GATEWAY), request)  # `time`: the gateway's key
    return (
        '{"id": %d, "cmd": "time", "unix": %d, "ctr": %d, "tag": "%s"}\n' % (rid, unix, ctr, request["tag"])
    ).encode()


def out(data):
    sys.stdout.write(data.decode())


link = Link({"time": set_time}, KEY, CounterFile("link_ctr"))
out(link.feed(signed_time(1, 100, 41)))
restarted = Link({"time": set_time}, KEY, CounterFile("link_ctr"))
out(restarted.feed(b'{"id": 2, "cmd": "hello"}\n'))
out(restarted.feed(signed_time(3, 200, 41)))
with open("link_ctr", "w") as f:
    f.write("4x")
damaged = Link({"time": set_time}, KEY, CounterFile("link_ctr"))
out(damaged.feed(signed_time(4, 300, 99)))
print(clock[0])
