"""R5: the blackjack lamp is the only output of the hole-card check.

Pairs of rounds differ only in the hole card, within the same blackjack / no-blackjack class;
every public effect (lamps, sign, dealer display, operational log lines) up to the moment the
hole card is turned over must be identical between the two rounds of a pair.
"""

import random
from pathlib import Path

from controller.rules.strategy import BasicStrategyPolicy

from .helpers import act, next_round, open_round, random_hole_pair, runtime

PAIRS = 1000


def play(rt, seats: int, first: list[str], hole: str, rest: list[str],
         whole: bool = False) -> list:
    next_round(rt)
    start = len(rt.outputs.applied)
    open_round(rt, {s: {"main": 1000, "blazing7s": 500} for s in range(1, seats + 1)})
    stream = iter([*first[:-1], hole, *rest])
    policy = BasicStrategyPolicy()
    revealed_at = None
    while rt.model.state != "round_over":
        mark = len(rt.outputs.applied)
        act(rt, stream, policy)
        game = rt.model.game
        if game is not None and game.hole_revealed and revealed_at is None:
            revealed_at = mark
    return rt.outputs.applied[start:] if whole else rt.outputs.applied[start:revealed_at]


def test_public_effects_are_identical_for_holes_of_one_class(tmp_path: Path) -> None:
    rng = random.Random(5)
    compared = 0
    table_a = runtime(tmp_path / "a", durable=False)
    table_b = runtime(tmp_path / "b", durable=False)
    for n in range(PAIRS):
        pair = random_hole_pair(rng)
        hole_a, hole_b = pair.holes
        a = play(table_a, pair.seats, pair.first, hole_a, pair.rest)
        b = play(table_b, pair.seats, pair.first, hole_b, pair.rest)
        assert a == b, (n, pair.up, hole_a, hole_b)
        compared += 1
    assert compared == PAIRS


def test_the_lamp_differs_between_classes(tmp_path: Path) -> None:
    first = ["9C", "AS", "8D", "XX"]
    with_bj = play(runtime(tmp_path / "a"), 1, first, "KH", ["5C"] * 8, whole=True)
    without = play(runtime(tmp_path / "b"), 1, first, "9H", ["5C"] * 8, whole=True)
    lamp = [e for e in with_bj if getattr(e, "lamp", "") == "blackjack"]
    assert lamp[-1].state == "on"
    assert not [e for e in without if getattr(e, "lamp", "") == "blackjack"
                and e.state == "on"]
