"""R5: nothing public says more about the hole card than the blackjack bit, until it is turned.

Pairs of rounds differ only in the hole card, within one class (both complete a dealer
blackjack, or neither). Everything a person or a device outside the secured journal can get
is recorded after every step of the round: the public effects (lamps, sign, dealer display,
operational log), the camera checks asked for, and the dealer console's and the pit view's
published tables. The two rounds of a pair must agree on all of it, step by step, up to the
step at which this test itself knows the hole card is turned over: never where the code under
test says so. The players stand and decline insurance, so the test can tell that step from
the cards alone: the peek's step on a dealer blackjack, else the last player's stand (or the
last step before the dealer plays when no player has a decision). Blackjack and Spanish 21.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from controller.console.commands import table_now
from controller.console.pit_state import PitView
from controller.procedure.core.effects import CameraCheck
from controller.rules.cards import deck
from controller.service.runtime import TableRuntime
from tests.support.pit_compare import comparable

from .helpers import runtime

PAIRS = 300
"""Pairs per game (each round on a fresh table: the last round is public afterwards)."""


@dataclass(frozen=True)
class Pair:
    """Two rounds alike but for the hole card (same class)."""

    game: str
    seats: int
    deal: list[str]  # the initial deal in dealing order, hole card excluded (it is last)
    holes: tuple[str, str]
    rest: list[str]


def ten_value(game: str) -> str:
    return "JQK" if game == "spanish21" else "TJQK"


def natural(cards: list[str], game: str) -> bool:
    ranks = sorted(c[0] for c in cards)
    return len(cards) == 2 and ranks[0] == "A" and ranks[1] in ten_value(game)


def random_pair(rng: random.Random, game: str) -> Pair:
    cards = [str(c) for c in deck(spanish=game == "spanish21")]
    seats = rng.randint(1, 3)
    initial = [rng.choice(cards) for _ in range(2 * seats + 1)]
    if rng.random() < 0.8:  # a peek is due four times in five
        initial[seats] = rng.choice([c for c in cards if c[0] in "A" + ten_value(game)])
    up = initial[seats]
    completes = [c for c in cards if c[0] in (ten_value(game) if up[0] == "A" else "A")]
    pool = completes if up[0] in "A" + ten_value(game) and rng.random() < 0.5 else [
        c for c in cards if c not in completes]
    holes = (rng.choice(pool), rng.choice(pool))
    return Pair(game, seats, initial, holes, [rng.choice(cards) for _ in range(12)])


def reveal_step(pair: Pair, hole: str) -> int:
    """The step at which the hole card is turned over, by this test's own reckoning.

    Steps: the initial deal's cards (the hole card last), then one insurance answer per seat
    under an ace, then one stand per seat without a natural (the last one turns it over;
    with no stand to make, the step that ends the peek or the deal does).
    """
    deal_steps = len(pair.deal) + 1
    up = pair.deal[pair.seats]
    insurance = pair.seats if up[0] == "A" else 0
    peeks = up[0] in "A" + ten_value(pair.game)
    if peeks and natural([up, hole], pair.game):
        return deal_steps + insurance  # the peek follows the deal (or the last answer)
    hands = [[pair.deal[s], pair.deal[pair.seats + 1 + s]] for s in range(pair.seats)]
    stands = sum(not natural(h, pair.game) for h in hands)
    return deal_steps + insurance + stands


class Observer:
    """Everything public (and the camera checks) a step produced."""

    def __init__(self, rt: TableRuntime) -> None:
        self.rt = rt
        self.tables: list[Any] = []
        self.checks: list[CameraCheck] = []
        pit_view = PitView()  # the pit's object with today's figures
        rt.watchers.append(lambda r: self.tables.append((table_now(r), pit_view(r))))
        rt.crosscheck = self  # type: ignore[assignment] - records what would be checked
        self.mark = len(rt.outputs.applied)

    def request(self, checks: list[CameraCheck], round_no: int) -> None:
        self.checks.extend(checks)

    def step(self) -> tuple:
        public = self.rt.outputs.applied[self.mark:]
        self.mark = len(self.rt.outputs.applied)
        seen = (tuple(public), tuple(self.checks), _without_journal(self.tables))
        self.tables, self.checks = [], []
        return seen


def _without_journal(tables: list[Any]) -> tuple:
    """The published tables, less the journal's digest and today's clock (`comparable`)."""
    return tuple((console, comparable(pit)) for console, pit in tables)


def play(tmp: Path, pair: Pair, hole: str) -> list[tuple]:
    """The round dealt with `hole`; what each step showed."""
    rt = runtime(tmp, pair.game, durable=False, return_to_betting=True)
    watch = Observer(rt)
    rt.fire("shuffle_done")
    for seat in range(1, pair.seats + 1):
        assert rt.fire("seat", seat=seat, in_play=True, main=1000, source="console")
    watch.step()
    steps = []
    for code in [*pair.deal, hole]:
        assert rt.fire("card", code=code)
        steps.append(watch.step())
    while rt.model.insurer.seats_to_answer():
        assert rt.fire("no_insurance", seat=rt.model.insurer.seat_asked())
        steps.append(watch.step())
    stream = iter(pair.rest)
    while rt.model.state not in ("betting", "shoe_loading"):
        if rt.model.decision_due() is not None:
            assert rt.fire("stand")
        else:
            assert rt.fire("card", code=next(stream))
        steps.append(watch.step())
    rt.journal.close()
    return steps


@pytest.mark.parametrize("game", ["blackjack", "spanish21"])
def test_everything_public_is_alike_for_holes_of_one_class(tmp_path: Path, game: str) -> None:
    rng = random.Random(5)
    for n in range(PAIRS):
        pair = random_pair(rng, game)
        a = play(tmp_path / f"{n}a", pair, pair.holes[0])
        b = play(tmp_path / f"{n}b", pair, pair.holes[1])
        cut = reveal_step(pair, pair.holes[0]) - 1
        assert reveal_step(pair, pair.holes[1]) - 1 == cut
        assert len(a) > cut
        assert a[:cut] == b[:cut], (n, pair)


def test_the_comparison_sees_the_hole_once_it_is_turned(tmp_path: Path) -> None:
    """The same observation after the cut tells two holes apart: the test can fail."""
    pair = Pair("blackjack", 1, ["TS", "9C", "8D"], ("7H", "6S"), ["5C"] * 8)
    a = play(tmp_path / "a", pair, "7H")
    b = play(tmp_path / "b", pair, "6S")
    cut = reveal_step(pair, "7H") - 1
    assert a[:cut] == b[:cut]
    assert a[cut] != b[cut]  # the stand turns the hole over: 9C 7H and 9C 6S are now public


def test_the_lamp_differs_between_classes(tmp_path: Path) -> None:
    with_bj = play(tmp_path / "a", Pair("blackjack", 1, ["9C", "AS", "8D"], ("KH", "KH"),
                                        ["5C"] * 8), "KH")
    without = play(tmp_path / "b", Pair("blackjack", 1, ["9C", "AS", "8D"], ("9H", "9H"),
                                        ["5C"] * 8), "9H")
    lamps = [e for step in with_bj for e in step[0] if getattr(e, "lamp", "") == "blackjack"]
    assert [lamp.state for lamp in lamps][:1] == ["on"]  # lit at the peek (off again later)
    assert not [e for step in without for e in step[0]
                if getattr(e, "lamp", "") == "blackjack" and e.state == "on"]
