"""Midi Baccarat as the dealer's console shows it: the next card's side, and the coup.

Every baccarat card is dealt face up: nothing here is secret.
"""

from __future__ import annotations

from collections.abc import Sequence

from controller.console.views.common import JsonObject
from controller.procedure.baccarat import BaccaratModel
from controller.procedure.families import model_as
from controller.procedure.shared.table_model import TableModel
from controller.rules import baccarat as bac
from controller.rules.cards import Card


def coup(table: TableModel) -> JsonObject:
    """The table object's `baccarat` part: the coup being dealt, else the last one settled.

    `{"round", "player": {"cards", "total"}, "banker": {...}, "result", "settled"}`:
    `result` is `player`, `banker` or `tie` once the coup is complete (else null); `settled`
    is true for the last coup shown again while the next is bet.
    """
    model = model_as(table, BaccaratModel)
    live = model.coup
    if not live.player and not live.banker and model.results:
        last = model.results[-1]
        player = [Card.parse(c) for c in last["player"]]
        banker = [Card.parse(c) for c in last["banker"]]
        return {"round": last["round"], "player": _side(player), "banker": _side(banker),
                "result": last["result"], "settled": True}
    return {"round": model.round.number, "player": _side(live.player),
            "banker": _side(live.banker),
            "result": live.outcome.value if live.complete else None, "settled": False}


def _side(cards: Sequence[Card]) -> JsonObject:
    return {"cards": [str(c) for c in cards],
            "total": bac.baccarat_total(cards) if cards else None}


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
