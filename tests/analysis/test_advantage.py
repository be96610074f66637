"""The advantage-play watch: the statistic, and who it flags."""

from __future__ import annotations

import random

import pytest

from controller.analysis.advantage import (
    ALERT_P,
    AdvantageWatch,
    Decided,
    Exposed,
    Insured,
    Shuffled,
    Wagered,
    mid_ranks,
    one_sided_p,
    spearman,
)
from controller.rules.blackjack import Action
from controller.rules.cards import Card, shoe
from controller.rules.counting import ShoeCount, spread_units
from controller.rules.options import BLACKJACK_RULES


def test_mid_ranks_share_ties() -> None:
    assert mid_ranks([10, 20, 20, 5]) == [2.0, 3.5, 3.5, 1.0]


def test_spearman_is_one_for_any_increasing_relation_and_none_without_spread() -> None:
    assert spearman([1, 2, 3, 4], [1, 8, 27, 64]) == pytest.approx(1.0)
    assert spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    assert spearman([1, 2, 3, 4], [5, 5, 5, 5]) is None


def test_the_one_sided_p_value_is_the_normal_tail() -> None:
    assert one_sided_p(0.0, 101) == pytest.approx(0.5)
    assert one_sided_p(0.2, 101) == pytest.approx(0.02275, rel=1e-3)  # z = 2


def play(bettor: str, rounds: int, seed: int) -> list[object]:
    """A seat betting at the counts of a shuffled shoe: the alerts the watch raised."""
    rng = random.Random(seed)
    watch = AdvantageWatch("T7", BLACKJACK_RULES, 6)
    count = ShoeCount(6)
    alerts = []
    deck: list[Card] = []
    for round_no in range(1, rounds + 1):
        if len(deck) < 78:
            deck = list(shoe(6))
            rng.shuffle(deck)
            watch.observe(Shuffled(6))
            count = ShoeCount(6)
        units = {"counter": spread_units(count.true_count), "flat": 1,
                 "random": rng.randint(1, 8)}[bettor]
        alert = watch.observe(Wagered(round_no, 3, units * 1000))
        if alert is not None:
            alerts.append(alert)
        for _ in range(10):
            card = deck.pop()
            count = count.exposed(card)
            watch.observe(Exposed(card))
    return alerts


def test_a_seat_whose_wager_follows_the_count_is_flagged_once_naming_its_evidence() -> None:
    alerts = play("counter", 300, seed=1)
    assert len(alerts) == 1
    alert = alerts[0]
    assert alert.seat == 3
    assert alert.p_value < ALERT_P
    assert alert.value > 0.3
    assert alert.first_round == 1
    assert alert.wagers == alert.last_round
    assert len(alert.evidence_rounds) == 10
    record = alert.as_record()
    assert record["table"] == "T7"
    assert record["statistic"] == "spearman_rho"


@pytest.mark.parametrize("bettor", ["flat", "random"])
def test_seats_whose_wager_ignores_the_count_are_not_flagged(bettor: str) -> None:
    for seed in range(3):
        assert play(bettor, 600, seed) == []


def test_insurance_and_departures_are_counted_with_or_against_the_count() -> None:
    watch = AdvantageWatch("T1", BLACKJACK_RULES, 1)
    for card in ["2H", "3H", "4H", "5H", "6H", "2S", "3S"]:  # +7 in one deck: a true count above +3
        watch.observe(Exposed(Card.parse(card)))
    watch.observe(Insured(1, 2, True))
    watch.observe(Decided(1, 2, (Card.parse("TH"), Card.parse("6S")), Card.parse("TD"),
                          frozenset({Action.HIT, Action.STAND}), Action.STAND))
    watch.observe(Decided(1, 2, (Card.parse("TH"), Card.parse("2S")), Card.parse("6D"),
                          frozenset({Action.HIT, Action.STAND}), Action.HIT))
    evidence = watch.seats[2]
    assert (evidence.insurance_with, evidence.insurance_against) == (1, 0)
    assert (evidence.deviations_with, evidence.deviations_against) == (1, 1)
