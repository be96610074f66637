"""Hold'em Bonus, Spanish 21 bonus cards and Blazing 7's against counts worked by hand."""

import json
from fractions import Fraction
from itertools import product
from math import comb, perm

import pytest

from controller.cli import odds_command
from controller.odds import first_cards, holdem, spanish21
from controller.odds.errors import OddsError
from controller.odds.parsheet import ParSheet
from controller.rules.paytables import Blazing7sPays, HoldemBonusPays, Spanish21BonusPays
from controller.service.tableconfig import load_default_table


def probabilities(sheet: ParSheet) -> dict[str, Fraction]:
    return {line.name: line.probability for line in sheet.lines}


def test_holdem_bonus_default_pay_table_is_the_packaged_file() -> None:
    pays = load_default_table().game.paytables.holdem_bonus
    assert pays == HoldemBonusPays()
    assert str(pays.aces_with_dealer_aces) == "1000:1"


def test_holdem_bonus_by_hand_count() -> None:
    sheet = holdem.holdem_bonus(1, HoldemBonusPays())
    hands = Fraction(1, comb(52, 2))
    dealer_aces = Fraction(1, comb(50, 2))
    got = probabilities(sheet)
    assert got["A-A, dealer A-A"] == 6 * hands * dealer_aces
    assert got["A-A"] == 6 * hands * (1 - dealer_aces)
    assert got["A-K suited"] == 4 * hands
    assert got["A-Q or A-J suited"] == 8 * hands
    assert got["A-K unsuited"] == 12 * hands
    assert got["K-K, Q-Q or J-J"] == 18 * hands
    assert got["A-Q or A-J unsuited"] == 24 * hands
    assert got["pair 2-2 to T-T"] == 54 * hands
    paid = (6 * (dealer_aces * 1000 + (1 - dealer_aces) * 30) + 4 * 25 + 8 * 20 + 12 * 15
            + 18 * 10 + 24 * 5 + 54 * 3) * hands
    assert sheet.house_edge == 1 - paid - 126 * hands
    assert float(sheet.house_edge) == pytest.approx(0.085406, abs=5e-7)


def test_holdem_bonus_only_one_deck() -> None:
    with pytest.raises(OddsError, match="one 52-card deck"):
        holdem.holdem_bonus(2, HoldemBonusPays())


def test_spanish21_bonus_cards_by_hand_count() -> None:
    decks = 6
    sheet = spanish21.bonus_cards(decks, Spanish21BonusPays())
    assert sheet.house_edge is None
    got = probabilities(sheet)
    size = 48 * decks
    three = Fraction(1, size * (size - 1) * (size - 2))
    # 6-7-8 all spades: 3! orders x decks^3 physical choices, any up card
    assert got["6-7-8 all spades"] == 6 * decks**3 * three
    # three 7 of spades with a 7 up: 3 specific cards then any of the other 7s
    sevens_left = 4 * decks - 3
    super_spades = decks * (decks - 1) * (decks - 2) * three * Fraction(sevens_left, size - 3)
    assert got["7-7-7 all spades, dealer 7 up: super bonus"] == super_spades
    assert got["7-7-7 all spades, no dealer 7"] == decks * (decks - 1) * (decks - 2) * three \
        - super_spades
    assert sum(got.values()) == 1


def test_blazing7s_three_7d_and_house_edge_at_the_meter() -> None:
    decks = 6
    sheet = first_cards.blazing7s(decks, Blazing7sPays(), Fraction(2000))
    got = probabilities(sheet)
    size = 52 * decks
    assert got["three 7 of diamonds"] == Fraction(decks * (decks - 1) * (decks - 2),
                                                  size * (size - 1) * (size - 2))


def blazing7s_return(decks: int, meter_cents: int, wager: int = 500) -> Fraction:
    """The expected return per unit wagered, by counting every ordered deal of the player's two
    cards and the dealer's up card, read against the seed's table (seed 000, RULES.md):
    three 7D 100% of the meter; three 7s all clubs, spades or hearts 10%; three 7s of one
    colour 500 for 1; any three 7s 200 for 1; the player's two cards 7s 25 for 1; one of them
    a 7, 2 for 1 ("for 1": the stake is not returned on top)."""
    kinds = {"7S": decks, "7H": decks, "7D": decks, "7C": decks, "x": 48 * decks}
    returned, deals = Fraction(0), 0
    for first, second, up in product(kinds, repeat=3):
        left = dict(kinds)
        ways = 1
        for card in (first, second, up):
            ways *= left[card]
            left[card] -= 1
        deals += ways
        sevens = [card for card in (first, second, up) if card != "x"]
        if len(sevens) == 3 and set(sevens) == {"7D"}:
            pays = Fraction(meter_cents, wager)
        elif len(sevens) == 3 and len(set(sevens)) == 1:
            pays = Fraction(meter_cents // 10, wager)  # a tenth, rounded down to the cent
        elif len(sevens) == 3 and len({card in ("7H", "7D") for card in sevens}) == 1:
            pays = Fraction(500)
        elif len(sevens) == 3:
            pays = Fraction(200)
        elif "x" not in (first, second):
            pays = Fraction(25)
        elif (first, second).count("x") == 1:
            pays = Fraction(2)
        else:
            pays = Fraction(0)
        returned += ways * pays
    assert deals == perm(52 * decks, 3)
    return returned / deals


@pytest.mark.parametrize(("decks", "meter"), [(6, None), (8, None), (6, 2001), (8, 123_457)])
def test_blazing7s_house_edge_printed_by_shoectl_odds_is_counted_from_the_cards(
        capsys: pytest.CaptureFixture[str], decks: int, meter: int | None) -> None:
    argv = ["blazing7s", "--decks", str(decks), "--json"]
    if meter is not None:
        argv += ["--meter", str(meter)]
    assert odds_command.main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    meter_cents = data["meter_cents"]
    assert meter_cents == (1_000_000 if meter is None else meter * 500)
    assert Fraction(data["house_edge_exact"]) == 1 - blazing7s_return(decks, meter_cents)


def test_blazing7s_meter_must_be_whole_cents() -> None:
    with pytest.raises(OddsError, match="whole number of cents"):
        first_cards.blazing7s(6, Blazing7sPays(), Fraction(1, 1000))
