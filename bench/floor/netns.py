"""A network partition between one gateway and the broker, for the floor's
proof, its presence test and its bench: a network namespace joined to this one
by a veth pair. A gateway started in it (`ip netns exec NAME …`) reaches the
broker only over the pair, at `host_ip` (the broker listens there too: Rig's
`bind`), and taking the pair's host end down is the partition. Needs root and
iproute2; netns_or_reason says why not otherwise.
"""

import os
import shutil
import subprocess


class Netns:
    """A namespace `name` with the pair's ends `subnet`.1 (here) and `subnet`.2 (in it)."""

    def __init__(self, name, subnet):
        self.name, self.host_if, self.ns_if = name, "vh-" + name, "vn-" + name
        self.host_ip, self.ns_ip = subnet + ".1", subnet + ".2"
        ip = ["ip"]
        self._run(ip + ["netns", "add", name])
        self._run(ip + ["link", "add", self.host_if, "type", "veth", "peer", "name", self.ns_if])
        self._run(ip + ["link", "set", self.ns_if, "netns", name])
        self._run(ip + ["addr", "add", self.host_ip + "/30", "dev", self.host_if])
        self._run(ip + ["link", "set", self.host_if, "up"])
        for cmd in (
            ["addr", "add", self.ns_ip + "/30", "dev", self.ns_if],
            ["link", "set", self.ns_if, "up"],
            ["link", "set", "lo", "up"],
        ):
            self._run(["ip", "netns", "exec", name, "ip"] + cmd)

    @staticmethod
    def _run(argv):
        subprocess.run(argv, check=True, capture_output=True, timeout=10)

    @property
    def prefix(self):
        """The argv prefix that runs a command inside the namespace."""
        return ("ip", "netns", "exec", self.name)

    def cut(self, down=True):
        self._run(["ip", "link", "set", self.host_if, "down" if down else "up"])

    def remove(self):
        subprocess.run(["ip", "link", "del", self.host_if], capture_output=True)
        subprocess.run(["ip", "netns", "del", self.name], capture_output=True)


def netns_or_reason(tag):
    """(Netns, None) or (None, why a partition cannot be made here)."""
    if os.geteuid() != 0:
        return None, "network namespaces need root (ip netns): partition not tested"
    if shutil.which("ip") is None:
        return None, "no `ip` command (iproute2): partition not tested"
    try:
        return Netns("fl%s%d" % (tag, os.getpid() % 10000), "10.%d.%d" % (90 + os.getpid() % 50, 1)), None
    except (subprocess.CalledProcessError, OSError) as e:
        return None, "cannot make a network namespace here (%s): partition not tested" % e
