"""Advantage-play evidence per seat: does the wager follow the count, and the play too?

Pure: it is fed what happened at a table (`Observation`s, from the journal by
`controller.analysis.journal_feed`, or from a bench's dealer) and never changes the game.

The test. A seat's main wagers are paired with the Hi-Lo true count a counter would have
had when each was placed. Under the null hypothesis, the wager does not depend on the count,
and Spearman's rank correlation of the pairs, rho, has mean 0 and variance 1 / (n - 1), so
z = rho * sqrt(n - 1) is about standard normal (n >= 30, ties by mid-ranks). A counter's
spread makes rho large and positive. The alert is one-sided: p = P(Z >= z) below
`ALERT_P`, which is small because the test is repeated after every wager: with 1e-5 the
chance that a seat whose wager ignores the count is ever flagged over 1,000 rounds is well
under 1% (measured by `bench/protection.py`). A flat bettor's wagers have no ranks to
correlate and are never flagged. A rank test, not a linear one: a counter's spread is a
step function of the count, and ranks take it whole without assuming a shape; a sequential
probability ratio test would need an assumed spread to test against.

Beside it, two pieces of evidence that the alert reports and does not need: insurance taken
and declined against the count (a counter takes it from +3), and decisions that depart from
basic strategy, counted by whether the count favoured the departure (an index play) or not.
Insurance is counted only when taken: at a true count of +3 or more (with the count) or
below it (against).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from controller.rules.blackjack import Action
from controller.rules.cards import Card
from controller.rules.counting import INSURANCE_INDEX, ShoeCount, count_favours
from controller.rules.options import BlackjackRules

ALERT_P: Final = 1e-5
"""A seat is flagged when the one-sided p-value of its wager-count correlation falls below."""
MIN_WAGERS: Final = 30
"""Wagers a seat needs before its correlation is tested (the normal approximation's floor)."""
WINDOW: Final = 600
"""The newest wagers of a seat kept for the test: a seat's player changes over a shift."""
EVIDENCE_ROUNDS: Final = 10
"""Rounds named in an alert: the seat's largest wagers at its highest counts."""


@dataclass(frozen=True, slots=True)
class Shuffled:
    """A new shoe of `decks` decks: the count starts again."""

    decks: int


@dataclass(frozen=True, slots=True)
class Exposed:
    """A card seen leaving the shoe."""

    card: Card


@dataclass(frozen=True, slots=True)
class Unseen:
    """A card out of the shoe face down (the burn card, the hole card)."""


@dataclass(frozen=True, slots=True)
class Turned:
    """A face-down card turned over (the hole card)."""

    card: Card


@dataclass(frozen=True, slots=True)
class Wagered:
    """A seat's main wager for a round, as it stood when betting closed."""

    round: int
    seat: int
    cents: int


@dataclass(frozen=True, slots=True)
class Insured:
    """A seat's answer to insurance: taken (or even money) or declined."""

    round: int
    seat: int
    taken: bool


@dataclass(frozen=True, slots=True)
class Decided:
    """A decision on a hand whose cards are known."""

    round: int
    seat: int
    cards: tuple[Card, ...]
    up_card: Card
    legal: frozenset[Action]
    action: Action


Observation = Shuffled | Exposed | Unseen | Turned | Wagered | Insured | Decided


@dataclass(frozen=True, slots=True)
class Alert:
    """A seat whose wagers follow the count: what surveillance is told."""

    table: str
    seat: int
    first_round: int
    last_round: int
    wagers: int
    statistic: str
    value: float
    p_value: float
    evidence_rounds: tuple[int, ...]
    insurance_with_count: int
    insurance_against_count: int
    deviations_with_count: int
    deviations_against_count: int

    def as_record(self) -> dict[str, object]:
        """The alert as JSON: the shape of the surveillance topic and page."""
        return {"table": self.table, "seat": self.seat, "rounds": [self.first_round,
                                                                   self.last_round],
                "wagers": self.wagers, "statistic": self.statistic,
                "value": round(self.value, 4), "p_value": self.p_value,
                "evidence_rounds": list(self.evidence_rounds),
                "insurance": {"with_count": self.insurance_with_count,
                              "against_count": self.insurance_against_count},
                "deviations": {"with_count": self.deviations_with_count,
                               "against_count": self.deviations_against_count}}


def mid_ranks(values: Sequence[float]) -> list[float]:
    """Ranks from 1, ties given the mean of the ranks they share."""
    order = sorted(range(len(values)), key=values.__getitem__)
    ranks = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for position in range(start, end + 1):
            ranks[order[position]] = (start + end) / 2 + 1
        start = end + 1
    return ranks


def spearman(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Spearman's rho of paired values; None when either side has a single value."""
    if len(xs) != len(ys):
        raise ValueError("spearman needs pairs")
    if len(set(xs)) < 2 or len(set(ys)) < 2:
        return None
    rx, ry = mid_ranks(xs), mid_ranks(ys)
    mean = (len(xs) + 1) / 2
    covariance = sum((a - mean) * (b - mean) for a, b in zip(rx, ry, strict=True))
    spread_x = math.sqrt(sum((a - mean) ** 2 for a in rx))
    spread_y = math.sqrt(sum((b - mean) ** 2 for b in ry))
    return covariance / (spread_x * spread_y)


def one_sided_p(rho: float, n: int) -> float:
    """P(Z >= rho * sqrt(n - 1)) for a standard normal Z."""
    z = rho * math.sqrt(n - 1)
    return 0.5 * math.erfc(z / math.sqrt(2))


@dataclass(slots=True)
class SeatEvidence:
    """What one seat did against the count."""

    wagers: list[tuple[int, float, int]] = field(default_factory=list)
    insurance_with: int = 0
    insurance_against: int = 0
    deviations_with: int = 0
    deviations_against: int = 0
    flagged: bool = False

    def add_wager(self, round_no: int, true_count: float, cents: int) -> None:
        """A wager at a count; the oldest beyond the window goes."""
        self.wagers.append((round_no, true_count, cents))
        if len(self.wagers) > WINDOW:
            del self.wagers[0]

    def test(self) -> tuple[float, float] | None:
        """(rho, one-sided p) of wager against count, or None while it cannot be tested."""
        if len(self.wagers) < MIN_WAGERS:
            return None
        counts = [count for _, count, _ in self.wagers]
        cents = [float(amount) for _, _, amount in self.wagers]
        rho = spearman(counts, cents)
        if rho is None:
            return None
        return rho, one_sided_p(rho, len(self.wagers))


class AdvantageWatch:
    """One table's count and its seats' evidence; `observe` returns a new alert or None.

    A seat is flagged once (its alert names the rounds so far) until `forget` starts its
    evidence over (its player left: the journal feed forgets a seat out of play for
    `journal_feed.SEAT_LEFT_ROUNDS` rounds).
    """

    def __init__(self, table: str, rules: BlackjackRules, decks: int) -> None:
        self.table = table
        self.rules = rules
        self.count = ShoeCount(decks)
        self.seats: dict[int, SeatEvidence] = {}

    def observe(self, observation: Observation) -> Alert | None:
        """Take one observation; an alert when it makes a seat's evidence pass the test."""
        match observation:
            case Shuffled(decks):
                self.count = ShoeCount(decks)
            case Exposed(card):
                self.count = self.count.exposed(card)
            case Unseen():
                self.count = self.count.unseen()
            case Turned(card):
                self.count = self.count.turned(card)
            case Wagered(round_no, seat, cents):
                return self._wagered(round_no, seat, cents)
            case Insured(_, seat, taken):
                self._insured(seat, taken)
            case Decided(_, seat, cards, up_card, legal, action):
                self._decided(seat, cards, up_card, legal, action)
        return None

    def _wagered(self, round_no: int, seat: int, cents: int) -> Alert | None:
        evidence = self.seats.setdefault(seat, SeatEvidence())
        evidence.add_wager(round_no, self.count.true_count, cents)
        if evidence.flagged:
            return None
        result = evidence.test()
        if result is None or result[1] >= ALERT_P:
            return None
        evidence.flagged = True
        return self._alert(seat, evidence, *result)

    def _insured(self, seat: int, taken: bool) -> None:
        if not taken:
            return
        evidence = self.seats.setdefault(seat, SeatEvidence())
        if math.floor(self.count.true_count) >= INSURANCE_INDEX:
            evidence.insurance_with += 1
        else:
            evidence.insurance_against += 1

    def _decided(self, seat: int, cards: tuple[Card, ...], up_card: Card,
                 legal: frozenset[Action], action: Action) -> None:
        basic, counter = count_favours(cards, up_card, legal, self.rules,
                                       self.count.true_count)
        if action is basic:
            return
        evidence = self.seats.setdefault(seat, SeatEvidence())
        if action is counter:
            evidence.deviations_with += 1
        else:
            evidence.deviations_against += 1

    def _alert(self, seat: int, evidence: SeatEvidence, rho: float, p_value: float) -> Alert:
        rounds = [round_no for round_no, _, _ in evidence.wagers]
        strongest = sorted(evidence.wagers, key=lambda wager: (-wager[1], -wager[2], wager[0]))
        return Alert(self.table, seat, rounds[0], rounds[-1], len(rounds), "spearman_rho",
                     rho, p_value,
                     tuple(sorted(round_no for round_no, _, _ in strongest[:EVIDENCE_ROUNDS])),
                     evidence.insurance_with, evidence.insurance_against,
                     evidence.deviations_with, evidence.deviations_against)

    def forget(self, seat: int) -> None:
        """A seat whose player left: its evidence starts over."""
        self.seats.pop(seat, None)
