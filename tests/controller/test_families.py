"""The family registry: every game has one family, and each family's parts agree."""

from enum import StrEnum

import pytest

from controller.procedure.core.states import TableState, disagreements
from controller.procedure.families import FAMILIES, FAMILY, family_of
from controller.procedure.shared.table_model import TableModel
from controller.rules.hands import Game


@pytest.mark.parametrize("game", list(Game), ids=str)
def test_every_game_is_dealt_by_exactly_one_family(game: Game) -> None:
    dealing = [f.name for f in FAMILIES.values() if game in f.games]
    assert dealing == [family_of(game).name], f"{game} is dealt by {dealing}"
    assert family_of(str(game)) is family_of(game)


def test_spanish21_is_dealt_by_the_blackjack_family() -> None:
    assert FAMILY["spanish21"] == "blackjack"


def test_an_unknown_game_has_no_family() -> None:
    with pytest.raises(KeyError):
        family_of("craps")


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_a_family_is_its_package(name: str) -> None:
    family = FAMILIES[name]
    assert family.name == name
    assert family.model.__module__ == f"controller.procedure.{name}.model"
    assert family.states.__module__ == f"controller.procedure.{name}.states"
    assert issubclass(family.model, TableModel)


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_rows_name_only_the_familys_states(name: str) -> None:
    family = FAMILIES[name]
    states = {str(s) for s in family.states}
    assert str(family.initial) in states
    for row in family.rows:
        sources = row["source"] if isinstance(row["source"], list) else [row["source"]]
        places = {*sources, row["dest"] or sources[0]}
        assert places <= states, f"{name}: {row['trigger']} names {sorted(places - states)}"


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_a_round_in_play_is_a_state_of_the_family(name: str) -> None:
    family = FAMILIES[name]
    in_play = family.model.in_play_states
    assert in_play, f"{name}: its model names no state of a round in play"
    assert in_play <= {str(s) for s in family.states}
    assert str(family.initial) not in in_play


def test_the_family_key_selects_a_console_view_and_a_simulation_driver() -> None:
    from controller.console.views import VIEWS
    from controller.sim.games import DRIVERS

    assert set(VIEWS) == set(FAMILIES), "a family without a console view, or a view of none"
    assert set(DRIVERS) == set(FAMILIES), "a family without a driver, or a driver of none"


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_a_family_names_each_shared_state_as_shared_code_does(name: str) -> None:
    states = FAMILIES[name].states
    by_value = {member.value: member.name for member in states}
    for shared in TableState:
        if shared.name in states.__members__:
            assert states[shared.name].value == shared.value, f"{name}: {shared.name}"
        if shared.value in by_value:
            assert by_value[shared.value] == shared.name, f"{name}: {shared.value}"
    assert disagreements(states) == []


def test_every_shared_state_is_a_state_of_some_family() -> None:
    known = {str(s) for family in FAMILIES.values() for s in family.states}
    assert {str(s) for s in TableState} <= known, "a shared state no family has"


def test_a_state_named_otherwise_than_the_shared_one_is_found() -> None:
    class Misnamed(StrEnum):
        SHOE_LOADING = "shoe_loading"
        BETTING = "open_for_bets"
        OPEN = "betting"
        CLOSED = "closed"

    assert disagreements(Misnamed) == [
        "BETTING is 'open_for_bets', not 'betting' (TableState.BETTING)",
        "OPEN is 'betting', the value of TableState.BETTING"]
