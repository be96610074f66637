"""The framed serial protocol spoken between the host and the table's boards.

It knows frames, messages, links and handshakes, never what a board is for: the message
catalogue that gives messages their meaning is data handed in by the caller. Both ends are
here: `BridgeClient` is the host's, `DeviceEndpoint` (with `DeviceRunner`) the boards'
(used by the byte-level emulators). `PROTOCOL.md` beside this file is the normative spec.

Modules: `framing` (frames, decoder), `cobs`, `catalogue` and `catalogue_file` (the
catalogue and its hash), `codec` (messages), `auth` (pairing keys, session keys, tags) and
`guard` (a link end's frame checks), `link` (sessions, sequence numbers, retransmission),
`events` (counted events), `handshake`, `host` (the host's engine), `transport`
(pyserial), `client`, `status` (client events and statistics), `device`, `faults`,
`runner`, `clock`, `console`, `docgen`.
"""

import logging

from firmware_bridge.auth import AuthMode, PairingKey, read_key_file, write_key_file
from firmware_bridge.catalogue import BoardCatalogue, Catalogue, FieldSpec, MessageSpec
from firmware_bridge.catalogue_file import load_catalogue, parse_catalogue
from firmware_bridge.client import BridgeClient
from firmware_bridge.clock import Clock
from firmware_bridge.codec import Codec, FieldValue, Message
from firmware_bridge.device import DeviceEndpoint, DeviceIdentity
from firmware_bridge.errors import (
    AuthenticationError,
    BridgeClosedError,
    BridgeError,
    CatalogueError,
    CodecError,
    FrameError,
    HandshakeMismatch,
    HandshakeTimeoutError,
    KeyFileError,
    LinkDownError,
    PortInUseError,
    RequestTimeoutError,
    SendQueueFullError,
    TransportError,
)
from firmware_bridge.events import EventBaseline
from firmware_bridge.handshake import BoardIdentity, Expectation
from firmware_bridge.host import HostEndpoint
from firmware_bridge.link import LinkTiming
from firmware_bridge.runner import DeviceRunner, FdPort, PtyPair, SerialBytePort, open_pty

logging.getLogger(__name__).addHandler(logging.NullHandler())

__all__ = [
    "AuthMode", "AuthenticationError", "BoardCatalogue", "BoardIdentity", "BridgeClient",
    "BridgeClosedError", "BridgeError", "Catalogue", "CatalogueError", "Clock", "Codec",
    "CodecError", "DeviceEndpoint", "DeviceIdentity", "DeviceRunner", "EventBaseline",
    "Expectation", "FdPort", "FieldSpec", "FieldValue", "FrameError", "HandshakeMismatch",
    "HandshakeTimeoutError", "HostEndpoint", "KeyFileError", "LinkDownError", "LinkTiming",
    "load_catalogue", "Message", "MessageSpec", "open_pty", "PairingKey", "parse_catalogue",
    "PortInUseError", "PtyPair", "read_key_file", "RequestTimeoutError", "SendQueueFullError",
    "SerialBytePort", "TransportError", "write_key_file",
]
