"""Mutants of one firmware module: small edits of its source text, found with `ast`.

Each mutant replaces one span of the text (an operator, a number, a statement,
a return value) and nothing else, so the file stays ordinary MicroPython: no
rewriting of functions, no trampolines, `const()` still gets a number. Every
candidate is parsed again and dropped if it does not compile.

A mutant's `key` names it without line numbers (module, the source line
without its comment, the edit and which occurrence of that key in the file), so the list of equivalent
mutants survives edits elsewhere in the file.
"""

import ast
import io
import tokenize

BINOP_SWAPS = {
    ast.Add: ["-"],
    ast.Sub: ["+"],
    ast.Mult: ["//"],
    ast.FloorDiv: ["*"],
    ast.Mod: ["//"],
    ast.LShift: [">>"],
    ast.RShift: ["<<"],
    ast.BitAnd: ["|", "^"],
    ast.BitOr: ["&", "^"],
    ast.BitXor: ["|", "&"],
}
BINOP_TEXT = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.LShift: "<<",
    ast.RShift: ">>",
    ast.BitAnd: "&",
    ast.BitOr: "|",
    ast.BitXor: "^",
}
CMP_SWAPS = {
    ast.Lt: ("<", ["<=", ">="]),
    ast.LtE: ("<=", ["<", ">"]),
    ast.Gt: (">", [">=", "<="]),
    ast.GtE: (">=", [">", "<"]),
    ast.Eq: ("==", ["!="]),
    ast.NotEq: ("!=", ["=="]),
    ast.Is: ("is", ["is not"]),
    ast.IsNot: ("is not", ["is"]),
    ast.In: ("in", ["not in"]),
    ast.NotIn: ("not in", ["in"]),
}


class Mutant:
    __slots__ = ("module", "start", "end", "old", "new", "line", "lineno", "kind", "key")

    def __init__(self, module, start, end, old, new, line, lineno, kind):
        self.module, self.start, self.end = module, start, end
        self.old, self.new, self.line, self.lineno, self.kind = old, new, line, lineno, kind
        self.key = ""

    def apply(self, text):
        return text[: self.start] + self.new + text[self.end :]

    def describe(self):
        return "%s:%d %s: %s  ->  %s" % (self.module, self.lineno, self.kind, _short(self.old), _short(self.new))


def _short(s):
    s = " ".join(s.split())
    return s if len(s) <= 60 else s[:57] + "..."


class _Source:
    """Text with (line, col) -> offset and its operator/name tokens."""

    def __init__(self, text):
        self.text = text
        self.line_starts = [0]
        for i, ch in enumerate(text):
            if ch == "\n":
                self.line_starts.append(i + 1)
        self.tokens = [
            t
            for t in tokenize.generate_tokens(io.StringIO(text).readline)
            if t.type in (tokenize.OP, tokenize.NAME, tokenize.NUMBER)
        ]

    def offset(self, line, col):
        # ast columns are UTF-8 byte offsets; the firmware is ASCII in code lines.
        return self.line_starts[line - 1] + col

    def tokens_between(self, start, end):
        return [t for t in self.tokens if start <= self.offset(*t.start) and self.offset(*t.end) <= end]

    def line_of(self, offset):
        lo = self.text.rfind("\n", 0, offset) + 1
        hi = self.text.find("\n", offset)
        return self.text[lo : hi if hi >= 0 else len(self.text)]


def _node_span(src, node):
    return src.offset(node.lineno, node.col_offset), src.offset(node.end_lineno, node.end_col_offset)


def _docstring_nodes(tree):
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first))
                out.add(id(first.value))
    return out


def _int_text(value, like):
    if like.lower().startswith("0x"):
        return "0x%X" % value if value >= 0 else "-0x%X" % -value
    if like.lower().startswith("0b"):
        return bin(value)
    return str(value)


def _function_statements(tree):
    """Statements inside function bodies (deleting module-level ones only breaks imports)."""
    for func in ast.walk(tree):
        if not isinstance(func, ast.FunctionDef):
            continue
        for node in ast.walk(func):
            for field in ("body", "orelse", "finalbody"):
                body = getattr(node, field, None)
                if isinstance(body, list):
                    for stmt in body:
                        if isinstance(stmt, ast.stmt) and not isinstance(stmt, (ast.FunctionDef, ast.ClassDef)):
                            yield stmt


def generate(module, text):
    """Every mutant of `text` (the source of firmware module `module`) that compiles."""
    tree = ast.parse(text)
    src = _Source(text)
    docs = _docstring_nodes(tree)
    found = []

    def add(start, end, new, node, kind):
        old = text[start:end]
        if old == new:
            return
        found.append(Mutant(module, start, end, old, new, src.line_of(start), node.lineno, kind))

    def op_token(left_end, right_start, symbol):
        for t in src.tokens_between(left_end, right_start):
            if t.string == symbol:
                return src.offset(*t.start), src.offset(*t.end)
        return None

    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and type(node.op) in BINOP_SWAPS:
            span = op_token(_node_span(src, node.left)[1], _node_span(src, node.right)[0], BINOP_TEXT[type(node.op)])
            if span:
                for new in BINOP_SWAPS[type(node.op)]:
                    add(span[0], span[1], new, node, "operator")
        elif isinstance(node, ast.AugAssign) and type(node.op) in BINOP_SWAPS:
            symbol = BINOP_TEXT[type(node.op)] + "="
            span = op_token(_node_span(src, node.target)[1], _node_span(src, node.value)[0], symbol)
            if span:
                for new in BINOP_SWAPS[type(node.op)]:
                    add(span[0], span[1], new + "=", node, "operator")
        elif isinstance(node, ast.Compare):
            left = node.left
            for op, right in zip(node.ops, node.comparators):
                symbol, swaps = CMP_SWAPS[type(op)]
                toks = src.tokens_between(_node_span(src, left)[1], _node_span(src, right)[0])
                words = symbol.split()
                for i in range(len(toks) - len(words) + 1):
                    if [t.string for t in toks[i : i + len(words)]] == words:
                        start, end = src.offset(*toks[i].start), src.offset(*toks[i + len(words) - 1].end)
                        for new in swaps:
                            add(start, end, new, node, "comparison")
                        break
                left = right
        elif isinstance(node, ast.BoolOp):
            symbol, new = ("and", "or") if isinstance(node.op, ast.And) else ("or", "and")
            for a, b in zip(node.values, node.values[1:]):
                span = op_token(_node_span(src, a)[1], _node_span(src, b)[0], symbol)
                if span:
                    add(span[0], span[1], new, node, "boolean")
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Not, ast.Invert, ast.USub)):
            start, _ = _node_span(src, node)
            operand_start = _node_span(src, node.operand)[0]
            add(start, operand_start, "", node, "unary")
        elif isinstance(node, ast.Constant) and id(node) not in docs:
            start, end = _node_span(src, node)
            value = node.value
            if isinstance(value, bool):
                add(start, end, "False" if value else "True", node, "constant")
            elif isinstance(value, int):
                old = text[start:end]
                for new in (value + 1, value - 1):
                    add(start, end, _int_text(new, old), node, "constant")
                if value > 1 and old.lower().startswith(("0x", "0b")):
                    top = 1 << (value.bit_length() - 1)
                    add(start, end, _int_text(value & ~top, old), node, "mask")
                    add(start, end, _int_text(value | (top << 1), old), node, "mask")
        elif isinstance(node, ast.Return) and node.value is not None:
            start, end = _node_span(src, node.value)
            if not (isinstance(node.value, ast.Constant) and node.value.value is None):
                add(start, end, "None", node, "return")
    for stmt in _function_statements(tree):
        if id(stmt) in docs or isinstance(stmt, ast.Pass):
            continue
        start, end = _node_span(src, stmt)
        add(start, end, "pass", stmt, "delete")

    # Keep only mutants that compile; name them by line text and occurrence.
    good = []
    seen = {}
    found.sort(key=lambda m: (m.start, m.end, m.new))
    for m in found:
        try:
            compile(m.apply(text), module, "exec")
        except SyntaxError:
            continue
        code = m.line.split("  #")[0].strip()  # ruff puts two spaces before a trailing comment
        # rstrip: an edit that deletes (a unary minus) ends in "-> ", and equivalent.txt's keys are stripped
        base = ("%s | %s | %s -> %s" % (module, code, _short(m.old), _short(m.new))).rstrip()
        seen[base] = seen.get(base, 0) + 1
        m.key = base if seen[base] == 1 else base + " #%d" % seen[base]
        good.append(m)
    return good
