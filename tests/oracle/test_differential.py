"""The product's reference dealer against the independent oracle, over generated stacked shoes.

Every round record (cards, peek, dealer blackjack, every net, the meter) must be identical.
"""

from __future__ import annotations

from hypothesis import given, settings

from .dealer import Table, play_baccarat_shoe, play_blackjack_shoe
from .reference import reference_baccarat_shoe, reference_blackjack_shoe
from .shoes import BlackjackCase, baccarat_seats, blackjack_cases, stacked_shoes


def oracle_blackjack_shoe(case: BlackjackCase) -> list[dict[str, object]]:
    table = Table(case.game, case.decks, case.h17, case.meter, case.reset, case.increment)
    return play_blackjack_shoe(table, case.seats, case.shoe)


@settings(max_examples=400)
@given(blackjack_cases())
def test_blackjack_and_spanish21_rounds_match_the_oracle(case: BlackjackCase) -> None:
    assert reference_blackjack_shoe(case) == oracle_blackjack_shoe(case)


@settings(max_examples=150)
@given(blackjack_cases(games=("blackjack",), max_cards=24))
def test_short_shoes_with_axman_tables_match_the_oracle(case: BlackjackCase) -> None:
    assert reference_blackjack_shoe(case) == oracle_blackjack_shoe(case)


@settings(max_examples=300)
@given(baccarat_seats(), stacked_shoes(8, spanish=False, max_cards=40))
def test_baccarat_coups_match_the_oracle(seats: dict[int, dict[str, int]],
                                         shoe: list[str]) -> None:
    assert reference_baccarat_shoe(seats, shoe) == play_baccarat_shoe(seats, shoe)
