"""What is inside an emulated shoe: N shuffled decks with a cut card, or a scripted list.

Pure data, no I/O: the shoe emulator takes cards from here one at a time as the dealer pulls
them. A shuffled shoe holds N standard (52) or Spanish (48, no tens) decks, shuffled with a
seeded `random.Random`, and the cut (cover) card at the configured penetration. A scripted
shoe holds exactly the listed cards in order: no burn card, no cut card (`--shoe-file`).
"""

from __future__ import annotations

import random
import secrets
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

RANKS: Final = "A23456789TJQK"
SPANISH_RANKS: Final = "A23456789JQK"
SUITS: Final = "SHDC"
CUT_CARD: Final = "CUT"
"""The marker the shoe yields when the cut card comes out."""
PENETRATION_PERCENT: Final = (10, 95)
"""The cut card's place, as the percent of the shoe dealt before it (as `[table]` says)."""
MAX_DECKS: Final = 8


class ShoeModelError(ValueError):
    """A shoe that cannot be built: bad card code, deck count or cut card position."""


def deck(kind: str = "standard") -> list[str]:
    """One deck's card codes in a fixed order (`standard` 52 cards, `spanish` 48)."""
    if kind not in ("standard", "spanish"):
        raise ShoeModelError(f"deck: {kind!r} is not standard or spanish")
    ranks = RANKS if kind == "standard" else SPANISH_RANKS
    return [rank + suit for suit in SUITS for rank in ranks]


def normalise_code(code: str) -> str:
    """Return a card code in canonical form (`qh` -> `QH`, `10S` -> `TS`).

    Raises:
        ShoeModelError: The code is not a card.
    """
    text = code.strip().upper()
    if text.startswith("10"):
        text = "T" + text[2:]
    if len(text) != 2 or text[0] not in RANKS or text[1] not in SUITS:
        raise ShoeModelError(f"{code!r} is not a card code such as QH or TS")
    return text


@dataclass(frozen=True, slots=True)
class ShoePlan:
    """How to fill a shoe.

    Attributes:
        decks: Number of decks.
        deck: `standard` or `spanish`.
        seed: Shuffle seed; None draws one from the operating system.
        penetration: Percent of the shoe dealt before the cut card (10..95).
        cut_card_from_end: Cards behind the cut card (overrides `penetration`).
    """

    decks: int = 6
    deck: str = "standard"
    seed: int | None = None
    penetration: int = 75
    cut_card_from_end: int | None = None


class ShoeContents:
    """The cards left in a shoe, in dealing order, with the cut card in place.

    Args:
        items: Card codes, and at most one `CUT_CARD`, in the order they come out.
        seed: The seed the shoe was shuffled with (None for a scripted shoe).
    """

    def __init__(self, items: Iterable[str], seed: int | None = None) -> None:
        self._items = deque(items)
        self.seed = seed
        self.dealt = 0

    @classmethod
    def shuffled(cls, plan: ShoePlan) -> ShoeContents:
        """A freshly shuffled shoe following `plan`."""
        if not 1 <= plan.decks <= MAX_DECKS:
            raise ShoeModelError(f"decks: a shoe holds 1..{MAX_DECKS} decks, not {plan.decks}")
        low, high = PENETRATION_PERCENT
        if not low <= plan.penetration <= high:
            raise ShoeModelError(f"penetration: {low}..{high} percent of the shoe dealt before "
                                 f"the cut card, got {plan.penetration}")
        seed = plan.seed if plan.seed is not None else secrets.randbits(32)
        cards = deck(plan.deck) * plan.decks
        random.Random(seed).shuffle(cards)
        behind = plan.cut_card_from_end
        if behind is None:
            behind = len(cards) - round(len(cards) * plan.penetration / 100)
        if not 0 < behind < len(cards):
            raise ShoeModelError(f"cut card: {behind} cards behind it does not fit "
                                 f"a {len(cards)}-card shoe")
        cards.insert(len(cards) - behind, CUT_CARD)
        return cls(cards, seed)

    @classmethod
    def scripted(cls, codes: Iterable[str]) -> ShoeContents:
        """Exactly these cards, in this order; no cut card."""
        return cls([normalise_code(code) for code in codes])

    def take(self) -> str | None:
        """Take the next item (a card code or `CUT_CARD`); None when the shoe is empty."""
        if not self._items:
            return None
        item = self._items.popleft()
        if item != CUT_CARD:
            self.dealt += 1
        return item

    def peek(self) -> str | None:
        """The next item without taking it."""
        return self._items[0] if self._items else None

    @property
    def remaining(self) -> int:
        """Cards (not counting the cut card) still in the shoe."""
        return sum(1 for item in self._items if item != CUT_CARD)

    @property
    def has_cut_card(self) -> bool:
        """True while the cut card is still in the shoe."""
        return CUT_CARD in self._items
