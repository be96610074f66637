"""What the live view remembers between frames: decisions taken, and running totals.

What a family notes after each step (the blackjack decisions) is its own part of the view
(`families`), chosen by the key of the family that deals the game.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from controller.procedure.core.model import HOLD_STATES
from controller.procedure.shared.table_model import TableModel
from controller.sim.table_view.snapshot import Totals, players_net


@dataclass
class Memory:
    """What the view remembers between frames: decisions taken, and running totals.

    Decisions come from the procedure's decision and insurance steps as each is taken (the
    hand in turn before the step is the one that decided); card steps are never looked at.
    """

    decisions: dict[tuple[int, int], str] = field(default_factory=dict)
    round: int = -1
    turn: tuple[int, int] | None = None
    steps: int = 0
    answered: int = 0
    results: int = 0
    hits_at_start: int = 0
    rounds: int = 0
    house: int = 0
    faults: int = 0
    held: bool = False

    @classmethod
    def starting(cls, model: TableModel) -> Memory:
        """Totals count from now: rounds settled and meter hits before are not shown."""
        return cls(results=len(model.results), hits_at_start=model.progressive.meters.hits,
                   held=model.state in HOLD_STATES)

    def observe(self, model: TableModel) -> None:
        """Take note of the totals changed since the last call (`take_note` calls it)."""
        for record in model.results[self.results:]:
            self.rounds += 1
            self.house -= players_net(record)
        self.results = len(model.results)
        held = model.state in HOLD_STATES
        if held and not self.held:
            self.faults += 1  # the table stopped (fault lamp) once more
        self.held = held

    def totals(self, model: TableModel) -> Totals:
        """The running totals now."""
        return Totals(self.rounds, self.house, model.progressive.meters.hits - self.hits_at_start,
                      self.faults, len(model.voided))
