"""The floor's people: accounts with a role, passwords hashed with Argon2id (argon2-cffi).

    DIR/people.json   {"people": {NAME: {"role", "hash", "added"}}}, owner-only

There is no default account and no default password: a floor has nobody
until `python -m host_tools floor user add NAME --role ROLE` adds a person.
The same password is the person's broker password: `add` also writes it,
hashed by mosquitto_passwd, into the floor's password file, and puts the
person in floor.json so the broker's ACL lets them read the floor and write
only their own role's acknowledgements (`ack/<role>/<name>`). The page
opens each person's own MQTT connection with the password given at login
(docs/floor.md, "People"), so nothing the page does for a person is done
under a shared identity, and the page's own account cannot acknowledge.
The password itself is never written anywhere.
"""

import json
import os
import shutil
import signal
import subprocess
import time

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from host_tools import EXIT_FAILED, EXIT_USAGE, HostToolError
from host_tools.floor.alerts import book as alerts
from host_tools.floor.base import topics

PEOPLE_FILE = "people.json"
MIN_PASSWORD = 10  # characters; a pit tablet is a shared device in a public room
_HASHER = PasswordHasher()  # Argon2id, the library's RFC 9106 low-memory profile (64 MiB, t=3)
_DUMMY_HASH = []  # verified when the name is unknown: a wrong name costs what a wrong password does


def people_path(directory):
    return os.path.join(directory, PEOPLE_FILE)


def read_people(directory):
    """{name: {"role", "hash", "added"}}; {} for a floor with nobody yet."""
    path = people_path(directory)
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as e:
        raise HostToolError("cannot read %s: %s" % (path, getattr(e, "strerror", None) or e), EXIT_USAGE)
    people = data.get("people") if isinstance(data, dict) else None
    if not isinstance(people, dict):
        raise HostToolError("%s has no people object" % path, EXIT_USAGE)
    return people


def check_password(password):
    if len(password) < MIN_PASSWORD:
        raise HostToolError("a password needs at least %d characters" % MIN_PASSWORD, EXIT_USAGE)
    if password != password.strip() or any(ord(c) < 32 for c in password):
        raise HostToolError("a password may not start or end with a space or hold control characters", EXIT_USAGE)
    if ":" in password:
        raise HostToolError("a password may not hold ':' (the broker's password file separates with it)", EXIT_USAGE)


def add_person(directory, name, role, password, now=None):
    """Add (or replace the password and role of) `name`; nothing changes on a refusal."""
    try:
        topics.check_name("name", name)
    except ValueError as e:
        raise HostToolError(str(e), EXIT_USAGE)
    if role not in alerts.ROLES:
        raise HostToolError("role %r: one of %s" % (role, ", ".join(alerts.ROLES)), EXIT_USAGE)
    check_password(password)
    if not os.path.isdir(directory):
        raise HostToolError("no floor directory %s: run `make floor` or `floor init` first" % directory, EXIT_USAGE)
    people = read_people(directory)
    entry = {"role": role, "hash": _HASHER.hash(password), "added": int(now if now is not None else time.time())}
    _broker_password(directory, name, password)
    people[name] = entry
    _write_private(people_path(directory), {"people": people})
    _floor_json_person(directory, name, role)
    reload_broker(directory)
    return entry


def verify(directory, name, password):
    """The role of `name` when `password` is theirs, else None (same cost either way)."""
    person = read_people(directory).get(name)
    if not person and not _DUMMY_HASH:
        _DUMMY_HASH.append(_HASHER.hash("no such person on this floor"))
    try:
        _HASHER.verify(person["hash"] if person else _DUMMY_HASH[0], password)
    except (VerificationError, InvalidHashError):
        return None
    return person["role"] if person else None


# ---- the broker's side --------------------------------------------------------------


def _broker_password(directory, name, password):
    """The person's line in DIR/passwd, hashed by mosquitto_passwd (-b adds or replaces one user)."""
    tool = shutil.which("mosquitto_passwd") or "/usr/bin/mosquitto_passwd"
    path = os.path.join(directory, "passwd")
    command = [tool, "-b", path, name, password]
    if not os.path.exists(path):
        command.insert(1, "-c")
    try:
        done = subprocess.run(command, capture_output=True, text=True)
    except OSError:
        raise HostToolError("mosquitto_passwd is not installed: apt-get install mosquitto", EXIT_USAGE)
    if done.returncode != 0:
        reason = (done.stderr.strip() or done.stdout.strip() or "exit %d" % done.returncode).splitlines()[0]
        raise HostToolError("mosquitto_passwd refused %s: %s" % (name, reason), EXIT_FAILED)
    os.chmod(path, 0o600)


def reload_broker(directory):
    """SIGHUP to the floor's running mosquitto, if any (it re-reads its password file and
    ACL: the person can log in at once). Found in /proc by its exact configuration file, so
    no other broker is touched; True when one was told."""
    conf = os.path.realpath(os.path.join(directory, "mosquitto.conf"))
    told = False
    for pid in os.listdir("/proc") if os.path.isdir("/proc") else []:
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                argv = [a.decode(errors="replace") for a in f.read().split(b"\0") if a]
            cwd = os.readlink("/proc/%s/cwd" % pid)
        except OSError:
            continue
        if argv and os.path.basename(argv[0]) == "mosquitto" and "-c" in argv[:-1]:
            given = argv[argv.index("-c") + 1]
            if os.path.realpath(os.path.join(cwd, given)) == conf:
                os.kill(int(pid), signal.SIGHUP)
                told = True
    return told


def _floor_json_person(directory, name, role):
    """The person in floor.json's people (what the broker's ACL is made from), and the ACL rewritten."""
    from host_tools.floor.base import floordir
    from host_tools.floor.bus import broker

    path = os.path.join(directory, "floor.json")
    if not os.path.exists(path):
        return
    floor = floordir.read_floor(directory)
    floor["people"] = [p for p in floor.get("people", []) if p.get("user") != name]
    floor["people"].append({"user": name, "role": role})
    floordir.write_json(path, floor)
    with open(os.path.join(directory, "acl"), "w", encoding="utf-8") as f:
        f.write(broker.acl_text(floor))


def _write_private(path, obj):
    tmp = path + ".tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(tmp, path)
