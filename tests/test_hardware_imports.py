# The hardware modules import one way: a walk over every import statement in
# hardware/*.py (at any depth, function-level ones included) finds no circle.

import ast
import os

HW = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "hardware")


def import_graph(folder=HW):
    """{module: {hardware modules it imports}} for every hardware/*.py."""
    names = {f[:-3] for f in os.listdir(folder) if f.endswith(".py")}
    graph = {}
    for name in sorted(names):
        with open(os.path.join(folder, name + ".py"), encoding="utf-8") as f:
            tree = ast.parse(f.read())
        deps = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                deps.update(a.name.split(".")[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                deps.add(node.module.split(".")[0])
        graph[name] = deps & names - {name}
    return graph


def find_cycle(graph):
    """One import circle as [a, b, ..., a], or None."""
    state = {}

    def visit(node, path):
        state[node] = "open"
        for dep in sorted(graph.get(node, ())):
            if state.get(dep) == "open":
                return path[path.index(dep) :] + [dep]
            if dep not in state:
                found = visit(dep, path + [dep])
                if found:
                    return found
        state[node] = "done"
        return None

    for start in sorted(graph):
        if start not in state:
            found = visit(start, [start])
            if found:
                return found
    return None


def test_hardware_modules_import_one_way():
    graph = import_graph()
    assert {"hwmodel", "hwprotect", "hwlines", "drawings"} <= set(graph)
    assert find_cycle(graph) is None


def test_the_walk_sees_the_imports_that_make_a_circle():
    graph = import_graph()
    assert {"hwmodel", "hwprotect"} <= graph["hwlatch"]  # the checks read the model, never the reverse
    assert "hwprotect" not in graph["hwmodel"]
    broken = dict(graph, hwprotect=graph["hwprotect"] | {"hwmodel"}, hwmodel=graph["hwmodel"] | {"hwprotect"})
    cycle = find_cycle(broken)  # revision B's circle
    assert cycle is not None and cycle[0] == cycle[-1] and {"hwmodel", "hwprotect"} <= set(cycle)
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None
