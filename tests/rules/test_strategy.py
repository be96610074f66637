"""Basic strategy as data: chart cells, fallbacks, and the derivation of the rescue cells."""

from dataclasses import replace
from fractions import Fraction
from functools import cache

import pytest

from controller.rules.blackjack import Action
from controller.rules.cards import Card, parse_cards
from controller.rules.options import BLACKJACK_RULES, SPANISH21_RULES, BlackjackRules
from controller.rules.strategy import (
    SPANISH21_RESCUE,
    UP_CARDS,
    BasicStrategyPolicy,
    Situation,
    StandPolicy,
    basic_strategy,
    chart_code,
)

ALL = frozenset({Action.HIT, Action.STAND, Action.DOUBLE, Action.SPLIT, Action.SURRENDER})
H17 = replace(BLACKJACK_RULES, dealer_hits_soft_17=True)
NO_DAS = replace(BLACKJACK_RULES, double_after_split=False)
SPANISH_H17 = replace(SPANISH21_RULES, dealer_hits_soft_17=True)


@pytest.mark.parametrize(("cards", "up", "rules", "action"), [
    ("TS 6H", "KD", BLACKJACK_RULES, Action.SURRENDER),     # 16 v T: surrender
    ("TS 6H", "7D", BLACKJACK_RULES, Action.HIT),
    ("TS 6H", "6D", BLACKJACK_RULES, Action.STAND),
    ("6S 5H", "AD", BLACKJACK_RULES, Action.HIT),            # 11 v A: S17 hit
    ("6S 5H", "AD", H17, Action.DOUBLE),                     # H17 double
    ("TS 7H", "AD", H17, Action.SURRENDER),                  # 17 v A H17: surrender
    ("AS 7H", "2D", BLACKJACK_RULES, Action.STAND),          # soft 18 v 2: S17 stand
    ("AS 7H", "2D", H17, Action.DOUBLE),                     # H17 double
    ("AS 8H", "6D", H17, Action.DOUBLE),
    ("8S 8H", "AD", H17, Action.SURRENDER),
    ("8S 8H", "TD", BLACKJACK_RULES, Action.SPLIT),
    ("4S 4H", "5D", BLACKJACK_RULES, Action.SPLIT),          # DAS
    ("4S 4H", "5D", NO_DAS, Action.HIT),
    ("9S 9H", "7D", BLACKJACK_RULES, Action.STAND),
    ("TS KH", "6D", BLACKJACK_RULES, Action.STAND),
    ("5S 5H", "9D", BLACKJACK_RULES, Action.DOUBLE),         # fives play as hard 10
    ("AS AH", "AD", BLACKJACK_RULES, Action.SPLIT),
    ("2S 3H", "6D", BLACKJACK_RULES, Action.HIT),
    ("TS 9H", "AD", H17, Action.STAND),                      # hard 18-21 never surrender
    ("9S 9H", "AD", H17, Action.STAND),                      # nines v A: stand on 18
    ("QS 9H", "AD", SPANISH_H17, Action.STAND),
    ("QS 6H", "AD", SPANISH21_RULES, Action.HIT),            # Spanish S17: hit 16 v A
    ("QS 6H", "AD", SPANISH_H17, Action.SURRENDER),          # H17: surrender it
    ("QS 7H", "AD", SPANISH21_RULES, Action.SURRENDER),      # 17 v A: surrender
    ("7S 6H", "5D", SPANISH21_RULES, Action.HIT),            # Spanish: hit 13 v 5
    ("AS 2H", "6D", SPANISH21_RULES, Action.HIT),            # no soft-13 double (no redouble)
    ("AS AH", "AD", SPANISH21_RULES, Action.HIT),            # split aces take one card
    ("TS 2H", "4D", SPANISH21_RULES, Action.HIT),            # Spanish: hit 12 v 4
    ("5S 4H", "6D", SPANISH21_RULES, Action.DOUBLE),
])
def test_chart_cells(cards: str, up: str, rules: BlackjackRules, action: Action) -> None:
    assert basic_strategy(parse_cards(cards), Card.parse(up), ALL, rules).action is action


def test_fallbacks_when_an_action_is_not_open() -> None:
    three_card_11 = parse_cards("2S 4H 5D")
    legal = frozenset({Action.HIT, Action.STAND})
    assert basic_strategy(three_card_11, Card.parse("6C"), legal, BLACKJACK_RULES).action \
        is Action.HIT                                          # D -> hit
    soft_18 = parse_cards("AS 2H 5D")
    assert basic_strategy(soft_18, Card.parse("4C"), legal, BLACKJACK_RULES).action \
        is Action.STAND                                        # Ds -> stand
    assert basic_strategy(parse_cards("TS 6H"), Card.parse("KC"), legal,
                          BLACKJACK_RULES).action is Action.HIT   # Rh -> hit
    assert chart_code(parse_cards("8S 8H"), Card.parse("6C"), BLACKJACK_RULES,
                      can_split=False) == "S"                   # 16 v 6 once split is shut


def test_policies_never_insure() -> None:
    up = Card.parse("AS")
    for policy in (BasicStrategyPolicy(), StandPolicy()):
        choice = policy.insurance(1, parse_cards("AS KD"), up, 1000)
        assert choice.amount == 0
        assert not choice.even_money
    situation = Situation(1, 0, parse_cards("TS 2H"), up, ALL, BLACKJACK_RULES, 1000)
    assert StandPolicy().decide(situation).action is Action.STAND


def test_rescue_decisions() -> None:
    rescue = frozenset({Action.STAND, Action.RESCUE})
    assert basic_strategy(parse_cards("5S 4H 3C"), Card.parse("KC"), rescue,
                          SPANISH21_RULES).action is Action.RESCUE
    assert basic_strategy(parse_cards("5S 4H 3C"), Card.parse("6C"), rescue,
                          SPANISH21_RULES).action is Action.STAND


def _dealer_final(up: int, hits_soft_17: bool) -> dict[str, Fraction]:
    """Dealer final totals for a 48-card deck drawn with replacement, given no blackjack."""
    odds = {value: Fraction(4, 48) for value in range(1, 10)} | {10: Fraction(12, 48)}

    @cache
    def play(hard: int, ace: bool, count: int) -> tuple[tuple[str, Fraction], ...]:
        soft = ace and hard + 10 <= 21
        total = hard + 10 if soft else hard
        if total > 21:
            return (("bust", Fraction(1)),)
        if total >= 17 and not (hits_soft_17 and total == 17 and soft):
            return ((str(total), Fraction(1)),)
        found: dict[str, Fraction] = {}
        for value, chance in odds.items():
            if count == 1 and {up, value} == {1, 10}:
                continue
            for outcome, p in play(hard + value, ace or value == 1, count + 1):
                found[outcome] = found.get(outcome, Fraction(0)) + chance * p
        return tuple(found.items())

    final = dict(play(up, up == 1, 1))
    whole = sum(final.values())
    return {outcome: p / whole for outcome, p in final.items()}


@pytest.mark.parametrize("hits_soft_17", [False, True])
def test_rescue_cells_are_where_standing_is_worth_less_than_a_rescue(hits_soft_17: bool) -> None:
    # Rescue costs 1 unit; standing on the doubled (2-unit) hand is worth 2 x (win - lose).
    derived = set()
    for label in UP_CARDS:
        up = 1 if label == "A" else 10 if label == "T" else int(label)
        final = _dealer_final(up, hits_soft_17)
        for total in range(4, 21):
            win = final.get("bust", Fraction(0)) + sum(
                p for outcome, p in final.items() if outcome != "bust" and int(outcome) < total)
            lose = sum(p for outcome, p in final.items()
                       if outcome != "bust" and int(outcome) > total)
            if 2 * (win - lose) < -1:
                derived.add((total, label))
    assert derived == SPANISH21_RESCUE
