"""The floor's message bus: mosquitto's configuration and process, the MQTT
client every service uses, and retained reads.

May import: base.
"""
