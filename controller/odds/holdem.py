"""Texas Hold'em Bonus Poker: the Bonus wager on the hole cards, from one 52-card deck.

The rules package does not deal Hold'em (it is not dealt from a shoe), so the classifier of
the Bonus lines lives here; the lines and the pay table (`HoldemBonusPays`,
`[paytables.holdem-bonus]`) are the rules' pay-table model, whose default the shipped table
file `controller/service/default_table.toml` lists with its source.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from typing import Final

from controller.odds.combinatorics import deals, falling
from controller.odds.errors import OddsError
from controller.odds.parsheet import LOSES, ParLine, ParSheet, odds_payout
from controller.odds.shoes import each_card
from controller.rules.cards import Card, Rank, deck
from controller.rules.paytables import HoldemBonusLine, HoldemBonusPays

__all__ = ["HoldemBonusLine", "HoldemBonusPays", "holdem_bonus", "holdem_bonus_line"]

_NAMES: Final = {
    HoldemBonusLine.ACES_WITH_DEALER_ACES: "A-A, dealer A-A",
    HoldemBonusLine.PAIR_OF_ACES: "A-A",
    HoldemBonusLine.ACE_KING_SUITED: "A-K suited",
    HoldemBonusLine.ACE_QUEEN_OR_JACK_SUITED: "A-Q or A-J suited",
    HoldemBonusLine.ACE_KING_UNSUITED: "A-K unsuited",
    HoldemBonusLine.KINGS_QUEENS_OR_JACKS: "K-K, Q-Q or J-J",
    HoldemBonusLine.ACE_QUEEN_OR_JACK_UNSUITED: "A-Q or A-J unsuited",
    HoldemBonusLine.PAIR_2_TO_10: "pair 2-2 to T-T",
}


def holdem_bonus_line(player: tuple[Card, Card],
                      dealer: tuple[Card, Card]) -> HoldemBonusLine | None:
    """The Bonus line of the player's hole cards (the dealer's matter only for A-A)."""
    first, second = sorted(player, key=lambda card: _ORDER.index(card.rank))
    if first.rank is second.rank:
        if first.rank is Rank.ACE:
            if all(card.rank is Rank.ACE for card in dealer):
                return HoldemBonusLine.ACES_WITH_DEALER_ACES
            return HoldemBonusLine.PAIR_OF_ACES
        if first.rank in (Rank.KING, Rank.QUEEN, Rank.JACK):
            return HoldemBonusLine.KINGS_QUEENS_OR_JACKS
        return HoldemBonusLine.PAIR_2_TO_10
    if first.rank is not Rank.ACE or second.rank not in (Rank.KING, Rank.QUEEN, Rank.JACK):
        return None
    suited = first.suit is second.suit
    if second.rank is Rank.KING:
        return HoldemBonusLine.ACE_KING_SUITED if suited else HoldemBonusLine.ACE_KING_UNSUITED
    if suited:
        return HoldemBonusLine.ACE_QUEEN_OR_JACK_SUITED
    return HoldemBonusLine.ACE_QUEEN_OR_JACK_UNSUITED


_ORDER: Final = (Rank.ACE, Rank.KING, Rank.QUEEN, Rank.JACK, Rank.TEN, Rank.NINE, Rank.EIGHT,
                 Rank.SEVEN, Rank.SIX, Rank.FIVE, Rank.FOUR, Rank.THREE, Rank.TWO)


def holdem_bonus(decks: int, pays: HoldemBonusPays) -> ParSheet:
    """The Bonus wager's par sheet: player's two cards, then the dealer's two."""
    if decks != 1:
        raise OddsError(f"--decks {decks}: Texas Hold'em Bonus is dealt from one 52-card deck")
    classes = each_card(1)
    counts: Counter[HoldemBonusLine | None] = Counter()
    for deal in deals(classes, (2,)):
        (player,) = deal.cards(classes)
        for dealer, ways in _dealer_hands(player):
            counts[holdem_bonus_line((player[0], player[1]), dealer)] += deal.weight * ways
    total = falling(52, 4)
    lines = [ParLine(_NAMES[line], odds_payout(pays.odds(line)), Fraction(counts[line], total))
             for line in HoldemBonusLine]
    lines.append(ParLine("anything else", LOSES, Fraction(counts[None], total)))
    return ParSheet("holdem-bonus", 1, tuple(lines),
                    notes=("Default pay table: the standard published Bonus pay table "
                           "([paytables.holdem-bonus] of "
                           "controller/service/default_table.toml cites it).",))


def _dealer_hands(player: tuple[Card, ...]) -> list[tuple[tuple[Card, Card], int]]:
    """The dealer's two cards as two classes: both aces, or not (ordered counts)."""
    rest = [card for card in deck() if card not in player]
    aces = [card for card in rest if card.rank is Rank.ACE]
    others = [card for card in rest if card.rank is not Rank.ACE]
    both_aces = falling(len(aces), 2)
    hands: list[tuple[tuple[Card, Card], int]] = [((others[0], others[1]),
                                                   falling(len(rest), 2) - both_aces)]
    if both_aces:
        hands.append(((aces[0], aces[1]), both_aces))
    return hands
