"""The floor: every table's journal carried onto an MQTT broker (mosquitto)
and recorded once (docs/floor.md).

- `topics`: the topic tree and the payloads, versioned;
- `floordir`: a floor's own directory (config, passwords, ACL, keys, data);
- `broker`: the project's mosquitto configuration, started and stopped;
- `mqtt`: a paho client connected with the floor's credentials;
- `outbox`: the gateway's SQLite outbox;
- `gateway`: one per table, board journal -> broker;
- `recorder` and `store`: every event once into SQLite, chains verified, alerts;
- `supervise`: `make floor`, a whole floor on one machine;
- `cli`: `python -m host_tools gateway | recorder | floor …`;
- `progressive/`: the linked progressive's controller (docs/progressive.md).
"""

# Exit statuses beyond host_tools' own (0 done, 1 refused or check failed,
# 2 usage, 3 no board, 130 interrupted).
EXIT_NO_BROKER = 4  # the broker refused the credentials, or could not be reached at start
