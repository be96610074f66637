"""`[devices.layout]` names are the game's: a misspelt lamp, bet sensor or button is refused.

Each family's known names come from the code that lights or reads them (`Family.channels`);
the check (`controller.service.layout_names`) names the section, the key and the nearest
known name in one line.
"""

import re
from dataclasses import replace
from pathlib import Path

import pytest

from controller.procedure.families import FAMILIES, family_of
from controller.procedure.shared import meter_books
from controller.procedure.shared.setup import Setup
from controller.rules.errors import ConfigError
from controller.rules.hands import Game
from controller.rules.options import GameConfig
from controller.service.layout_names import check_layout_names
from controller.service.tableconfig import load_default_table
from drivers.config import LayoutConfig

SIDE_BETS = {Game.SPANISH21: ("match-the-dealer",), Game.BACCARAT: ("dragon-bonus",),
             Game.ROULETTE: (), Game.HOLDEM: (), Game.COMMUNITY: ()}


def game_config(game: Game, seats: int = 7) -> GameConfig:
    base = load_default_table().game
    table = replace(base.table, game=game, seats=seats,
                    decks=8 if game is Game.BACCARAT else 6,
                    side_bets=SIDE_BETS.get(game, base.table.side_bets))
    return replace(base, table=table)


def layout(lamps: tuple[str, ...] = ("fault",), sensors: tuple[str, ...] = (),
           buttons: tuple[str, ...] = ()) -> LayoutConfig:
    def numbered(names: tuple[str, ...]) -> dict[str, int]:
        return {name: number for number, name in enumerate(names)}
    return LayoutConfig("layout", "emulated", numbered(lamps), numbered(sensors),
                        numbered(buttons))


def refusal(game: Game, config: LayoutConfig) -> str:
    with pytest.raises(ConfigError) as caught:
        check_layout_names(game_config(game), config)
    return str(caught.value)


def test_a_misspelt_bet_sensor_is_refused_with_the_nearest_name() -> None:
    line = refusal(Game.BLACKJACK, layout(sensors=("seat1.main", "seat1.mian")))
    assert line == ("[devices.layout] bet_sensors.seat1.mian: not a bet sensor of a blackjack "
                    "table with 7 seats; nearest: seat1.main")


def test_a_misspelt_button_is_refused_with_the_nearest_name() -> None:
    line = refusal(Game.BLACKJACK, layout(buttons=("no_more_bets", "stnd")))
    assert line == ("[devices.layout] buttons.stnd: not a button of a blackjack table with "
                    "7 seats; nearest: stand")


def test_a_misspelt_lamp_is_refused_with_the_nearest_name() -> None:
    line = refusal(Game.BLACKJACK, layout(lamps=("fault", "no_more_bet")))
    assert line == ("[devices.layout] lamps.no_more_bet: not a lamp of a blackjack table with "
                    "7 seats; nearest: no_more_bets")


def test_a_name_far_from_any_lists_the_known_ones() -> None:
    line = refusal(Game.HOLDEM, layout(sensors=("rail",)))
    assert line == ("[devices.layout] bet_sensors.rail: not a bet sensor of a holdem table "
                    "with 7 seats; known: seat<n>.ante, seat<n>.bonus")


def test_a_seat_the_table_does_not_have_is_refused() -> None:
    line = refusal(Game.BLACKJACK, layout(sensors=("seat8.main",)))
    assert "bet_sensors.seat8.main: not a bet sensor of a blackjack table with 7 seats" in line


@pytest.mark.parametrize(("game", "config"), [
    (Game.COMMUNITY, layout(lamps=("fault", "insurance"))),  # no community lamp lights it
    (Game.ROULETTE, layout(buttons=("hit",))),  # no roulette row takes it
    (Game.HOLDEM, layout(sensors=("seat1.main",))),  # hold'em reads ante and bonus
    (Game.BACCARAT, layout(lamps=("seat1.turn",))),
], ids=["community-lamp", "roulette-button", "holdem-sensor", "baccarat-seat-lamp"])
def test_a_name_of_another_game_is_refused(game: Game, config: LayoutConfig) -> None:
    assert refusal(game, config).startswith("[devices.layout] ")


@pytest.mark.parametrize("game", list(Game), ids=str)
def test_every_known_name_of_every_game_passes(game: Game) -> None:
    known = family_of(game).channels().known(7)
    check_layout_names(game_config(game), layout(known["lamps"], known["bet_sensors"],
                                                 known["buttons"]))


def test_aliases_and_seat_buttons_pass() -> None:
    check_layout_names(game_config(Game.BLACKJACK),
                       layout(buttons=("shuffle", "clear", "hit.3", "stand:7")))
    assert "buttons.hit.8" in refusal(Game.BLACKJACK, layout(buttons=("hit.8",)))


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_the_known_lamps_are_those_the_familys_outputs_light(name: str) -> None:
    """The declared lamps are every lamp a table of the family sets, and no other."""
    family = FAMILIES[name]
    config = game_config(family.games[0], seats=3)
    meters, _ = meter_books.start(config.progressive, None)
    model = family.model(Setup(config, burn=False), meters, str(family.initial))
    assert sorted(map(str, model.outputs.lamps())) == sorted(
        family.channels().known(3)["lamps"])


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_the_known_buttons_are_triggers_of_the_familys_rows(name: str) -> None:
    family = FAMILIES[name]
    triggers = {row["trigger"] for row in family.rows}
    assert family.channels().buttons <= triggers
    assert "no_more_bets" in family.channels().buttons


def test_the_configuration_reference_lists_each_familys_names() -> None:
    """docs/reference/configuration.md's table of layout names is the code's."""
    text = (Path(__file__).resolve().parents[2] / "docs/reference/configuration.md").read_text()
    rows = {}
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if len(cells) == 4 and cells[0].split(" ")[0] in FAMILIES:
            rows[cells[0].split(" ")[0]] = [set(re.findall(r"`([^`]+)`", c)) for c in cells[1:]]
    assert sorted(rows) == sorted(FAMILIES)
    for name, (lamps, sensors, buttons) in rows.items():
        patterns = FAMILIES[name].channels().patterns()
        assert lamps == set(patterns["lamps"]), name
        assert sensors == set(patterns["bet_sensors"]), name
        assert buttons == set(patterns["buttons"]), name
