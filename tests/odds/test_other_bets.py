"""Hold'em Bonus, Spanish 21 bonus cards and Blazing 7's against counts worked by hand."""

from fractions import Fraction
from math import comb

import pytest

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
    returned = sum(line.probability * (line.payout.net + 1) for line in sheet.lines)
    assert sheet.house_edge == 1 - returned


def test_blazing7s_meter_must_be_whole_cents() -> None:
    with pytest.raises(OddsError, match="whole number of cents"):
        first_cards.blazing7s(6, Blazing7sPays(), Fraction(1, 1000))
