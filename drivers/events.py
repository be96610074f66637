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
class BoardNumbering:
    """How a shoe board's own card numbers map onto the shoe's: shoe number = base + board's.

    A board numbers the cards of a shoe from 1; after it restarts in the middle of a shoe it
    numbers them from 1 again, and the host numbers them on from the last card it recorded
    (PROTOCOL.md section 12). The controller keeps this with every card it records, so a
    restarted host maps the board's numbers exactly as before.

    Attributes:
        boot_id: The board power-up the numbers belong to (its `identify_response`).
        base: Added to the board's `card_no` (0 unless the board restarted mid-shoe).
        handled: The board's event count up to which every event is handled once the record
            that carries this is (0: none of this boot): a restarted host takes the board's
            events up to it as repeats, never as new ones (PROTOCOL.md 9).
    """

    boot_id: int
    base: int
    handled: int = 0


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
        numbering: How the shoe board's number of this card maps to `count` (None: a shoe
            without a board that numbers its cards).
    """

    device: str
    count: int
    code: str | None = field(repr=False)
    quality: int
    at: float
    numbering: BoardNumbering | None = None


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
        numbering: For `restarted`: how the restarted board's card numbers map from now on.
    """

    device: str
    kind: ShoeFaultKind
    count: int
    active: bool
    at: float
    detail: str = ""
    numbering: BoardNumbering | None = None


@dataclass(frozen=True, slots=True)
class ShoeLoaded:
    """A shuffled shoe was loaded and the lid closed: card numbers restart at 1.

    Attributes:
        device: Configured device name.
        at: Driver clock reading when the event arrived.
        numbering: The board's numbering of the new shoe (base 0), or None without a board.
    """

    device: str
    at: float
    numbering: BoardNumbering | None = None


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


class WheelPhase(StrEnum):
    """The state an automated roulette wheel reports (the `S` of its `*X` status line)."""

    BEFORE_GAME = "before_game"
    """1: starting after table closed, or waiting out the games-per-hour pause."""
    PLACE_BETS = "place_bets"
    """2: rotor turning, a new game; the wheel finds the ball and fires it."""
    BALL_IN_RIM = "ball_in_rim"
    """3: the ball has gone once round the track."""
    NO_MORE_BETS = "no_more_bets"
    """4: the ball is due off the track within about 3.5 revolutions."""
    WINNING_NUMBER = "winning_number"
    """5: every in-rim sensor agrees on a pocket."""
    CLOSED = "closed"
    """6: table closed or powered down (idle)."""
    OTHER = "other"
    """7 or another digit this driver does not know (SS2 2.52 ball not in track, Mercury dealer
    lock): reported, never acted on."""


@dataclass(frozen=True, slots=True)
class WheelStatus:
    """The wheel's status changed: its state, game number or warning flags (repeats dropped).

    Attributes:
        device: Configured device name.
        phase: What the wheel is doing.
        state: The state digit as sent (1-7).
        game: The wheel's own game number (spins since its power-on; it wraps and restarts).
        flags: The warning flags as sent, summed (1 ball not detected, 2 misfire, 4 sensor or
            motor fault, 8 failed launch).
        at: Driver clock reading when the line arrived.
    """

    device: str
    phase: WheelPhase
    state: int
    game: int
    flags: int
    at: float


@dataclass(frozen=True, slots=True)
class WheelResult:
    """The winning number of one wheel game, exactly once (every repeat dropped).

    Attributes:
        device: Configured device name.
        game: The wheel's game number the result decides.
        number: `"0"`, `"00"` or `"1"`..`"36"`, as the wheel sent it (never an integer).
        sources: What said it: `status` (the state-5 line) and/or `number_line` (the bare
            winning-number line); where both came they agreed.
        at: Driver clock reading when the deciding line arrived.
    """

    device: str
    game: int
    number: str
    sources: tuple[str, ...]
    at: float


@dataclass(frozen=True, slots=True)
class WheelVoid:
    """A wheel game ended without a valid result (no spin): nothing is to be settled on it.

    Attributes:
        device: Configured device name.
        game: The wheel's game number.
        reason: Why, in words (`misfire: ...`, `no ball: ...`, `closed mid-game`, ...).
        at: Driver clock reading.
    """

    device: str
    game: int
    reason: str
    at: float


@dataclass(frozen=True, slots=True)
class WheelWarning:
    """Something to note about a wheel game, once per game (`drivers/WHEEL.md` names them).

    A warning flag the wheel raised, or what the driver expected and did not get.

    Attributes:
        device: Configured device name.
        game: The wheel's game number.
        warning: `ball_not_detected`, `misfire`, `sensor_fault`, `failed_launch`,
            `number_line_missing` or `garbled_line`.
        detail: More, in words.
        at: Driver clock reading.
    """

    device: str
    game: int
    warning: str
    detail: str
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
    | WheelStatus
    | WheelResult
    | WheelVoid
    | WheelWarning
)
"""Every record a driver hands to its sink."""

EventSink = Callable[[DriverEvent], None]
"""Where a driver reports facts; must be thread-safe (drivers call it from reader threads)."""
