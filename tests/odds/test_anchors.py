"""Par sheets against published figures for the same pay tables.

Sources:
* Baccarat and Dragon Bonus: Wizard of Odds, "Baccarat - Appendix 5" (Dragon Bonus tables,
  eight decks, with combination counts), https://wizardofodds.com/games/baccarat/appendix/5/ ;
  Banker 1.0579%, Player 1.2351%, Tie (8:1) 14.3596%: Wizard of Odds, "Baccarat".
* Perfect Pairs, pay table A (25/12/6), 8 decks: Wizard of Odds, "Perfect Pairs",
  https://wizardofodds.com/games/blackjack/side-bets/perfect-pairs/
* Lucky Ladies, pay table A (1000/125/19/9/4), 6 decks: Wizard of Odds, "Lucky Ladies",
  https://wizardofodds.com/games/blackjack/side-bets/lucky-ladies
* Match the Dealer, 2 decks 4/19 and 4 decks 4/12: Wizard of Odds, "Match the Dealer",
  https://wizardofodds.com/games/blackjack/side-bets/match-the-dealer/ ; Spanish 21,
  6 decks 4/9: house edge 3.055% (E. Jacobson, "Card Counting the Match the Dealer Side Bet
  in Spanish 21", 888casino blog).
* Dealer outcomes, 1 deck S17: Wizard of Odds, "Blackjack Appendix 2B" (before the peek)
  and "Appendix 2A" (after the peek), https://wizardofodds.com/games/blackjack/appendix/2b/
"""

from fractions import Fraction

import pytest

from controller.odds import baccarat_sheets, dealer_sheets, first_cards
from controller.odds.parsheet import ParSheet
from controller.rules.money import Odds
from controller.rules.options import BaccaratRules
from controller.rules.paytables import (
    BLACKJACK_MATCH_DEFAULT,
    SPANISH21_MATCH_DEFAULT,
    DragonBonusPays,
    LuckyLadiesPays,
    MatchPays,
    MatchTheDealerPays,
    PerfectPairsPays,
)


def by_name(sheet: ParSheet) -> dict[str, Fraction]:
    return {line.name: line.probability for line in sheet.lines}


def edge(sheet: ParSheet) -> float:
    assert sheet.house_edge is not None
    return float(sheet.house_edge)


def test_baccarat_main_wagers_eight_decks() -> None:
    rules = BaccaratRules()
    assert edge(baccarat_sheets.banker(8, rules)) == pytest.approx(0.010579, abs=5e-7)
    assert edge(baccarat_sheets.player(8, rules)) == pytest.approx(0.012351, abs=5e-7)
    assert edge(baccarat_sheets.tie(8, rules)) == pytest.approx(0.143596, abs=5e-7)


# Wizard of Odds' combination counts (out of the 6-card sequences of an 8-deck shoe).
DRAGON_PLAYER = {
    "non-natural win by 9": 18_409_431_764_992, "non-natural win by 8": 34_097_645_543_424,
    "non-natural win by 7": 89_590_261_473_280, "non-natural win by 6": 141_238_897_317_888,
    "non-natural win by 5": 166_169_165_987_840, "non-natural win by 4": 186_780_352_174_080,
    "natural win": 812_685_054_124_032, "natural tie": 89_325_908_267_520,
}
DRAGON_BANKER = {
    "non-natural win by 9": 15_390_342_909_952, "non-natural win by 8": 28_305_092_784_128,
    "non-natural win by 7": 79_517_099_278_336, "non-natural win by 6": 119_200_072_366_080,
    "non-natural win by 5": 157_275_882_332_160, "non-natural win by 4": 201_147_167_287_296,
    "natural win": 812_685_054_124_032, "natural tie": 89_325_908_267_520,
}
SIX_CARD_SEQUENCES = 416 * 415 * 414 * 413 * 412 * 411


@pytest.mark.parametrize(("side", "counts", "house_edge"), [
    ("player", DRAGON_PLAYER, 0.026517), ("banker", DRAGON_BANKER, 0.093731)])
def test_dragon_bonus_matches_published_combinations(side: str, counts: dict[str, int],
                                                     house_edge: float) -> None:
    sheet = baccarat_sheets.dragon(8, DragonBonusPays(), side=side)
    probabilities = by_name(sheet)
    for name, count in counts.items():
        assert probabilities[name] == Fraction(count, SIX_CARD_SEQUENCES), name
    assert edge(sheet) == pytest.approx(house_edge, abs=5e-7)


@pytest.mark.parametrize(("decks", "player", "banker"), [(4, 0.0270, 0.0942),
                                                         (6, 0.0267, 0.0939)])
def test_dragon_bonus_by_deck_count(decks: int, player: float, banker: float) -> None:
    pays = DragonBonusPays()
    assert edge(baccarat_sheets.dragon(decks, pays, side="player")) == pytest.approx(player,
                                                                                     abs=5e-5)
    assert edge(baccarat_sheets.dragon(decks, pays, side="banker")) == pytest.approx(banker,
                                                                                     abs=5e-5)


def test_perfect_pairs_pay_table_a_eight_decks() -> None:
    sheet = first_cards.perfect_pairs(8, PerfectPairsPays())
    total = 86_320  # two-card combinations of 416 cards
    assert by_name(sheet) == {"perfect pair": Fraction(1456, total),
                              "coloured pair": Fraction(1664, total),
                              "mixed pair": Fraction(3328, total),
                              "no pair": Fraction(79_872, total)}
    assert edge(sheet) == pytest.approx(0.040964, abs=5e-7)


def test_perfect_pairs_six_decks() -> None:
    assert edge(first_cards.perfect_pairs(6, PerfectPairsPays())) == pytest.approx(0.0611, abs=5e-5)


def test_lucky_ladies_pay_table_a_six_decks() -> None:
    table_a = LuckyLadiesPays(queen_hearts_pair=Odds(125), matched_20=Odds(19),
                              suited_20=Odds(9))
    sheet = first_cards.lucky_ladies(6, table_a)
    total = 9_294_695_280  # ordered player, player, dealer, dealer sequences of 312 cards
    assert by_name(sheet) == {
        "queen of hearts pair dealer blackjack": Fraction(135_360, total),
        "queen of hearts pair": Fraction(2_738_340, total),
        "matched 20": Fraction(43_105_500, total),
        "suited 20": Fraction(193_112_640, total),
        "any 20": Fraction(744_863_040, total),
        "no 20": Fraction(8_310_740_400, total),
    }
    assert edge(sheet) == pytest.approx(0.247089, abs=5e-7)


@pytest.mark.parametrize(("decks", "permutations", "house_edge"), [
    (2, {"two suited matches": 0, "one suited and one unsuited match": 6,
         "one suited match": 96, "two unsuited matches": 15, "one unsuited match": 576,
         "no match": 4560}, 0.033124),
    (4, {"two suited matches": 3, "one suited and one unsuited match": 36,
         "one suited match": 576, "two unsuited matches": 66, "one unsuited match": 2304,
         "no match": 18_336}, None),
])
def test_match_the_dealer_published_tables(decks: int, permutations: dict[str, int],
                                           house_edge: float | None) -> None:
    pays = MatchTheDealerPays("paytables.match-the-dealer", BLACKJACK_MATCH_DEFAULT)
    sheet = first_cards.match_the_dealer("match-the-dealer", decks, pays.for_decks(decks),
                                       spanish=False)
    total = sum(permutations.values())
    assert by_name(sheet) == {name: Fraction(n, total) for name, n in permutations.items()}
    if house_edge is not None:
        assert edge(sheet) == pytest.approx(house_edge, abs=5e-7)


def test_spanish21_match_the_dealer_six_decks_four_and_nine() -> None:
    pays = MatchTheDealerPays("paytables.match-the-dealer-spanish21",
                              ((6, MatchPays(Odds(4), Odds(9))),))
    sheet = first_cards.match_the_dealer("spanish21-match-the-dealer", 6, pays.for_decks(6),
                                       spanish=True)
    assert edge(sheet) == pytest.approx(0.03055, abs=5e-6)


def test_spanish21_match_the_dealer_posted_table() -> None:
    pays = MatchTheDealerPays("paytables.match-the-dealer-spanish21", SPANISH21_MATCH_DEFAULT)
    sheet = first_cards.match_the_dealer("spanish21-match-the-dealer", 6, pays.for_decks(6),
                                       spanish=True)
    assert sheet.house_edge == Fraction(2112, 41041)


# Wizard of Odds, appendix 2B (unconditioned) and 2A (no dealer blackjack), 1 deck, S17.
APPENDIX_2B_ONE_DECK = {
    1: (0.126128, 0.131003, 0.129486, 0.131553, 0.0515646, 0.313726, 0.11654),
    6: (0.166948, 0.106454, 0.107192, 0.100705, 0.0978785, 0.0, 0.420823),
    10: (0.114418, 0.112879, 0.114662, 0.328879, 0.0364661, 0.0784314, 0.214264),
}
APPENDIX_2A_ONE_DECK = {
    1: (0.183786, 0.19089, 0.18868, 0.191692, 0.075137, 0.169815),
    10: (0.124156, 0.122486, 0.124421, 0.356869, 0.03957, 0.232499),
}


@pytest.mark.parametrize("up", sorted(APPENDIX_2B_ONE_DECK))
def test_dealer_outcomes_match_appendix_2b(up: int) -> None:
    dist = dealer_sheets.up_card_distribution(1, up, hits_soft_17=False)
    names = ("17", "18", "19", "20", "21", "blackjack", "bust")
    got = [float(dist.get(name, Fraction(0))) for name in names]
    assert got == pytest.approx(APPENDIX_2B_ONE_DECK[up], abs=1e-6)


def test_dealer_outcomes_given_no_blackjack_match_appendix_2a() -> None:
    sheet = dealer_sheets.dealer_outcomes(1, hits_soft_17=False)
    rows = {row["up"]: row for row in sheet.extras["by_up_card"]}  # type: ignore[union-attr, index]
    for up, expected in APPENDIX_2A_ONE_DECK.items():
        given = rows["A" if up == 1 else "10"]["totals_given_no_blackjack"]  # type: ignore[index]
        got = [given[name] for name in ("17", "18", "19", "20", "21", "bust")]  # type: ignore[index]
        assert got == pytest.approx(expected, abs=1e-6)
