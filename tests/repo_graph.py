"""Who imports whom across the whole repository: the firmware, the simulator,
the host tools, the rigs and benches, and the hardware generators, read with
`ast` as tests/firmware_graph.py reads the firmware (lazy imports count).

Outside the firmware a string is not taken for an import (the words "sim",
"bench" and "floor" are also commands and table names); the firmware's
`modules.load("crapsboard.…")` strings are. The hardware generators import
each other by bare name (they run as scripts in hardware/): they appear here
as `hardware.<name>`.
"""

import os

import firmware_graph as fg

ROOT = fg.ROOT
# The repository's top-level parts, lowest first: each may import only parts before it.
LAYERS = ("firmware", "hardware", "sim", "host_tools", "bench")
FLOOR = "host_tools.floor"


def part(module):
    """The top-level part a module belongs to ("firmware" for crapsboard.*)."""
    head = module.split(".")[0]
    return "firmware" if head == "crapsboard" else head


def modules():
    """{dotted name: path} of every Python module of the repository's parts."""
    found = dict(fg.modules())
    for name in ("sim", "host_tools", "bench"):
        found.update(fg.modules(os.path.join(ROOT, name)))
    for bare, path in _hardware().items():
        found["hardware." + bare] = path
    return found


def _hardware():
    folder = os.path.join(ROOT, "hardware")
    return {n[:-3]: os.path.join(folder, n) for n in sorted(os.listdir(folder)) if n.endswith(".py")}


def graph():
    """{module: [modules it imports]} over the whole repository."""
    known = modules()
    bare = {b: "hardware." + b for b in _hardware()}
    edges = {}
    for name, path in known.items():
        with open(path, encoding="utf-8") as f:
            source = f.read()
        targets = fg.imports_of(source, known, strings=part(name) == "firmware")
        if part(name) == "hardware":
            targets += [bare[t] for t in fg.imports_of(source, bare, strings=False)]
        edges[name] = sorted({t for t in targets if t != name})
    return edges


def against_layers(edges):
    """(importer, imported) pairs where a part imports a part above it."""
    rank = {p: i for i, p in enumerate(LAYERS)}
    return sorted((s, t) for s in edges for t in edges[s] if rank[part(t)] > rank[part(s)])


def floor_concern(module):
    """ "gateway" for host_tools.floor.gateway.board; the module's own name for the
    floor's top modules (cli, supervise…); None outside the floor."""
    if not module.startswith(FLOOR + "."):
        return None
    return module.split(".")[2]


FLOOR_DIR = os.path.join(ROOT, "host_tools", "floor")


def floor_headers(floor_dir=FLOOR_DIR):
    """{concern: set of concerns it may import} from each floor package's
    __init__.py docstring line "May import: …" (firmware_graph.allowed reads both forms)."""
    return fg.allowed(floor_dir)


def floor_forbidden(edges, headers):
    """(importer, imported) pairs inside host_tools.floor that break the headers: a
    subpackage importing a concern its header does not name, or anything below the
    floor's top modules importing one of them (the CLI and supervisor sit on top)."""
    bad = []
    for src in sorted(edges):
        mine = floor_concern(src)
        if mine is None or mine not in headers:
            continue
        for dst in edges[src]:
            theirs = floor_concern(dst)
            if theirs is None or theirs == mine:
                continue
            if theirs not in headers.get(mine, set()):
                bad.append((src, dst))
    return bad
