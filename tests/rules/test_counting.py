"""Hi-Lo as a counter keeps it: tags, the true count, the spread and the index plays."""

from __future__ import annotations

import pytest

from controller.rules.blackjack import Action
from controller.rules.cards import Card, shoe
from controller.rules.counting import (
    CountingPolicy,
    ShoeCount,
    ShoeCountSource,
    count_favours,
    hilo_tag,
    index_play,
    spread_units,
)
from controller.rules.options import BLACKJACK_RULES
from controller.rules.strategy import Situation

FIRST_DECISION = frozenset({Action.HIT, Action.STAND, Action.DOUBLE, Action.SURRENDER})


def cards(codes: str) -> tuple[Card, ...]:
    return tuple(Card.parse(code) for code in codes.split())


def test_tags_sum_to_zero_over_a_whole_shoe() -> None:
    assert [hilo_tag(card) for card in cards("2H 6S 7D 9C TH KS AD")] == [1, 1, 0, 0, -1, -1, -1]
    assert sum(hilo_tag(card) for card in shoe(6)) == 0


def test_the_true_count_divides_by_the_decks_not_yet_out_and_ignores_unseen_cards() -> None:
    count = ShoeCount(6)
    for card in cards("2H 3H 4H 5H 6H 2S"):
        count = count.exposed(card)
    count = count.unseen()  # a burn card: out of the shoe, never counted
    assert count.running == 6
    assert count.out == 7
    assert count.true_count == pytest.approx(6 / ((312 - 7) / 52))
    assert count.turned(Card.parse("KS")).running == 5
    assert ShoeCount(1, out=52, running=4).true_count == 8.0  # at least half a deck


@pytest.mark.parametrize(("true_count", "units"), [
    (-3.0, 1), (1.9, 1), (2.0, 2), (3.5, 4), (4.99, 6), (5.0, 8), (12.0, 8)])
def test_a_one_to_eight_spread_follows_the_floored_true_count(true_count: float,
                                                              units: int) -> None:
    assert spread_units(true_count) == units


@pytest.mark.parametrize(("hand", "up", "true_count", "expected"), [
    ("TH 6S", "TD", 0.0, Action.STAND),     # 16 v 10 stands from 0
    ("TH 6S", "TD", -0.5, None),            # ... not below (ceil -> floor -1)
    ("TH 2S", "3D", 2.0, Action.STAND),     # 12 v 3 stands from +2
    ("TH 3S", "2D", -1.0, Action.HIT),      # 13 v 2 hits at -1 or less
    ("TH 3S", "2D", 0.0, None),
    ("6H 4S", "AD", 4.2, Action.DOUBLE),    # 10 v A doubles from +4
    ("AH 5S", "TD", 9.0, None),             # soft hands have no index here
])
def test_index_plays(hand: str, up: str, true_count: float, expected: Action | None) -> None:
    assert index_play(cards(hand), Card.parse(up), FIRST_DECISION, true_count) is expected


def test_the_counter_plays_basic_strategy_unless_the_count_departs_from_it() -> None:
    basic, counter = count_favours(cards("TH 6S"), Card.parse("TD"),
                                   frozenset({Action.HIT, Action.STAND}), BLACKJACK_RULES, 1.0)
    assert (basic, counter) == (Action.HIT, Action.STAND)
    basic, counter = count_favours(cards("TH 6S"), Card.parse("TD"),
                                   frozenset({Action.HIT, Action.STAND}), BLACKJACK_RULES, -2.0)
    assert basic is counter is Action.HIT


def test_the_counting_policy_insures_from_plus_three_and_stands_sixteen_at_zero() -> None:
    source = ShoeCountSource(1)
    policy = CountingPolicy(source)
    up = Card.parse("AD")
    assert policy.insurance(1, cards("TH 9S"), up, 1000).amount == 0
    for card in cards("2H 3H 4H 5H 6H 2S 3S"):
        source.count = source.count.exposed(card)  # +7 over 45 cards left: above +3
    assert policy.insurance(1, cards("TH 9S"), up, 1000).amount == 500
    situation = Situation(1, 0, cards("TH 6S"), Card.parse("TD"),
                          frozenset({Action.HIT, Action.STAND}), BLACKJACK_RULES, 1000)
    assert policy.decide(situation).action is Action.STAND
