"""Hypothesis properties of the rules (kept small: the machine is shared)."""

import random
from itertools import product

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.rules.baccarat import BaccaratSeat, Coup, baccarat_total, deal_card, next_side
from controller.rules.blackjack import Action, BlackjackTable, Decision, SeatBets
from controller.rules.cards import Card, Rank, Suit, shoe
from controller.rules.dealer import BlackjackRoundResult, play_baccarat_round, play_blackjack_round
from controller.rules.hands import Game, hand_value
from controller.rules.meter import (
    MeterState,
    ProgressiveSettings,
    ProgressiveWin,
    settle_progressive,
)
from controller.rules.money import ForOne, MeterShare
from controller.rules.options import BLACKJACK_RULES, SPANISH21_RULES, BaccaratRules
from controller.rules.paytables import DragonBonusPays, Paytables
from controller.rules.strategy import InsuranceChoice, Situation

cards = st.builds(Card, st.sampled_from(list(Rank)), st.sampled_from(list(Suit)))


@given(st.lists(cards, min_size=6, max_size=6))
def test_baccarat_ends_with_at_most_three_cards_a_hand(six: list[Card]) -> None:
    coup = Coup()
    for card in six:
        if next_side(coup) is None:
            break
        coup = deal_card(coup, card)
    assert coup.complete
    assert 2 <= len(coup.player) <= 3
    assert 2 <= len(coup.banker) <= 3
    assert len(coup.banker) == 2 or len(coup.player) in (2, 3)
    if baccarat_total(coup.player[:2]) >= 8 or baccarat_total(coup.banker[:2]) >= 8:
        assert len(coup.player) == len(coup.banker) == 2


@given(st.lists(cards, min_size=1, max_size=9))
def test_hand_value_is_the_max_non_busting_total(hand: list[Card]) -> None:
    choices = [(1, 11) if c.rank is Rank.ACE else (c.rank.points,) for c in hand]
    totals = {sum(pick) for pick in product(*choices)}
    fitting = [t for t in totals if t <= 21]
    value = hand_value(hand)
    assert value.total == (max(fitting) if fitting else min(totals))
    assert value.soft == (value.total != sum(c.rank.points for c in hand))


class RandomPlayer:
    """Any legal decision, any allowed insurance - chosen by hypothesis."""

    def __init__(self, data: st.DataObject, *, even_money: bool = True) -> None:
        self.data = data
        self.even_money = even_money  # Spanish 21 offers no even money

    def insurance(self, seat: int, hand: tuple[Card, ...], up_card: Card,
                  wager: int) -> InsuranceChoice:
        if self.even_money and hand_value(hand).total == 21 and self.data.draw(st.booleans()):
            return InsuranceChoice(even_money=True)
        return InsuranceChoice(self.data.draw(st.sampled_from([0, wager // 2])))

    def decide(self, situation: Situation) -> Decision:
        action = self.data.draw(st.sampled_from(sorted(situation.legal)))
        if action is Action.DOUBLE:
            return Decision(action, self.data.draw(st.integers(1, situation.stake)))
        return Decision(action)


SIDE_BETS = {Game.BLACKJACK: {"perfect-pairs": 100, "lucky-ladies": 100,
                              "match-the-dealer": 100, "axman": 100, "blazing7s": 500},
             Game.SPANISH21: {"match-the-dealer": 100}}


@settings(max_examples=80)
@given(st.data(), st.sampled_from([Game.BLACKJACK, Game.SPANISH21]),
       st.integers(0, 2**32), st.lists(st.integers(1, 5_000), min_size=1, max_size=7))
def test_no_cent_is_created_or_lost(data: st.DataObject, game: Game, seed: int,
                                    wagers: list[int]) -> None:
    rules = BLACKJACK_RULES if game is Game.BLACKJACK else SPANISH21_RULES
    table = BlackjackTable(rules, Paytables(), decks=8)
    deck = list(shoe(8, spanish=game is Game.SPANISH21))
    random.Random(seed).shuffle(deck)
    bets = [SeatBets(n, w, SIDE_BETS[game]) for n, w in enumerate(wagers, start=1)]
    settings_ = ProgressiveSettings(reset=1_000_000, increment=100)
    before = MeterState(1_500_000, settings_)
    player = RandomPlayer(data, even_money=rules.even_money)
    result = play_blackjack_round(table, bets, player, iter(deck), before)
    assert isinstance(result, BlackjackRoundResult)
    for bet, seat in zip(bets, result.seats, strict=True):
        for hand in seat.hands:
            returned = hand.wager + hand.net
            assert isinstance(hand.net, int)
            assert 0 <= returned <= 4 * hand.wager
        for name, net in seat.side_bets.items():
            if name in bet.side_bets:
                assert net >= -bet.side_bets[name]
            elif name == "insurance":
                assert -bet.wager <= net <= 2 * bet.wager
        if result.dealer_blackjack:
            assert sum(h.net for h in seat.hands) >= -sum(h.wager for h in seat.hands)
    _meter_balances(result, before, len(bets) if game is Game.BLACKJACK else 0)


def _meter_balances(result: BlackjackRoundResult, before: MeterState, accepted: int) -> None:
    # With no meter-share hit the meter rose by exactly one increment per accepted wager.
    assert result.meter is not None
    raised = before.amount + accepted * before.settings.increment
    fixed = {0, 2 * 500, 25 * 500, 200 * 500, 500 * 500}
    if all(s.side_bets.get("blazing7s", -500) + 500 in fixed for s in result.seats):
        assert result.meter.amount == raised
    else:
        assert result.meter.amount < raised


PAYS = st.sampled_from([None, MeterShare(10), MeterShare(100), ForOne(25), ForOne(500)])


@given(st.integers(1_000, 10**8), st.lists(st.tuples(st.integers(1, 9), PAYS), max_size=7,
                                            unique_by=lambda win: win[0]))
def test_the_meter_pays_out_exactly_what_it_loses(amount: int,
                                                  wins: list[tuple[int, object]]) -> None:
    settings_ = ProgressiveSettings(reset=1_000_000, increment=100)
    after, nets = settle_progressive(
        MeterState(amount, settings_),
        [ProgressiveWin(seat, 500, pay) for seat, pay in wins])  # type: ignore[arg-type]
    expected = amount
    for seat, pay in sorted(wins, key=lambda win: -win[0]):
        returned = nets[seat] + 500
        if pay == MeterShare(100):
            assert returned == expected
            expected = settings_.reset
        elif pay == MeterShare(10):
            assert returned == expected // 10
            expected -= returned
    assert after.amount == expected


@settings(max_examples=40)
@given(st.integers(0, 2**32), st.integers(1, 10_000), st.integers(1, 10_000))
def test_baccarat_nets_are_whole_cents_and_bounded(seed: int, banker: int, tie: int) -> None:
    deck = list(shoe(8))
    random.Random(seed).shuffle(deck)
    seat = BaccaratSeat(1, {"banker": banker, "tie": tie, "dragon-banker": banker})
    result = play_baccarat_round(BaccaratRules(), DragonBonusPays(), [seat], iter(deck))
    nets = result.seats[1]  # type: ignore[union-attr]
    assert -banker <= nets["banker"] <= banker
    assert nets["tie"] in (-tie, 8 * tie)
    assert -banker <= nets["dragon-banker"] <= 30 * banker
