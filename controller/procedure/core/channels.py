"""The layout's channel names: the buttons the procedure answers, the names a family knows.

`[devices.layout]` names its lamps, bet sensors and buttons with the controller's words
(`no_more_bets`, `seat1.main`, ...); the drivers pass those names through unread. A family
declares the lamps its outputs light and the bet spots its wager book reads beside that code;
its buttons are the `BUTTONS` its transition rows take. `LayoutChannels.known` spells them out
for a table of so many seats, so the service can refuse a name the game never uses before
any device starts (decision 060).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

BUTTONS: Final = frozenset({
    "no_more_bets", "hit", "stand", "double", "split", "surrender", "rescue", "insurance",
    "even_money", "no_insurance", "shuffle_done", "clear_round", "seat_no_card",
    "seat_one_card", "dealer_missed_card", "error_exposed", "error_unexposed", "new_shoe"})
"""Dealer and player buttons on the layout board, by name (a trigger each)."""

BUTTON_ALIASES: Final = {"shuffle": "shuffle_done", "clear": "clear_round"}
"""Older button names, read as the trigger they stand for."""

CHANNEL_TABLES: Final = ("lamps", "bet_sensors", "buttons")
"""The `[devices.layout]` tables whose names are the game's (key switches are the key's)."""


def seat_channel(seat: int, what: str) -> str:
    """A seat's lamp or bet spot: `seat_channel(3, "main")` -> `"seat3.main"`."""
    return f"seat{seat}.{what}"


def button_trigger(button: str) -> tuple[str, str]:
    """A button's trigger and its argument: `hit.3` (or `hit:3`) -> `("hit", "3")`."""
    name, _, arg = button.replace(":", ".").partition(".")
    return BUTTON_ALIASES.get(name, name), arg


@dataclass(frozen=True, slots=True)
class LayoutChannels:
    """The channel names one game family knows.

    Attributes:
        lamps: Table-wide lamps its outputs light.
        seat_lamps: Each seat's lamps (`turn` is `seat<n>.turn`).
        seat_spots: Each seat's bet spots with a sensor (`main` is `seat<n>.main`).
        buttons: The buttons (triggers of `BUTTONS`) its rows answer.
    """

    lamps: tuple[str, ...]
    seat_lamps: tuple[str, ...]
    seat_spots: tuple[str, ...]
    buttons: frozenset[str]

    def known(self, seats: int) -> dict[str, tuple[str, ...]]:
        """Every known name by `[devices.layout]` table, for a table of `seats` seats.

        A button also answers by an alias (`shuffle`) and with a seat (`hit.3`).
        """
        numbers = range(1, seats + 1)
        buttons = sorted(self.buttons)
        aliases = sorted(alias for alias, name in BUTTON_ALIASES.items() if name in self.buttons)
        return {
            "lamps": (*self.lamps, *(seat_channel(n, what)
                                     for what in self.seat_lamps for n in numbers)),
            "bet_sensors": tuple(seat_channel(n, what) for what in self.seat_spots
                                 for n in numbers),
            "buttons": (*buttons, *aliases,
                        *(f"{name}.{n}" for name in (*buttons, *aliases) for n in numbers)),
        }

    def patterns(self) -> dict[str, tuple[str, ...]]:
        """The known names as a line shows them (`seat<n>.main` for every seat)."""
        return {
            "lamps": (*self.lamps, *(f"seat<n>.{what}" for what in self.seat_lamps)),
            "bet_sensors": tuple(f"seat<n>.{what}" for what in self.seat_spots),
            "buttons": tuple(sorted(self.buttons)),
        }
