"""docs/architecture.md tells the truth about the firmware: its module table
names every module of firmware/lib/crapsboard/ and no module that is not
there, and its tree gives each subpackage the imports its header allows."""

import os
import re

import firmware_graph as fg

DOC = os.path.join(fg.ROOT, "docs", "architecture.md")
ROW = re.compile(r"^\| `([a-z_]+/[a-z_0-9]+)` \|", re.M)
TREE_LINE = re.compile(r"^    ([a-z]+)/ .*?(imports nothing of crapsboard|may import ([a-z, ]+))\s*$", re.M)


def doc_text():
    """The firmware's part of the doc (the host side follows, tests/test_repo_imports.py)."""
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    return text[: text.index("## The host side")]


def firmware_modules():
    """ "table/app" for every module of the package but the packages' __init__."""
    out = set()
    for name, path in fg.modules().items():
        if os.path.basename(path) != "__init__.py":
            out.add(name[len("crapsboard.") :].replace(".", "/"))
    return out


def test_the_module_table_names_every_firmware_module_and_only_those():
    listed = ROW.findall(doc_text())
    assert len(listed) == len(set(listed))  # each once
    modules = firmware_modules()
    assert len(modules) >= 40
    assert sorted(modules - set(listed)) == []  # missing from the table
    assert sorted(set(listed) - modules) == []  # in the table, not in the firmware


def test_a_module_missing_from_the_table_is_found():
    text = doc_text().replace("| `link/link_wait` |", "| link_wait, unquoted |")
    assert "link/link_wait" in firmware_modules() - set(ROW.findall(text))


def test_the_tree_gives_each_subpackage_the_imports_its_header_allows():
    tree = {}
    for name, _, allowed in TREE_LINE.findall(doc_text()):
        tree[name] = {w.strip() for w in allowed.split(",")} if allowed else set()
    assert tree == fg.allowed()
