"""A frame's worth of public table state: the rows it is made of, and a round's net.

A `Snapshot` holds only what anyone standing at the table can see (R5, R17): the dealer's
hole card is `HIDDEN` until it is turned over.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from controller.procedure.families import FAMILY

HIDDEN: Final = "??"
"""How a card lying face down is shown (the hole card until it is turned over)."""


@dataclass(frozen=True, slots=True)
class HandRow:
    """One player hand as it lies on the layout.

    Attributes:
        cards: Card codes in the order dealt.
        total: "hard 16", "soft 17", "blackjack", "bust 24" (and a Spanish 21 bonus).
        stake: The main wager at risk on this hand (with its double).
        last: The last decision taken on it ("" before any).
        net: After settlement, what the hand won or lost (cents).
        marker: ">" the hand decides, "+" a card is due to it, "" otherwise.
    """

    cards: tuple[str, ...]
    total: str
    stake: int
    last: str = ""
    net: int | None = None
    marker: str = ""


@dataclass(frozen=True, slots=True)
class SeatRow:
    """A seat's wagers (main wager on its hands for blackjack) and, once settled, nets."""

    seat: int
    wagers: tuple[tuple[str, int], ...]
    hands: tuple[HandRow, ...] = ()
    nets: tuple[tuple[str, int], ...] | None = None
    marker: str = ""


@dataclass(frozen=True, slots=True)
class SideRow:
    """The dealer's hand, or baccarat's Player or Banker hand."""

    name: str
    cards: tuple[str, ...] = ()
    total: str = ""
    note: str = ""
    marker: str = ""


@dataclass(frozen=True, slots=True)
class Totals:
    """Running totals since the view started."""

    rounds: int = 0
    house: int = 0
    hits: int = 0
    faults: int = 0
    void: int = 0


@dataclass(frozen=True, slots=True)
class ShoeLayout:
    """What the dealer put in the shoe: its size and where the cut card lies.

    Attributes:
        size: Cards in the shoe.
        cut_after: Cards dealt before the cut card comes out; None without one (a scripted
            shoe).
    """

    size: int
    cut_after: int | None


@dataclass(frozen=True, slots=True)
class Snapshot:
    """One frame's worth of public table state."""

    game: str
    decks: int
    round: int
    state: str
    dealer_text: str
    lamps: tuple[tuple[str, str], ...]
    sign: str | None
    accepted: int | None
    shoe: str
    sides: tuple[SideRow, ...]
    seats: tuple[SeatRow, ...]
    result: str
    totals: Totals

    @property
    def family(self) -> str:
        """The procedure family: baccarat, or blackjack (Spanish 21 deals like blackjack)."""
        return FAMILY[self.game]


def players_net(record: dict[str, Any]) -> int:
    """What the players won (negative: lost) in one settled round record.

    A linked table's meter hit that waits for the controller (`null`) counts as nothing yet.
    """
    if "banker" in record:
        return sum(sum(s["bets"].values()) for s in record["seats"])
    return sum(sum(h["net"] for h in s["hands"])
               + sum(v for v in s["side_bets"].values() if v is not None)
               for s in record["seats"])
