"""The floor: a progressive meter linked across tables over MQTT (docs/floor-protocol.md)."""
