"""`odds --plot FILE`: return to player against meter value for the progressive tables.

Hand-written SVG (no plotting library): one panel per progressive wager, one
line per distinct paytable economics (tables with the same pays share a line),
a dashed 100% line and each break-even meter marked. The return is linear in
the meter: return(m) = return excluding top + P(top) * m. A .png file is made
from the SVG with `rsvg-convert` when it is installed.
"""

import os
import shutil
import subprocess
from xml.sax.saxutils import escape

COLOURS = ("#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")
WIDTH, PANEL_H = 760, 330
LEFT, RIGHT, TOP, BOTTOM = 70, 190, 40, 45
Y_CAP = 150  # percent: the top of every panel at most


class PlotError(Exception):
    pass


def nice_step(span, target=6):
    """A 1-2-5 step giving about `target` ticks over `span`."""
    raw = span / target
    mag = 10 ** len(str(int(raw))) / 10 if raw >= 1 else 1
    for m in (1, 2, 5, 10):
        if raw <= m * mag:
            return m * mag
    return 10 * mag


def _lines(rows):
    """[(label, row)] merging rows with identical return lines."""
    merged = []
    for row in rows:
        key = (row.return_excl_top, row.top_probability)
        for item in merged:
            if item[0] == key:
                item[1].append(row.paytable)
                break
        else:
            merged.append([key, [row.paytable], row])
    out = []
    for _, idents, row in merged:
        prefix = os.path.commonprefix(idents)
        prefix = prefix[: prefix.rfind("-") + 1] if len(idents) > 1 else ""
        out.append((prefix + "/".join(i[len(prefix) :] for i in idents), row))
    return out


def _panel(parts, y0, title, rows, meter):
    lines = _lines(rows)
    be_max = max(float(r.break_even_meter) for _, r in lines)
    step = nice_step(be_max * 1.3)
    xmax = step * -(-be_max * 1.3 // step)
    ret = [(float(r.return_excl_top), float(r.top_probability)) for _, r in lines]
    ymin = min(a for a, _ in ret) * 100
    ymax = min(max(a + q * xmax for a, q in ret) * 100, Y_CAP)  # steep lines are clipped
    ystep = nice_step(ymax - ymin)
    ymin = ystep * (ymin // ystep)
    ymax = ystep * -(-ymax // ystep)
    pw, ph = WIDTH - LEFT - RIGHT, PANEL_H - TOP - BOTTOM

    def X(m):
        return LEFT + pw * m / xmax

    def Y(r):
        return y0 + TOP + ph * (1 - (r - ymin) / (ymax - ymin))

    parts.append('<text x="%d" y="%d" font-size="15" font-weight="bold">%s</text>' % (LEFT, y0 + 24, escape(title)))
    parts.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#444"/>' % (LEFT, y0 + TOP, pw, ph))
    v = 0.0
    while v <= xmax + 1e-9:
        parts.append(
            '<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/>' % (X(v), y0 + TOP, X(v), y0 + TOP + ph)
        )
        parts.append(
            '<text x="%.1f" y="%.1f" font-size="11" text-anchor="middle">%s</text>'
            % (X(v), y0 + TOP + ph + 15, format(int(v), ","))
        )
        v += step
    v = ymin
    while v <= ymax + 1e-9:
        parts.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>' % (LEFT, Y(v), LEFT + pw, Y(v)))
        parts.append('<text x="%d" y="%.1f" font-size="11" text-anchor="end">%g%%</text>' % (LEFT - 6, Y(v) + 4, v))
        v += ystep
    parts.append(
        '<text x="%d" y="%d" font-size="12" text-anchor="middle">meter (base units)</text>'
        % (LEFT + pw // 2, y0 + TOP + ph + 34)
    )
    parts.append(
        '<text x="18" y="%d" font-size="12" text-anchor="middle" transform="rotate(-90 18 %d)">return to player</text>'
        % (y0 + TOP + ph // 2, y0 + TOP + ph // 2)
    )
    if ymin <= 100 <= ymax:
        parts.append(
            '<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#000" stroke-dasharray="6 4"/>'
            % (LEFT, Y(100), LEFT + pw, Y(100))
        )
        parts.append('<text x="%d" y="%.1f" font-size="11">100%%: break-even</text>' % (LEFT + 4, Y(100) - 5))
    if meter is not None and 0 <= meter <= xmax:
        parts.append(
            '<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#777" stroke-dasharray="2 3"/>'
            % (X(meter), y0 + TOP, X(meter), y0 + TOP + ph)
        )
        right = meter > xmax * 0.8
        parts.append(
            '<text x="%.1f" y="%d" font-size="11" text-anchor="%s">meter %s</text>'
            % (X(meter) + (-3 if right else 3), y0 + TOP + 12, "end" if right else "start", format(meter, ",.0f"))
        )
    for i, ((label, row), (a, q)) in enumerate(zip(lines, ret)):
        colour = COLOURS[i % len(COLOURS)]
        xend = min(xmax, (ymax / 100 - a) / q)  # where the line leaves the panel
        parts.append(
            '<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2"/>'
            % (X(0), Y(a * 100), X(xend), Y((a + q * xend) * 100), colour)
        )
        be = float(row.break_even_meter)
        parts.append('<circle cx="%.1f" cy="%.1f" r="4.5" fill="%s" stroke="#000"/>' % (X(be), Y(100), colour))
        parts.append(
            '<text x="%.1f" y="%.1f" font-size="10" text-anchor="middle" fill="%s">%s</text>'
            % (X(be), Y(100) + 16 + 11 * (i % 2), colour, format(be, ",.0f"))
        )
        ly = y0 + TOP + 14 + 34 * i
        parts.append(
            '<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="3"/>'
            % (LEFT + pw + 12, ly, LEFT + pw + 32, ly, colour)
        )
        parts.append('<text x="%d" y="%d" font-size="11">%s</text>' % (LEFT + pw + 38, ly + 4, escape(label)))
        parts.append(
            '<text x="%d" y="%d" font-size="10" fill="#555">break-even %s</text>'
            % (LEFT + pw + 38, ly + 17, format(be, ",.0f"))
        )


def svg(rows, meter=None):
    """The SVG text for the progressive `rows` (grouped by wager, one panel each)."""
    panels = []
    for row in rows:
        if not panels or panels[-1][0] != row.title:
            panels.append((row.title, []))
        panels[-1][1].append(row)
    if not panels:
        raise PlotError("no progressive paytable selected")
    height = PANEL_H * len(panels) + 30
    parts = [
        '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif">'
        % (WIDTH, height, WIDTH, height),
        '<rect width="100%" height="100%" fill="#fff"/>',
    ]
    for i, (title, prows) in enumerate(panels):
        _panel(
            parts, PANEL_H * i, title + ": return to player vs meter", prows, None if meter is None else float(meter)
        )
    parts.append(
        '<text x="%d" y="%d" font-size="10" fill="#555">Exact, per 1-unit wager; dots mark the break-even meter. '
        "python -m sim odds --plot</text>" % (LEFT, height - 10)
    )
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def write_plot(path, rows, meter=None):
    text = svg(rows, meter)
    if path.lower().endswith(".svg"):
        from sim.cli import write_text

        write_text(path, text, "plot")
        return
    if not path.lower().endswith(".png"):
        raise PlotError("the file name must end in .svg or .png")
    tool = shutil.which("rsvg-convert")
    if tool is None:
        raise PlotError("PNG needs rsvg-convert (librsvg); write .svg instead")
    done = subprocess.run([tool, "-f", "png", "-o", path], input=text.encode(), capture_output=True)
    if done.returncode:
        raise PlotError("rsvg-convert failed: " + done.stderr.decode(errors="replace").strip())
