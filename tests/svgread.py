"""Read back what the simulator's SVG pictures show, for the tests: the lit
board's lamps (sim/board_svg.py) and the odds plot's panels (sim/analysis/plot_svg.py)."""

import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
LAMP_R = 8.0  # the lamp face; larger circles are the glow and the blink ring
DARK = "#1b1b1b"


def root(path):
    return ET.parse(path).getroot()


def texts(element):
    return [t.text or "" for t in element.iter(NS + "text")]


def lamps(svg_root):
    """{lamp name: {"colors": [...], "glow", "blink", "label"}} as drawn.

    colors is the face: one colour, or the left and right halves of a lamp that
    flashes between two colours; glow is the halo's colour (None when dark)."""
    out = {}
    for g in svg_root.iter(NS + "g"):
        name = g.get("id", "")
        if not name.startswith("lamp-"):
            continue
        circles = g.findall(NS + "circle")
        halves = [p.get("fill") for p in g.findall(NS + "path")]
        face = [c.get("fill") for c in circles if float(c.get("r")) == LAMP_R]
        glow = [c.get("fill") for c in circles if c.get("opacity")]
        (label,) = texts(g)
        out[name[len("lamp-") :]] = {
            "colors": halves or face,
            "glow": glow[0] if glow else None,
            "blink": any(c.get("stroke-dasharray") for c in circles),
            "label": label,
        }
    return out


def expected_lamp(state):
    """What a lamp of the run JSON must look like on the drawing."""
    if not state["on"]:
        return {"colors": [DARK], "glow": None, "blink": False}
    colors = [state["color"], state["alt"]] if "alt" in state else [state["color"]]
    return {"colors": colors, "glow": state["color"], "blink": state["blink"]}


def caption(svg_root):
    (text,) = [t.text for t in svg_root.iter(NS + "text") if t.get("id") == "caption"]
    return text
