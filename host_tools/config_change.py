"""`config set`: show what a configuration file changes on the board before
sending it, and apply it only when the technician agrees.

A configuration is whole: a key the file leaves out takes its default on the
board (config.json's rule, docs/link.md's config_set), so a one-key file can
put a paytable back to its default — a payout change. `config set` lists
every value that would change against the board, marks the ones that change
only because the file leaves them out, and then asks (on a terminal) or needs
`--yes`. `--merge` changes only the keys the file gives: the file is laid
over the configuration in force and the whole is sent.
"""

import json
import sys

from host_tools import EXIT_USAGE, HostToolError


def merged(board_config, file_config):
    """`file_config`'s keys laid over `board_config` (objects merged key by key)."""
    out = dict(board_config)
    for name, value in file_config.items():
        if isinstance(value, dict) and isinstance(out.get(name), dict):
            out[name] = merged(out[name], value)
        else:
            out[name] = value
    return out


def _given(file_config, dotted):
    """Whether the file names `dotted` (a.b) itself or an object holding it whole."""
    node = file_config
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True


def change_lines(differences, file_config):
    """One line per value that would change: `name: X -> Y`, with why when the file left it out."""
    lines = []
    for name, board, new in differences:
        line = "%s: %s -> %s" % (name, json.dumps(board), json.dumps(new))
        if not _given(file_config, name):
            line += "  (not in the file: back to its default)"
        if name.startswith("paytables."):
            line += "  [payout]"
        lines.append(line)
    return lines


def confirm(count, yes, stdin=None, stderr=None):
    """True to go on: --yes, or a `y` typed at a terminal. A request that cannot
    be confirmed (no terminal, no --yes) is refused (exit 2), nothing sent."""
    stdin = stdin or sys.stdin
    stderr = stderr or sys.stderr
    if yes:
        return True
    if not stdin.isatty():
        raise HostToolError(
            "%d value%s would change (listed above): nothing sent; run again with --yes to apply,"
            " or --merge to change only the keys the file gives" % (count, "" if count == 1 else "s"),
            EXIT_USAGE,
        )
    stderr.write("apply %d change%s to the board? [y/N] " % (count, "" if count == 1 else "s"))
    stderr.flush()
    answer = stdin.readline().strip().lower()
    return answer in ("y", "yes")
