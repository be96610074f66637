"""Card codes as they cross package boundaries: two letters, rank then suit (`"QH"`, `"TS"`)."""

from __future__ import annotations

from typing import Final

RANKS: Final = "A23456789TJQK"
SUITS: Final = "SHDC"
RED_SUITS: Final = frozenset("HD")

_RANK_ALIASES: Final[dict[str, str]] = {"10": "T"}
_SUIT_NAMES: Final[dict[str, str]] = {
    "SPADE": "S", "SPADES": "S", "HEART": "H", "HEARTS": "H",
    "DIAMOND": "D", "DIAMONDS": "D", "CLUB": "C", "CLUBS": "C",
}


def normalise_rank(text: str) -> str | None:
    """Return the one-letter rank for `text` (`"10"` and `"t"` give `"T"`), or None if invalid."""
    value = text.strip().upper()
    value = _RANK_ALIASES.get(value, value)
    return value if len(value) == 1 and value in RANKS else None


def normalise_suit(text: str) -> str | None:
    """Return the one-letter suit for `text` (`"h"`, `"Hearts"`), or None if invalid."""
    value = text.strip().upper()
    value = _SUIT_NAMES.get(value, value)
    return value if len(value) == 1 and value in SUITS else None


def all_codes() -> list[str]:
    """Every card code of a 52-card deck, rank-major (`"AS"`, `"AH"`, ... `"KC"`)."""
    return [rank + suit for rank in RANKS for suit in SUITS]


def is_code(text: str) -> bool:
    """Whether `text` is a valid two-letter card code such as `"QH"`."""
    return len(text) == 2 and text[0] in RANKS and text[1] in SUITS
