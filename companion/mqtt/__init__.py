"""The table in the house: its events, sensors and buttons on an MQTT broker, announced to Home
Assistant by MQTT discovery ([mqtt] in the config; off by default)."""
