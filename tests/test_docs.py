"""The project documents itself: nothing points outside the repository, every
relative link in the docs leads to a file that exists, and docs/rules.md
cites the source documents by file name."""

import os
import re
import subprocess

from conftest import ROOT

SEEDS = ("000_efe367c91457a018.txt", "001_5a54537265cbb813.txt", "002_2faee6da5d9d396d.txt", "003_c38b57bba8dc1dec.txt")


def tracked_files():
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True)
    return [f for f in out.stdout.splitlines() if os.path.isfile(os.path.join(ROOT, f))]


def test_nothing_points_outside_the_repository():
    offenders = []
    for name in tracked_files():
        if name.startswith(".ci/"):
            continue
        with open(os.path.join(ROOT, name), "rb") as f:
            if b"../" + b"shared" in f.read():  # spelt in two so this file does not match itself
                offenders.append(name)
    assert offenders == []


def test_relative_links_in_markdown_lead_to_files():
    broken = []
    for name in tracked_files():
        if not name.endswith(".md"):
            continue
        with open(os.path.join(ROOT, name), encoding="utf-8") as f:
            text = f.read()
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
            if "://" in target or target.startswith("mailto:"):
                continue
            if not os.path.exists(os.path.join(ROOT, os.path.dirname(name), target)):
                broken.append("%s -> %s" % (name, target))
    assert broken == []


def test_the_rules_cite_every_source_document_and_each_wager():
    with open(os.path.join(ROOT, "docs", "rules.md"), encoding="utf-8") as f:
        rules = f.read()
    for seed in SEEDS:
        assert seed in rules
    for heading in ("Fire Bet", "All Small", "All Tall", "Make 'Em All", "Make 'Em All Progressive", "Fired Up"):
        assert heading in rules
    for option in ("rebet_after_win", "fire_window", "bonus_window"):
        assert "`%s`" % option in rules
