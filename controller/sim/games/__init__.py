"""Each game family's simulation driver, chosen by the family's key.

A driver is a module with `run(options) -> int`: it deals the planned rounds through the
whole controller with bot players, prints them (`--json`: one object a round on stdout)
and answers the exit status. `DRIVERS` names each family's module
(`controller.procedure.families`); a test keeps its keys equal to the families.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from controller.procedure.families import FAMILY

if TYPE_CHECKING:
    from controller.sim.options import Options

EXIT_INTERRUPTED = 130
"""Ctrl-C (SIGINT): 128 + 2, as a shell reports a process its signal stopped."""

DRIVERS: Final[dict[str, str]] = {
    "blackjack": "controller.sim.games.shoe_table",
    "baccarat": "controller.sim.games.shoe_table",
    "roulette": "controller.sim.games.roulette",
    "community": "controller.sim.games.community",
    "holdem": "controller.sim.games.holdem",
}
"""The module of each family's driver, imported when a run needs it (a hold'em run brings
the camera's recogniser, which a blackjack run does without)."""


def driver(game: str) -> Callable[[Options], int]:
    """The `run` of the driver of the family that deals `game`."""
    module = importlib.import_module(DRIVERS[FAMILY[game]])
    run: Callable[[Options], int] = module.run
    return run
