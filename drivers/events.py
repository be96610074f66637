"""Device-level facts, as frozen records handed to a sink (the controller passes `loop.post`).

Drivers report what happened at a device ("card 41 left the shoe, read as QH"); they never
say what it means for a game. Every record names its configured device and carries the
driver's clock reading (`at`, seconds on a monotonic clock) when the fact arrived.

Card identities are secret until the controller says otherwise (R5, R17): `CardDrawn.code`
is deliberately left out of the record's `repr`, so a record that reaches an operational log
line by accident still carries no card.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Final


class ShoeFaultKind(StrEnum):
    """A condition the shoe reports besides a readable card."""

    UNREADABLE = "unreadable"
    FACE_UP = "face_up"
    CUT_CARD = "cut_card"
    SHOE_EMPTY = "shoe_empty"
    JAM = "jam"
    LID_OPEN = "lid_open"
    RESTARTED = "restarted"


@dataclass(frozen=True, slots=True)
class CardDrawn:
    """A card left the shoe; exactly one per card, numbered without gaps.

    Attributes:
        device: Configured device name.
        count: The card's number since the shoe was loaded (1, 2, 3, ...); every number
            arrives exactly once and in order, also across a lost and recovered link.
        code: Two-letter card code such as `QH`, or None when the card could not be read
            or came out face up (a `ShoeFault` saying which came just before).
        quality: Scanner read quality, 0 (none) to 100 (certain).
        at: Driver clock reading when the event arrived.
    """

    device: str
    count: int
    code: str | None = field(repr=False)
    quality: int
    at: float


@dataclass(frozen=True, slots=True)
class ShoeFault:
    """The shoe reported a condition, or its board restarted in the middle of a shoe.

    The conditions: an unreadable or face-up card, the cut card, an empty shoe, a jam, the
    lid; `restarted`: the board lost power mid-shoe, so cards taken meanwhile were not read.

    Attributes:
        device: Configured device name.
        kind: What the shoe reported.
        count: The card it concerns (unreadable, face up), the cards out before it (cut
            card, empty), or the cards out so far (jam, lid, restarted).
        active: True when the condition starts, False when it clears (jam and lid clear;
            the others are single facts and always True).
        at: Driver clock reading when the event arrived.
        detail: More about the condition (why a card was unreadable), or "".
    """

    device: str
    kind: ShoeFaultKind
    count: int
    active: bool
    at: float
    detail: str = ""


@dataclass(frozen=True, slots=True)
class ShoeLoaded:
    """A shuffled shoe was loaded and the lid closed: card numbers restart at 1."""

    device: str
    at: float


@dataclass(frozen=True, slots=True)
class BetSensorChanged:
    """A bet sensor under a betting spot changed (a chip placed or taken away)."""

    device: str
    sensor: str
    occupied: bool
    at: float


@dataclass(frozen=True, slots=True)
class ButtonPressed:
    """A dealer button was pressed (reported once per press, after debouncing)."""

    device: str
    button: str
    at: float


IN_PROCESS_KEY: Final = "in-process (no device)"
"""The `KeySwitchTurned.key` of a record made in this process, not read from a device."""


@dataclass(frozen=True, slots=True)
class KeySwitchTurned:
    """The supervisor key switch was turned.

    Attributes:
        device: Configured device name.
        position: `normal`, or the name of the position it was turned to (`supervisor`,
            `reset`).
        at: Driver clock reading when the event arrived.
        key: Which key switch reported it, for the audit journal: the layout board's with
            its pairing key id (`layout board key switch, key 3f2a9c1d0b7e6f54`), the
            board's without one (`..., UNAUTHENTICATED`), or the Pi's own GPIO contacts
            (`GPIO key switch, pins supervisor=19 reset=26`).
        authenticated: True when the report is known to come from the table's own switch:
            the Pi's GPIO, or a board that proved its pairing key. A supervisor action from
            an unauthenticated board is refused (R10, R12).
    """

    device: str
    position: str
    at: float
    key: str = IN_PROCESS_KEY
    authenticated: bool = True


@dataclass(frozen=True, slots=True)
class LinkUp:
    """The link to a device is up: opened, handshake accepted (again, after a `LinkDown`)."""

    device: str
    detail: str
    at: float


@dataclass(frozen=True, slots=True)
class LinkDown:
    """The link to a device was lost (unplugged, stopped answering, refused)."""

    device: str
    reason: str
    at: float


@dataclass(frozen=True, slots=True)
class DeviceFault:
    """A device failed in a way its driver cannot recover from by itself."""

    device: str
    reason: str
    at: float


DriverEvent = (
    CardDrawn
    | ShoeFault
    | ShoeLoaded
    | BetSensorChanged
    | ButtonPressed
    | KeySwitchTurned
    | LinkUp
    | LinkDown
    | DeviceFault
)
"""Every record a driver hands to its sink."""

EventSink = Callable[[DriverEvent], None]
"""Where a driver reports facts; must be thread-safe (drivers call it from reader threads)."""
