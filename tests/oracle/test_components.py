"""The product's classifiers against the oracle's, exhaustively where the space is small.

Whole rounds only reach the hands a dealer can draw; these reach every hand.
"""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.rules import baccarat, sidebets
from controller.rules.axman import axman_lines, kings_of_diamonds
from controller.rules.cards import Card, deck
from controller.rules.paytables import Paytables

from . import dealer as oracle

PAYS = Paytables()
DECK = [str(card) for card in deck()]
PAIRS = list(itertools.product(DECK, repeat=2))


def _card(code: str) -> Card:
    return Card.parse(code)


def test_perfect_pairs_every_two_cards() -> None:
    for a, b in PAIRS:
        line = sidebets.perfect_pairs_line(_card(a), _card(b))
        odds = PAYS.perfect_pairs.odds(line).win if line else 0
        assert odds == oracle.perfect_pairs((a, b)), (a, b)


def test_lucky_ladies_every_two_cards() -> None:
    for (a, b), dealer_bj in itertools.product(PAIRS, (False, True)):
        line = sidebets.lucky_ladies_line(_card(a), _card(b), dealer_blackjack=dealer_bj)
        odds = PAYS.lucky_ladies.odds(line).win if line else 0
        assert odds == oracle.lucky_ladies((a, b), dealer_bj), (a, b, dealer_bj)


def test_match_the_dealer_every_two_cards_against_every_up_card_rank() -> None:
    ups = [f"{rank}{suit}" for rank in "A7KT" for suit in "SHDC"]
    for game, tables in oracle.MATCH_TABLES.items():
        pays = PAYS.match_the_dealer_spanish21 if game == "spanish21" else PAYS.match_the_dealer
        for decks in tables:
            for (a, b), up in itertools.product(PAIRS[::7], ups):
                matches = sidebets.match_the_dealer(_card(a), _card(b), _card(up))
                product = pays.for_decks(decks).winnings(matches, 1)
                assert product == oracle.match_the_dealer((a, b), up, game, decks), (a, b, up)


def test_blazing7s_every_combination_of_sevens() -> None:
    sevens = [f"7{suit}" for suit in "SHDC"]
    cards = [*sevens, "KD", "AS"]
    for a, b, up in itertools.product(cards, cards, [*sevens, "8D"]):
        line = sidebets.blazing7s_line(_card(a), _card(b), _card(up))
        expected = oracle.blazing_line((a, b), up)
        if expected is None:
            assert line is None
            continue
        pay = PAYS.blazing7s.pay(line) if line else None
        shown = {"100%": "100%", "10%": "10%"}.get(expected)
        if shown:
            assert str(pay) == shown, (a, b, up)
        else:
            assert str(pay) == f"{oracle.BLAZING_FOR_ONE[expected]} for 1", (a, b, up)


# A dealer's hand holds at most two KD (two make 20, or the second busts it).
AXMAN_CARDS = st.sampled_from(
    ["KD", "KD", "KD", "AS", "AD", "2D", "3D", "4D", "5D", "6D", "TD", "JD", "QD", "KS", "QH",
     "JC", "JS", "2C", "2H", "3S", "9C", "9D", "7H", "8S", "TC"])


@settings(max_examples=300)
@given(st.lists(AXMAN_CARDS, min_size=2, max_size=8).filter(lambda h: h.count("KD") <= 2))
def test_axman_any_dealer_hand(dealer: list[str]) -> None:
    lines = axman_lines([_card(c) for c in dealer])
    best = PAYS.axman.best(lines)
    assert (PAYS.axman.odds(best).win if best else 0) == oracle.axman_odds(dealer), dealer


def test_axman_player_multiplier() -> None:
    for a, b in (("KD", "KD"), ("KD", "AS"), ("AS", "KD"), ("KS", "KH")):
        kings = kings_of_diamonds(_card(a), _card(b))
        assert PAYS.axman.multiplier(kings) == {0: 1, 1: 2, 2: 5}[(a, b).count("KD")]


def test_banker_third_card_table() -> None:
    # RULES.md Midi Baccarat: every banker total against every player third card (or none).
    thirds: list[str | None] = [None, *(f"{rank}S" for rank in "A23456789TJQK")]
    for total, third in itertools.product(range(8), thirds):
        product = baccarat.banker_draws(total, _card(third) if third else None)
        assert product == oracle._banker_draws(total, third), (total, third)
