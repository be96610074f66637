"""Cards, decks and shoes: the vocabulary every game's rules are written in.

A card is written rank then suit, `QH`. Ranks `A 2 3 4 5 6 7 8 9 T J Q K`, suits
`S H D C`. A standard deck has 52 cards; a Spanish deck has 48 (the four `T` removed).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Final


class CardError(ValueError):
    """A card code, deck or shoe that cannot exist."""


class Suit(StrEnum):
    """A card's suit; the value is its one-letter code."""

    SPADES = "S"
    HEARTS = "H"
    DIAMONDS = "D"
    CLUBS = "C"

    @property
    def is_red(self) -> bool:
        """True for hearts and diamonds."""
        return self in (Suit.HEARTS, Suit.DIAMONDS)


class Rank(StrEnum):
    """A card's rank; the value is its one-letter code (`T` for ten)."""

    ACE = "A"
    TWO = "2"
    THREE = "3"
    FOUR = "4"
    FIVE = "5"
    SIX = "6"
    SEVEN = "7"
    EIGHT = "8"
    NINE = "9"
    TEN = "T"
    JACK = "J"
    QUEEN = "Q"
    KING = "K"

    @property
    def points(self) -> int:
        """Blackjack points counting an ace as 1: `2`-`9` face value, `T J Q K` 10."""
        return _POINTS[self]

    @property
    def is_ten_value(self) -> bool:
        """True for `T J Q K`."""
        return _POINTS[self] == 10

    @property
    def baccarat_points(self) -> int:
        """Baccarat value: `A` 1, `2`-`9` face value, `T J Q K` 0."""
        return _POINTS[self] % 10


_POINTS: Final[dict[Rank, int]] = {
    rank: (1 if rank is Rank.ACE else 10 if rank in "TJQK" else int(rank.value))
    for rank in Rank
}


@dataclass(frozen=True, slots=True)
class Card:
    """One playing card."""

    rank: Rank
    suit: Suit

    @classmethod
    def parse(cls, code: str) -> Card:
        """Parse a two-letter code such as `QH` or `TS` (case-insensitive; `10` for `T`).

        Raises:
            CardError: the text names no card.
        """
        text = code.strip().upper().replace("10", "T")
        if len(text) != 2 or text[0] not in _RANK_CODES or text[1] not in _SUIT_CODES:
            raise CardError(
                f"not a card code: {code!r} (a rank A23456789TJQK then a suit SHDC, e.g. QH)"
            )
        return cls(Rank(text[0]), Suit(text[1]))

    def __str__(self) -> str:
        return f"{self.rank.value}{self.suit.value}"


_RANK_CODES: Final = frozenset(r.value for r in Rank)
_SUIT_CODES: Final = frozenset(s.value for s in Suit)

STANDARD_DECK_SIZE: Final = 52
SPANISH_DECK_SIZE: Final = 48
ALLOWED_DECK_COUNTS: Final = (1, 2, 4, 5, 6, 8)


def parse_cards(codes: str) -> tuple[Card, ...]:
    """Parse whitespace- or comma-separated card codes: `"AS KD 7H"`."""
    return tuple(Card.parse(code) for code in codes.replace(",", " ").split())


def deck(*, spanish: bool = False) -> tuple[Card, ...]:
    """One deck in a fixed order: 52 cards, or 48 for a Spanish deck (no `T`)."""
    return tuple(
        Card(rank, suit)
        for suit in Suit
        for rank in Rank
        if not (spanish and rank is Rank.TEN)
    )


def shoe(decks: int, *, spanish: bool = False) -> tuple[Card, ...]:
    """An unshuffled shoe of `decks` decks.

    Raises:
        CardError: `decks` is not one of 1, 2, 4, 5, 6 or 8.
    """
    if decks not in ALLOWED_DECK_COUNTS:
        raise CardError(f"a shoe holds 1, 2, 4, 5, 6 or 8 decks, not {decks}")
    return deck(spanish=spanish) * decks
