"""The roulette spin in play, and a wager as the journal and the console carry it.

Plain data below the model and its parts: the model holds the spin, the parts that take the
wheel's facts and the croupier's steps read and change it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from controller.rules import roulette as ro


def wager_record(wager: ro.RouletteWager) -> dict[str, Any]:
    """A wager as the journal and the console carry it."""
    return {"seat": wager.seat, "bet": wager.bet.value, "numbers": list(wager.numbers),
            "cents": wager.cents, "named": wager.describe()}


def wager_from_record(data: dict[str, Any]) -> ro.RouletteWager:
    """A wager back from `wager_record`."""
    return ro.RouletteWager(int(data["seat"]), ro.RouletteBet(data["bet"]),
                            frozenset(data["numbers"]), int(data["cents"]))


@dataclass
class Spin:
    """The spin in play: the wheel game it is, its number, the marker and the settlement.

    Attributes:
        game: The wheel's game number (None until the wheel names one).
        number: The winning number (None until decided).
        sources: What said the number (`status`, `number_line`).
        warnings: What the wheel warned of during the game.
        marker: The dealer has put the marker on the number.
        void_games: The wheel games voided while this spin's wagers stood.
    """

    game: int | None = None
    number: str | None = None
    sources: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    marker: bool = False
    void_games: list[int] = field(default_factory=list)
