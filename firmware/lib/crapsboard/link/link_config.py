# The link's configuration commands (docs/link.md): config_get, config_set.
#
# Dispatched by link_app.py.
# A configuration sent over the link is checked exactly as config.json is
# (config.parse, keys it lacks take the defaults, as in the file), applied
# through App.configure
# (refused while a wager it touches is in action; journaled; taken back if the
# journal cannot record it) and stored as config.json, which the board reads
# at power-up. The file is written beside it first and renamed over it, so a
# power cut leaves the old file or the new one, never half of either.
from crapsboard.link.link import LinkError
from crapsboard.link.link_json import encode
from crapsboard.rules import config as cfg
from crapsboard.rules import paytables as pt

CONFIG_FILE = "config.json"


def as_json(config):
    """A Config as config.json spells it: config.parse(as_json(c)) is c again."""
    pin = config.supervisor_pin
    if pin is not None:
        pin = {"salt": _hex(pin[0]), "iterations": pin[1], "pbkdf2_sha256": _hex(pin[2])}
    return {
        "offered": [pt.WAGER_NAMES[w] for w in range(pt.WAGER_COUNT) if config.is_offered(w)],
        "paytables": {pt.WAGER_NAMES[w]: config.paytables[w].ident for w in range(pt.WAGER_COUNT)},
        "rebet_after_win": config.rebet_after_win,
        "fire_window": cfg.FIRE_WINDOW_NAMES[config.fire_window],
        "bonus_window": cfg.BONUS_WINDOW_NAMES[config.bonus_window],
        "supervisor_pin": pin,
    }


def _hex(data):
    return "".join(["%02x" % b for b in data])


def config_get(handlers, request):
    return {"config": as_json(handlers.app.table.config)}


def config_set(handlers, request):
    """Check, store beside config.json, apply and journal, then put in place."""
    obj = request["config"]
    app = handlers.app
    try:
        config = cfg.parse(obj)
    except cfg.ConfigError as e:
        raise LinkError(str(e))
    path = handlers.path(CONFIG_FILE)
    fresh = path + ".new"
    import os

    try:
        with open(fresh, "w") as f:
            f.write(encode(obj))
    except OSError as e:
        _remove(os, fresh)
        raise LinkError("config.json not written (OSError %s): nothing changed" % _errno(e))
    old = app.table.config
    try:
        applied = app.configure(config, handlers.now())
    except cfg.ConfigError as e:  # a wager it touches is in action: the rules' reason
        _remove(os, fresh)
        raise LinkError(str(e))
    if not applied:
        _remove(os, fresh)
        raise LinkError("the journal could not record it: nothing changed")
    try:
        os.rename(fresh, path)
    except OSError as e:
        # Not stored, so power-up would bring the old one back: take it back now
        # (the cycles have not moved since, so going back is never refused).
        app.configure(old, handlers.now())
        _remove(os, fresh)
        raise LinkError("config.json not stored (OSError %s): taken back" % _errno(e))
    return {"config": as_json(config)}


def _errno(e):
    return e.args[0] if e.args else "?"


def _remove(os, path):
    try:
        os.remove(path)
    except OSError:
        pass
