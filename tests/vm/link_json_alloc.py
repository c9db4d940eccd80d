# What link_json.line allocates to build a reply (docs/link.md, Memory): for
# replies of 0, 10 and 47 lit lamps (status during the lamp test), one line
# each: lamps, the frame's length, the bytes micropython.mem_total() counted
# around the call. Run by tests/test_link_json_alloc.py.
import gc

import micropython

from crapsboard.link import link_json as lj


def reply(lamps):
    lit = {}
    for i in range(lamps):
        lit["bonus.%d" % i] = lj.Raw('{"blink": false, "color": "#%06x", "on": true}' % (i * 1000))
    return {
        "status": "ready",
        "hand": {"rolls": 12, "point": 6, "shooter": 3, "phase": "point", "dice": [3, 3]},
        "marks": {"fire": [4, 5, 6], "all_small": [2, 3, 4], "all_tall": [8, 9], "make_em_all": []},
        "lamps": lit,
        "journal": {"id": 1, "seq": 1234, "first": 1, "fault": None, "head": "ab" * 32},
        "t": 123456789,
        "pending": "",
        "supervisor": False,
        "note": 'caf\u00e9 "quoted" \\ and a tab\t',
    }


for lamps in (0, 10, 47):
    obj = reply(lamps)
    gc.collect()
    before = micropython.mem_total()
    frame = lj.line('{"id": 2, "ok": true', obj)
    allocated = micropython.mem_total() - before
    print(lamps, len(frame), allocated)
