"""What the views of several families share: the JSON type, seats known by their wagers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from controller.procedure.shared.table_model import TableModel

JsonObject = dict[str, Any]

CommandCheck = Callable[[TableModel, JsonObject], str]
"""Why a console command cannot be taken now at the table ("" when it can), given the model
and the parsed command."""

def no_dealer(_model: TableModel | None = None) -> JsonObject:
    """The dealer's part of the table object where the dealer shows no cards of a hand."""
    return {"cards": [], "blackjack": None}


def wager_seats(model: TableModel) -> list[JsonObject]:
    """Every seat of the table, in play when it has a main wager (no hands of its own)."""
    count = model.setup.config.table.seats
    in_play = model.wagers.seats_in_play()
    return [{"seat": n, "in_play": n in in_play, "main": in_play.get(n), "hands": []}
            for n in range(1, count + 1)]
