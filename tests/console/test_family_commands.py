"""The console commands only some families take: chosen by the family key, refused elsewhere.

Each family's console view declares the commands only it takes and checks each its own way
(`FamilyView.commands`); at a table of another family the command's reply is the refusal
`COMMANDS` gives, word for word (the replies are a contract scripts read).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.console import commands, credit_commands, station_commands
from controller.console.pit_state import pit_state
from controller.console.station_view import station_now
from controller.console.views import VIEWS, board_state, station_model, view_of
from controller.procedure.families import FAMILIES
from tests.controller.community_helpers import table as community_table
from tests.controller.helpers import runtime

SEATS_WITH_WAGERS = "seats are put in play with wagers at this game (the `wager` command)"
HOLDEM_DECISIONS = "bet, fold and check are the hold'em seats' decisions"
KEYED = "cards are keyed at the console only where the camera reads them (hold'em)"

REFUSED_ELSEWHERE: list[tuple[dict[str, object], str, tuple[str, ...]]] = [
    ({"command": "insurance", "seat": 1, "take": False}, "insurance is not open",
     ("baccarat", "roulette", "holdem")),
    ({"command": "insurance", "seat": 1, "take": True}, "insurance is not open",
     ("baccarat", "roulette", "holdem")),
    ({"command": "stand", "seat": 1}, "this game has no player decisions",
     ("baccarat", "roulette", "holdem")),
    ({"command": "double", "seat": 1}, "this game has no player decisions",
     ("baccarat", "roulette", "holdem")),
    ({"command": "seat", "seat": 1, "in_play": True}, SEATS_WITH_WAGERS,
     ("baccarat", "roulette", "holdem")),
    ({"command": "wager", "seat": 1, "bet": "straight", "cents": 100, "numbers": ["7"]},
     "numbers and which are for roulette wagers", ("blackjack", "baccarat")),
    ({"command": "cancel_wager", "seat": 1, "bet": "straight", "cents": 100},
     "only roulette wagers are taken back at the console", ("blackjack", "baccarat", "holdem")),
    ({"command": "marker", "number": "7"}, "this game has no marker",
     ("blackjack", "baccarat", "holdem")),
    ({"command": "bet", "seat": 1}, HOLDEM_DECISIONS, ("blackjack", "baccarat", "roulette")),
    ({"command": "fold", "seat": 2}, HOLDEM_DECISIONS, ("blackjack", "baccarat", "roulette")),
    ({"command": "key_card", "card": "AS"}, KEYED, ("blackjack", "baccarat", "roulette")),
]


@pytest.mark.parametrize(("command", "error", "games"), REFUSED_ELSEWHERE,
                         ids=[f"{c['command']}-{i}" for i, (c, _, _) in
                              enumerate(REFUSED_ELSEWHERE)])
def test_a_command_of_another_family_is_refused_with_its_words(
        tmp_path: Path, command: dict[str, object], error: str, games: tuple[str, ...]) -> None:
    for game in games:
        table = runtime(tmp_path / game, game)
        reply = commands.execute(table, commands.parse(command))
        assert reply.status == 409, (game, reply)
        assert reply.body["error"] == error, game
        assert reply.body["what_to_do"]


@pytest.mark.parametrize(("game", "command", "error"), [
    ("blackjack", {"command": "stand", "seat": 1}, "no hand is due to act"),
    ("blackjack", {"command": "insurance", "seat": 1, "take": True}, "insurance is not open"),
    ("roulette", {"command": "marker", "number": "7"}, "there is no winning number to mark"),
    ("holdem", {"command": "bet", "seat": 1}, "no seat has a decision to make now"),
    ("holdem", {"command": "key_card", "card": "AS"},
     "no card is due: the round waits for a round"),
])
def test_the_family_that_takes_a_command_checks_it_its_own_way(
        tmp_path: Path, game: str, command: dict[str, object], error: str) -> None:
    reply = commands.execute(runtime(tmp_path, game), commands.parse(command))
    assert (reply.status, reply.body["error"]) == (409, error)


def test_a_view_declares_only_console_commands() -> None:
    for family, view in VIEWS.items():
        unknown = set(view.commands) - set(commands.COMMANDS)
        assert not unknown, f"the {family} view checks {unknown}: no such console command"


def test_the_commands_of_one_family_are_chosen_by_the_tables_family_key(tmp_path: Path) -> None:
    for game in ("blackjack", "baccarat", "roulette", "holdem"):
        table = runtime(tmp_path / game, game)
        assert view_of(table.model) is VIEWS[game]
    assert set(VIEWS["roulette"].commands) == {"wager", "cancel_wager", "marker"}
    assert set(VIEWS["holdem"].commands) == {"wager", "bet", "fold", "check", "key_card"}
    assert {"insurance", "seat", "stand", "double"} <= set(VIEWS["blackjack"].commands)
    assert not VIEWS["baccarat"].commands
    assert not VIEWS["community"].commands
    assert set(VIEWS) == set(FAMILIES)


def test_the_result_board_has_a_wheel_only_at_a_roulette_table(tmp_path: Path) -> None:
    blackjack = board_state(runtime(tmp_path / "blackjack", "blackjack"))
    assert blackjack == {"table": blackjack["table"], "game": "blackjack",
                         "phase": "shoe_loading", "min_wager": blackjack["min_wager"],
                         "max_wager": blackjack["max_wager"], "wheel": None, "last": [],
                         "spins": 0, "window": 0, "percent": {}, "counts": {}, "hot": [],
                         "cold": [], "spin": None}
    wheel = board_state(runtime(tmp_path / "roulette", "roulette"))
    assert wheel["game"] == "roulette"
    assert wheel["wheel"] is not None
    assert list(wheel)[5:] == ["wheel", "wheel_game", "last", "spins", "window", "percent",
                               "counts", "hot", "cold", "spin"]


def test_the_pit_views_family_parts_are_null_at_the_other_families(tmp_path: Path) -> None:
    blackjack = pit_state(runtime(tmp_path / "blackjack", "blackjack"))
    assert (blackjack["wheel_bias"], blackjack["stations"]) == (None, None)
    wheel = pit_state(runtime(tmp_path / "roulette", "roulette"))
    assert wheel["wheel_bias"]["spins"] == 0
    assert wheel["stations"] is None
    keys = list(wheel)
    assert keys[keys.index("rounds_void") + 1:] == ["wheel_bias", "stations", "rejected_hits"]


def test_the_stations_answer_only_where_the_family_is_played_at_them(tmp_path: Path) -> None:
    words = "this table plays no community game"
    blackjack = runtime(tmp_path / "blackjack", "blackjack")
    assert station_model(blackjack.model) is None
    command = station_commands.execute(blackjack, {"command": "stand", "station": 1})
    assert (command.status, command.body) == (409, {"error": words})
    credits = credit_commands.execute(blackjack, credit_commands.parse({"action": "out"}, 1),
                                      "pit:s1")
    assert (credits.status, credits.body) == (409, {"error": words})
    assert station_now(blackjack, 2) == {"station": 2, "error": words}
    community = community_table(tmp_path / "community").rt
    assert station_model(community.model) is community.model
    assert station_now(community, 2)["station"] == 2
    assert "error" not in station_now(community, 2)
