"""The broker link: `mqtt://` / `mqtts://` addresses and paho-mqtt clients made from them.

paho-mqtt 2.x (`CallbackAPIVersion.VERSION2`), MQTT v5, persistent sessions (clean start
off, a fixed client id, a session that outlives a disconnect), QoS 1 throughout
(docs/floor-protocol.md "Transport"). `mqtts://` needs a CA and a client certificate.
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass
from pathlib import Path
from typing import Final
from urllib.parse import urlsplit

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from controller.floor.protocol import FloorProtocolError

SESSION_EXPIRY_S: Final = 86_400
"""How long the broker keeps a disconnected client's session and queued messages."""
KEEPALIVE_S: Final = 5
"""MQTT keepalive: the broker publishes a dead client's last will after 1.5 times this."""


@dataclass(frozen=True, slots=True)
class TlsFiles:
    """The CA that signed the broker's certificate, and this client's certificate and key."""

    ca: Path
    cert: Path
    key: Path


@dataclass(frozen=True, slots=True)
class BrokerUrl:
    """A parsed broker address."""

    host: str
    port: int
    tls: bool

    @classmethod
    def parse(cls, text: str) -> BrokerUrl:
        """`mqtt://HOST:PORT` or `mqtts://HOST:PORT` (ports default to 1883 and 8883)."""
        try:
            parts = urlsplit(text)
            port = parts.port
        except ValueError as exc:
            raise FloorProtocolError(f"link {text!r}: {exc}") from None
        if parts.scheme not in ("mqtt", "mqtts") or not parts.hostname:
            raise FloorProtocolError(f"link {text!r}: expected mqtt://HOST:PORT or "
                                     "mqtts://HOST:PORT")
        if parts.path not in ("", "/") or parts.query or parts.username:
            raise FloorProtocolError(f"link {text!r}: only a host and a port are allowed")
        tls = parts.scheme == "mqtts"
        return cls(parts.hostname, port or (8883 if tls else 1883), tls)

    def __str__(self) -> str:
        return f"{'mqtts' if self.tls else 'mqtt'}://{self.host}:{self.port}"


def make_client(client_id: str, url: BrokerUrl, tls: TlsFiles | None,
                will: tuple[str, bytes], *, manual_ack: bool = False) -> mqtt.Client:
    """A client with a persistent session and a retained last will (not yet connected).

    With `manual_ack` a received QoS 1 message is acknowledged to the broker only when the
    caller says so (`client.ack`): until then the broker keeps it for a redelivery.
    """
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id,
                         protocol=mqtt.MQTTv5, manual_ack=manual_ack)
    client.will_set(will[0], will[1], qos=1, retain=True)
    client.reconnect_delay_set(min_delay=1, max_delay=2)
    if url.tls:
        if tls is None:
            raise FloorProtocolError(f"link {url}: mqtts needs ca, cert and key files")
        context = ssl.create_default_context(ssl.Purpose.SERVER_AUTH, cafile=str(tls.ca))
        context.load_cert_chain(str(tls.cert), str(tls.key))
        client.tls_set_context(context)
    return client


def connect(client: mqtt.Client, url: BrokerUrl) -> None:
    """Start connecting in the background (clean start off: the broker keeps the session).

    paho's own thread reconnects after any loss; the caller's `on_connect` resubscribes.
    """
    properties = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]
    properties.SessionExpiryInterval = SESSION_EXPIRY_S
    client.connect_async(url.host, url.port, keepalive=KEEPALIVE_S, clean_start=False,
                         properties=properties)
    client.loop_start()
