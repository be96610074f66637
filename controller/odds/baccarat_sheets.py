"""Par sheets of the Midi Baccarat wagers: Banker, Player, Tie and the Dragon Bonus.

The drawing rules and the settlement are the rules package's (`controller.rules.baccarat`):
its third-card functions drive the enumeration, and every distinct ending is settled once
by its `Coup.outcome` and `dragon_result` on a deal that ends that way.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from fractions import Fraction
from functools import cache
from typing import Final

from controller.odds.baccarat_deals import CoupCounts, CoupOutcome, count_coups
from controller.odds.parsheet import LOSES, PUSH, ParLine, ParSheet, Payout, odds_payout, ratio
from controller.rules import baccarat as rules
from controller.rules.cards import Card, Rank, Suit
from controller.rules.options import BaccaratRules
from controller.rules.paytables import DragonBonusPays

_BY_VALUE: Final = tuple(Card(rank, Suit.SPADES) for rank in (
    Rank.KING, Rank.ACE, Rank.TWO, Rank.THREE, Rank.FOUR, Rank.FIVE, Rank.SIX, Rank.SEVEN,
    Rank.EIGHT, Rank.NINE))
"""A card of each baccarat value 0-9."""


def banker_draws(total: int, player_third: int | None) -> bool:
    """The rules' banker rule, asked with a card of the player's third card's value."""
    return rules.banker_draws(total, None if player_third is None else _BY_VALUE[player_third])


@cache
def coups(decks: int) -> CoupCounts:
    """Every deal of a fresh shoe counted by how it ends (cached per deck count)."""
    return count_coups(decks, rules.player_draws, banker_draws)


def rules_coup(decks: int, coup: CoupOutcome) -> rules.Coup:
    """A deal (as the rules hold it) that ends in `coup`."""
    player, banker = coups(decks).examples[coup]
    return rules.Coup(tuple(_BY_VALUE[v] for v in player), tuple(_BY_VALUE[v] for v in banker))


def _sheet(bet: str, decks: int, classify: Callable[[rules.Coup], str],
           lines: list[tuple[str, Payout]], notes: tuple[str, ...] = ()) -> ParSheet:
    """Settle each distinct ending once with `classify`, then add up the counts per line."""
    table = coups(decks)
    by_line: Counter[str] = Counter()
    for coup, count in table.counts.items():
        by_line[classify(rules_coup(decks, coup))] += count
    return ParSheet(bet, decks, tuple(ParLine(name, payout, Fraction(by_line[name], table.total))
                                      for name, payout in lines), notes=notes)


def _winner(coup: rules.Coup) -> str:
    return {rules.Outcome.BANKER: "banker wins", rules.Outcome.PLAYER: "player wins",
            rules.Outcome.TIE: "tie"}[coup.outcome]


def banker(decks: int, settings: BaccaratRules) -> ParSheet:
    """The Banker wager: pays its odds less the commission on the win."""
    net = ratio(settings.banker_pays) * (1 - Fraction(settings.commission_percent, 100))
    win = Payout(f"{settings.banker_pays} less {settings.commission_percent}% commission", net)
    return _sheet("baccarat-banker", decks, _winner,
                  [("banker wins", win), ("tie", PUSH), ("player wins", LOSES)],
                  notes=("The commission is taken as an exact share of the win; at the table "
                         "it is rounded up to the cent.",))


def player(decks: int, settings: BaccaratRules) -> ParSheet:
    """The Player wager."""
    return _sheet("baccarat-player", decks, _winner,
                  [("player wins", odds_payout(settings.player_pays)), ("tie", PUSH),
                   ("banker wins", LOSES)])


def tie(decks: int, settings: BaccaratRules) -> ParSheet:
    """The Tie wager."""
    def tied(coup: rules.Coup) -> str:
        return "tie" if coup.outcome is rules.Outcome.TIE else "no tie"
    return _sheet("baccarat-tie", decks, tied,
                  [("tie", odds_payout(settings.tie_pays)), ("no tie", LOSES)])


def dragon(decks: int, pays: DragonBonusPays, *, side: str) -> ParSheet:
    """The Dragon Bonus on `side` ("player" or "banker")."""
    hand = rules.Side(side)

    def classify(coup: rules.Coup) -> str:
        result, margin = rules.dragon_result(coup, hand)
        if result is rules.DragonResult.NATURAL_WIN:
            return "natural win"
        if result is rules.DragonResult.NATURAL_TIE:
            return "natural tie"
        if result is rules.DragonResult.MARGIN_WIN and pays.margin_odds(margin) is not None:
            return f"non-natural win by {min(margin, 9)}"
        return "anything else"

    lines: list[tuple[str, Payout]] = [("natural win", odds_payout(pays.natural_win)),
                                       ("natural tie", PUSH)]
    for by in range(9, 3, -1):
        odds = pays.margin_odds(by)
        if odds is not None:
            lines.append((f"non-natural win by {by}", odds_payout(odds)))
    lines.append(("anything else", LOSES))
    return _sheet(f"dragon-{side}", decks, classify, lines)
