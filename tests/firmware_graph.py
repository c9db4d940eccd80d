"""The firmware's modules and who imports whom, read from the source with `ast`.

Every import counts, at module level or inside a function (a lazy import is
still a dependency), and so does a string naming a firmware module
(`modules.load("crapsboard.link.link_task")`). Used by
tests/test_firmware_imports.py and tests/test_architecture_doc.py, and by
tests/repo_graph.py for the whole repository.
"""

import ast
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIRMWARE = os.path.join(ROOT, "firmware")
PACKAGE_DIR = os.path.join(FIRMWARE, "lib", "crapsboard")
# A package's header line: a comment in the firmware, a docstring line on the host side.
ALLOWED_LINE = re.compile(r"^(?:# )?May import: (.*)$", re.M)


def modules(package_dir=PACKAGE_DIR):
    """{dotted name: path} of every module of the package (packages' __init__ as the package)."""
    found = {}
    base = os.path.dirname(package_dir)
    for folder, _, names in os.walk(package_dir):
        for name in names:
            if not name.endswith(".py"):
                continue
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, base)[: -len(".py")].split(os.sep)
            if rel[-1] == "__init__":
                rel = rel[:-1]
            found[".".join(rel)] = path
    return found


def _targets(node, known, strings=True):
    """Modules of `known` an import node (or, with `strings`, a string constant) names."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name in known]
    if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
        out = []
        for alias in node.names:
            sub = node.module + "." + alias.name
            if sub in known:
                out.append(sub)  # from crapsboard.journal import journal_read
            elif node.module in known:
                out.append(node.module)  # from crapsboard.journal.journal import Journal
        return out
    if strings and isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in known:
        return [node.value]
    return []


def imports_of(source, known, strings=True):
    """The modules of `known` that `source` imports (any depth in the file), sorted;
    `strings`: a string constant that is a module's whole name counts too."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        found.update(_targets(node, known, strings))
    return sorted(found)


def graph(package_dir=PACKAGE_DIR):
    """{module: [modules it imports]} over the package, packages' __init__ left out
    as targets (they import nothing: the test checks that too)."""
    known = modules(package_dir)
    edges = {}
    for name, path in known.items():
        with open(path, encoding="utf-8") as f:
            edges[name] = [t for t in imports_of(f.read(), known) if t != name]
    return edges


def circles(edges):
    """Every import circle, each as a list of modules (a strongly connected
    component of more than one module, or a module importing itself)."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 or v in edges.get(v, ()):
                out.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return sorted(out)


def allowed(package_dir=PACKAGE_DIR):
    """{subpackage: set of subpackages it may import} from each __init__.py's
    "May import:" line; a subpackage without the line is missing from the result."""
    out = {}
    for entry in sorted(os.listdir(package_dir)):
        init = os.path.join(package_dir, entry, "__init__.py")
        if not os.path.isfile(init):
            continue
        with open(init, encoding="utf-8") as f:
            m = ALLOWED_LINE.search(f.read())
        if m is None:
            continue
        words = [w.strip(" .") for w in m.group(1).split(",")]
        out[entry] = {w for w in words if w and not w.startswith(("(", "nothing"))}
    return out


def subpackage(module):
    """ "table" for crapsboard.table.app; None for the top package."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def forbidden(edges, rules):
    """(importer, imported) pairs across subpackages that the importer's header does not allow."""
    bad = []
    for src in sorted(edges):
        mine = subpackage(src)
        for dst in edges[src]:
            theirs = subpackage(dst)
            if mine is None or theirs is None or theirs == mine:
                continue
            if theirs not in rules.get(mine, set()):
                bad.append((src, dst))
    return bad
