"""Texas Hold'em Bonus settlement and dealing order (seed 003, rules 3, 4 and 11)."""

from __future__ import annotations

import pytest

from controller.rules.errors import RulesError
from controller.rules.holdem import (
    DEALER_SPOT,
    HoldemNets,
    HoldemWagers,
    PokerCategory,
    PokerHand,
    deal_order,
    settle_fold,
    settle_showdown,
    showdown_order,
)
from controller.rules.money import Odds

STRAIGHT = PokerHand(5000, PokerCategory.STRAIGHT)
TRIPS = PokerHand(4000, PokerCategory.THREE_OF_A_KIND)
PAIR = PokerHand(2000, PokerCategory.PAIR)
FULL = HoldemWagers(ante=1000, bonus=500, flop=1000, turn=1000, river=1000)


def test_fold_loses_ante_and_bonus_only() -> None:
    assert settle_fold(HoldemWagers(1000, 500)) == HoldemNets(-1000, -500, 0, 0, 0)


def test_win_on_a_straight_pays_the_ante_and_every_bet() -> None:
    nets = settle_showdown(FULL, STRAIGHT, TRIPS, None)
    assert nets == HoldemNets(1000, -500, 1000, 1000, 1000)
    assert nets.total == 3500


def test_win_below_a_straight_pushes_the_ante() -> None:
    nets = settle_showdown(HoldemWagers(1000, 0, 1000, 0, 1000), TRIPS, PAIR, None)
    assert nets == HoldemNets(0, 0, 1000, 0, 1000)


def test_dealer_win_takes_every_wager_but_the_bonus_is_paid_by_the_table() -> None:
    nets = settle_showdown(FULL, PAIR, TRIPS, Odds(30))
    assert nets == HoldemNets(-1000, 15_000, -1000, -1000, -1000)


def test_tie_pushes_everything_but_the_bonus() -> None:
    assert settle_showdown(FULL, TRIPS, TRIPS, None) == HoldemNets(0, -500, 0, 0, 0)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"ante": 0}, "an ante above 0"),
    ({"ante": 1000, "bonus": -1}, "bonus of 0 or more"),
    ({"ante": 1000, "flop": 500}, "the flop bet is 0 or the ante"),
    ({"ante": 1000, "flop": 1000, "river": 2000}, "the river bet is 0 or the ante"),
    ({"ante": 1000, "turn": 1000}, "a folded seat makes no turn or river bet"),
])
def test_impossible_wagers_are_refused(kwargs: dict[str, int], message: str) -> None:
    with pytest.raises(RulesError, match=message):
        HoldemWagers(**kwargs)


def test_a_folded_seat_has_no_showdown() -> None:
    with pytest.raises(RulesError, match="no showdown"):
        settle_showdown(HoldemWagers(1000), STRAIGHT, PAIR, None)


def test_deal_order_from_the_dealers_left_twice_round() -> None:
    assert deal_order([3, 1, 5]) == (1, 3, 5, DEALER_SPOT, 1, 3, 5, DEALER_SPOT)


def test_deal_order_with_a_button_ends_on_the_button() -> None:
    order = deal_order([1, 2, 3, 4, 5, 6], button=3)
    assert order[:7] == (4, 5, 6, DEALER_SPOT, 1, 2, 3)
    assert order[7:] == order[:7]


def test_button_on_an_empty_seat_is_refused() -> None:
    with pytest.raises(RulesError, match="button is on seat 2"):
        deal_order([1, 3], button=2)


def test_showdown_from_the_dealers_right() -> None:
    assert showdown_order([1, 4, 2]) == (4, 2, 1)
