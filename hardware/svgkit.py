# The project's one SVG writer: elements in, deterministic text out. Used by the
# hardware drawings (hardware/draw_*.py, run with hardware/ on sys.path as
# `svgkit`) and by the simulator's pictures (sim/board_svg.py,
# sim/analysis/plot_svg.py, as `hardware.svgkit`). Stdlib only; coordinates are
# rounded so the output is byte-stable across runs, and every text and attribute
# goes through one escaping rule (xml.sax.saxutils).

from contextlib import contextmanager
from xml.sax.saxutils import escape, quoteattr

FONT = "DejaVu Sans, Liberation Sans, Arial, Helvetica, sans-serif"
MONO = "DejaVu Sans Mono, Liberation Mono, Consolas, monospace"


def num(v):
    """Format a coordinate: at most two decimals, no trailing zeros."""
    s = "%.2f" % v
    s = s.rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def _attrs(d):
    # Keyword names become attribute names: stroke_width -> stroke-width, class_ -> class.
    out = []
    for k in d:
        v = d[k]
        if v is None:
            continue
        if isinstance(v, float) or isinstance(v, int) and not isinstance(v, bool):
            v = num(v)
        out.append(" %s=%s" % (k.rstrip("_").replace("_", "-"), quoteattr(str(v))))
    return "".join(out)


def path_data(tokens):
    """Path data from commands and numbers, e.g. ("M", 0, 1.5, "L", 2, 3, "Z")."""
    return " ".join(t if isinstance(t, str) else num(t) for t in tokens)


class Svg:
    """Collects elements; `render()` returns the document as text.

    width x height is the drawing's coordinate system (the viewBox); the document
    is displayed at `scale` times that size, in `unit`. With `family` the root
    element carries that font, and text in it leaves the font out."""

    def __init__(self, width, height, unit="", title="", background="#ffffff", scale=1, family=None):
        self.width = width
        self.height = height
        self.unit = unit
        self.title = title
        self.scale = scale
        self.family = family
        self.items = []
        if background:
            self.rect(0, 0, width, height, fill=background, stroke="none")

    def raw(self, text):
        self.items.append(text)

    def el(self, tag, body=None, **attrs):
        if body is None:
            self.items.append("<%s%s/>" % (tag, _attrs(attrs)))
        else:
            self.items.append("<%s%s>%s</%s>" % (tag, _attrs(attrs), escape(body), tag))

    def rect(self, x, y, w, h, rx=0, fill="none", stroke="#222", stroke_width=1.5, **kw):
        self.el(
            "rect",
            x=x,
            y=y,
            width=w,
            height=h,
            rx=rx or None,
            fill=fill,
            stroke=stroke,
            stroke_width=stroke_width,
            **kw,
        )

    @contextmanager
    def group(self, **attrs):
        """`with s.group(id=...):` wraps the elements drawn inside in a <g>."""
        self.items.append("<g%s>" % _attrs(attrs))
        yield self
        self.items.append("</g>")

    def line(self, x1, y1, x2, y2, stroke="#222", stroke_width=1.5, **kw):
        self.el("line", x1=x1, y1=y1, x2=x2, y2=y2, stroke=stroke, stroke_width=stroke_width, **kw)

    def path(self, points, stroke="#222", stroke_width=1.5, fill="none", **kw):
        """Polyline through (x, y) points."""
        d = "M" + " L".join("%s %s" % (num(x), num(y)) for x, y in points)
        self.el("path", d=d, stroke=stroke, stroke_width=stroke_width, fill=fill, **kw)

    def shape(self, tokens, fill="none", stroke="#222", stroke_width=1.5, **kw):
        """Any path: `tokens` as for path_data(), e.g. arcs and closed outlines."""
        self.el("path", d=path_data(tokens), stroke=stroke, stroke_width=stroke_width, fill=fill, **kw)

    def circle(self, cx, cy, r, fill="none", stroke="#222", stroke_width=1.5, **kw):
        self.el("circle", cx=cx, cy=cy, r=r, fill=fill, stroke=stroke, stroke_width=stroke_width, **kw)

    def dot(self, x, y, r=3.5, fill="#222"):
        self.circle(x, y, r, fill=fill, stroke="none")

    def text(self, x, y, s, size=12, anchor="start", weight=None, fill="#111", family=FONT, rotate=None, **kw):
        """Text with its baseline at (x, y); `rotate` turns it (degrees) about that point."""
        self.el(
            "text",
            str(s),
            x=x,
            y=y,
            font_size=size,
            text_anchor=anchor,
            font_weight=weight,
            fill=fill,
            font_family=None if family == self.family else family,
            transform=None if rotate is None else "rotate(%s)" % path_data((rotate, x, y)),
            **kw,
        )

    def lines(self, x, y, rows, size=12, gap=1.35, **kw):
        """Several text lines downward from baseline y; returns the next baseline."""
        for r in rows:
            self.text(x, y, r, size=size, **kw)
            y += size * gap
        return y

    def resistor(self, x1, y, x2, label, stroke="#222", below=False):
        """Horizontal resistor (box) between x1 and x2 at height y, label above (or below)."""
        mid = (x1 + x2) / 2
        self.line(x1, y, mid - 18, y, stroke=stroke)
        self.rect(mid - 18, y - 6, 36, 12, fill="#fff", stroke="#222")
        self.line(mid + 18, y, x2, y, stroke=stroke)
        self.text(mid, y + 22 if below else y - 10, label, size=11, anchor="middle")

    def vresistor(self, x, y1, y2, label, stroke="#222", left=False):
        """Vertical resistor between y1 and y2, label to the right (or left)."""
        mid = (y1 + y2) / 2
        self.line(x, y1, x, mid - 16, stroke=stroke)
        self.rect(x - 6, mid - 16, 12, 32, fill="#fff", stroke="#222")
        self.line(x, mid + 16, x, y2, stroke=stroke)
        if left:
            self.text(x - 10, mid + 4, label, size=11, anchor="end")
        else:
            self.text(x + 10, mid + 4, label, size=11)

    def ground(self, x, y, stroke="#222"):
        """Ground symbol hanging below (x, y)."""
        self.line(x, y, x, y + 8, stroke=stroke)
        for i, w in enumerate((10, 6, 2)):
            self.line(x - w, y + 8 + 3 * i, x + w, y + 8 + 3 * i, stroke=stroke)

    def rail_flag(self, x, y, name, colour, up=True):
        """Supply flag (arrow + net name) above (or below) (x, y)."""
        dy = -1 if up else 1
        self.line(x, y, x, y + 10 * dy, stroke=colour, stroke_width=2)
        self.line(x - 8, y + 10 * dy, x + 8, y + 10 * dy, stroke=colour, stroke_width=2)
        self.text(x, y + (24 if not up else -16), name, size=11, anchor="middle", fill=colour, weight="bold")

    def tag(self, x, y, s, colour, side="right", size=11):
        """Net tag: a labelled flag box starting at (x, y) pointing away from a wire end."""
        w = len(s) * size * 0.62 + 12
        h = size + 8
        x0 = x if side == "right" else x - w
        self.rect(x0, y - h / 2, w, h, rx=3, fill="#fff", stroke=colour, stroke_width=1.5)
        self.text(x0 + w / 2, y + size * 0.36, s, size=size, anchor="middle", fill="#111")
        return w

    def render(self):
        u = self.unit
        width, height = num(self.width * self.scale) + u, num(self.height * self.scale) + u
        view = "0 0 %s %s" % (num(self.width), num(self.height))
        head = '<?xml version="1.0" encoding="UTF-8"?>\n<svg%s>\n' % _attrs(
            {
                "xmlns": "http://www.w3.org/2000/svg",
                "width": width,
                "height": height,
                "viewBox": view,
                "font_family": self.family,
            }
        )
        body = ""
        if self.title:
            body += "<title>%s</title>\n" % escape(self.title)
        body += "\n".join(self.items)
        return head + body + "\n</svg>\n"
