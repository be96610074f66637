"""The game families: the one place that names each family's states, rows and model.

A family is a package `controller/procedure/<family>/`: `states.py` (its state enum, the
state it starts in and the states of a round in play), `rows.py` (its transition rows),
`model.py` (the model those rows drive) and the parts the model is built from; its
`__init__.py` exports what code outside the package may use (`__all__`), and this registry
takes each family from there. A table's
game (`[table] game`) selects its family here; Spanish 21 is dealt by the blackjack family.
The console's view and the simulation's driver of a family are chosen by the same key
(`controller.console.views`, `controller.sim.games`).

A family may also come from outside this package: `register(Family(...))` adds it, its game
named by the family's own game object (a `StrEnum` member: a `Game` names only the games a
table file may deal), and `unregister` takes it back.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Final, TypeVar

from controller.procedure import baccarat, blackjack, community, holdem, roulette
from controller.procedure.core.channels import BUTTONS, LayoutChannels
from controller.procedure.core.machine import Table, callback_names
from controller.procedure.core.states import disagreements
from controller.procedure.shared.table_model import TableModel
from controller.procedure.shared.table_outputs import SHARED_LAMPS
from controller.procedure.shared.wager_book import SEAT_SPOTS
from controller.rules.hands import Game


@dataclass(frozen=True)
class Family:
    """One game family: what the service needs to build its table, the diagram to draw it.

    Attributes:
        name: The family's key, also its package's name.
        games: The games it deals: `[table] game` values (`Game` members), or the game
            objects of a family registered from outside.
        states: Its state enum.
        rows: Its transition rows.
        initial: The state a new journal starts in.
        model: The model its rows drive, built as `model(setup, meters, initial)`.
        lamps: The table-wide lamps its outputs light (declared beside them).
        seat_lamps: Each seat's lamps (`turn`: `seat<n>.turn`).
        seat_spots: Each seat's bet spots with a sensor (`main`: `seat<n>.main`).
    """

    name: str
    games: tuple[StrEnum, ...]
    states: type[StrEnum]
    rows: Table
    initial: StrEnum
    model: type[TableModel]
    lamps: tuple[str, ...] = SHARED_LAMPS
    seat_lamps: tuple[str, ...] = ()
    seat_spots: tuple[str, ...] = SEAT_SPOTS

    def callback_names(self) -> set[str]:
        """Every condition and callback name its rows use."""
        return callback_names(self.rows)

    def channels(self) -> LayoutChannels:
        """The layout's names it knows: its lamps and spots, the buttons its rows take."""
        triggers = {str(entry["trigger"]) for entry in self.rows}
        return LayoutChannels(self.lamps, self.seat_lamps, self.seat_spots,
                              BUTTONS & triggers)


FAMILIES: Final[dict[str, Family]] = {family.name: family for family in (
    Family("blackjack", (Game.BLACKJACK, Game.SPANISH21), blackjack.BJ, blackjack.ROWS,
           blackjack.INITIAL, blackjack.BlackjackModel, blackjack.LAMPS, blackjack.SEAT_LAMPS),
    Family("baccarat", (Game.BACCARAT,), baccarat.BAC, baccarat.ROWS,
           baccarat.INITIAL, baccarat.BaccaratModel, baccarat.LAMPS),
    Family("roulette", (Game.ROULETTE,), roulette.RO, roulette.ROWS,
           roulette.INITIAL, roulette.RouletteModel),
    Family("community", (Game.COMMUNITY,), community.CC, community.ROWS,
           community.INITIAL, community.CommunityModel),
    Family("holdem", (Game.HOLDEM,), holdem.HE, holdem.ROWS,
           holdem.INITIAL, holdem.HoldemModel, seat_spots=holdem.SEAT_SPOTS),
)}
"""Every family by its key."""

BUILT_IN: Final = frozenset(FAMILIES)
"""The families of this package (`register` adds others; none of these can be taken back)."""

FAMILY: Final[dict[str, str]] = {str(game): family.name for family in FAMILIES.values()
                                 for game in family.games}
"""Each game's family key ("spanish21" -> "blackjack")."""


def register(family: Family) -> Family:
    """Add a family made outside this package (its model, states and rows its own).

    Raises:
        ValueError: its name or one of its games is taken, it deals no game, it does not
            start in one of its states, or it names a state every family's code knows
            (`TableState`) otherwise (one line naming what).
    """
    if family.name in FAMILIES:
        raise ValueError(f"family {family.name}: the name is taken")
    if not family.games:
        raise ValueError(f"family {family.name}: it deals no game")
    for game in family.games:
        if str(game) in FAMILY:
            raise ValueError(f"family {family.name}: game {game} is dealt by the "
                             f"{FAMILY[str(game)]} family")
    if str(family.initial) not in {str(state) for state in family.states}:
        raise ValueError(f"family {family.name}: it starts in {family.initial}, not one of "
                         f"its states")
    wrong = disagreements(family.states)
    if wrong:
        raise ValueError(f"family {family.name}: its state {wrong[0]}")
    FAMILIES[family.name] = family
    FAMILY.update({str(game): family.name for game in family.games})
    return family


def unregister(name: str) -> None:
    """Take back a family `register` added (its games are then dealt by none).

    Raises:
        KeyError: no family of that name was registered from outside.
    """
    if name not in FAMILIES or name in BUILT_IN:
        raise KeyError(f"family {name}: not a family registered from outside")
    for game in FAMILIES.pop(name).games:
        del FAMILY[str(game)]


def family_of(game: StrEnum | str) -> Family:
    """The family that deals `game` (a `Game`, a registered family's game, or its name).

    Raises:
        KeyError: no family deals it.
    """
    return FAMILIES[FAMILY[str(game)]]


M = TypeVar("M", bound=TableModel)


def model_as(model: TableModel, kind: type[M]) -> M:
    """`model` as its family's model class, where the family key chose the code that asks.

    Raises:
        TypeError: `model` is not a `kind` (a family's view or driver reached the wrong
            table: a bug, never the dealer's doing).
    """
    if not isinstance(model, kind):
        raise TypeError(f"{type(model).__name__} reached code of the {kind.__name__} family")
    return model
