"""The firmware's shape: no import circles anywhere in firmware/, and each
subpackage of crapsboard imports only what its __init__.py's "May import:"
line allows (tests/firmware_graph.py reads every import, lazy ones and
module names given as strings included)."""

import os

import firmware_graph as fg

SUBPACKAGES = {"base", "rules", "journal", "table", "link", "boot"}


def test_the_package_is_grouped_into_its_subpackages_with_nothing_left_flat():
    names = fg.modules()
    assert {fg.subpackage(n) for n in names if n != "crapsboard"} == SUBPACKAGES
    assert all(n.count(".") == 2 for n in names if n not in {"crapsboard"} | {"crapsboard." + s for s in SUBPACKAGES})


def test_every_subpackage_says_what_it_may_import():
    assert set(fg.allowed()) == SUBPACKAGES


def test_no_import_circles_in_the_firmware():
    edges = fg.graph()
    assert len(edges) > 40  # every module was read
    assert fg.circles(edges) == []


def test_main_and_boot_scripts_import_nothing_that_closes_a_circle():
    # main.py is not a module of the package; it imports from it, so it can
    # not be part of a circle, but what it names must exist.
    known = fg.modules()
    with open(os.path.join(fg.FIRMWARE, "main.py"), encoding="utf-8") as f:
        named = fg.imports_of(f.read(), known)
    assert "crapsboard.boot.power_up" in named and "crapsboard.link.link_wait" in named


def test_each_subpackage_imports_only_what_its_header_allows():
    assert fg.forbidden(fg.graph(), fg.allowed()) == []


def test_package_inits_import_nothing():
    edges = fg.graph()
    assert all(edges[n] == [] for n in ["crapsboard"] + ["crapsboard." + s for s in SUBPACKAGES])


def test_base_imports_nothing_of_the_firmware():
    edges = fg.graph()
    assert all(edges[n] == [] for n in edges if fg.subpackage(n) == "base")


# ---- the checks themselves find what they are for ------------------------------------


def write(tmp_path, files):
    for rel, text in files.items():
        path = tmp_path / "crapsboard" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return str(tmp_path / "crapsboard")


def test_a_lazy_import_circle_is_found(tmp_path):
    package = write(
        tmp_path,
        {
            "__init__.py": "",
            "rules/__init__.py": "# May import: base\n",
            "rules/config.py": "def parse():\n    from crapsboard.rules import config_parse\n",
            "rules/config_parse.py": "from crapsboard.rules.config import Config\n",
        },
    )
    assert fg.circles(fg.graph(package)) == [["crapsboard.rules.config", "crapsboard.rules.config_parse"]]


def test_a_circle_through_a_module_named_in_a_string_is_found(tmp_path):
    package = write(
        tmp_path,
        {
            "link/__init__.py": "# May import: base\n",
            "link/a.py": "load('crapsboard.link.b')\n",
            "link/b.py": "import crapsboard.link.a\n",
        },
    )
    assert fg.circles(fg.graph(package)) == [["crapsboard.link.a", "crapsboard.link.b"]]


def test_an_import_the_header_does_not_allow_is_found(tmp_path):
    package = write(
        tmp_path,
        {
            "rules/__init__.py": "# May import: base\n",
            "base/__init__.py": "# May import: (nothing of crapsboard)\n",
            "table/__init__.py": "# May import: base, rules\n",
            "base/ticks.py": "",
            "table/app.py": "from crapsboard.rules.engine import Table\n",
            "rules/engine.py": "from crapsboard.base import ticks\nfrom crapsboard.table import app\n",
        },
    )
    rules = fg.allowed(package)
    assert rules == {"base": set(), "rules": {"base"}, "table": {"base", "rules"}}
    assert fg.forbidden(fg.graph(package), rules) == [("crapsboard.rules.engine", "crapsboard.table.app")]


# ---- power-up and the link import leaves first -----------------------------------------


def leaf_first(path):
    """The LEAF_FIRST tuple of module names a firmware file declares."""
    import ast

    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    for node in tree.body:
        if isinstance(node, ast.Assign) and [t.id for t in node.targets if isinstance(t, ast.Name)] == ["LEAF_FIRST"]:
            return [e.value for e in node.value.elts]
    raise AssertionError("no LEAF_FIRST in " + path)


def out_of_order(names, edges):
    """(module, what it imports) pairs where the import comes later in `names`."""
    at = {name: i for i, name in enumerate(names)}
    return [(m, d) for m in names for d in edges[m] if d in at and at[d] > at[m]]


LEAF_FIRST_FILES = [
    os.path.join(fg.FIRMWARE, "main.py"),
    os.path.join(fg.PACKAGE_DIR, "link", "link_wait.py"),
]


def test_power_up_and_the_link_import_their_modules_leaves_first():
    edges = fg.graph()
    for path in LEAF_FIRST_FILES:
        names = leaf_first(path)
        assert len(names) >= 6 and set(names) <= set(edges), path
        assert out_of_order(names, edges) == [], path


def test_a_module_listed_before_what_it_imports_is_found():
    edges = fg.graph()
    names = leaf_first(LEAF_FIRST_FILES[0])
    swapped = [names[1], names[0]] + names[2:]  # base.ticks before base.files: no edge, no finding
    assert out_of_order(swapped, edges) == out_of_order(names, edges) == []
    late = [n for n in names if n != "crapsboard.rules.paytable"] + ["crapsboard.rules.paytable"]
    assert ("crapsboard.rules.paytables", "crapsboard.rules.paytable") in out_of_order(late, edges)
