"""What a `BridgeClient` tells its owner besides messages: link events, traffic, statistics.

Link events go to the sinks given to `BridgeClient.subscribe_events`; each is a frozen
record, so the owner can post it to its own loop as it is (design guide C8: errors on the
reader thread become events).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from firmware_bridge.framing import DecoderStats
from firmware_bridge.handshake import BoardIdentity
from firmware_bridge.link import LinkStats


class ClientState(StrEnum):
    """Where a `BridgeClient` is in its life."""

    IDLE = "idle"
    CONNECTING = "connecting"
    HANDSHAKING = "handshaking"
    READY = "ready"
    REFUSED = "refused"
    FAILED = "failed"
    CLOSED = "closed"


@dataclass(frozen=True, slots=True)
class Connected:
    """A session is up and the board passed the handshake (after every reconnection too).

    Attributes:
        url: the board's port.
        identity: what the board reported.
        restarted: the board's boot id changed: it restarted and counts events from 1.
        key_id: the id of the pairing key the session was authenticated with; None when
            the board is accepted unauthenticated (auth mode `none`).
    """

    url: str
    identity: BoardIdentity
    restarted: bool
    key_id: str | None = None


@dataclass(frozen=True, slots=True)
class Disconnected:
    """The session ended; the client keeps trying to open a new one."""

    url: str
    reason: str
    discarded: int


@dataclass(frozen=True, slots=True)
class Refused:
    """The board failed the handshake; the client fell silent (the board goes failsafe)."""

    url: str
    reason: str


@dataclass(frozen=True, slots=True)
class AuthenticationFailed:
    """The board on a link that was up no longer proves the pairing key.

    Since the session went down, only frames failing authentication came from the line (a
    board swapped or re-flashed, or a forger; the reason counts them). The client keeps
    opening sessions (the paired board may come back); this is reported once per outage.
    """

    url: str
    reason: str


@dataclass(frozen=True, slots=True)
class EventsMissed:
    """Counted events were lost on the board (its queue overflowed): counts first..last."""

    url: str
    message: str
    first: int
    last: int


@dataclass(frozen=True, slots=True)
class BoardReportedError:
    """The board could not carry out a message (`command_error`)."""

    url: str
    message_id: int
    reason: str


@dataclass(frozen=True, slots=True)
class Undecodable:
    """A message from the board could not be decoded with the catalogue."""

    url: str
    detail: str


@dataclass(frozen=True, slots=True)
class ReaderFailed:
    """The reader thread stopped on an error (port unplugged, I/O error, a bug)."""

    url: str
    error: BaseException


@dataclass(frozen=True, slots=True)
class SinkFailed:
    """A subscriber's sink raised; the message was not handed on to it."""

    url: str
    subscription: str
    error: BaseException


BridgeEvent = (
    Connected | Disconnected | Refused | AuthenticationFailed | EventsMissed
    | BoardReportedError | Undecodable | ReaderFailed | SinkFailed
)


class TrafficDirection(StrEnum):
    """The direction of a traffic record."""

    OUT = "->"
    IN = "<-"
    LINK = "=="
    ERROR = "!!"


@dataclass(frozen=True, slots=True)
class TrafficRecord:
    """One line of decoded traffic (secret fields masked), for the console and post-mortem.

    Attributes:
        at: the client's clock when it happened (monotonic seconds).
        direction: out, in, a link event, or an error.
        text: the decoded message or event.
    """

    at: float
    direction: TrafficDirection
    text: str


@dataclass(frozen=True, slots=True)
class BridgeStats:
    """Counters of a `BridgeClient`."""

    state: ClientState
    link: LinkStats
    decoder: DecoderStats
    messages_sent: int
    messages_received: int
    duplicate_events: int
    missed_events: int
    undecodable: int
    board_errors: int
    auth: str = "none (UNAUTHENTICATED)"

    def summary(self) -> str:
        """Return the counters on one line, e.g. for the console."""
        link, decoder = self.link, self.decoder
        errors = " ".join(f"{kind}={n}" for kind, n in sorted(decoder.errors.items())) or "none"
        return (
            f"state={self.state} auth={self.auth} bad_macs={link.bad_macs} "
            f"replayed={link.replayed} counter_errors={link.counter_errors} "
            f"auth_mismatches={link.auth_mismatches} sent={self.messages_sent} "
            f"received={self.messages_received} "
            f"retransmissions={link.retransmissions} duplicates={link.duplicates} "
            f"out_of_order={link.out_of_order} link_downs={link.link_downs} "
            f"duplicate_events={self.duplicate_events} missed_events={self.missed_events} "
            f"undecodable={self.undecodable} board_errors={self.board_errors} "
            f"bytes_in={decoder.bytes_in} frame_errors: {errors}"
        )
