"""Hand-worked Spanish 21 and baccarat rounds through the reference dealer."""

from collections.abc import Iterator

import pytest

from controller.rules.baccarat import BaccaratSeat, Outcome
from controller.rules.blackjack import (
    Action,
    BlackjackTable,
    Decision,
    SeatBets,
    deal,
    start_round,
)
from controller.rules.cards import Card, parse_cards
from controller.rules.dealer import (
    BaccaratRoundResult,
    BlackjackRoundResult,
    VoidedRound,
    play_baccarat_round,
    play_blackjack_round,
)
from controller.rules.errors import RulesError
from controller.rules.options import SPANISH21_RULES, BaccaratRules
from controller.rules.paytables import DragonBonusPays, Paytables
from controller.rules.strategy import NO_INSURANCE, InsuranceChoice, Situation

SPANISH = BlackjackTable(SPANISH21_RULES, Paytables(), decks=6)
H, S, D = (Decision(a) for a in (Action.HIT, Action.STAND, Action.DOUBLE))
RESCUE = Decision(Action.RESCUE)


class Script:
    def __init__(self, *decisions: Decision) -> None:
        self.decisions = list(decisions)
        self.legal: list[frozenset[Action]] = []

    def insurance(self, seat: int, cards: tuple[Card, ...], up_card: Card,
                  wager: int) -> InsuranceChoice:
        return NO_INSURANCE

    def decide(self, situation: Situation) -> Decision:
        self.legal.append(situation.legal)
        return self.decisions.pop(0)


def cards_of(text: str) -> Iterator[Card]:
    return iter(parse_cards(text))


def spanish(cards: str, bets: list[SeatBets], *decisions: Decision) -> BlackjackRoundResult:
    script = Script(*decisions)
    result = play_blackjack_round(SPANISH, bets, script, cards_of(cards))
    assert isinstance(result, BlackjackRoundResult)
    assert script.decisions == []
    return result


def nets(result: BlackjackRoundResult) -> dict[int, list[int]]:
    return {seat.seat: [hand.net for hand in seat.hands] for seat in result.seats}


def test_five_card_21_bonus_and_player_21_beats_dealer_21() -> None:
    # RULES.md:81-83: a player 21 beats a dealer 21; 21 with 5 cards pays 3:2.
    result = spanish("2S 9C 3H 5D 4D 5C 7S 7H", [SeatBets(1, 1000)], H, H, H)
    assert [str(c) for c in result.dealer] == ["9C", "5D", "7H"]
    assert nets(result) == {1: [1500]}


def test_six_seven_eight_all_spades() -> None:
    result = spanish("6S 9C 7S 8D 8S", [SeatBets(1, 1000)], H)
    assert nets(result) == {1: [3000]}


@pytest.mark.parametrize(("wager", "award"), [(1000, 100_000), (2500, 500_000)])
def test_super_bonus_and_envy(wager: int, award: int) -> None:
    # RULES.md:84-87: three suited 7s v a dealer 7 up: the fixed award, plus 50.00 envy to
    # every other player with a wager; the 7-7-7 suited hand itself pays 2:1.
    result = spanish("7H 9C 7D 7H 8C KS 7H", [SeatBets(1, wager), SeatBets(2, 1000)], H, S)
    assert nets(result) == {1: [2 * wager], 2: [0]}
    assert result.seats[0].side_bets == {"super-bonus": award}
    assert result.seats[1].side_bets == {"envy": 5_000}
    assert result.as_record(1)["seats"][1]["side_bets"] == {"envy": 5_000}  # type: ignore[index]


def test_no_super_bonus_after_doubling() -> None:
    # 7H 7H doubled receives 7H: 21 paid 1:1 on the doubled wager, no bonus of any kind.
    result = spanish("7H 9C 7D 7H 8C KS 7H", [SeatBets(1, 1000), SeatBets(2, 1000)], D, S, S)
    assert nets(result) == {1: [2000], 2: [0]}
    assert result.seats[0].side_bets == {}
    assert result.seats[1].side_bets == {}


def test_player_blackjack_beats_dealer_blackjack() -> None:
    # RULES.md:80-81, R6: a player blackjack always wins 3:2.
    result = spanish("AS KD AH KS QD QC", [SeatBets(1, 1000), SeatBets(2, 1000)])
    assert result.peeked
    assert result.dealer_blackjack
    assert nets(result) == {1: [1500], 2: [-1000]}


def test_double_down_rescue() -> None:
    # RULES.md:87-88: after the doubled card, a hand of 21 or less may take back the double
    # and forfeit the original wager.
    script = Script(D, RESCUE)
    result = play_blackjack_round(SPANISH, [SeatBets(1, 1000)], script,
                                  cards_of("5S 9C 4S 8D 3C"))
    assert isinstance(result, BlackjackRoundResult)
    assert script.legal[1] == frozenset({Action.STAND, Action.RESCUE})
    assert nets(result) == {1: [-1000]}
    assert result.seats[0].hands[0].wager == 2000
    # Every player hand is decided: the dealer stands pat on 17.
    assert [str(c) for c in result.dealer] == ["9C", "8D"]


def test_double_on_any_number_of_cards_pays_one_to_one() -> None:
    # RULES.md:86-87: double on any number of cards, 1:1 only (no 5-card bonus after it).
    script = Script(H, H, D, S)
    result = play_blackjack_round(SPANISH, [SeatBets(1, 1000)], script,
                                  cards_of("2S 9C 3H 8D 4D 2C KS"))
    assert isinstance(result, BlackjackRoundResult)
    assert Action.DOUBLE in script.legal[2]
    assert nets(result) == {1: [2000]}


def test_spanish_peek_under_faces_only_and_no_tens_in_the_shoe() -> None:
    result = spanish("9S JC 8H 7D", [SeatBets(1, 1000)], S)
    assert result.peeked
    result = spanish("9S 5C 8H 7D 9D", [SeatBets(1, 1000)], S)
    assert not result.peeked
    with pytest.raises(RulesError, match="no tens"):
        deal(start_round(SPANISH, [SeatBets(1, 1000)]), Card.parse("TS"))


# --------------------------------------------------------------------- baccarat


def test_baccarat_round_through_the_reference_dealer() -> None:
    seats = [BaccaratSeat(2, {"player": 1000, "tie": 500}),
             BaccaratSeat(1, {"banker": 2500, "dragon-banker": 500})]
    result = play_baccarat_round(BaccaratRules(), DragonBonusPays(), seats,
                                 cards_of("AS 3H 2D KC 9S 5D 7C"))
    assert isinstance(result, BaccaratRoundResult)
    assert result.result is Outcome.BANKER
    assert result.as_record(7) == {
        "round": 7, "player": ["AS", "2D", "9S"], "banker": ["3H", "KC", "5D"],
        "result": "banker",
        "seats": [{"seat": 1, "bets": {"banker": 2375, "dragon-banker": 2000}},
                  {"seat": 2, "bets": {"player": -1000, "tie": -500}}]}
    assert [str(c) for c in result.cards_used] == ["AS", "3H", "2D", "KC", "9S", "5D"]


def test_baccarat_out_of_cards_is_void() -> None:
    result = play_baccarat_round(BaccaratRules(), DragonBonusPays(),
                                 [BaccaratSeat(1, {"banker": 100})], cards_of("AS 3H 2D"))
    assert isinstance(result, VoidedRound)
