"""The attacker of the floor tests: a raw MQTT client, with a certificate of `floor certs` or none.

It connects with any client id it likes, publishes anything anywhere and hears what the
broker lets it hear, each message with the moment it arrived. Nothing of the project's own
link code is used: it is what a person with a copied certificate (or a laptop on a plain
broker) can do with paho-mqtt alone.
"""

from __future__ import annotations

import json
import ssl
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from tests.support.mosquitto import CEILING_S, wait_for


class Attacker:
    """One raw client; `certs` and `cert` name the certificate files (None: anonymous, plain).

    Args:
        port: The broker's port on 127.0.0.1.
        certs: The directory `floor certs` wrote (None: a plain, anonymous connection).
        cert: Whose certificate (`T1`, `progressive-bank-b`...).
        client_id: The client id it asks for.
    """

    def __init__(self, port: int, certs: Path | None = None, cert: str = "",
                 client_id: str = "attacker") -> None:
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id,
                                  protocol=mqtt.MQTTv5)
        if certs is not None:
            context = ssl.create_default_context(cafile=str(certs / "ca.pem"))
            context.load_cert_chain(str(certs / f"{cert}.pem"), str(certs / f"{cert}.key"))
            self.client.tls_set_context(context)
        self.heard: list[tuple[str, dict[str, Any], float]] = []
        self.connects = 0
        self.on_heard: Callable[[str, dict[str, Any]], None] | None = None
        self._lock = threading.Lock()
        self._subscribed = threading.Event()
        self.client.on_connect = self._connected
        self.client.on_message = self._message
        self.client.on_subscribe = lambda *_args: self._subscribed.set()
        self.client.connect("127.0.0.1", port, keepalive=5)
        self.client.loop_start()
        wait_for(lambda: self.connects > 0, f"the attacker ({client_id}) connected")

    def _connected(self, *_args: object) -> None:
        self.connects += 1

    def _message(self, _client: object, _userdata: object, msg: mqtt.MQTTMessage) -> None:
        try:
            data = json.loads(msg.payload)
        except ValueError:
            return
        with self._lock:
            self.heard.append((msg.topic, data, time.monotonic()))
        if self.on_heard is not None:
            self.on_heard(msg.topic, data)

    def subscribe(self, topic: str) -> None:
        """Subscribe and wait for the broker's answer."""
        self._subscribed.clear()
        self.client.subscribe(topic, qos=1)
        assert self._subscribed.wait(CEILING_S), f"no SUBACK for {topic}"

    def publish(self, topic: str, data: dict[str, Any], *, retain: bool = False) -> None:
        """Publish at QoS 1 and wait for the broker's PUBACK (a refused one is dropped)."""
        self.client.publish(topic, json.dumps(data), qos=1,
                            retain=retain).wait_for_publish(CEILING_S)

    def messages(self, topic: str = "") -> list[dict[str, Any]]:
        """What it heard (on `topic` only, if given)."""
        with self._lock:
            return [d for t, d, _ in self.heard if not topic or t == topic]

    def close(self) -> None:
        """Disconnect."""
        self.client.disconnect()
        self.client.loop_stop()
