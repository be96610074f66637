"""Each game family's parts of the live table view, chosen by the family's key.

`FAMILY_PARTS[family]` names, for the family that deals the table's game
(`controller.procedure.families`), the lamps the view shows, the rows of a frame (the dealer,
or the Player and the Banker; the seats; the result line), what a round is called, the
Blazing 7's wagers accepted at no more bets, and what the view notes after each step (the
blackjack decisions). A family without an entry shows no lamps and no rows: the live view is
drawn for the shoe games, blackjack (Spanish 21 with it) and baccarat.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Final

from controller.procedure.baccarat import BaccaratModel
from controller.procedure.blackjack import BlackjackModel
from controller.procedure.families import FAMILY, model_as
from controller.procedure.shared.table_model import TableModel
from controller.sim.table_view import baccarat, blackjack
from controller.sim.table_view.snapshot import SeatRow, SideRow

if TYPE_CHECKING:
    from controller.sim.table_view.memory import Memory

Rows = tuple[tuple[SideRow, ...], tuple[SeatRow, ...], str]
"""The sides (dealer, Player, Banker), the seats and the result line of a snapshot."""


def _no_rows(_model: TableModel, _memory: Memory) -> Rows:
    return (), (), ""


def _none_accepted(_model: TableModel) -> int | None:
    return None


def _nothing_to_note(_memory: Memory, _model: TableModel) -> None:
    return None


@dataclass(frozen=True)
class FamilyParts:
    """One family's parts of the live view.

    Attributes:
        lamps: The table-wide lamps shown, in their order.
        rows: The frame's sides, seats and result line.
        round_word: What a round is called in the header ("round", "coup").
        accepted: The Blazing 7's wagers accepted at no more bets (None: not shown).
        observe: Notes what a step changed in the view's memory (after every step).
    """

    lamps: tuple[str, ...] = ()
    rows: Callable[[TableModel, Memory], Rows] = _no_rows
    round_word: str = "round"
    accepted: Callable[[TableModel], int | None] = _none_accepted
    observe: Callable[[Memory, TableModel], None] = _nothing_to_note


FAMILY_PARTS: Final[dict[str, FamilyParts]] = {
    "blackjack": FamilyParts(
        blackjack.SHOWN_LAMPS,
        lambda model, memory: blackjack.blackjack_rows(model_as(model, BlackjackModel), memory),
        accepted=lambda model: blackjack.accepted(model_as(model, BlackjackModel)),
        observe=lambda memory, model: blackjack.note_decisions(
            memory, model_as(model, BlackjackModel))),
    "baccarat": FamilyParts(
        baccarat.SHOWN_LAMPS,
        lambda model, _memory: baccarat.baccarat_rows(model_as(model, BaccaratModel)),
        round_word="coup"),
}
"""Every family's parts by the family's key."""

NO_PARTS: Final = FamilyParts()
"""The parts of a family without an entry: no lamps, no rows."""

LAMPS: Final = {family: parts.lamps for family, parts in FAMILY_PARTS.items()}
"""The lamps each family's view shows, by the family's key."""


def parts_of(game: StrEnum | str) -> FamilyParts:
    """The parts of the family that deals `game`."""
    return FAMILY_PARTS.get(FAMILY[str(game)], NO_PARTS)


def take_note(memory: Memory, model: TableModel) -> None:
    """Remember a table step: the totals (`Memory.observe`), then the family's own notes.

    The blackjack family notes each decision; call this after every step of the table.
    """
    memory.observe(model)
    parts_of(model.setup.config.table.game.value).observe(memory, model)
