"""Refuse a `[devices.layout]` name the table's game never uses, before any device starts.

The drivers pass lamp, bet sensor and button names through unread: a misspelt one
(`seat1.mian`, `stnd`, `no_more_bet`) would start, and that spot, button or lamp would never
work. The game's family knows its names (`Family.channels`, declared beside the code that
lights or reads them); every name of `lamps`, `bet_sensors` and `buttons` must be one of them,
and a refusal names the nearest known name (decision 060).
"""

from __future__ import annotations

import difflib

from confkeys import error_line
from controller.procedure.core.channels import CHANNEL_TABLES
from controller.procedure.families import family_of
from controller.rules.errors import ConfigError
from controller.rules.options import GameConfig
from drivers.config import LayoutConfig

_WHAT = {"lamps": "lamp", "bet_sensors": "bet sensor", "buttons": "button"}


def check_layout_names(game: GameConfig, layout: LayoutConfig) -> None:
    """Every name of the layout's `lamps`, `bet_sensors` and `buttons` is one the game knows.

    Args:
        game: The table's validated game configuration (its game and seat count).
        layout: The table file's `[devices.layout]`.

    Raises:
        ConfigError: `[devices.layout] bet_sensors.seat1.mian: not a bet sensor of a
            blackjack table with 7 seats; nearest: seat1.main` (the first unknown name).
    """
    table = game.table
    family = family_of(table.game)
    known = family.channels().known(table.seats)
    tables = {"lamps": layout.lamps, "bet_sensors": layout.bet_sensors,
              "buttons": layout.buttons}
    for key in CHANNEL_TABLES:
        names = known[key]
        for name in tables[key]:
            if (name.replace(":", ".") if key == "buttons" else name) in names:  # `hit:3`
                continue
            message = f"not a {_WHAT[key]} of a {table.game} table with {table.seats} seats"
            nearest = difflib.get_close_matches(name, names, n=1)
            hint = (f"nearest: {nearest[0]}" if nearest else
                    f"known: {', '.join(family.channels().patterns()[key]) or 'none'}")
            raise ConfigError(error_line(f"devices.{layout.name}", f"{key}.{name}",
                                         f"{message}; {hint}"))
