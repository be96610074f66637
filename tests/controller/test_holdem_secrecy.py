"""R5 at hold'em: the dealer's two cards are in no public output until they are exposed.

Pairs of rounds differ only in the dealer's two cards. At every step the camera also reports
the dealer's cards in the dealer's area (a dealer who shows them early, a camera that sees
them through a lifted corner): the round must not take them before its time. Everything
public is recorded after every step: the public effects (lamps, dealer display, operational
log), the dealer console's table and the pit view. The two rounds of a pair must agree on all
of it up to the step at which this test itself turns the dealer's cards up.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from controller.console.commands import table_now
from controller.console.pit_state import PitView
from controller.rules.cards import deck
from tests.controller.holdem_helpers import Table, table
from tests.support.pit_compare import comparable

PAIRS = 20


class Observer:
    """Everything public a step produced."""

    def __init__(self, t: Table) -> None:
        self.rt = t.rt
        self.tables: list[Any] = []
        pit_view = PitView()  # the pit's object with today's figures
        self.rt.watchers.append(lambda r: self.tables.append(
            (table_now(r), comparable(pit_view(r)))))
        self.mark = len(self.rt.outputs.applied)

    def step(self) -> tuple[Any, ...]:
        public = self.rt.outputs.applied[self.mark:]
        self.mark = len(self.rt.outputs.applied)
        seen = (tuple(public), tuple(map(repr, self.tables)))
        self.tables = []
        return seen


def play(tmp: Path, cards: list[str], dealer: list[str], seats: int) -> tuple[list[Any], int]:
    """A round with `dealer`'s two cards; what each step showed, and the step they are up."""
    t = table(tmp)
    t.rt.return_to_betting = True
    watch = Observer(t)
    board, holes = cards[:5], cards[5:]
    steps: list[Any] = []

    def peek_then(trigger: str, **kwargs: Any) -> None:
        for code in dealer:  # the dealer's cards seen early: never taken
            t.fire("camera_card", area="dealer", seat=None, card=code, confirmed=True)
        assert t.fire(trigger, **kwargs), (trigger, kwargs, t.model.state)
        steps.append(watch.step())

    peek_then("shuffle_done")
    for seat in range(1, seats + 1):
        peek_then("wager", seat=seat, bet="ante", cents=1000)
    peek_then("no_more_bets")
    peek_then("hole_cards_dealt")
    for seat in range(1, seats + 1):
        peek_then("bet", seat=seat)
    for code in board[:3]:
        peek_then("camera_card", area="flop", seat=None, card=code, confirmed=True)
    for seat in range(1, seats + 1):
        peek_then("check", seat=seat)
    peek_then("camera_card", area="turn", seat=None, card=board[3], confirmed=True)
    for seat in range(1, seats + 1):
        peek_then("check", seat=seat)
    peek_then("camera_card", area="river", seat=None, card=board[4], confirmed=True)
    exposed = len(steps)
    for code in dealer:
        assert t.fire("camera_card", area="dealer", seat=None, card=code, confirmed=True)
        steps.append(watch.step())
    for seat in range(seats, 0, -1):
        for code in holes[2 * seat - 2:2 * seat]:
            assert t.fire("camera_card", area="seat", seat=seat, card=code, confirmed=True)
            steps.append(watch.step())
    assert t.model.results, "the round settled"
    t.rt.journal.close()
    return steps, exposed


def test_nothing_public_tells_two_dealer_hands_apart_until_exposed(tmp_path: Path) -> None:
    rng = random.Random(14)
    codes = [str(c) for c in deck()]
    for n in range(PAIRS):
        seats = rng.randint(1, 3)
        cards = rng.sample(codes, 5 + 2 * seats + 4)
        first, second = cards[-4:-2], cards[-2:]
        a, cut = play(tmp_path / f"{n}a", cards[:-4], first, seats)
        b, cut_b = play(tmp_path / f"{n}b", cards[:-4], second, seats)
        assert cut == cut_b
        assert a[:cut] == b[:cut], (n, first, second)


def test_the_comparison_sees_the_dealer_once_exposed(tmp_path: Path) -> None:
    """The same observation after the exposure tells the two hands apart: the test can fail."""
    cards = ["2C", "7D", "9H", "JS", "KC", "AH", "AD"]
    a, cut = play(tmp_path / "a", cards, ["3S", "4S"], 1)
    b, _ = play(tmp_path / "b", cards, ["QH", "QD"], 1)
    assert a[:cut] == b[:cut]
    assert a[cut] != b[cut]
