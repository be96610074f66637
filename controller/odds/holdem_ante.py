"""Texas Hold'em Bonus: the ante game's house edge under a documented strategy, by simulation.

The ante game (ante, flop, turn and river bets; the Bonus is its own wager, `holdem-bonus`)
has no closed form short of a full game-tree search, so its edge is measured: seeded random
deals from one 52-card deck, each played by `ANTE_STRATEGY` (the tables of
`controller.odds.holdem_strategy`, in words), settled by `controller.rules.holdem`, hands
ranked by phevaluator (`poker_rank`).

Ten million hands take minutes, so `bench/holdem_ante.py` plays them once and records the
count of each net in `holdem_ante.json` beside this file (with its seed and count);
`shoectl odds holdem-ante` prints that record with its provenance. `simulate` is the same
code the bench runs: a test replays the record's first hands and must find the same counts.
"""

from __future__ import annotations

import json
import math
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from importlib import resources
from typing import Final

from controller.odds.errors import OddsError
from controller.odds.holdem_strategy import bets, folds_preflop
from controller.odds.parsheet import LOSES, PUSH, ParLine, ParSheet, Payout, to_one
from controller.odds.poker_rank import CARD_IDS, WORST_RANK, category_of, rank_ids
from controller.rules.cards import Card
from controller.rules.holdem import HoldemWagers, PokerHand, settle_fold, settle_showdown

ANTE_STRATEGY: Final = (
    "Pre-flop: bet with every hand (the flop bet equals the ante: playing on loses less "
    "than the folded ante with any two cards). After the flop, bet (on the turn) with a "
    "pair or better using a hole card (not a pocket pair below every board card), a "
    "straight or better, four to a flush holding a hole card, an open-ended straight draw "
    "with both hole cards above the board, or an ace in the hole on a paired board or with "
    "both hole cards above the board; else check. After the turn, bet (on the river) with "
    "a pair or better using a hole card (not a pocket pair below every board card), a "
    "straight or better, or an ace in the hole on a paired board or with four to a flush; "
    "else check."
)
"""The strategy the simulated players follow: the tables of `controller.odds.holdem_strategy`
in words (decision 135 compares it with optimal play)."""

RECORD: Final = "holdem_ante.json"
"""The recorded simulation beside this module."""

def strategy_bets(hole: Sequence[Card], board: Sequence[Card]) -> bool:
    """`ANTE_STRATEGY`'s decision for a seat's `hole` cards over the `board` turned up so far.

    Before the flop (no board): True to bet, False to fold; after the flop (three cards) or
    the turn (four): True to bet, False to check. The bots of `shoectl simulate --game
    holdem` play by it.
    """
    ids = [CARD_IDS[card] for card in hole]
    if not board:
        return not folds_preflop(ids)
    return bets(ids, [CARD_IDS[card] for card in board])

def play_hand(cards: list[int]) -> int:
    """The net, in antes, of one hand: nine card ids (player 2, dealer 2, board 5)."""
    hole, dealer, board = cards[0:2], cards[2:4], cards[4:9]
    if folds_preflop(hole):
        return settle_fold(HoldemWagers(1)).total
    wagers = HoldemWagers(1, 0, 1, int(bets(hole, board[:3])), int(bets(hole, board[:4])))
    return settle_showdown(wagers, _hand(hole + board), _hand(dealer + board), None).total

def _hand(ids: list[int]) -> PokerHand:
    rank = rank_ids(ids)
    return PokerHand(WORST_RANK + 1 - rank, category_of(rank))

def simulate(hands: int, seed: int) -> Counter[int]:
    """How many of `hands` seeded deals end at each net (in antes)."""
    rng = random.Random(seed)
    deck = range(52)
    return Counter(play_hand(rng.sample(deck, 9)) for _ in range(hands))

@dataclass(frozen=True, slots=True)
class AnteEstimate:
    """A simulation's result: counts per net (antes), and the edge with its 95% interval."""

    hands: int
    seed: int
    counts: dict[int, int]

    @property
    def house_edge(self) -> float:
        """The house's mean gain per hand, per unit of ante."""
        return -sum(net * count for net, count in self.counts.items()) / self.hands

    @property
    def interval(self) -> tuple[float, float]:
        """The edge's 95% interval (normal, from the nets' sample variance)."""
        mean = -self.house_edge
        square = sum(net * net * count for net, count in self.counts.items()) / self.hands
        half = 1.959964 * math.sqrt((square - mean * mean) / (self.hands - 1))
        return (self.house_edge - half, self.house_edge + half)

def recorded() -> tuple[AnteEstimate, str]:
    """The bench's record: the estimate, and who produced it (command, date).

    Raises:
        OddsError: the record is missing or damaged (named).
    """
    where = f"controller/odds/{RECORD}"
    try:
        data = json.loads(resources.files("controller.odds").joinpath(RECORD).read_text())
        counts = {int(net): int(count) for net, count in data["counts"].items()}
        estimate = AnteEstimate(int(data["hands"]), int(data["seed"]), counts)
        provenance = str(data["produced_by"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as err:
        raise OddsError(f"{where}: cannot read the recorded simulation: {err}") from err
    if sum(counts.values()) != estimate.hands or estimate.hands < 2:
        raise OddsError(f"{where}: counts add to {sum(counts.values())}, not the "
                        f"{estimate.hands} hands recorded")
    return estimate, provenance

def holdem_ante(decks: int) -> ParSheet:
    """The ante game's par sheet from the recorded simulation."""
    if decks != 1:
        raise OddsError(f"--decks {decks}: Texas Hold'em Bonus is dealt from one 52-card deck")
    estimate, provenance = recorded()
    lines = tuple(ParLine(_outcome(net), _payout(net), Fraction(count, estimate.hands))
                  for net, count in sorted(estimate.counts.items()))
    low, high = estimate.interval
    return ParSheet("holdem-ante", 1, lines, extras={
        "method": (f"simulation: {estimate.hands} hands, seed {estimate.seed}, "
                   "one 52-card deck per hand"),
        "interval": [low, high], "hands": estimate.hands, "seed": estimate.seed,
        "strategy": ANTE_STRATEGY, "produced_by": provenance,
    }, notes=(f"Per unit of ante; ante, flop, turn and river bets (the Bonus is "
              f"holdem-bonus). Simulated: {estimate.hands:,} hands, seed {estimate.seed}; "
              f"95% interval {low:.4%} to {high:.4%}; {provenance}.",
              f"Strategy: {ANTE_STRATEGY}"))

def _outcome(net: int) -> str:
    if net == -1:
        return "fold (ante lost)"
    if net == 0:
        return "push (a tie: every wager pushes)"
    return f"{'win' if net > 0 else 'lose'} {abs(net)} ante{'s' if abs(net) != 1 else ''}"

def _payout(net: int) -> Payout:
    if net == 0:
        return PUSH
    if net == -1:
        return LOSES
    return to_one(net) if net > 0 else Payout(f"-{-net}", Fraction(net))
