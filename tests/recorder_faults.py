"""A recorder (`python -m host_tools recorder`, the same serve()) that notes
each batch it takes and can die at one chosen point, for
tests/test_floor_recorder_batch.py:

    python tests/recorder_faults.py DIR DB NOTES MODE

NOTES gets one JSON line per batch: [[table, seq, result], ...] (seq null
for a message that is not a record). MODE: `run` (die never); `after-commit`: die
(os._exit) once the first batch holding two records or more is committed,
before any of it is acknowledged; `before-commit`: die inside that batch's
transaction, its records checked and inserted but not committed.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from host_tools.floor.base import floordir, topics  # noqa: E402
from host_tools.floor.recorder import service  # noqa: E402

DIED = 9


def seq_of(payload):
    try:
        return topics.decode(payload)["record"]["seq"]
    except (ValueError, KeyError, TypeError):
        return None


def main(directory, db, notes, mode):
    take = service.Recorder.handle_batch
    dying = [mode == "before-commit"]

    def noted(recorder, messages):
        events = sum(1 for m in messages if m[0].endswith("/event"))
        if dying[0] and events >= 2:
            store_batch = recorder.store.batch

            def die_uncommitted(work):
                return store_batch(lambda: (work(), os._exit(DIED)))

            recorder.store.batch = die_uncommitted
        results = take(recorder, messages)
        with open(notes, "a") as f:
            f.write(json.dumps([[m[0].split("/")[-2], seq_of(m[1]), r] for m, r in zip(messages, results)]) + "\n")
        if mode == "after-commit" and events >= 2:
            os._exit(DIED)  # committed, none of it acknowledged
        return results

    service.Recorder.handle_batch = noted
    floor = floordir.read_floor(directory)
    url = "mqtt://127.0.0.1:%d" % floor["port"]
    stop = os.path.join(directory, "stop-recorder")
    password = floordir.password(directory, "recorder")
    service.serve(db, floor["floor"], url, "recorder", password, stop=lambda: os.path.exists(stop), keys_dir=directory)


if __name__ == "__main__":
    main(*sys.argv[1:5])
