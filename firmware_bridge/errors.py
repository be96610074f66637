"""The exception family of the bridge: one base class, builtin categories mixed in."""

from __future__ import annotations


class BridgeError(Exception):
    """Base class of every error raised by `firmware_bridge`."""


class FrameError(BridgeError, ValueError):
    """A frame could not be built (payload too long, field out of range)."""


class CatalogueError(BridgeError, ValueError):
    """A message catalogue is malformed; the text names the board, message and field."""


class CodecError(BridgeError, ValueError):
    """A message could not be encoded or decoded; the text names the message and field."""


class LinkDownError(BridgeError, ConnectionError):
    """The link to the board is not up, so nothing can be sent."""


class SendQueueFullError(BridgeError, BufferError):
    """More messages are waiting to be sent than the link will hold."""


class HandshakeMismatch(BridgeError):  # noqa: N818 - the design guide's name
    """The board identified itself differently from what the host expects.

    The message names every field that differs, each with the expected and the received
    value, e.g. ``catalogue hash: expected 3f2a..., got 9b1c...``.
    """


class AuthenticationError(HandshakeMismatch):
    """The board failed authentication (PROTOCOL.md, "Authentication").

    It is not paired with the host's key, or its auth mode is not the one configured.
    """


class KeyFileError(BridgeError, ValueError):
    """A pairing key file cannot be read or written, or holds no usable key (names it)."""


class HandshakeTimeoutError(BridgeError, TimeoutError):
    """The board did not complete the session and handshake before the deadline."""


class TransportError(BridgeError, OSError):
    """The serial port could not be opened, read or written."""


class PortInUseError(TransportError):
    """Another program holds the port (ports are opened exclusively); names it when known."""


class BridgeClosedError(BridgeError):
    """The client or transport was used after `close()`."""


class RequestTimeoutError(BridgeError, TimeoutError):
    """A request got no response before its deadline."""
