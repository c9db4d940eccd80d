"""The one mechanism that loads modules for a while and drops them
(docs/architecture.md: crapsboard/base/modules.py, the serial link loaded when
a host first speaks and dropped after a silence): `drop_since` forgets every
firmware module loaded since the list `loaded()` gave, from sys.modules and
from its package, keeps those loaded before, and a later load imports them
afresh. Each case runs in a fresh CPython process, so no other test's modules
are dropped."""

import subprocess
import sys
import textwrap

from conftest import ROOT

SCRIPT = textwrap.dedent(
    """
    import sys
    sys.path[:0] = ["firmware/lib", "sim/shims"]
    from crapsboard.base import modules
    from crapsboard.link import link_json
    before = modules.loaded()
    assert "crapsboard.link.link_json" in before
    assert "crapsboard.link.link_verified" not in sys.modules
    verified = modules.load("crapsboard.link.link_verified")
    assert verified is sys.modules["crapsboard.link.link_verified"]
    assert "crapsboard.link.link" in sys.modules  # loaded with it
    modules.drop_since(before)
    import crapsboard.link as package
    gone = [n for n in ("crapsboard.link.link_verified", "crapsboard.link.link") if n in sys.modules]
    bound = [n for n in ("link_verified", "link") if hasattr(package, n)]
    kept = "crapsboard.link.link_json" in sys.modules
    again = modules.load("crapsboard.link.link_verified")
    print(gone, bound, kept, again is not verified, "crapsboard.link.link_verified" in modules.loaded())
    """
)


def test_a_module_loaded_for_a_while_is_dropped_and_those_before_are_kept():
    out = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[0] == "[] [] True True True"
