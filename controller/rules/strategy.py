"""Basic strategy for the simulation's bot players, as data, and player policies.

Charts are indexed by the dealer's up card `2 3 4 5 6 7 8 9 T A`. Codes:
`H` hit, `S` stand, `D` double else hit, `Ds` double else stand, `P` split,
`Ph` split if doubling after a split is allowed else hit, `Rh` / `Rs` / `Rp` surrender else
hit / stand / split, `-` not split (play the total). Bots never take insurance or even money.

* Blackjack: the standard 4-8 deck charts for S17 and H17, late surrender, DAS or not.
* Spanish 21: the best move for each two-card hand class under this project's Spanish 21
  rules (no re-doubling, so soft doubles give way to hitting; split aces take one card), by
  expected value over an infinite 48-card deck with the 5+-card and 6-7-8 / 7-7-7 bonuses
  counted (`tests/rules/spanish21_ev.py` computes it; `test_spanish21_chart.py` holds every
  cell within 0.005 units of the best move). Main-wager return
  with these charts: -0.90% (S17) and -1.32% (H17), within 0.06 points of the optimal
  strategy; card-count refinements for hands of three or more cards are not modelled.
  Rescue cells (`SPANISH21_RESCUE`) are where standing on the doubled hand is worth less
  than the one unit a rescue costs (derived from the dealer's final-total probabilities for a
  48-card deck; `tests/rules/test_strategy.py` re-derives them).
* Both games: hard 18-21 always stand (no chart row).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, Protocol

from controller.rules.blackjack import Action, Decision
from controller.rules.cards import Card, Rank
from controller.rules.hands import Game, hand_value, is_pair
from controller.rules.options import BlackjackRules

UP_CARDS: Final = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "A")
Chart = Mapping[int, tuple[str, ...]]


def _rows(text: str) -> dict[int, tuple[str, ...]]:
    rows: dict[int, tuple[str, ...]] = {}
    for line in text.strip().splitlines():
        label, *codes = line.split()
        assert len(codes) == len(UP_CARDS), line
        rows[int(label)] = tuple(codes)
    return rows


# Hard totals, S17. 4-8 always hit; 18-21 always stand.
BLACKJACK_HARD_S17: Final = _rows("""
 9  H  D  D  D  D  H  H  H  H  H
10  D  D  D  D  D  D  D  D  H  H
11  D  D  D  D  D  D  D  D  D  H
12  H  H  S  S  S  H  H  H  H  H
13  S  S  S  S  S  H  H  H  H  H
14  S  S  S  S  S  H  H  H  H  H
15  S  S  S  S  S  H  H  H  Rh H
16  S  S  S  S  S  H  H  Rh Rh Rh
17  S  S  S  S  S  S  S  S  S  S
""")
BLACKJACK_HARD_H17: Final = {**BLACKJACK_HARD_S17, **_rows("""
11  D  D  D  D  D  D  D  D  D  D
15  S  S  S  S  S  H  H  H  Rh Rh
17  S  S  S  S  S  S  S  S  S  Rs
""")}
# Soft totals (an ace counting 11), S17.
BLACKJACK_SOFT_S17: Final = _rows("""
12  H  H  H  H  H  H  H  H  H  H
13  H  H  H  D  D  H  H  H  H  H
14  H  H  H  D  D  H  H  H  H  H
15  H  H  D  D  D  H  H  H  H  H
16  H  H  D  D  D  H  H  H  H  H
17  H  D  D  D  D  H  H  H  H  H
18  S  Ds Ds Ds Ds S  S  H  H  H
19  S  S  S  S  S  S  S  S  S  S
""")
BLACKJACK_SOFT_H17: Final = {**BLACKJACK_SOFT_S17, **_rows("""
18  Ds Ds Ds Ds Ds S  S  H  H  H
19  S  S  S  S  Ds S  S  S  S  S
""")}
# Pairs by the value of one card (A = 11).
BLACKJACK_PAIRS_S17: Final = _rows("""
 2  Ph Ph P  P  P  P  -  -  -  -
 3  Ph Ph P  P  P  P  -  -  -  -
 4  -  -  -  Ph Ph -  -  -  -  -
 5  -  -  -  -  -  -  -  -  -  -
 6  Ph P  P  P  P  -  -  -  -  -
 7  P  P  P  P  P  P  -  -  -  -
 8  P  P  P  P  P  P  P  P  P  P
 9  P  P  P  P  P  -  P  P  -  -
10  -  -  -  -  -  -  -  -  -  -
11  P  P  P  P  P  P  P  P  P  P
""")
BLACKJACK_PAIRS_H17: Final = {**BLACKJACK_PAIRS_S17, **_rows("""
 8  P  P  P  P  P  P  P  P  P  Rp
""")}

SPANISH21_HARD_S17: Final = _rows("""
 9  H  H  H  H  D  H  H  H  H  H
10  D  D  D  D  D  D  D  H  H  H
11  D  D  D  D  D  D  D  D  D  D
12  H  H  H  H  H  H  H  H  H  H
13  H  H  H  H  H  H  H  H  H  H
14  H  H  S  S  S  H  H  H  H  H
15  S  S  S  S  S  H  H  H  H  H
16  S  S  S  S  S  H  H  H  H  H
17  S  S  S  S  S  S  S  S  S  Rs
""")
SPANISH21_HARD_H17: Final = {**SPANISH21_HARD_S17, **_rows("""
13  H  H  H  H  S  H  H  H  H  H
16  S  S  S  S  S  H  H  H  H  Rh
""")}
SPANISH21_SOFT: Final = _rows("""
12  H  H  H  H  H  H  H  H  H  H
13  H  H  H  H  H  H  H  H  H  H
14  H  H  H  H  H  H  H  H  H  H
15  H  H  H  H  D  H  H  H  H  H
16  H  H  H  D  D  H  H  H  H  H
17  H  H  D  D  D  H  H  H  H  H
18  S  S  Ds Ds Ds S  S  H  H  H
19  S  S  S  S  S  S  S  S  S  S
""")
SPANISH21_PAIRS_S17: Final = _rows("""
 2  -  P  P  P  P  P  -  -  -  -
 3  -  P  P  P  P  P  P  -  -  -
 4  -  -  -  -  -  -  -  -  -  -
 5  -  -  -  -  -  -  -  -  -  -
 6  -  -  P  P  P  -  -  -  -  -
 7  P  P  P  P  P  P  -  -  -  -
 8  P  P  P  P  P  P  P  P  P  P
 9  -  P  P  P  P  -  P  P  -  -
10  -  -  -  -  -  -  -  -  -  -
11  P  P  P  P  P  P  P  P  P  -
""")
SPANISH21_PAIRS_H17: Final = {**SPANISH21_PAIRS_S17, **_rows("""
 8  P  P  P  P  P  P  P  P  P  Rp
""")}
SPANISH21_RESCUE: Final[frozenset[tuple[int, str]]] = frozenset(
    {(total, up) for total in range(4, 17) for up in ("8", "9", "T", "A")} | {(17, "A")})
"""(total after the doubled card, up card) where a Spanish 21 bot rescues its double."""


@dataclass(frozen=True, slots=True)
class Charts:
    """The three charts one game and dealer rule use."""

    hard: Chart
    soft: Chart
    pairs: Chart


def charts_for(rules: BlackjackRules) -> Charts:
    """The charts for the game and its soft-17 rule."""
    h17 = rules.dealer_hits_soft_17
    if rules.game is Game.SPANISH21:
        return Charts(SPANISH21_HARD_H17 if h17 else SPANISH21_HARD_S17, SPANISH21_SOFT,
                      SPANISH21_PAIRS_H17 if h17 else SPANISH21_PAIRS_S17)
    return Charts(BLACKJACK_HARD_H17 if h17 else BLACKJACK_HARD_S17,
                  BLACKJACK_SOFT_H17 if h17 else BLACKJACK_SOFT_S17,
                  BLACKJACK_PAIRS_H17 if h17 else BLACKJACK_PAIRS_S17)


def up_label(card: Card) -> str:
    """The chart column of an up card: `2`-`9`, `T` for any ten-value, `A`."""
    if card.rank is Rank.ACE:
        return "A"
    return "T" if card.rank.is_ten_value else card.rank.value


def chart_code(cards: tuple[Card, ...], up_card: Card, rules: BlackjackRules,
               *, can_split: bool) -> str:
    """The chart's code for this hand and up card (pairs first when a split is open)."""
    charts = charts_for(rules)
    column = UP_CARDS.index(up_label(up_card))
    if can_split and is_pair(cards):
        pair_value = 11 if cards[0].rank is Rank.ACE else cards[0].rank.points
        code = charts.pairs[pair_value][column]
        if code != "-":
            return code
    value = hand_value(cards)
    if value.soft:
        return charts.soft[min(max(value.total, 12), 19)][column]
    if value.total <= 8:
        return "H"
    if value.total >= 18:
        return "S"
    return charts.hard[value.total][column]


def basic_strategy(cards: tuple[Card, ...], up_card: Card, legal: frozenset[Action],
                   rules: BlackjackRules) -> Decision:
    """The basic-strategy decision among the `legal` actions."""
    if Action.RESCUE in legal:
        rescue = (hand_value(cards).total, up_label(up_card)) in SPANISH21_RESCUE
        return Decision(Action.RESCUE if rescue else Action.STAND)
    code = chart_code(cards, up_card, rules, can_split=Action.SPLIT in legal)
    return Decision(_resolve(code, legal, rules))


_FALLBACK: Final = {"H": (Action.HIT,), "S": (Action.STAND,), "D": (Action.DOUBLE, Action.HIT),
                    "Ds": (Action.DOUBLE, Action.STAND), "P": (Action.SPLIT,),
                    "Rh": (Action.SURRENDER, Action.HIT), "Rs": (Action.SURRENDER, Action.STAND),
                    "Rp": (Action.SURRENDER, Action.SPLIT)}


def _resolve(code: str, legal: frozenset[Action], rules: BlackjackRules) -> Action:
    if code == "Ph":
        code = "P" if rules.double_after_split else "H"
    for action in _FALLBACK[code]:
        if action in legal:
            return action
    return Action.HIT if Action.HIT in legal else Action.STAND


@dataclass(frozen=True, slots=True)
class Situation:
    """What a player sees when a decision is due."""

    seat: int
    hand_index: int
    cards: tuple[Card, ...]
    up_card: Card
    legal: frozenset[Action]
    rules: BlackjackRules
    stake: int


@dataclass(frozen=True, slots=True)
class InsuranceChoice:
    """A player's answer under an ace: an insurance amount (cents) or even money."""

    amount: int = 0
    even_money: bool = False


NO_INSURANCE: Final = InsuranceChoice()


class PlayerPolicy(Protocol):
    """How a (simulated) player decides."""

    def insurance(self, seat: int, cards: tuple[Card, ...], up_card: Card,
                  wager: int) -> InsuranceChoice:
        """Insurance or even money under an ace."""
        ...

    def decide(self, situation: Situation) -> Decision:
        """A decision among `situation.legal`."""
        ...


class BasicStrategyPolicy:
    """Plays the basic-strategy charts; never insures, never takes even money."""

    def insurance(self, seat: int, cards: tuple[Card, ...], up_card: Card,
                  wager: int) -> InsuranceChoice:
        """Always declines."""
        return NO_INSURANCE

    def decide(self, situation: Situation) -> Decision:
        """The chart's decision."""
        return basic_strategy(situation.cards, situation.up_card, situation.legal,
                              situation.rules)


class StandPolicy:
    """Stands on everything; never insures."""

    def insurance(self, seat: int, cards: tuple[Card, ...], up_card: Card,
                  wager: int) -> InsuranceChoice:
        """Always declines."""
        return NO_INSURANCE

    def decide(self, situation: Situation) -> Decision:
        """Stand (a rescue decision also stands)."""
        return Decision(Action.STAND)
