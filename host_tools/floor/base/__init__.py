"""What every floor service shares and nothing else: the floor's directory
(floor.json, credentials, keys), the MQTT topics and payloads, the presence
judgement, and the words money and times are shown in.

May import: nothing of host_tools.floor.
"""
