"""`odds --plot FILE`: return to player against meter value for the progressive tables.

SVG by the project's writer (hardware/svgkit.py; no plotting library): one panel per progressive wager, one
line per distinct paytable economics (tables with the same pays share a line),
a dashed 100% line and each break-even meter marked. The return is linear in
the meter: return(m) = return excluding top + P(top) * m. A .png file is made
from the SVG with `rsvg-convert` when it is installed.
"""

import os
import shutil
import subprocess

from hardware.svgkit import FONT, Svg

COLOURS = ("#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")
WIDTH, PANEL_H = 760, 330
LEFT, RIGHT, TOP, BOTTOM = 70, 190, 40, 45
INK, GRID = "#000", "#ddd"
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


def _panel(svg, y0, title, rows, meter):
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
    top, bottom = y0 + TOP, y0 + TOP + ph

    def X(m):
        return LEFT + pw * m / xmax

    def Y(r):
        return top + ph * (1 - (r - ymin) / (ymax - ymin))

    svg.text(LEFT, y0 + 24, title, size=15, weight="bold", fill=INK)
    svg.rect(LEFT, top, pw, ph, fill="none", stroke="#444", stroke_width=1)
    v = 0.0
    while v <= xmax + 1e-9:
        svg.line(X(v), top, X(v), bottom, stroke=GRID, stroke_width=1)
        svg.text(X(v), bottom + 15, format(int(v), ","), size=11, anchor="middle", fill=INK, class_="x-tick")
        v += step
    v = ymin
    while v <= ymax + 1e-9:
        svg.line(LEFT, Y(v), LEFT + pw, Y(v), stroke=GRID, stroke_width=1)
        svg.text(LEFT - 6, Y(v) + 4, "%g%%" % v, size=11, anchor="end", fill=INK, class_="y-tick")
        v += ystep
    svg.text(LEFT + pw // 2, bottom + 34, "meter (base units)", size=12, anchor="middle", fill=INK)
    svg.text(18, top + ph // 2, "return to player", size=12, anchor="middle", fill=INK, rotate=-90)
    if ymin <= 100 <= ymax:
        svg.line(LEFT, Y(100), LEFT + pw, Y(100), stroke=INK, stroke_width=1, stroke_dasharray="6 4", class_="even")
        svg.text(LEFT + 4, Y(100) - 5, "100%: break-even", size=11, fill=INK)
    if meter is not None and 0 <= meter <= xmax:
        svg.line(X(meter), top, X(meter), bottom, stroke="#777", stroke_width=1, stroke_dasharray="2 3", class_="meter")
        right = meter > xmax * 0.8
        svg.text(
            X(meter) + (-3 if right else 3),
            top + 12,
            "meter " + format(meter, ",.0f"),
            size=11,
            anchor="end" if right else "start",
            fill=INK,
        )
    for i, ((label, row), (a, q)) in enumerate(zip(lines, ret)):
        colour = COLOURS[i % len(COLOURS)]
        xend = min(xmax, (ymax / 100 - a) / q)  # where the line leaves the panel
        be = float(row.break_even_meter)
        with svg.group(class_="series", data_paytables=label):
            svg.line(X(0), Y(a * 100), X(xend), Y((a + q * xend) * 100), stroke=colour, stroke_width=2)
            svg.circle(X(be), Y(100), 4.5, fill=colour, stroke=INK, stroke_width=1)
            svg.text(X(be), Y(100) + 16 + 11 * (i % 2), format(be, ",.0f"), size=10, anchor="middle", fill=colour)
            ly = top + 14 + 34 * i
            svg.line(LEFT + pw + 12, ly, LEFT + pw + 32, ly, stroke=colour, stroke_width=3)
            svg.text(LEFT + pw + 38, ly + 4, label, size=11, fill=INK)
            svg.text(LEFT + pw + 38, ly + 17, "break-even " + format(be, ",.0f"), size=10, fill="#555")


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
    doc = Svg(WIDTH, height, title="Return to player against meter value", family=FONT)
    for i, (title, prows) in enumerate(panels):
        with doc.group(class_="panel"):
            _panel(
                doc, PANEL_H * i, title + ": return to player vs meter", prows, None if meter is None else float(meter)
            )
    doc.text(
        LEFT,
        height - 10,
        "Exact, per 1-unit wager; dots mark the break-even meter. python -m sim odds --plot",
        size=10,
        fill="#555",
    )
    return doc.render()


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
