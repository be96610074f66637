"""Hand-worked whole blackjack rounds through the reference dealer (RULES.md "Blackjack").

Cards are listed in shoe order: seat cards up (seat 1 first), dealer up, second cards,
dealer hole, then draws in the order players act and the dealer draws.
"""

from collections.abc import Mapping
from dataclasses import replace

import pytest

from controller.rules.blackjack import (
    Action,
    BlackjackTable,
    Decision,
    Phase,
    SeatBets,
    act,
    close_insurance,
    deal,
    insure,
    legal_actions,
    next_position,
    peek,
    start_round,
    take_even_money,
)
from controller.rules.cards import Card, parse_cards
from controller.rules.dealer import BlackjackRoundResult, VoidedRound, play_blackjack_round
from controller.rules.errors import RulesError
from controller.rules.hands import DEALER, Position
from controller.rules.meter import MeterState, ProgressiveSettings
from controller.rules.money import Odds
from controller.rules.options import BLACKJACK_RULES, COMMUNITY_RULES
from controller.rules.paytables import Paytables
from controller.rules.strategy import NO_INSURANCE, InsuranceChoice, Situation

TABLE = BlackjackTable(BLACKJACK_RULES, Paytables(), decks=6)
H, S, D, P, R = (Decision(a) for a in (Action.HIT, Action.STAND, Action.DOUBLE, Action.SPLIT,
                                        Action.SURRENDER))


class Script:
    """A player policy that plays the listed decisions in order and insures as told."""

    def __init__(self, *decisions: Decision,
                 insurance: Mapping[int, InsuranceChoice] | None = None) -> None:
        self.decisions = list(decisions)
        self.insured = dict(insurance or {})
        self.seen: list[Situation] = []

    def insurance(self, seat: int, cards: tuple[Card, ...], up_card: Card,
                  wager: int) -> InsuranceChoice:
        return self.insured.get(seat, NO_INSURANCE)

    def decide(self, situation: Situation) -> Decision:
        self.seen.append(situation)
        return self.decisions.pop(0)


def play(cards: str, bets: list[SeatBets], *decisions: Decision, table: BlackjackTable = TABLE,
         insurance: Mapping[int, InsuranceChoice] | None = None, meter: MeterState | None = None,
         peek_device_ok: bool = True) -> BlackjackRoundResult:
    script = Script(*decisions, insurance=insurance)
    result = play_blackjack_round(table, bets, script, iter(parse_cards(cards)), meter,
                                  peek_device_ok=peek_device_ok)
    assert isinstance(result, BlackjackRoundResult)
    assert script.decisions == [], "not every scripted decision was used"
    assert [str(c) for c in result.cards_used] == cards.split()[:len(result.cards_used)]
    return result


def nets(result: BlackjackRoundResult) -> dict[int, list[int]]:
    return {seat.seat: [hand.net for hand in seat.hands] for seat in result.seats}


def test_win_lose_push_and_double() -> None:
    # RULES.md:15-16 dealing order; :30 double one card; :37 ties push; :18 dealer stands 17.
    result = play("TS 5C 9D 7H 9H 6D 5S TD 8S KS",
                  [SeatBets(1, 1000), SeatBets(2, 1000), SeatBets(3, 1000)],
                  S, D, H)
    assert [str(c) for c in result.dealer] == ["7H", "TD"]
    assert [[str(c) for c in h.cards] for s in result.seats for h in s.hands] == [
        ["TS", "9H"], ["5C", "6D", "8S"], ["9D", "5S", "KS"]]
    # seat 1: 19 v 17 wins; seat 2: doubled 11 -> 19 wins twice; seat 3: 14 hits, busts.
    assert nets(result) == {1: [1000], 2: [2000], 3: [-1000]}
    assert not result.peeked
    assert not result.dealer_blackjack


def test_round_record_matches_decisions_format() -> None:
    result = play("TS 7H 9H TD", [SeatBets(1, 1000, {"perfect-pairs": 500})], S)
    assert result.as_record(4) == {
        "round": 4, "dealer": ["7H", "TD"], "peeked": False, "dealer_blackjack": False,
        "seats": [{"seat": 1, "hands": [{"cards": ["TS", "9H"], "net": 1000}],
                   "side_bets": {"perfect-pairs": -500}}]}


def test_insurance_even_money_and_dealer_blackjack() -> None:
    # RULES.md:19-26: ace up -> insurance (up to half, 2:1) and even money closed before the
    # peek; dealer blackjack: every wager loses except a player blackjack (push).
    result = play("AS 9C AH AD KH 9D QD KC",
                  [SeatBets(1, 1000), SeatBets(2, 1000), SeatBets(3, 1000)],
                  insurance={1: InsuranceChoice(even_money=True), 2: InsuranceChoice(500)})
    assert result.peeked
    assert result.dealer_blackjack
    assert [str(c) for c in result.dealer] == ["AD", "KC"]
    assert nets(result) == {1: [1000], 2: [-1000], 3: [0]}
    assert result.seats[1].side_bets == {"insurance": 1000}
    assert result.seats[0].side_bets == {}


def test_insurance_loses_when_no_dealer_blackjack_and_even_money_stands() -> None:
    result = play("AS 9C AD KH 9D 7C TS",
                  [SeatBets(1, 1000), SeatBets(2, 750)], S,
                  insurance={1: InsuranceChoice(even_money=True), 2: InsuranceChoice(400)})
    # 7.50 wager: 3.75 rounds up to the 1.00 chip: 4.00 (seed 000 insurance example).
    assert not result.dealer_blackjack
    assert result.peeked
    assert nets(result) == {1: [1000], 2: [0]}          # 18 v 18 push
    assert result.seats[1].side_bets == {"insurance": -400}


def test_player_blackjack_paid_3_to_2_and_beats_dealer_three_card_21() -> None:
    # RULES.md lines 27-29: 3:2, and a blackjack beats a three-card 21.
    result = play("AS TC 6C KD 8C 5D TH", [SeatBets(1, 1000), SeatBets(2, 1000)], S)
    assert [str(c) for c in result.dealer] == ["6C", "5D", "TH"]
    assert nets(result) == {1: [1500], 2: [-1000]}


def test_blackjack_under_a_ten_is_paid_after_the_check() -> None:
    result = play("AS KD KS 5C", [SeatBets(1, 1001)])
    assert result.peeked
    assert nets(result) == {1: [1501]}   # 15.015 rounds down
    # The dealer does not draw: every hand is decided and there is no AxMan wager (:38-40).
    assert len(result.dealer) == 2


def test_dealer_draws_for_axman_even_when_every_hand_is_decided() -> None:
    result = play("AS 6C KD TS 5H", [SeatBets(1, 1000, {"axman": 500})])
    assert [str(c) for c in result.dealer] == ["6C", "TS", "5H"]
    assert result.seats[0].side_bets == {"axman": -500}


def test_late_surrender_after_the_check_rounds_down_what_is_returned() -> None:
    # RULES.md:35-36 half the wager, after the check, first action; decisions: cents.
    result = play("9S TS 7C 6H", [SeatBets(1, 1025)], R)
    assert result.peeked
    assert nets(result) == {1: [-513]}


def test_split_resplit_and_double_after_split() -> None:
    # RULES.md:32-34: same value, finish the first hand first, one re-split (3 hands),
    # double after split.
    result = play("8S 6C 8H TD 3C 5D 8D KS 2H 9C TH",
                  [SeatBets(1, 1000)], P, D, P, S, H, S)
    hands = [[str(c) for c in h.cards] for h in result.seats[0].hands]
    assert hands == [["8S", "3C", "5D"], ["8H", "KS"], ["8D", "2H", "9C"]]
    # dealer 6 T = 16 draws TH = 26 bust: every standing hand wins.
    assert [str(c) for c in result.dealer] == ["6C", "TD", "TH"]
    assert nets(result) == {1: [2000, 1000, 1000]}


def test_no_fourth_hand_and_split_aces_get_one_card() -> None:
    round_ = _deal_initial("8S 6C 8H TD", [SeatBets(1, 1000)])
    round_ = act(round_, P)
    round_ = deal(round_, Card.parse("8D"))
    assert Action.SPLIT in legal_actions(round_)
    round_ = act(round_, P)
    round_ = deal(round_, Card.parse("8C"))
    assert Action.SPLIT not in legal_actions(round_)        # three hands at most
    # Aces: once, one card each; A + ten after a split is 21, not blackjack.
    result = play("AS 6C AH TD KD AD 2C", [SeatBets(1, 1000)], P)
    assert [[str(c) for c in h.cards] for h in result.seats[0].hands] == [
        ["AS", "KD"], ["AH", "AD"]]
    assert nets(result) == {1: [1000, -1000]}               # 21 pays 1:1; 12 loses to 18
    assert [str(c) for c in result.dealer] == ["6C", "TD", "2C"]


def test_split_ace_hand_of_21_is_not_blackjack_and_dealer_21_pushes() -> None:
    result = play("AS 7C AH 4D KD QC TD", [SeatBets(1, 1000)], P)
    # dealer 7 4 = 11 + TD = 21: split 21s push.
    assert nets(result) == {1: [0, 0]}


def test_double_for_less_and_not_on_two_card_21() -> None:
    result = play("5S 9C 6H 8D TC", [SeatBets(1, 2500)], Decision(Action.DOUBLE, 1000))
    assert nets(result) == {1: [3500]}
    assert result.seats[0].hands[0].wager == 3500
    strict = replace(TABLE, rules=replace(BLACKJACK_RULES, double_for_less=False))
    round_ = _deal_initial("5S 9C 6H 8D", [SeatBets(1, 2500)], table=strict)
    with pytest.raises(RulesError, match=r"a double is 1\.\.2500"):
        act(round_, Decision(Action.DOUBLE, 1000))


def test_surrender_not_after_split_and_double_after_split_optional() -> None:
    round_ = _deal_initial("8S 9C 8H 7D", [SeatBets(1, 1000)])
    assert Action.SURRENDER in legal_actions(round_)
    round_ = deal(act(round_, P), Card.parse("3C"))
    assert Action.SURRENDER not in legal_actions(round_)
    assert Action.DOUBLE in legal_actions(round_)
    no_das = replace(TABLE, rules=replace(BLACKJACK_RULES, double_after_split=False))
    round_ = deal(act(_deal_initial("8S 9C 8H 7D", [SeatBets(1, 1000)], table=no_das), P),
                  Card.parse("3C"))
    assert Action.DOUBLE not in legal_actions(round_)


def test_failed_peek_collects_only_the_original_wager() -> None:
    # RULES.md:24-26, R6, 633a.11(d): a blackjack found after players split or doubled.
    result = play("5S 8C TS AH 6S 8D 9H KC 9D 3C 4S 5D",
                  [SeatBets(1, 1000), SeatBets(2, 1000), SeatBets(3, 1000)],
                  D, P, S, S, H, peek_device_ok=False)
    assert not result.peeked
    assert result.dealer_blackjack
    assert [str(c) for c in result.dealer] == ["AH", "KC"]
    # seat 1 doubled 11 -> 20: loses only 10.00; seat 2 split 8s: loses 10.00 in all;
    # seat 3 hit 19 and busted before the reveal: that loss stands.
    assert nets(result) == {1: [-1000], 2: [-1000, 0], 3: [-1000]}


def test_blazing7s_two_winners_one_round_counter_clockwise() -> None:
    # decision 105 "Meter": the 100% winner at seat 3 is paid first, seat 1 from the reset.
    meter = MeterState(1_234_567, ProgressiveSettings(reset=1_000_000, increment=100))
    table = replace(TABLE, decks=8)
    bets = [SeatBets(1, 1000, {"blazing7s": 500}), SeatBets(3, 1000, {"blazing7s": 500})]
    result = play("7D 7D 7D 7D 7D 9S TS", bets, S, S, table=table, meter=meter)
    assert result.seats[1].side_bets == {"blazing7s": 1_234_767 - 500}
    assert result.seats[0].side_bets == {"blazing7s": 1_000_000 - 500}
    assert result.meter is not None
    assert result.meter.amount == 1_000_000
    assert result.as_record(1)["meter"] == 1_000_000


def test_blazing7s_lines_and_meter_rise() -> None:
    meter = MeterState(1_000_000, ProgressiveSettings(reset=1_000_000, increment=100))
    bets = [SeatBets(n, 1000, {"blazing7s": 500}) for n in (1, 2, 3)]
    # seat 1 7S 7S, seat 2 7H 7D, seat 3 7C 2C; dealer 7S up: 10% of the meter, three 7s
    # (two red, one black: 200 for 1), one 7 (2 for 1).
    result = play("7S 7H 7C 7S 7S 7D 2C 9S TS", bets, S, S, S, meter=meter)
    assert result.seats[0].side_bets == {"blazing7s": 100_030 - 500}
    assert result.seats[1].side_bets == {"blazing7s": 100_000 - 500}
    assert result.seats[2].side_bets == {"blazing7s": 1_000 - 500}
    assert result.meter is not None
    assert result.meter.amount == 1_000_300 - 100_030


def test_side_wagers_settle_on_the_first_two_cards() -> None:
    # Lucky Ladies top line needs the dealer blackjack (RULES.md:45-48).
    bets = [SeatBets(1, 1000, {"lucky-ladies": 500, "perfect-pairs": 500,
                               "match-the-dealer": 500})]
    result = play("QH KS QH AC", bets)
    assert result.dealer_blackjack
    assert result.seats[0].side_bets == {"lucky-ladies": 500_000, "perfect-pairs": 12_500,
                                         "match-the-dealer": -500}
    assert nets(result) == {1: [-1000]}


def test_axman_with_player_kings_of_diamonds() -> None:
    # Dealer Q Q stands on 20: a jacks-or-better pair, 5:1, x5 for two KD (RULES.md:62-64).
    result = play("KD QS KD QH", [SeatBets(1, 1000, {"axman": 200})], S)
    assert result.seats[0].side_bets == {"axman": 5 * 200 * 5}
    assert nets(result) == {1: [0]}


def test_out_of_cards_is_a_voided_round() -> None:
    result = play_blackjack_round(TABLE, [SeatBets(1, 1000)], Script(H),
                                  iter(parse_cards("TS 6C 5H 9D")))
    assert isinstance(result, VoidedRound)
    assert [str(c) for c in result.cards_used] == ["TS", "6C", "5H", "9D"]


def test_community_game_six_to_five_and_ten_card_charlie() -> None:
    # RULES.md "Community-card multi-hand blackjack": 6:5, ten-card Charlie wins 1:1.
    table = BlackjackTable(COMMUNITY_RULES, Paytables(), decks=8)
    result = play("AS TC KD KS 9H 7C", [SeatBets(1, 1000), SeatBets(2, 1000)], S, table=table)
    assert nets(result) == {1: [1200], 2: [1000]}
    charlie = "AS TC AD 7D AH AC 2S 2H 2C 2D 3S 3H"
    hits = [H] * 8
    result = play(charlie, [SeatBets(1, 500)], *hits, table=table)
    hand = result.seats[0].hands[0]
    assert len(hand.cards) == 10
    assert hand.net == 500
    assert [str(c) for c in result.dealer] == ["TC", "7D"]     # decided: dealer stands pat


def test_community_one_split_and_no_double_on_split_aces() -> None:
    table = BlackjackTable(COMMUNITY_RULES, Paytables(), decks=8)
    round_ = _deal_initial("8S 9C 8H 7D", [SeatBets(1, 1000)], table=table)
    round_ = deal(act(round_, P), Card.parse("8C"))
    assert Action.SPLIT not in legal_actions(round_)
    assert Action.SURRENDER not in legal_actions(round_)
    assert Odds(6, 5).winnings(251) == 301
    # Split aces take one card each and are over: no double, no decision at all.
    round_ = act(_deal_initial("AS 9C AH 7D", [SeatBets(1, 1000)], table=table), P)
    round_ = deal(deal(round_, Card.parse("5C")), Card.parse("6D"))
    assert legal_actions(round_) == frozenset()
    assert round_.phase is Phase.DEALER


def test_step_errors() -> None:
    round_ = start_round(TABLE, [SeatBets(2, 1000)])
    assert next_position(round_) == Position(2)
    with pytest.raises(RulesError, match="not allowed now"):
        act(round_, S)
    with pytest.raises(RulesError, match="insurance is not open"):
        insure(round_, 2, 100)
    round_ = _deal_initial("AS AH KD 7C", [SeatBets(2, 1000)])
    assert round_.phase is Phase.INSURANCE
    assert next_position(round_) is None
    with pytest.raises(RulesError, match="insurance of 600 not allowed"):
        insure(round_, 2, 600)
    with pytest.raises(RulesError, match="no hole-card check is due"):
        peek(round_)
    round_ = close_insurance(take_even_money(round_, 2))
    assert round_.phase is Phase.PEEK
    round_ = peek(round_)
    assert round_.phase is Phase.COMPLETE
    with pytest.raises(RulesError, match="no card is due"):
        deal(round_, Card.parse("2S"))


@pytest.mark.parametrize(("bets", "message"), [
    ([], "at least one seat"),
    ([SeatBets(1, 100), SeatBets(1, 100)], "a seat appears twice"),
    ([SeatBets(1, 0)], "a wager above 0"),
    ([SeatBets(1, 100, {"blazing7s": 100})], "fixed at 500"),
    ([SeatBets(1, 100, {"dragon-bonus": 100})], "offers no 'dragon-bonus'"),
    ([SeatBets(1, 100, {"perfect-pairs": 0})], "must be above 0"),
])
def test_bad_wagers_are_refused(bets: list[SeatBets], message: str) -> None:
    with pytest.raises(RulesError, match=message):
        start_round(TABLE, bets)


def test_axman_needs_six_or_eight_decks() -> None:
    with pytest.raises(RulesError, match="6- or 8-deck"):
        start_round(replace(TABLE, decks=4), [SeatBets(1, 100, {"axman": 100})])


def test_dealer_position_and_hole_card() -> None:
    round_ = start_round(TABLE, [SeatBets(1, 1000)])
    round_ = deal(round_, Card.parse("TS"))
    assert next_position(round_) == Position(DEALER)
    round_ = deal(deal(round_, Card.parse("6C")), Card.parse("5H"))
    assert next_position(round_) == Position(DEALER, hole=True)


def _deal_initial(cards: str, bets: list[SeatBets], table: BlackjackTable = TABLE):
    round_ = start_round(table, bets)
    for card in parse_cards(cards):
        round_ = deal(round_, card)
    if round_.phase is Phase.PEEK:
        round_ = peek(round_)
    return round_
