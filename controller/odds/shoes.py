"""Shoes as card classes: one class per card, or the cards a wager names plus one for the rest."""

from __future__ import annotations

from collections.abc import Callable

from controller.odds.combinatorics import CardClass
from controller.rules.cards import SPANISH_DECK_SIZE, STANDARD_DECK_SIZE, Card, deck


def each_card(decks: int, *, spanish: bool = False) -> tuple[CardClass, ...]:
    """One class per card (`decks` copies each): nothing is lumped together."""
    return tuple(CardClass(decks, (card,)) for card in deck(spanish=spanish))


def named_cards(decks: int, named: Callable[[Card], bool], *, spanish: bool = False,
                others_shown: int = 4) -> tuple[CardClass, ...]:
    """One class per card `named` picks out, and one class holding every other card.

    The other cards are shown as `others_shown` distinct cards, so a deal holding several
    of them never looks like a pair to a classifier.
    """
    cards = deck(spanish=spanish)
    kept = [card for card in cards if named(card)]
    rest = [card for card in cards if not named(card)]
    classes = [CardClass(decks, (card,)) for card in kept]
    classes.append(CardClass(decks * len(rest), _distinct_ranks(rest, others_shown)))
    return tuple(classes)


def _distinct_ranks(cards: list[Card], wanted: int) -> tuple[Card, ...]:
    """Up to `wanted` cards of different ranks and suits, for showing a lumped class."""
    shown: list[Card] = []
    for card in cards:
        if all(card.rank is not s.rank and card.suit is not s.suit for s in shown):
            shown.append(card)
        if len(shown) == wanted:
            break
    return tuple(shown)


def shoe_size(decks: int, *, spanish: bool = False) -> int:
    """Cards in a shoe of `decks` decks."""
    return decks * (SPANISH_DECK_SIZE if spanish else STANDARD_DECK_SIZE)
