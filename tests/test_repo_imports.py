"""The repository's shape, read from every import (tests/repo_graph.py): no
import circle anywhere, the top-level parts import one way (firmware, hardware,
sim, host_tools, bench), the product never imports a rig, and each of the
floor's packages imports only what its __init__'s "May import:" line allows,
with the floor's commands on top. docs/architecture.md draws the same."""

import os
import re

import firmware_graph as fg
import repo_graph as rg

FLOOR_PACKAGES = {"base", "bus", "gateway", "recorder", "alerts", "people", "progressive", "page", "pg"}
FLOOR_TOP = {"cli", "pit_cli", "erase_cli", "supervise", "floor_init"}


def test_no_import_circle_anywhere_in_the_repository():
    edges = rg.graph()
    assert {rg.part(m) for m in edges} == set(rg.LAYERS)  # every part was read
    assert len(edges) > 180
    assert fg.circles(edges) == []


def test_the_parts_import_one_way():
    assert rg.against_layers(rg.graph()) == []


def test_the_product_imports_no_rig_or_bench():
    edges = rg.graph()
    assert [(s, t) for s in edges for t in edges[s] if rg.part(s) != "bench" and rg.part(t) == "bench"] == []


def test_the_floor_is_its_packages_with_only_the_commands_on_top():
    floor = os.path.join(rg.ROOT, "host_tools", "floor")
    packages = {e for e in os.listdir(floor) if os.path.isfile(os.path.join(floor, e, "__init__.py"))}
    flat = {e[:-3] for e in os.listdir(floor) if e.endswith(".py") and e != "__init__.py"}
    assert packages == FLOOR_PACKAGES
    assert flat == FLOOR_TOP
    assert set(rg.floor_headers()) == FLOOR_PACKAGES  # each says what it may import


def test_each_floor_package_imports_only_what_its_header_allows():
    edges = rg.graph()
    assert rg.floor_forbidden(edges, rg.floor_headers()) == []
    below = [(s, t) for s in edges for t in edges[s] if rg.floor_concern(s) in FLOOR_PACKAGES]
    assert [(s, t) for s, t in below if rg.floor_concern(t) in FLOOR_TOP] == []  # nothing reaches up to the CLI


def test_base_imports_nothing_of_the_floor():
    edges = rg.graph()
    base = [m for m in edges if rg.floor_concern(m) == "base"]
    assert len(base) >= 4
    assert [(s, t) for s in base for t in edges[s] if rg.floor_concern(t) not in (None, "base")] == []


# ---- the checks find what they are for ------------------------------------------------


def test_an_import_up_the_layers_is_found():
    edges = {"sim.x": ["bench.floor.localfloor"], "bench.floor.localfloor": ["sim.x"], "crapsboard.a": []}
    assert rg.against_layers(edges) == [("sim.x", "bench.floor.localfloor")]
    assert fg.circles(edges) == [["bench.floor.localfloor", "sim.x"]]


def test_a_floor_package_reaching_past_its_header_is_found(tmp_path):
    for name, header in {"base": "nothing of host_tools.floor.", "bus": "base.", "page": "base, bus."}.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text('"""What it is.\n\nMay import: %s\n"""\n' % header)
    headers = rg.floor_headers(str(tmp_path))
    assert headers == {"base": set(), "bus": {"base"}, "page": {"base", "bus"}}
    edges = {
        "host_tools.floor.page.app": ["host_tools.floor.progressive.meter", "host_tools.floor.bus.mqtt"],
        "host_tools.floor.bus.mqtt": ["host_tools.floor.cli"],
    }
    assert rg.floor_forbidden(edges, headers) == [
        ("host_tools.floor.bus.mqtt", "host_tools.floor.cli"),
        ("host_tools.floor.page.app", "host_tools.floor.progressive.meter"),
    ]


# ---- docs/architecture.md draws the host side as it is ----------------------------------

DOC = os.path.join(rg.ROOT, "docs", "architecture.md")
FLOOR_TREE_LINE = re.compile(r"^    ([a-z]+)/ .*?(imports nothing of the floor|may import ([a-z, ]+))\s*$", re.M)


def floor_tree():
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    section = text[text.index("## The host side") :]
    section = section[: section.index("```", section.index("```") + 3)]
    return {
        n: ({w.strip() for w in allowed.split(",")} if allowed else set())
        for n, _, allowed in FLOOR_TREE_LINE.findall(section)
    }


def test_the_architecture_doc_draws_each_floor_package_with_its_header():
    assert floor_tree() == rg.floor_headers()


def test_the_architecture_doc_names_every_floor_module():
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    named = set(re.findall(r"`(host_tools/floor/[a-z_/]+\.py)`|\| `floor/([a-z_/]+)` \|", text))
    listed = {a or "host_tools/floor/" + b + ".py" for a, b in named}
    modules = {
        os.path.relpath(p, rg.ROOT)
        for m, p in rg.modules().items()
        if m.startswith(rg.FLOOR + ".") and not p.endswith("__init__.py")
    }
    assert sorted(modules - listed) == []
    assert sorted(listed - modules) == []
