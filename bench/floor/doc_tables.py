"""The floor benches' JSON as the docs' tables: each function takes one
bench's build/*.json (as loaded) and returns the section's text, its stamp
line first, every figure in its rows read from the JSON. bench/floor/doc_figures.py
writes them between their markers; tests/test_bench_floor_doc.py holds them."""

from sim.analysis import doc_figures as shared

PPM = 1_000_000  # micro-cents in a cent, as the progressive's meter counts


def _ms(figure):
    return "%s / %s ms" % (figure["p50"], figure["p99"])


def _seconds(values):
    return ", ".join("%.2f" % v for v in values) + " s"


def _body(stamp, parts):
    return "\n\n".join([stamp] + parts)


def floor_section(data):
    """floor_bench: one table's timings, presence verdicts, and the cost per table at each scale."""
    lat, sustained, restart = data["latency"], data["sustained"], data["broker_restart"]
    rows = [
        (
            "key press → record in the recorder's SQLite, p50 / p99 (%d presses)" % lat["presses"],
            _ms(lat["press_to_recorder_ms"]),
        ),
        (
            "key press → the table's retained state at the broker showing it, p50 / p99",
            _ms(lat["press_to_retained_state_ms"]),
        ),
        (
            "a drained backlog (%s records read while the gateway was stopped), through gateway, broker and recorder"
            % sustained["records"],
            "%s records/s" % sustained["records_per_s"],
        ),
        (
            "catch-up after a broker restart (%d rolls made while it was down, %s recorded): from the broker "
            "listening to the recorder holding them all" % (restart["rolls_while_down"], restart.get("records")),
            "%s s" % restart["seconds_from_broker_up"],
        ),
    ]
    rows += _presence_rows(data["presence"])
    scale = sorted(data["scale"], key=lambda s: s["tables"])
    return _body(
        data["stamp"],
        [
            shared.markdown(rows, ("figure", "value")),
            "Per table, every table playing a roll every 0.4 s for the window; CPU is % of one core:",
            shared.markdown([_scale_row(s) for s in scale], SCALE_HEADER),
        ],
    )


def _presence_rows(presence):
    keep = presence["keepalive_s"]
    freeze, partition = presence["freeze"], presence["partition"]
    rows = [
        (
            "a gateway frozen (SIGSTOP), keepalive %s s (limit %s s): the recorder's verdict `offline` / the broker's "
            "will (%d samples)" % (keep, presence["limit_s"], len(freeze)),
            "%s / %s" % (_seconds(f["offline_s"] for f in freeze), _seconds(f["will_s"] for f in freeze)),
        ),
        (
            "the same gateway thawed (SIGCONT, after the will: it reconnects): verdict `online`",
            _seconds(f["verdict_online_s"] for f in freeze),
        ),
    ]
    if isinstance(partition, str):  # a partition needs root: the bench says why it did not run one
        rows.append(("a gateway cut off by a partition (network namespace)", "not measured: %s" % partition))
        return rows
    return rows + [
        (
            "a gateway cut off by a partition (network namespace): verdict `offline` / the broker's will",
            "%s / %s" % (_seconds(p["offline_s"] for p in partition), _seconds(p["will_s"] for p in partition)),
        ),
        ("the partition ended: verdict `online`", _seconds(p["verdict_online_s"] for p in partition)),
    ]


SCALE_HEADER = (
    "tables",
    "seconds",
    "board CPU / RSS",
    "gateway CPU / RSS",
    "broker CPU / RSS",
    "recorder CPU / RSS",
    "the floor's cost a table (gateway + broker's and recorder's shares)",
    "records, every one recorded",
)


def _scale_row(s):
    def each(kind):
        return "%s %% / %s MB" % (s[kind]["cpu_percent_each"], s[kind]["rss_mb_each"])

    floor = ("gateway", "broker", "recorder")
    cpu = sum(s[k]["cpu_percent_per_table"] for k in floor)
    rss = sum(s[k]["rss_mb_per_table"] for k in floor)
    # from --pty-from tables, the boards are the firmware's App under CPython on ptys, one process: its share
    boards = "" if "pty" not in s.get("table_kind", "") else " (boards on ptys)"
    return (
        "%d%s" % (s["tables"], boards),
        s["window_s"],
        each("board"),
        each("gateway"),
        each("broker"),
        each("recorder"),
        "%.1f %% / %.1f MB" % (cpu, rss),
        "%s, %s" % (s["records"], "yes" if s["all_recorded"] else "NO"),
    )


def page_section(data):
    """page_bench: a key press to the alert visible in the pit page in headless Chromium."""
    fig = data["press_to_alert_in_browser_ms"]
    rows = [
        ("samples seen / keyed", "%d / %d" % (fig["seen"], fig["samples"])),
        (
            "key press → alert visible in the page, p50 / p99 (the slowest when under 100 samples)",
            "%s / %s ms" % (fig["p50"], fig["p99"]),
        ),
    ]
    return _body(data["stamp"], [shared.markdown(rows, ("figure", "value"))])


def progressive_section(data):
    """progressive_bench: hit to PENDING, contributions per second, the controller's presence."""
    hit, p = data["hit_to_pending_ms"], data["controller_presence"]
    rows = [
        (
            "a hit published by a gateway account → the meter topic saying PENDING with it, p50 / p99 (%d samples)"
            % hit["samples"],
            _ms(hit),
        ),
    ]
    boards = data.get("with_boards")
    if boards:
        meter, every = boards["hit_to_meter_pending_ms"], boards["hit_to_pending_on_every_board_ms"]
        closed = boards["controller_killed_to_closed_on_every_board_ms"]
        opened = boards["controller_restarted_to_open_on_every_board_ms"]
        rows += [
            (
                "a hit keyed on a virtual board (its `prog_hit` record at a subscriber) → the meter topic saying "
                "PENDING, p50 / p99 (%d)" % meter["samples"],
                _ms(meter),
            ),
            (
                "the same record → **PENDING on every one of the three boards** (the last gateway logging that its "
                "board took it), p50 / p99 (%d)" % every["samples"],
                _ms(every),
            ),
            (
                "the controller SIGKILLed → **closed on every one of the three boards**, p50 / p99 (%d)"
                % closed["samples"],
                _ms(closed),
            ),
            (
                "the controller restarted → **open on every board** (its start-up included), p50 / p99 (%d)"
                % opened["samples"],
                _ms(opened),
            ),
        ]
    rows += [
        (
            "contributions per second (prog_wager records from 3 gateway accounts; each a synced commit and a "
            "retained publish)",
            "%s /s" % data["contributions_per_s"],
        ),
        ("the controller silent (SIGSTOP) → `offline` at a subscriber", "%.2f s" % p["silent_to_offline_s"]),
        (
            "resumed → `online`; SIGKILLed → `offline`; restarted → `online`",
            "%.3f s; %.3f s; %.3f s" % (p["resumed_to_online_s"], p["killed_to_offline_s"], p["restarted_to_online_s"]),
        ),
    ]
    return _body(data["stamp"], [shared.markdown(rows, ("figure", "value"))])


MONEY_HEADER = (
    "paytable",
    "wagers",
    "R₀",
    "+ rates",
    "+ house per unit",
    "long-run return",
    "house edge",
    "top awards per unit",
    "a hit's wagers bring (rates × wagers per hit × unit)",
    "of which overflow paid back",
    "at the end: meter / reserve / overflow",
    "every cent accounted",
)


def dollars(microcents):
    cents = microcents // PPM
    return "$%s.%02d" % ("{:,}".format(cents // 100), cents % 100)


def _money_row(g):
    par, end = g["params"], g["end"]
    rates = par["increment_ppm"] + par["reserve_ppm"]
    per_hit = g["wagers"] * par["base_unit"] * rates // g["hits"]  # micro-cents
    ok = g["balanced"] and g["long_run_is_stated"] and g["contributed_is_rates"]
    return (
        g["paytable"],
        "{:,}".format(g["wagers"]),
        "%.6f%%" % g["r0_pct"],
        "%g%%" % (rates / 10_000),
        "%.6f%%" % g["house_per_unit_pct"],
        "%.6f%%" % g["long_run_pct"],
        "%.2f%%" % (100 - g["long_run_pct"]),
        "%.6f%%" % g["top_awards_pct"],
        dollars(per_hit),
        dollars(g["overflow_paid_microcents"]),
        " / ".join(dollars(end[k]) for k in ("meter_microcents", "reserve_microcents", "overflow_microcents")),
        "yes" if ok else "NO",
    )


def money_section(data):
    """progressive_money: each game's meter played for `hits` top awards, to the micro-cent."""
    title = "%s top awards a game, seed %d:" % ("{:,}".format(data["hits"]), data["seed"])
    return _body(data["stamp"], [title, shared.markdown([_money_row(g) for g in data["games"]], MONEY_HEADER)])
