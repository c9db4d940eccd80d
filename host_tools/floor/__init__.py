"""The floor: every table's journal carried onto an MQTT broker (mosquitto),
recorded once, watched by the pit page and paying the linked progressive
(docs/floor.md, docs/architecture.md). One package per concern; imports run
down this list, never up:

- `base/`: the floor's directory, topics and payloads, presence, words;
- `bus/`: mosquitto's configuration and process, the MQTT client, retained reads;
- `gateway/`: one per table, the board's journal -> broker, the signed downlink;
- `recorder/`: every record once into the floor's copy, chains checked;
- `alerts/`: the game-protection procedure as a fold of the records;
- `people/`: accounts and roles;
- `progressive/`: the linked progressive's controller;
- `page/`: the pit and surveillance page;
- `cli`, `pit_cli`, `supervise`: the floor's commands and `make floor`'s supervisor, on top.

The rigs and benches the tests use are outside the product, in `bench/floor/`.
"""

# Exit statuses beyond host_tools' own (0 done, 1 refused or check failed,
# 2 usage, 3 no board, 130 interrupted).
EXIT_NO_BROKER = 4  # the broker refused the credentials, or could not be reached at start
