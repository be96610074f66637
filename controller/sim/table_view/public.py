"""The table's public state now, taken as a `Snapshot`.

A snapshot is taken from the runtime's public view (lamps, sign and dealer display as last
applied to the devices), the model's shoe tally, and the parts of the family that deals the game
(`families`): its lamps, the cards lying face up, the seats' wagers and the settled round.
"""

from __future__ import annotations

from collections.abc import Sequence

from controller.procedure.core.states import TableState
from controller.procedure.shared.table_model import TableModel
from controller.procedure.shared.table_outputs import PublicView
from controller.rules.money import format_cents
from controller.rules.sidebets import SideBet
from controller.service.app import SIGN_FAULT_TEXT
from controller.service.runtime import TableRuntime
from controller.sim.table_view.families import parts_of
from controller.sim.table_view.memory import Memory
from controller.sim.table_view.snapshot import ShoeLayout, Snapshot


def capture(runtime: TableRuntime, memory: Memory, shoe: ShoeLayout) -> Snapshot:
    """The table's public state now (call on the loop thread, after `memory.observe`)."""
    model = runtime.model
    view = runtime.shown or model.outputs.public_view()
    table = model.setup.config.table
    parts = parts_of(table.game.value)
    sides, seats, result = parts.rows(model, memory)
    return Snapshot(table.game.value, table.decks, model.round.number, model.state,
                    view.dealer_text, _lamps(view, parts.lamps),
                    _sign(model, view), parts.accepted(model), _shoe_text(model, shoe), sides,
                    seats, result, memory.totals(model))


def _lamps(view: PublicView, wanted: Sequence[str]) -> tuple[tuple[str, str], ...]:
    states = dict(view.lamps)
    return tuple((name, str(states.get(name, "off"))) for name in wanted)


def _sign(model: TableModel, view: PublicView) -> str | None:
    """What the progressive sign says; None at a table without the progressive wager."""
    if SideBet.BLAZING7S not in model.setup.config.table.side_bets:
        return None
    if view.sign_message == "FAULT":
        return SIGN_FAULT_TEXT
    amount = format_cents(view.sign_amount or 0)
    seat, paid = view.sign_win
    if seat and view.sign_message.startswith("WIN"):
        return f"{amount}  WIN seat {seat} {format_cents(paid)}"
    return amount


def _shoe_text(model: TableModel, layout: ShoeLayout) -> str:
    shoe = model.shoe
    if model.state == TableState.SHOE_LOADING:
        return "shuffling"
    dealt = f"{shoe.tally.cards_out} dealt"
    if layout.cut_after is None:
        return f"{shoe.tally.cards_out} of {layout.size} dealt (scripted shoe, no cut card)"
    if shoe.tally.cut_seen:
        return f"{dealt}, cut card out: shuffle after this round"
    return f"{dealt}, {max(0, layout.cut_after - shoe.tally.cards_out)} to the cut card"
