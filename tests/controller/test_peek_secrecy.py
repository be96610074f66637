"""R5: the blackjack lamp is the only output of the hole-card check.

Pairs of rounds differ only in the hole card, within the same blackjack / no-blackjack class;
every public effect (lamps, sign, dealer display, operational log lines) up to the moment the
hole card is turned over must be identical between the two rounds of a pair.
"""

import random
from pathlib import Path

from controller.blackjack import BlackjackModel
from controller.rules import blackjack as bj
from controller.rules.cards import Card, Rank, deck
from controller.rules.strategy import BasicStrategyPolicy, Situation

from .helpers import open_round, runtime

PAIRS = 1000
CARDS = [str(c) for c in deck()]
TENS = [c for c in CARDS if Card.parse(c).rank.is_ten_value]
ACES = [c for c in CARDS if c[0] == "A"]


def hole_pair(rng: random.Random, up: str) -> tuple[str, str]:
    rank = Card.parse(up).rank
    completes = TENS if rank is Rank.ACE else ACES if rank.is_ten_value else []
    pool = completes if completes and rng.random() < 0.5 else [
        c for c in CARDS if c not in completes]
    return rng.choice(pool), rng.choice(pool)


def play(rt, seats: int, first: list[str], hole: str, rest: list[str],
         whole: bool = False) -> list:
    if rt.model.state == "round_over":
        rt.fire("clear_round")
    if rt.model.state == "betting":
        rt.fire("new_shoe")
    start = len(rt.outputs.applied)
    open_round(rt, {s: {"main": 1000, "blazing7s": 500} for s in range(1, seats + 1)})
    stream = iter([*first[:-1], hole, *rest])
    policy = BasicStrategyPolicy()
    revealed_at = None
    while rt.model.state != "round_over":
        mark = len(rt.outputs.applied)
        act(rt.model, rt, stream, policy)
        game = rt.model.game
        if game is not None and game.hole_revealed and revealed_at is None:
            revealed_at = mark
    return rt.outputs.applied[start:] if whole else rt.outputs.applied[start:revealed_at]


def act(model: BlackjackModel, rt, stream, policy) -> None:
    if model.card_due_to() is not None:
        rt.fire("card", code=next(stream))
    elif model.insurance_seat() is not None:
        rt.fire("no_insurance")
    else:
        game = model.game
        turn = bj.current_hand(game)
        seat = game.seats[turn[0]]
        hand = seat.hands[turn[1]]
        situation = Situation(seat.seat, turn[1], hand.cards, game.up_card,
                              bj.legal_actions(game), game.rules, hand.stake)
        rt.fire(policy.decide(situation).action.value)


def test_public_effects_are_identical_for_holes_of_one_class(tmp_path: Path) -> None:
    rng = random.Random(5)
    compared = 0
    table_a = runtime(tmp_path / "a", durable=False)
    table_b = runtime(tmp_path / "b", durable=False)
    for n in range(PAIRS):
        seats = rng.randint(1, 3)
        initial = [rng.choice(CARDS) for _ in range(seats * 2 + 2)]
        up = initial[seats]
        if rng.random() < 0.8:
            up = rng.choice(ACES + TENS)
            initial[seats] = up
        hole_a, hole_b = hole_pair(rng, up)
        rest = [rng.choice(CARDS) for _ in range(12)]
        first = [*initial[:seats], up, *initial[seats + 1:2 * seats + 1], "XX"]
        a = play(table_a, seats, first, hole_a, rest)
        b = play(table_b, seats, first, hole_b, rest)
        assert a == b, (n, up, hole_a, hole_b)
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
