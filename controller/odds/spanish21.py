"""Spanish 21 card patterns: 6-7-8 and 7-7-7 on the first three cards, and the super bonus.

These are chances of card patterns, not of a wager's outcome: the bonus pays only on a
hand the player chose to hit, did not split or double, so no house edge is given. The
pays shown are the table's bonus odds (instead of 1:1 on the hand's wager) and the fixed
super bonus awards.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

from controller.odds.combinatorics import deals, falling
from controller.odds.parsheet import NOT_A_WAGER, ParLine, ParSheet, Payout
from controller.odds.shoes import named_cards, shoe_size
from controller.rules.cards import Rank
from controller.rules.money import Odds, format_cents
from controller.rules.paytables import Spanish21BonusPays
from controller.rules.sidebets import Spanish21Bonus, is_super_bonus, spanish21_bonus

_PATTERNS = (
    (Spanish21Bonus.MIXED_678, "6-7-8 mixed suits"),
    (Spanish21Bonus.SUITED_678, "6-7-8 one suit (not spades)"),
    (Spanish21Bonus.SPADES_678, "6-7-8 all spades"),
    (Spanish21Bonus.MIXED_777, "7-7-7 mixed suits"),
    (Spanish21Bonus.SUITED_777, "7-7-7 one suit (not spades)"),
    (Spanish21Bonus.SPADES_777, "7-7-7 all spades"),
)


def bonus_cards(decks: int, pays: Spanish21BonusPays) -> ParSheet:
    """Chances that the player's first three cards form each bonus pattern.

    The three suited 7s are split by the dealer's up card: against a 7 they are the super
    bonus; the lines stay mutually exclusive and sum to 1.
    """
    classes = named_cards(decks, lambda card: card.rank in (Rank.SIX, Rank.SEVEN, Rank.EIGHT),
                          spanish=True)
    counts: Counter[tuple[Spanish21Bonus | None, bool]] = Counter()
    for deal in deals(classes, (3, 1)):
        player, (up,) = deal.cards(classes)
        counts[spanish21_bonus(player), is_super_bonus(player, up)] += deal.weight
    total = falling(shoe_size(decks, spanish=True), 4)
    lines: list[ParLine] = []
    for pattern, name in _PATTERNS:
        payout = _pattern_payout(pays.odds(pattern))
        if pattern in (Spanish21Bonus.SUITED_777, Spanish21Bonus.SPADES_777):
            lines.append(ParLine(f"{name}, dealer 7 up: super bonus", _super_payout(pays),
                                 Fraction(counts.get((pattern, True), 0), total)))
            name += ", no dealer 7"
        lines.append(ParLine(name, payout, Fraction(counts.get((pattern, False), 0), total)))
    lines.append(ParLine("none of these", NOT_A_WAGER, Fraction(counts.get((None, False), 0),
                                                                total)))
    return ParSheet("spanish21-bonus-cards", decks, tuple(lines), wagered=False,
                    extras={"house_edge_note": "a card-pattern chance, not a wager"},
                    notes=("Chances of the player's first three cards (and the dealer's up "
                           "card), whether or not the player would hit; no house edge.",
                           f"{decks} Spanish decks of 48 cards (no ten-spots)."))


def _pattern_payout(odds: Odds) -> Payout:
    return Payout(f"{odds.win}:{odds.per} bonus", None)


def _super_payout(pays: Spanish21BonusPays) -> Payout:
    tiers = ", ".join(f"{format_cents(t.award)} (wager {format_cents(t.min_wager)}+)"
                      for t in pays.super_bonus)
    return Payout(f"fixed {tiers}; {format_cents(pays.envy)} envy to each other player", None)
