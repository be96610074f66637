"""Texas Hold'em Bonus: the ante game's playing strategy, stated as data over named features.

Each street's decision is one table: the pre-flop hands that fold (`PREFLOP_FOLDS`), and the
rules that bet after the flop (`BET_AFTER_FLOP`) and after the turn (`BET_AFTER_TURN`), each
rule a set of features a hand must all have; anything else checks. `features` names what a
seat's hole cards make of the board (pure, on phevaluator card ids: rank = id >> 2, deuce 0
to ace 12; suit = id & 3).

The tables were derived by computation (`bench/holdem_ante_derive.py`): after the flop and
after the turn a bet of one ante is worth its chance of winning less its chance of losing
against the dealer's unseen cards (the dealer always plays, and a bet changes no other
wager), so a rule bets when the hands that meet it win more often than they lose;
pre-flop, a hand folds when playing it on (ante, flop bet and the later bets by these tables)
loses more than the ante a fold forfeits. Decision 135 records the figures.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import Final

from phevaluator.evaluator import evaluate_5cards, evaluate_6cards

_RANKS: Final = "23456789TJQKA"

PREFLOP_FOLDS: Final[tuple[str, ...]] = ()
"""Pre-flop hands that fold ("72o": seven-deuce offsuit; "s" suited); every other bets."""


class Feature(StrEnum):
    """What a seat's two hole cards make of the board turned up so far."""

    HOLE_PAIR = "a pair or better using a hole card, other than an underpair"
    UNDERPAIR = "a pocket pair below every board card"
    STRAIGHT_OR_BETTER = "a straight or better"
    FOUR_FLUSH = "four to a flush holding a hole card"
    OPEN_ENDED_OVERCARDS = ("two ranks complete a straight with a hole card, and both hole "
                            "cards are above the board")
    ACE = "an ace in the hole"
    PAIRED_BOARD = "the board holds a pair (or more)"
    TWO_OVERCARDS = "both hole cards are above every board card"


Rule = frozenset[Feature]
"""A hand bets when it has every feature of one of its street's rules."""

BET_AFTER_FLOP: Final[tuple[Rule, ...]] = (
    frozenset({Feature.HOLE_PAIR}), frozenset({Feature.STRAIGHT_OR_BETTER}),
    frozenset({Feature.FOUR_FLUSH}), frozenset({Feature.OPEN_ENDED_OVERCARDS}),
    frozenset({Feature.ACE, Feature.PAIRED_BOARD}),
    frozenset({Feature.ACE, Feature.TWO_OVERCARDS}),
)
"""The hands that make the turn bet (decided after the flop); any other hand checks."""

BET_AFTER_TURN: Final[tuple[Rule, ...]] = (
    frozenset({Feature.HOLE_PAIR}), frozenset({Feature.STRAIGHT_OR_BETTER}),
    frozenset({Feature.ACE, Feature.PAIRED_BOARD}),
    frozenset({Feature.ACE, Feature.FOUR_FLUSH}),
)
"""The hands that make the river bet (decided after the turn); any other hand checks."""

_WEAKEST_STRAIGHT: Final = 1609  # phevaluator's rank of the weakest straight
_ACE: Final = 12
_EVALUATORS: Final = {5: evaluate_5cards, 6: evaluate_6cards}
_STRAIGHTS: Final = (*(0b11111 << low for low in range(9)), 0b1000000001111)  # the wheel: A-5


def _hand_class(code: str) -> tuple[int, int, bool]:
    high, low = sorted((_RANKS.index(code[0]), _RANKS.index(code[1])), reverse=True)
    return high, low, code.endswith("s")


_FOLDS: Final = frozenset(_hand_class(code) for code in PREFLOP_FOLDS)


def folds_preflop(hole: Sequence[int]) -> bool:
    """True when `PREFLOP_FOLDS` holds the two hole card ids' hand."""
    first, second = hole
    high, low = sorted((first >> 2, second >> 2), reverse=True)
    return (high, low, first & 3 == second & 3) in _FOLDS


def _straight_completions(ranks: int) -> int:
    """How many ranks not in the `ranks` bit set would complete a straight with it."""
    return sum(1 for rank in range(13) if not ranks >> rank & 1
               and any(straight & (ranks | 1 << rank) == straight for straight in _STRAIGHTS))


def _draws(hole: Sequence[int], board: Sequence[int]) -> set[Feature]:
    found: set[Feature] = set()
    suits = [card & 3 for card in (*hole, *board)]
    if any(suits.count(card & 3) >= 4 for card in hole):
        found.add(Feature.FOUR_FLUSH)
    board_ranks = 0
    for card in board:
        board_ranks |= 1 << (card >> 2)
    hole_ranks = 1 << (hole[0] >> 2) | 1 << (hole[1] >> 2)
    if min(hole[0], hole[1]) >> 2 > max(board) >> 2:
        found.add(Feature.TWO_OVERCARDS)
        completions = _straight_completions(board_ranks | hole_ranks)
        if completions >= 2 and completions > _straight_completions(board_ranks):
            found.add(Feature.OPEN_ENDED_OVERCARDS)
    return found


def features(hole: Sequence[int], board: Sequence[int]) -> frozenset[Feature]:
    """The features of two hole card ids over three or four board card ids."""
    found = _draws(hole, board)
    first, second = hole[0] >> 2, hole[1] >> 2
    board_ranks = {card >> 2 for card in board}
    if _EVALUATORS[2 + len(board)](*hole, *board) <= _WEAKEST_STRAIGHT:
        found.add(Feature.STRAIGHT_OR_BETTER)
    if first == second and first < min(board_ranks):
        found.add(Feature.UNDERPAIR)
    elif first == second or first in board_ranks or second in board_ranks:
        found.add(Feature.HOLE_PAIR)
    if _ACE in (first, second):
        found.add(Feature.ACE)
    if len(board_ranks) < len(board):
        found.add(Feature.PAIRED_BOARD)
    return frozenset(found)


def bets(hole: Sequence[int], board: Sequence[int]) -> bool:
    """The decision after the flop (three board ids) or the turn (four): True bets."""
    rules = BET_AFTER_FLOP if len(board) == 3 else BET_AFTER_TURN
    found = features(hole, board)
    return any(rule <= found for rule in rules)
