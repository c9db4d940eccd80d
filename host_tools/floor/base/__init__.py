"""What every floor service shares and nothing else: the floor's directory
(floor.json, credentials, keys), the MQTT topics and payloads, the presence
judgement, the words money and times are shown in, each service's
metrics served for Prometheus, SQLite files made whole and a reader's
failures said once.

May import: nothing of host_tools.floor.
"""
