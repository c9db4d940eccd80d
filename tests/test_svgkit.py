"""hardware/svgkit.py, the one SVG writer of hardware/ and sim/: its output
parses, escapes text and attributes one way, and keeps its numbers short."""

import xml.etree.ElementTree as ET

from hardware.svgkit import FONT, Svg, num, path_data

NS = "{http://www.w3.org/2000/svg}"


def test_numbers_have_at_most_two_decimals_and_no_trailing_zeros():
    assert [num(v) for v in (3, 2.5, 1 / 3, 2.0, -0.001, 1e-9, 1234.567)] == [
        "3",
        "2.5",
        "0.33",
        "2",
        "0",
        "0",
        "1234.57",
    ]
    assert path_data(("M", 0, 1.5, "A", 8, 8, 0, 0, 1, 2 / 3, 16, "Z")) == "M 0 1.5 A 8 8 0 0 1 0.67 16 Z"


def test_text_and_attributes_are_escaped():
    svg = Svg(10, 10, title="a < b & c")
    svg.text(1, 2, 'MAKE \'EM <ALL> & "more"', data_label='say "hi" & <bye>')
    text = svg.render()
    root = ET.fromstring(text)
    assert root.find(NS + "title").text == "a < b & c"
    (t,) = root.iter(NS + "text")
    assert t.text == 'MAKE \'EM <ALL> & "more"' and t.get("data-label") == 'say "hi" & <bye>'
    assert "<ALL>" not in text


def test_display_size_is_the_view_box_times_the_scale():
    root = ET.fromstring(Svg(640, 364, scale=1.5).render())
    assert (root.get("width"), root.get("height"), root.get("viewBox")) == ("960", "546", "0 0 640 364")
    root = ET.fromstring(Svg(210, 148, unit="mm").render())
    assert (root.get("width"), root.get("height"), root.get("viewBox")) == ("210mm", "148mm", "0 0 210 148")


def test_document_font_is_set_once_on_the_root():
    svg = Svg(10, 10, family=FONT)
    svg.text(1, 2, "same font")
    svg.text(1, 4, "other font", family="monospace")
    root = ET.fromstring(svg.render())
    assert root.get("font-family") == FONT
    assert [t.get("font-family") for t in root.iter(NS + "text")] == [None, "monospace"]
    # Without a document font every text names its own (the hardware drawings).
    root = ET.fromstring(Svg(10, 10).render())
    assert root.get("font-family") is None


def test_groups_nest_and_keyword_names_become_attribute_names():
    svg = Svg(20, 20, background=None)
    with svg.group(id="outer", class_="panel"):
        with svg.group(id="inner"):
            svg.circle(5, 5, 2, fill="#123456", stroke_dasharray="3 2")
        svg.shape(("M", 0, 0, "L", 4, 4, "Z"), fill="#fff")
    svg.text(3, 7, "up", rotate=-90)
    root = ET.fromstring(svg.render())
    (outer,) = root.findall(NS + "g")
    assert outer.get("class") == "panel" and outer.find(NS + "g").get("id") == "inner"
    circle = outer.find(NS + "g/" + NS + "circle")
    assert circle.get("fill") == "#123456" and circle.get("stroke-dasharray") == "3 2"
    assert outer.find(NS + "path").get("d") == "M 0 0 L 4 4 Z"
    assert root.find(NS + "text").get("transform") == "rotate(-90 3 7)"
    assert root.find(NS + "rect") is None  # no background asked for
