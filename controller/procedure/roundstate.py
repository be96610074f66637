"""The round in progress as plain data, snapshotted into the critical state (R14).

After every trigger the round is saved, so a restart resumes exactly where the journal ends.

The cards and decisions of a blackjack round live in the rules' `BlackjackRound`, snapshotted
as the steps that built it (see `controller.procedure.blackjack_model`); a baccarat coup as
its two hands.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class Round:
    """What the procedure keeps of a round besides the rules' own round.

    Its number, a card drawn in error held for the next position, the seats that refused an
    exposed card (they get no more cards this round), the progressive contributions it
    collected (reversed if it is voided), cards drawn this round that lie on no position
    (burned, face up in the shoe, held in error), and the settled record.
    """

    number: int = 0
    next_card: str = ""
    next_card_exposed: bool = False
    refused: list[int] = field(default_factory=list)
    contributions: list[dict[str, Any]] = field(default_factory=list)
    loose: list[str] = field(default_factory=list)
    settled: bool = False
    result: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """JSON-ready data."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Round:
        """Rebuild from `to_json` output."""
        return cls(**data)


@dataclass
class ShoeTally:
    """What left the shoe since the last shuffle (for the can-the-shoe-hold-it check, R9).

    `empty` is set when the shoe reports its last card out; it matters only once a card is
    due. `last_card_no` is the shoe's own number of the last card handled since the shoe was
    loaded (0: none yet): the next must be the one after it, else a card left the shoe that
    the journal never recorded (or one is reported twice).
    """

    seen: dict[str, int] = field(default_factory=dict)
    cut_seen: bool = False
    shuffles: int = 0
    cards_out: int = 0
    empty: bool = False
    last_card_no: int = 0

    def to_json(self) -> dict[str, Any]:
        """JSON-ready data."""
        return asdict(self)
