"""The simulation's blackjack players, seat by seat: how each bets and plays.

`--strategy` names one strategy for every seat, or one a seat (`counter,basic,random`):

- `basic`: the posted main wager every round, basic strategy;
- `stand`: the posted main wager, stands on everything;
- `counter`: a Hi-Lo counter: the main wager is the posted one times the units of
  `--spread LOW-HIGH` (default 1-8: `LOW` up to a true count of +1, `HIGH` from +5, a ramp
  between), insurance from +3, the common index plays, else basic strategy;
- `random`: 1 to 8 times the posted main wager at random each round, basic strategy.

A counter knows only what a player at the table sees: `Players.catch_up` reads the table's
journal as the advantage-play analysis does (`controller.analysis.journal_feed`), so a
counter seat and the watch that should flag it agree on every count.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from controller.analysis.journal_feed import JournalFeed
from controller.journal.store import JournalStore
from controller.rules.blackjack import Decision
from controller.rules.cards import Card
from controller.rules.counting import CountingPolicy, ShoeCount, spread_units
from controller.rules.errors import ConfigError
from controller.rules.options import BlackjackRules
from controller.rules.strategy import (
    BasicStrategyPolicy,
    InsuranceChoice,
    PlayerPolicy,
    Situation,
    StandPolicy,
)
from controller.service.runtime import TableRuntime

STRATEGIES: Final = ("basic", "stand", "counter", "random")
RANDOM_UNITS: Final = 8


@dataclass(frozen=True, slots=True)
class Spread:
    """A counter's wager from its least to its most, in units of the posted main wager."""

    low: int = 1
    high: int = 8

    @classmethod
    def parse(cls, text: str) -> Spread:
        """`1-8` -> Spread(1, 8).

        Raises:
            ConfigError: not `LOW-HIGH` with 1 <= LOW <= HIGH <= 100.
        """
        low, _, high = text.partition("-")
        try:
            spread = cls(int(low), int(high))
        except ValueError:
            raise ConfigError(f"--spread: expected LOW-HIGH units like 1-8, got {text!r}") \
                from None
        if not 1 <= spread.low <= spread.high <= 100:
            raise ConfigError(f"--spread: {text!r}: want 1 <= LOW <= HIGH <= 100")
        return spread

    def units(self, true_count: float) -> int:
        """The counter's units at a true count: the 1-8 ramp scaled onto LOW-HIGH."""
        steps = spread_units(true_count) - 1  # 0 up to +1 ... 7 from +5
        return self.low + (self.high - self.low) * steps // 7


def parse_strategies(text: str, seats: int) -> tuple[str, ...]:
    """One strategy for every seat, or one a seat.

    Raises:
        ConfigError: an unknown strategy, or a list whose length is not the seats'.
    """
    names = tuple(name.strip() for name in text.split(","))
    for name in names:
        if name not in STRATEGIES:
            raise ConfigError(f"--strategy: {name!r} is no strategy ({', '.join(STRATEGIES)})")
    if len(names) == 1:
        return names * seats
    if len(names) != seats:
        raise ConfigError(f"--strategy: {len(names)} strategies for {seats} seats: give one, "
                          "or one a seat")
    return names


class Players:
    """Every bot seat's wager and decisions; one count of the shoe, read from the journal."""

    def __init__(self, strategies: Sequence[str], spread: Spread, rules: BlackjackRules,
                 decks: int, seed: int) -> None:
        self.strategies = tuple(strategies)
        self.spread = spread
        self.feed = JournalFeed("sim", rules, decks)
        self.read = 0
        self._rng = random.Random(seed * 7919 + 17)
        counting = CountingPolicy(self.count)
        self._policies: dict[str, PlayerPolicy] = {
            "basic": BasicStrategyPolicy(), "random": BasicStrategyPolicy(),
            "stand": StandPolicy(), "counter": counting}

    @property
    def counts(self) -> bool:
        """True when any seat counts (the journal must then be read as the table goes)."""
        return "counter" in self.strategies

    def count(self) -> ShoeCount:
        """What a counter at the table knows now."""
        return self.feed.watch.count

    def catch_up(self, journal: JournalStore) -> None:
        """Read what the table journalled since the last call."""
        if not self.counts:
            return
        for entry in journal.entries(after=self.read):
            self.feed.take(entry.kind, entry.data)
            self.read = entry.seq

    def main_cents(self, seat: int, posted: int) -> int:
        """The seat's main wager this round, from the posted one."""
        strategy = self.strategy(seat)
        if strategy == "counter":
            return posted * self.spread.units(self.count().true_count)
        if strategy == "random":
            return posted * self._rng.randint(1, RANDOM_UNITS)
        return posted

    def strategy(self, seat: int) -> str:
        """Seat `seat`'s strategy (seats beyond the list play the last one)."""
        return self.strategies[min(seat, len(self.strategies)) - 1]

    def insurance(self, seat: int, cards: tuple[Card, ...], up_card: Card,
                  wager: int) -> InsuranceChoice:
        """The seat's strategy answers."""
        return self._policies[self.strategy(seat)].insurance(seat, cards, up_card, wager)

    def decide(self, situation: Situation) -> Decision:
        """The seat's strategy decides."""
        return self._policies[self.strategy(situation.seat)].decide(situation)


def counting(policy: PlayerPolicy, runtime: TableRuntime) -> None:
    """Let counting players read what the table journalled since they last looked."""
    if isinstance(policy, Players):
        policy.catch_up(runtime.journal)


def main_cents(policy: PlayerPolicy, seat: int, bet: str, posted: int) -> int:
    """The wager a bot seat puts on `bet`: its strategy's on the main wager, else posted."""
    if bet == "main" and isinstance(policy, Players):
        return policy.main_cents(seat, posted)
    return posted
