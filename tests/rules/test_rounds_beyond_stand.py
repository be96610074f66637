"""Whole rounds through the reference dealer on paths a stand-only replay never reaches.

Table-driven: each case lists the shoe in dealing order (seat cards, up card, second cards,
hole card, then cards in the order hands act, then the dealer's draws), the decisions in the
order they are asked, and the nets worked out by hand from the cited RULES.md line.
"""

from dataclasses import dataclass, field, replace

import pytest

from controller.rules.blackjack import Action, BlackjackTable, Decision, SeatBets
from controller.rules.cards import Card, parse_cards
from controller.rules.dealer import BlackjackRoundResult, play_blackjack_round
from controller.rules.options import BLACKJACK_RULES, COMMUNITY_RULES, SPANISH21_RULES
from controller.rules.paytables import Paytables
from controller.rules.strategy import NO_INSURANCE, InsuranceChoice, Situation

BLACKJACK = BlackjackTable(BLACKJACK_RULES, Paytables(), decks=6)
H17 = BlackjackTable(replace(BLACKJACK_RULES, dealer_hits_soft_17=True), Paytables(), decks=6)
SPANISH = BlackjackTable(SPANISH21_RULES, Paytables(), decks=6)
COMMUNITY = BlackjackTable(COMMUNITY_RULES, Paytables(), decks=8)
H, S, D, P, R, X = (Decision(a) for a in (Action.HIT, Action.STAND, Action.DOUBLE, Action.SPLIT,
                                           Action.SURRENDER, Action.RESCUE))


class Script:
    """Plays the listed decisions in order; records what was legal; insures as told."""

    def __init__(self, decisions: tuple[Decision, ...],
                 insurance: dict[int, InsuranceChoice]) -> None:
        self.decisions = list(decisions)
        self.insurance_choices = insurance
        self.legal: list[frozenset[Action]] = []

    def insurance(self, seat: int, cards: tuple[Card, ...], up_card: Card,
                  wager: int) -> InsuranceChoice:
        return self.insurance_choices.get(seat, NO_INSURANCE)

    def decide(self, situation: Situation) -> Decision:
        self.legal.append(situation.legal)
        return self.decisions.pop(0)


@dataclass(frozen=True)
class Case:
    """One round and what RULES.md says it settles to."""

    name: str
    table: BlackjackTable
    shoe: str
    wagers: tuple[int, ...]
    decisions: tuple[Decision, ...]
    nets: dict[int, list[int]]
    dealer: str | None = None
    side_bets: dict[int, dict[str, int]] = field(default_factory=dict)
    insurance: dict[int, InsuranceChoice] = field(default_factory=dict)
    peek_ok: bool = True


CASES = [
    # RULES.md:82 bonuses only on unsplit, undoubled hands: a split five-card 21 pays 1:1.
    Case("Spanish 21: no five-card bonus after a split", SPANISH,
         "2S 9C 2H 8D 3C 4D 5S 7C 9H", (1000,), (P, H, H, H, S), {1: [1000, -1000]}),
    Case("Spanish 21: six-card 21 pays 2:1", SPANISH, "2S 9C 2H 8D 3C 3D 4S 7H", (1000,),
         (H, H, H, H), {1: [2000]}),
    Case("Spanish 21: seven-card 21 pays 3:1", SPANISH, "2S 9C 2H 8D 2C 2D 3C 3D 7H", (1000,),
         (H, H, H, H, H), {1: [3000]}),
    Case("Spanish 21: mixed 6-7-8 pays 3:2", SPANISH, "6S 9C 7H 8D 8C", (1000,), (H,),
         {1: [1500]}),
    # Three suited 7s without a 7 up: the 7-7-7 one-suit bonus only, no super bonus.
    Case("Spanish 21: suited 7-7-7 without a 7 up pays 2:1 and nothing else", SPANISH,
         "7H 9C 7H 8D 7H", (1000,), (H,), {1: [2000]}, side_bets={1: {}}),
    # RULES.md:84-86 the super bonus needs a 5.00 wager; no award, so no envy either.
    Case("Spanish 21: no super bonus below 5.00", SPANISH, "7H 9S 7C 7H 8S KS 7H",
         (400, 1000), (H, S), {1: [800], 2: [0]}, side_bets={1: {}, 2: {}}),
    # Seed 000: "Bonus payoffs do not apply after splitting or doubling."
    Case("Spanish 21: no super bonus after a split", SPANISH, "7H 7C 7H KS 7H 7H 9H", (1000,),
         (P, H, S), {1: [1000, -1000]}, side_bets={1: {}}),
    # RULES.md:81-83 a player 21 beats a dealer 21 (three cards each): 1:1, no bonus line.
    Case("Spanish 21: three-card 21 beats a dealer 21", SPANISH, "KS 5C 4H 9D 7H 7D", (1000,),
         (H,), {1: [1000]}, dealer="5C 9D 7D"),
    # RULES.md:86-87 doubles pay 1:1 only; a doubled 21 still beats a dealer 21.
    Case("Spanish 21: doubled 21 beats a dealer 21 at 1:1", SPANISH, "5S 5C 6H 9D KD 7D",
         (1000,), (D, S), {1: [2000]}, dealer="5C 9D 7D"),
    # RULES.md:87-88, seed 000: rescue is available on all doubles, also after a split.
    Case("Spanish 21: rescue on a split hand", SPANISH, "8S 9C 8H 8D 3C 2C KH", (1000,),
         (P, D, X, S), {1: [-1000, 1000]}),
    # A double that busts is over: no rescue is offered; every hand decided, no dealer draw.
    Case("Spanish 21: no rescue after a busting double", SPANISH, "8S 9C 6H 5D KH 7C",
         (1000,), (D,), {1: [-2000]}, dealer="9C 5D"),
    Case("Spanish 21: late surrender returns half", SPANISH, "KS 9C 6H 8D", (1000,), (R,),
         {1: [-500]}),
    # RULES.md:18 H17 is a configuration option: the dealer hits A-6.
    Case("H17: the dealer hits a soft 17", H17, "TS AC 8H 6D 4C", (1000,), (S,),
         {1: [-1000]}, dealer="AC 6D 4C"),
    Case("S17: the dealer stands on a soft 17", BLACKJACK, "TS AC 8H 6D 4C", (1000,), (S,),
         {1: [1000]}, dealer="AC 6D"),
    # RULES.md:21 even money is paid 1:1 at once; the dealer still plays for seat 2.
    Case("even money without a dealer blackjack", BLACKJACK, "AS TS AD KH 9S 7C", (1000, 1000),
         (S,), {1: [1000], 2: [1000]}, dealer="AD 7C",
         insurance={1: InsuranceChoice(even_money=True)}),
    # RULES.md:24-26 failed peek: a seat loses only its original wager on the hands still
    # standing; a hand that busted before the reveal stays lost (RULES.md:37).
    Case("failed peek: a busted split hand stays lost", BLACKJACK, "8S AH 8D KC 6C TD 9S",
         (1000,), (P, H, S), {1: [-1000, -1000]}, dealer="AH KC", peek_ok=False),
    Case("failed peek: split and doubled hands lose the original wager only", BLACKJACK,
         "8S KH 8D AC 3C 9S 2D", (1000,), (P, D, S), {1: [-1000, 0]}, dealer="KH AC",
         peek_ok=False),
    # RULES.md community: a blackjack pays 6:5, rounded down to the cent.
    Case("community: 6:5 rounds down", COMMUNITY, "AS 9C KD 8D", (1001,), (), {1: [1201]}),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_round(case: Case) -> None:
    script = Script(case.decisions, case.insurance)
    bets = [SeatBets(seat, wager) for seat, wager in enumerate(case.wagers, start=1)]
    result = play_blackjack_round(case.table, bets, script, iter(parse_cards(case.shoe)),
                                  peek_device_ok=case.peek_ok)
    assert isinstance(result, BlackjackRoundResult)
    assert script.decisions == [], "not every decision was asked for"
    assert {s.seat: [h.net for h in s.hands] for s in result.seats} == case.nets
    if case.dealer is not None:
        assert [str(c) for c in result.dealer] == case.dealer.split()
    for seat, sides in case.side_bets.items():
        assert dict(result.seats[seat - 1].side_bets) == sides


def test_no_rescue_offered_after_a_busting_double_and_rescue_after_a_live_one() -> None:
    busted = Script((D,), {})
    play_blackjack_round(SPANISH, [SeatBets(1, 1000)], busted,
                         iter(parse_cards("8S 9C 6H 5D KH 7C")))
    assert len(busted.legal) == 1  # the double was the only decision asked
    script = Script((P, D, X, S), {})
    play_blackjack_round(SPANISH, [SeatBets(1, 1000)], script,
                         iter(parse_cards("8S 9C 8H 8D 3C 2C KH")))
    assert script.legal[2] == frozenset({Action.STAND, Action.RESCUE})


def test_no_surrender_after_a_failed_peek() -> None:
    # RULES.md:35-36 late surrender comes after the dealer has checked.
    script = Script((S,), {})
    play_blackjack_round(BLACKJACK, [SeatBets(1, 1000)], script,
                         iter(parse_cards("TS KC 6H 7D")), peek_device_ok=False)
    assert Action.SURRENDER not in script.legal[0]
    script = Script((S,), {})
    play_blackjack_round(BLACKJACK, [SeatBets(1, 1000)], script,
                         iter(parse_cards("TS KC 6H 7D")))
    assert Action.SURRENDER in script.legal[0]
