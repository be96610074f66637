"""Midi Baccarat as the dealer's console shows it: which side the next card goes to."""

from __future__ import annotations

from controller.console.views.common import JsonObject
from controller.procedure.baccarat.model import BaccaratModel
from controller.procedure.families import model_as
from controller.procedure.shared.table_model import TableModel


def next_card(table: TableModel) -> JsonObject | None:
    """The side the next card goes to (Player or Banker), while a card is due."""
    side = model_as(table, BaccaratModel).card_due_to()
    if side is not None:
        return {"to": side.value, "seat": None, "hand": None}
    return None


def baccarat_prompt(table: TableModel) -> str:
    """What the dealer does next at baccarat, in words."""
    side = model_as(table, BaccaratModel).card_due_to()
    return f"deal the {side.value}" if side is not None else table.state.replace("_", " ")
