"""status's lamps are written by link_info.lamp_json without the encoder (it
allocated ~2.5 KB a lamp); the text is the encoder's, byte for byte."""

import pytest

from crapsboard.link import link_info
from crapsboard.link import link_json as lj


@pytest.mark.parametrize(
    "rgb, blink, alt",
    [(0xFF0000, 0, 0), (0x00FF00, 1, 0), (0x0000FF, 1, 0xFFFFFF), (0x000001, 0, 0x123456), (0xFFFFFF, 250, 0x00FF00)],
)
def test_a_lamps_text_is_what_the_encoder_writes(rgb, blink, alt):
    lamp = {"on": True, "color": "#%06x" % rgb, "blink": bool(blink)}
    if blink and alt:
        lamp["alt"] = "#%06x" % alt
    assert link_info.lamp_json(rgb, blink, alt) == lj.encode(lamp)


def test_a_blinking_lamp_with_an_alt_colour_names_it_first():
    assert (
        link_info.lamp_json(0xFF0000, 1, 0x0000FF)
        == '{"alt": "#0000ff", "blink": true, "color": "#ff0000", "on": true}'
    )
