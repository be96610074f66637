"""The round in progress as plain data, snapshotted into the critical state (R14).

After every trigger the round is saved, so a restart resumes exactly where the journal ends.

The cards and decisions of a blackjack round live in the rules' `BlackjackRound`, snapshotted
as the steps that built it (see `controller.procedure.blackjack.model`); a baccarat coup as
its two hands.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final

RECENT_CARDS: Final = 64
"""Cards whose codes the tally keeps by number: a shoe board holds at least 64 events
unacknowledged (PROTOCOL.md section 9), so a card it repeats is always among them."""


class NumberPlacement(StrEnum):
    """Where a card the shoe reports falls in the shoe's numbering (`ShoeTally.placement`)."""

    NEXT = "next"
    """The card after the last one recorded: taken."""
    REPEATED = "repeated"
    """The very card recorded under this number already, reported again: not taken again."""
    GAP = "gap"
    """Cards between the last one recorded and this one were never recorded."""
    UNPLACED = "unplaced"
    """A number recorded already, but not this card (or too long ago to tell): the
    numbering cannot place it, so the table holds (never a silent drop)."""


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
        """JSON-ready data, its lists and dicts copied one level deep.

        What they hold is plain data, serialised at once into the critical state and never
        changed in place; `asdict`'s deep copy was a cost on every commit of the table.
        """
        return {"number": self.number, "next_card": self.next_card,
                "next_card_exposed": self.next_card_exposed, "refused": list(self.refused),
                "contributions": [dict(c) for c in self.contributions],
                "loose": list(self.loose), "settled": self.settled, "result": dict(self.result)}

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
    the journal never recorded (or one is reported twice). `recent` holds the codes of the
    last `RECENT_CARDS` cards by number, oldest first ("" for a card not read), so a card
    reported again can be told from another card under the same number.

    `board_boot` and `board_base` are the shoe board's numbering of the last card recorded
    (its boot id, and what is added to its own card numbers after it restarted mid-shoe),
    and `board_handled` the board's event count handled with it; they are committed with
    that card (or shoe), and a restarted host numbers on from them and takes the board's
    events up to that count as repeats (PROTOCOL.md sections 9 and 12). They outlast a
    shuffle: only the board's own `shoe_loaded` sets the base back to 0.
    """

    seen: dict[str, int] = field(default_factory=dict)
    cut_seen: bool = False
    shuffles: int = 0
    cards_out: int = 0
    empty: bool = False
    last_card_no: int = 0
    recent: list[str] = field(default_factory=list)
    board_boot: int | None = None
    board_base: int = 0
    board_handled: int = 0

    def to_json(self) -> dict[str, Any]:
        """JSON-ready data (as `Round.to_json`: containers copied one level deep)."""
        return {"seen": dict(self.seen), "cut_seen": self.cut_seen, "shuffles": self.shuffles,
                "cards_out": self.cards_out, "empty": self.empty,
                "last_card_no": self.last_card_no, "recent": list(self.recent),
                "board_boot": self.board_boot, "board_base": self.board_base,
                "board_handled": self.board_handled}

    def placement(self, card_no: int, code: str) -> NumberPlacement:
        """Where the card numbered `card_no` (code `code`, "" if not read) falls."""
        last = self.last_card_no
        if not last or card_no == last + 1:
            return NumberPlacement.NEXT
        if card_no > last:
            return NumberPlacement.GAP
        index = card_no - (last - len(self.recent) + 1)
        if 0 <= index < len(self.recent) and self.recent[index] == code:
            return NumberPlacement.REPEATED
        return NumberPlacement.UNPLACED

    def record_number(self, card_no: int, code: str) -> None:
        """The card numbered `card_no` is recorded: it is the last one now."""
        if self.last_card_no and card_no != self.last_card_no + 1:
            self.recent = []  # the numbers jumped: only this card's code is known by number
        self.last_card_no = card_no
        self.recent = [*self.recent[1 - RECENT_CARDS:], code]

    def restart_numbering(self) -> None:
        """The shoe's board loaded a new shoe: its cards are numbered from 1 again."""
        self.last_card_no = self.board_base = 0
        self.recent = []
