"""Table-driven checks of the insurance limit and of payouts that round (found in review).

* Insurance: RULES.md:19 "up to half the wager"; seed 000 (Blackjack, Insurance): "no more
  than one-half of your original bet ... If the correct amount of insurance cannot be bet due
  to the limitation of the value of chip denomination (i.e., a 7.50 bet allowing a 3.75
  insurance bet), the player may bet up to the closest chip denomination (i.e., 4)".
  So the limit is half, or the closest chip amount when that is more: with 1.00 chips a
  7.50 wager allows 4.00 and a 12.50 wager 6.25; rounding half up to the next chip would
  allow 7.00, more than "closest".
* RULES.md:7 "a payout that comes to a fraction of a cent is rounded down": a payout is
  rounded once. RULES.md:49-52 Match the Dealer "the wager wins the sum" of its matches;
  RULES.md:64-65 AxMan's KD multiplier multiplies the win. With a table's own fractional
  odds, rounding each match (or the win before the multiplier) would lose cents.
"""

from dataclasses import replace

import pytest

from controller.rules.axman import AxManLine
from controller.rules.blackjack import (
    BlackjackTable,
    Phase,
    SeatBets,
    deal,
    insure,
    max_insurance,
    start_round,
)
from controller.rules.cards import parse_cards
from controller.rules.errors import RulesError
from controller.rules.money import Odds
from controller.rules.options import BLACKJACK_RULES
from controller.rules.paytables import AxManPays, MatchPays, Paytables
from controller.rules.sidebets import Matches


@pytest.mark.parametrize(("wager", "chip", "limit"), [
    (750, 100, 400),       # the seed's own example: 3.75 -> the closest chip amount, 4.00
    (1000, 100, 500),      # half is a chip amount: exactly half
    (1500, 100, 800),      # 7.50 lies between 7 and 8: ties go up
    (1250, 100, 625),      # 6.25: the closest chip amount (6.00) is less: half; never 7.00
    (1075, 100, 537),      # 5.375: half rounded down to the cent
    (1001, 100, 500),      # 5.005
    (1001, 1, 501),        # one-cent chips: 5.00 and 5.01 are equally close, ties go up
    (2500, 500, 1500),     # 12.50 with 5.00 chips: 10.00 or 15.00, a tie -> 15.00
    (2400, 500, 1200),     # 12.00 with 5.00 chips: half
    (50, 100, 25),         # a wager below one chip can still insure half
])
def test_insurance_limit_is_half_or_the_closest_chip_amount(wager: int, chip: int,
                                                            limit: int) -> None:
    assert max_insurance(wager, chip) == limit


def test_insure_refuses_more_than_the_closest_chip_amount() -> None:
    round_ = start_round(BlackjackTable(BLACKJACK_RULES, Paytables(), decks=6),
                         [SeatBets(1, 1250)])
    for card in parse_cards("9S AD 7C KH"):
        round_ = deal(round_, card)
    assert round_.phase is Phase.INSURANCE
    assert insure(round_, 1, 625).seat_state(1).insurance == 625
    with pytest.raises(RulesError, match="up to 625"):
        insure(round_, 1, 700)


@pytest.mark.parametrize(("unsuited", "suited", "matches", "wager", "winnings"), [
    (Odds(3), Odds(14), Matches(1, 1), 100, 1700),          # defaults: integer odds
    (Odds(3), Odds(14), Matches(2, 0), 100, 2800),
    (Odds(7, 2), Odds(15, 2), Matches(0, 2), 101, 707),     # 2 x 3.5 x 1.01 = 7.07
    (Odds(7, 2), Odds(15, 2), Matches(1, 1), 101, 1111),    # (3.5 + 7.5) x 1.01 = 11.11
    (Odds(7, 2), Odds(15, 2), Matches(0, 1), 101, 353),     # 3.535 -> 3.53
    (Odds(3), Odds(14), Matches(0, 0), 100, 0),
])
def test_match_the_dealer_wins_the_sum_rounded_once(unsuited: Odds, suited: Odds,
                                                    matches: Matches, wager: int,
                                                    winnings: int) -> None:
    assert MatchPays(unsuited, suited).winnings(matches, wager) == winnings


@pytest.mark.parametrize(("odds", "kings", "wager", "winnings"), [
    (Odds(5), 0, 100, 500),       # defaults: jacks or better 5 to 1
    (Odds(5), 1, 100, 1000),      # one KD doubles the win
    (Odds(5), 2, 100, 2500),      # two KD multiply it by 5
    (Odds(5, 2), 1, 101, 505),    # 2.5 x 1.01 x 2 = 5.05 (rounding first would pay 5.04)
    (Odds(5, 2), 2, 101, 1262),   # 2.5 x 1.01 x 5 = 12.625 -> 12.62
])
def test_axman_multiplier_applies_before_rounding(odds: Odds, kings: int, wager: int,
                                                  winnings: int) -> None:
    pays = replace(AxManPays(), jacks_or_better=odds)
    assert pays.winnings(AxManLine.JACKS_OR_BETTER, wager, kings) == winnings
