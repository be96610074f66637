"""Effect records: what a procedure callback wants done, without doing it.

Callbacks return effects instead of touching devices. The loop writes every `Journal`
(secure) record first, in one transaction with the critical state, and only then applies the
public effects (lamps, sign, dealer display, operational log) to the devices. Public effects
must be computed from public information only: the hole card never reaches one (R5, R17).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final

RecordValue = Any
"""A value that `json.dumps` accepts (mappings with str keys, lists, str, int, bool, None)."""


class LampState(StrEnum):
    """What a layout lamp shows."""

    OFF = "off"
    ON = "on"
    FLASH = "flash"


class Lamp(StrEnum):
    """Named layout lamps besides the per-seat ones (see `seat_lamp`)."""

    BLACKJACK = "blackjack"
    """The dealer's blackjack indicator: the one bit the peek may show (R5)."""
    DRAW = "dealer_draw"
    STAND = "dealer_stand"
    NO_MORE_BETS = "no_more_bets"
    FAULT = "fault"
    SHUFFLE = "shuffle"
    INSURANCE = "insurance"
    PLAYER_DRAW = "player_draw"
    BANKER_DRAW = "banker_draw"


def seat_lamp(seat: int, what: str) -> str:
    """The lamp name of a seat: `seat_lamp(3, "turn")` -> `"seat3.turn"`."""
    return f"seat{seat}.{what}"


@dataclass(frozen=True, slots=True)
class SetLamp:
    """Public: set a layout lamp."""

    lamp: str
    state: LampState


@dataclass(frozen=True, slots=True)
class ShowSign:
    """Public: what the progressive sign shows.

    Attributes:
        amount: The progressive amount (cents).
        message: "" for the amount alone, `FAULT` while progressive play is refused (R15),
            or the `WIN` text.
        win_seat: The winning seat of the last meter hit this round (0: none).
        win_cents: What that hit paid.
    """

    amount: int | None
    message: str = ""
    win_seat: int = 0
    win_cents: int = 0


@dataclass(frozen=True, slots=True)
class ShowDealer:
    """Public: a line on the dealer display."""

    text: str


@dataclass(frozen=True, slots=True)
class LaunchWheel:
    """Public: start the game the roulette wheel holds in place your bets (user-start mode)."""


@dataclass(frozen=True, slots=True)
class OpLog:
    """Public: an operational log line (never a card identity, R17)."""

    message: str
    level: str = "info"


@dataclass(frozen=True, slots=True)
class Journal:
    """Secure: one record for the append-only audit journal.

    Attributes:
        kind: `component:event` name, e.g. `procedure:card`.
        data: JSON-serialisable detail; may name cards.
    """

    kind: str
    data: dict[str, RecordValue] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class CameraCheck:
    """Secure and internal: ask the camera cross-check to confirm a card where it lies (R9).

    It carries a card identity, so it is neither journalled by itself nor public: only the
    cross-check on the loop thread reads it, and its verdict goes to the journal.

    Attributes:
        zone: The layout position the card went to ("seat3", "dealer", "banker").
        card: The card code the shoe reported.
        ref: What the card was, for the records ("card 41", "hole card").
    """

    zone: str
    card: str
    ref: str


PublicEffect = SetLamp | ShowSign | ShowDealer | OpLog | LaunchWheel
Effect = PublicEffect | Journal | CameraCheck

PUBLIC_TYPES: Final = (SetLamp, ShowSign, ShowDealer, OpLog, LaunchWheel)


def split(effects: list[Effect]) -> tuple[list[Journal], list[PublicEffect]]:
    """Separate secure journal records from public effects, keeping their order.

    Camera checks are neither: `camera_checks` picks them out.
    """
    secure = [e for e in effects if isinstance(e, Journal)]
    public = [e for e in effects if isinstance(e, PUBLIC_TYPES)]
    return secure, public


def camera_checks(effects: list[Effect]) -> list[CameraCheck]:
    """The camera checks among `effects`, in order."""
    return [e for e in effects if isinstance(e, CameraCheck)]
