"""The simulation's players: strategies by seat, the counter's spread and what it counts."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.journal.store import JournalStore
from controller.procedure.core.effects import Journal
from controller.rules.errors import ConfigError
from controller.rules.options import BLACKJACK_RULES
from controller.sim.players import Players, Spread, parse_strategies


def test_one_strategy_for_every_seat_or_one_a_seat() -> None:
    assert parse_strategies("counter", 3) == ("counter",) * 3
    assert parse_strategies("counter, basic,random", 3) == ("counter", "basic", "random")
    with pytest.raises(ConfigError, match="'lucky' is no strategy"):
        parse_strategies("lucky", 2)
    with pytest.raises(ConfigError, match="2 strategies for 3 seats"):
        parse_strategies("counter,basic", 3)


@pytest.mark.parametrize(("text", "problem"), [("8", "LOW-HIGH"), ("8-1", "LOW <= HIGH"),
                                               ("0-8", "1 <= LOW"), ("1-x", "LOW-HIGH")])
def test_a_bad_spread_is_one_line(text: str, problem: str) -> None:
    with pytest.raises(ConfigError, match=problem):
        Spread.parse(text)


def test_the_spread_runs_from_low_up_to_plus_one_to_high_from_plus_five() -> None:
    spread = Spread.parse("1-8")
    assert [spread.units(tc) for tc in (-2, 1.5, 2, 3, 4, 5, 9)] == [1, 1, 2, 4, 6, 8, 8]
    assert [Spread(2, 4).units(tc) for tc in (0, 3, 5)] == [2, 2, 4]


def test_a_counter_bets_by_the_count_it_read_from_the_journal(tmp_path: Path) -> None:
    journal = JournalStore(tmp_path / "state", clock=lambda: 1.0, durable=False)
    players = Players(("counter", "basic", "random"), Spread(1, 8), BLACKJACK_RULES, 1, seed=3)
    journal.commit([Journal("shoe:shuffled", {"decks": 1, "shuffle": 1})], None)
    for card, to in (("2H", [1, 0, False]), ("3H", [2, 0, False]), ("4H", [0, 0, False]),
                     ("5H", [1, 0, False]), ("6H", [2, 0, False]), ("KS", [0, 0, True])):
        journal.commit([Journal("card:dealt", {"round": 1, "to": to, "card": card})], None)
    players.catch_up(journal)
    assert players.count().running == 5  # the hole card is not counted until it is turned
    assert players.main_cents(1, 1000) == 8000  # +5 with 46 cards left: above +5
    assert players.main_cents(2, 1000) == 1000
    assert 1000 <= players.main_cents(3, 1000) <= 8000
    journal.commit([Journal("card:hole_revealed", {"round": 1, "card": "KS"})], None)
    players.catch_up(journal)
    assert players.count().running == 4  # read once, the new row only
    players.catch_up(journal)
    assert players.count().running == 4
    journal.close()
