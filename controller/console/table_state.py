"""The table as the dealer's console shows it: `GET /api/table`, from public information only.

Built on the loop thread (the only thread that reads the model) after every commit. Nothing
here reads the hole card: the dealer's cards are the model's public ones (the hole card only
once it is turned over) and the peek is its one bit, once the peek has happened (R5).
Amounts are integer cents; a seat whose main wager is not known has `main` and every `net`
null, and is settled by ratio (`result`). Each family's parts come from its view
(`controller.console.views`).
"""

from __future__ import annotations

from controller.console.prompts import faults, prompt
from controller.console.views import own_parts, view_of
from controller.console.views.common import JsonObject
from controller.procedure.core.states import TableState
from controller.procedure.shared.table_model import TableModel
from controller.rules.sidebets import SideBet


def table_state(model: TableModel, accepting: list[str], display: str) -> JsonObject:
    """The table object of the console API (see API.md beside this module).

    Raises:
        ValueError: a family's view names as its own part a key the object has already.
    """
    table = model.setup.config.table
    view = view_of(model)
    shared = {
        "table": table.name, "game": table.game.value, "phase": model.state,
        "round": model.round.number, "prompt": prompt(model), "display": display,
        "accepting": accepting, "next_card": next_card(model), "seats": view.seats(model),
        "dealer": view.dealer(model), "meter": meter(model), "faults": faults(model),
        "insurance": view.insurance(model), "turn": view.turn(model),
        "settled": view.settled(model),
        "last_round": model.results[-1] if model.results else None,
    }
    own = {key: (part(model) if (part := view.own.get(key)) else None)
           for key in own_parts(shared)}
    return {**shared, **own}


def meter(model: TableModel) -> int | None:
    """The progressive amount, at a table that offers the progressive wager."""
    if SideBet.BLAZING7S not in model.setup.config.table.side_bets:
        return None
    return model.progressive.meters.amount


def next_card(model: TableModel) -> JsonObject | None:
    """Who the next card out of the shoe goes to (hands numbered from 1)."""
    if model.state == TableState.BURN:
        return {"to": "burn", "seat": None, "hand": None}
    return view_of(model).next_card(model)
