"""Advantage-play alerts: how soon a counter is flagged, how often an honest seat is.

Deals 6-deck blackjack shoes to 75% penetration with the reference dealer
(`controller.rules.dealer`, the rules the table plays by) at a table of three seats and
feeds what a watcher sees to `controller.analysis.advantage.AdvantageWatch`, as the journal
feed does at a table: the cards exposed, the burn and the hole card unseen until turned,
each seat's main wager when betting closes, insurance answers and decisions.

    --seeds N      tables dealt per kind of seat (default 100)
    --rounds R     rounds a table for the honest seats (default 1000)
    --counter-rounds C   rounds a table for the counter (default 300)

The seats: a Hi-Lo counter spreading 1-8 units (`controller.rules.counting`), a flat
bettor and a random bettor (1-8 units drawn at random each round), each playing basic
strategy but the counter, who plays the index plays and insures from +3. Prints the share
of counters flagged within C rounds, the rounds-to-alert distribution, the share of honest
seats flagged within R rounds, and how many rows a second of a real table's journal
(`shoectl simulate --in-process`, 7 seats) the advantage feed and the shift figures read.
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path

# bench/controller.py would shadow the package: the repository's root comes first.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from controller.analysis.advantage import (
    AdvantageWatch,
    Decided,
    Exposed,
    Insured,
    Observation,
    Shuffled,
    Turned,
    Unseen,
    Wagered,
)
from controller.analysis.journal_feed import JournalFeed
from controller.analysis.shift import Row, shift_figures
from controller.journal.audit import export_entries
from controller.journal.chain import Entry
from controller.rules.blackjack import BlackjackTable, Decision, SeatBets
from controller.rules.cards import Card, shoe
from controller.rules.counting import (
    CountingPolicy,
    ShoeCountSource,
    spread_units,
)
from controller.rules.dealer import VoidedRound, play_blackjack_round
from controller.rules.options import BLACKJACK_RULES
from controller.rules.paytables import Paytables
from controller.rules.strategy import (
    BasicStrategyPolicy,
    InsuranceChoice,
    PlayerPolicy,
    Situation,
)

DECKS = 6
PENETRATION = 0.75
UNIT = 1000
TABLE = BlackjackTable(BLACKJACK_RULES, Paytables(), decks=DECKS)

Bettor = Callable[[float, random.Random], int]
"""A seat's wager in cents from the true count it could know, with its own random source."""


def counter_bet(true_count: float, rng: random.Random) -> int:
    """1-8 units by the true count."""
    return spread_units(true_count) * UNIT


def flat_bet(true_count: float, rng: random.Random) -> int:
    """One unit, always."""
    return UNIT


def random_bet(true_count: float, rng: random.Random) -> int:
    """1-8 units at random, whatever the count."""
    return rng.randint(1, 8) * UNIT


class SeatPolicies:
    """Each seat's own policy behind the dealer's one `PlayerPolicy`, observed as it plays."""

    def __init__(self, policies: dict[int, PlayerPolicy], report: Callable[[Observation], None],
                 round_no: Callable[[], int]) -> None:
        self.policies = policies
        self.report = report
        self.round_no = round_no

    def insurance(self, seat: int, cards: tuple[Card, ...], up_card: Card,
                  wager: int) -> InsuranceChoice:
        """The seat's answer, observed."""
        choice = self.policies[seat].insurance(seat, cards, up_card, wager)
        self.report(Insured(self.round_no(), seat, bool(choice.amount or choice.even_money)))
        return choice

    def decide(self, situation: Situation) -> Decision:
        """The seat's decision, observed on the hand's first decision (cards known)."""
        decision = self.policies[situation.seat].decide(situation)
        if situation.hand_index == 0:
            self.report(Decided(self.round_no(), situation.seat, situation.cards,
                                situation.up_card, situation.legal, decision.action))
        return decision


def deal_table(seed: int, rounds: int, bettors: dict[int, Bettor],
               counting_seats: frozenset[int]) -> dict[int, int | None]:
    """Deal `rounds` rounds; the round at which each seat was first flagged (None: never)."""
    rng = random.Random(seed)
    seat_rngs = {seat: random.Random(seed * 100 + seat) for seat in bettors}
    count = ShoeCountSource(DECKS)
    watch = AdvantageWatch("T1", BLACKJACK_RULES, DECKS)
    flagged: dict[int, int | None] = dict.fromkeys(bettors)
    round_no = 0

    def report(observation: Observation) -> None:
        alert = watch.observe(observation)
        if alert is not None and flagged[alert.seat] is None:
            flagged[alert.seat] = round_no

    def see(card: Card, face_down: bool) -> None:
        count.count = count.count.unseen() if face_down else count.count.exposed(card)
        report(Unseen() if face_down else Exposed(card))

    policies: dict[int, PlayerPolicy] = {
        seat: CountingPolicy(count) if seat in counting_seats else BasicStrategyPolicy()
        for seat in bettors}
    dealer_policy = SeatPolicies(policies, report, lambda: round_no)
    cards: list[Card] = []
    while round_no < rounds:
        if not cards or len(cards) < DECKS * 52 * (1 - PENETRATION):
            cards = list(shoe(DECKS))
            rng.shuffle(cards)
            count.count = count.count.__class__(DECKS)
            report(Shuffled(DECKS))
            see(cards.pop(0), True)  # the burn card
        round_no += 1
        bets = []
        for seat, bettor in sorted(bettors.items()):
            cents = bettor(count.count.true_count, seat_rngs[seat])
            report(Wagered(round_no, seat, cents))
            bets.append(SeatBets(seat, cents))
        hole_position = 2 * len(bets) + 1  # seats, up card, seats, then the hole card
        drawn: list[Card] = []

        result = play_blackjack_round(TABLE, bets, dealer_policy,
                                      dealing(cards, drawn, hole_position, see))
        if isinstance(result, VoidedRound):
            cards = []
            continue
        hole = drawn[hole_position]
        assert result.dealer[1] == hole, "the hole card is the dealer's second card"
        count.count = count.count.turned(hole)
        report(Turned(hole))
    return flagged


def dealing(cards: list[Card], drawn: list[Card], hole_position: int,
            see: Callable[[Card, bool], None]) -> Iterator[Card]:
    """The shoe's cards in dealing order, each seen as it leaves (the hole card face down)."""
    while cards:
        card = cards.pop(0)
        drawn.append(card)
        see(card, len(drawn) == hole_position + 1)
        yield card


def percentile(values: list[int], share: float) -> int:
    """The value below which `share` of the sorted values lie."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def journal_rows(rounds: int) -> list[Entry]:
    """A real table's journal: `shoectl simulate --in-process`, 7 seats, read back."""
    with tempfile.TemporaryDirectory() as folder:
        state = Path(folder) / "state"
        subprocess.run([sys.executable, "-m", "controller", "simulate", "--in-process",
                        "--seats", "7", "--rounds", str(rounds), "--seed", "3", "--pace", "0",
                        "--json", "--state-dir", str(state)],
                       check=True, capture_output=True, timeout=3600)
        entries, report = export_entries(state)
        assert report.ok
        return entries


def speed(entries: list[Entry], tables: int) -> tuple[float, float]:
    """Journal rows a second on one core: (advantage feed, shift figures), `tables` copies."""
    start = time.process_time()
    for table in range(tables):
        feed = JournalFeed(f"T{table}", BLACKJACK_RULES, DECKS)
        for entry in entries:
            feed.take(entry.kind, entry.data)
    feed_rate = tables * len(entries) / (time.process_time() - start)
    rows = [Row(datetime.fromisoformat(entry.wall), entry.kind, entry.data) for entry in entries]
    start = time.process_time()
    for _ in range(tables):
        shift_figures(rows)
    return feed_rate, tables * len(rows) / (time.process_time() - start)


def main() -> int:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--counter-rounds", type=int, default=300)
    parser.add_argument("--journal-rounds", type=int, default=200,
                        help="rounds of the real journal read for the speed figures")
    args = parser.parse_args()
    started = time.monotonic()
    counter_rounds: list[int] = []
    counters_missed = 0
    honest_flagged = {"flat": 0, "random": 0}
    for seed in range(args.seeds):
        flagged = deal_table(seed, args.counter_rounds, {1: counter_bet, 2: flat_bet,
                                                         3: random_bet}, frozenset({1}))
        if flagged[1] is None:
            counters_missed += 1
        else:
            counter_rounds.append(flagged[1])
        honest = deal_table(10_000 + seed, args.rounds, {1: flat_bet, 2: random_bet,
                                                         3: random_bet}, frozenset())
        honest_flagged["flat"] += honest[1] is not None
        honest_flagged["random"] += (honest[2] is not None) + (honest[3] is not None)
    caught = len(counter_rounds)
    print(f"advantage-play alerts: {DECKS} decks, {PENETRATION:.0%} penetration, "
          f"{args.seeds} seeds")
    print(f"  1-8 counter flagged within {args.counter_rounds} rounds: {caught} of "
          f"{args.seeds} ({caught / args.seeds:.0%})")
    if counter_rounds:
        print(f"  rounds to alert: min {min(counter_rounds)}, median "
              f"{statistics.median(counter_rounds):.0f}, p90 {percentile(counter_rounds, 0.9)}, "
              f"p95 {percentile(counter_rounds, 0.95)}, max {max(counter_rounds)}")
    print(f"  honest seats flagged within {args.rounds} rounds: flat "
          f"{honest_flagged['flat']} of {args.seeds}, random {honest_flagged['random']} of "
          f"{2 * args.seeds} ({honest_flagged['random'] / (2 * args.seeds):.1%})")
    entries = journal_rows(args.journal_rounds)
    feed_rate, shift_rate = speed(entries, 10)
    hours = (datetime.fromisoformat(entries[-1].wall)
             - datetime.fromisoformat(entries[0].wall)).total_seconds()
    print(f"  journal rows a second, one core (a {args.journal_rounds}-round 7-seat journal, "
          f"{len(entries)} rows, read 10 times): advantage feed {feed_rate:,.0f}, shift "
          f"figures {shift_rate:,.0f}")
    per_table = len(entries) / args.journal_rounds * 60 / 3600
    print(f"  200 tables at 60 rounds an hour write about {200 * per_table:,.0f} rows a second "
          f"({hours:.0f} s of simulated dealing here)")
    print(f"  took {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
