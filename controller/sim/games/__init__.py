"""Each game family's simulation driver, chosen by the family's key.

A driver is a `Driver` (`controller.sim.games.base`): it builds its family's table and deals
the planned rounds through the whole controller with bot players; the base's one run loop
prints them (`--json`: one object a round on stdout) and answers the exit status. `DRIVERS`
names each family's module (`controller.procedure.families`), whose `run(options) -> int`
runs its driver, or holds the `Driver` class of a family registered from outside
(`register_driver`); a test keeps its keys equal to the families.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from controller.procedure.families import FAMILY

if TYPE_CHECKING:
    from controller.sim.games.base import Driver
    from controller.sim.options import Options

DRIVERS: Final[dict[str, str | type[Driver]]] = {
    "blackjack": "controller.sim.games.shoe_table",
    "baccarat": "controller.sim.games.shoe_table",
    "roulette": "controller.sim.games.roulette",
    "community": "controller.sim.games.community",
    "holdem": "controller.sim.games.holdem",
}
"""The module of each family's driver, imported when a run needs it (a hold'em run brings
the camera's recogniser, which a blackjack run does without), or a registered driver."""


def register_driver(family: str, kind: type[Driver]) -> None:
    """Make `kind` the simulation driver of `family` (a family registered from outside).

    Raises:
        ValueError: the family already has a driver.
    """
    if family in DRIVERS:
        raise ValueError(f"the {family} family already has a simulation driver")
    DRIVERS[family] = kind


def driver(game: str) -> Callable[[Options], int]:
    """The `run` of the driver of the family that deals `game`."""
    entry = DRIVERS[FAMILY[game]]
    if not isinstance(entry, str):
        kind = entry
        return lambda options: kind(options).run()
    run: Callable[[Options], int] = importlib.import_module(entry).run
    return run
