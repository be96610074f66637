"""What the live view remembers between frames: decisions taken, and running totals."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from controller.procedure.blackjack.model import BlackjackModel
from controller.procedure.core.model import HOLD_STATES
from controller.procedure.families import is_model
from controller.procedure.shared.table_model import TableModel
from controller.sim.table_view.snapshot import Totals, players_net

DECISION_LABELS: Final = {"insure": "insured", "even_money": "even money"}


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
        """Take note of what changed since the last call (call after every table step)."""
        for record in model.results[self.results:]:
            self.rounds += 1
            self.house -= players_net(record)
        self.results = len(model.results)
        held = model.state in HOLD_STATES
        if held and not self.held:
            self.faults += 1  # the table stopped (fault lamp) once more
        self.held = held
        if is_model(model, BlackjackModel):
            self._decisions(model)

    def _decisions(self, model: BlackjackModel) -> None:
        if model.round.number != self.round:
            self.round, self.decisions, self.turn = model.round.number, {}, None
            self.steps = self.answered = 0
        new_steps = [step for step in model.steps[self.steps:] if step[0] != "card"]
        act = next((step for step in new_steps if step[0] == "act"), None)
        if act is not None and self.turn is not None:
            self.decisions[self.turn] = str(act[1])
        for seat in model.insurer.answered[self.answered:]:
            taken = next((s[0] for s in new_steps if s[0] in DECISION_LABELS and s[1] == seat),
                         None)
            self.decisions[(seat, 0)] = DECISION_LABELS.get(taken or "", "no insurance")
        self.steps, self.answered = len(model.steps), len(model.insurer.answered)
        self.turn = model.decision_due()

    def totals(self, model: TableModel) -> Totals:
        """The running totals now."""
        return Totals(self.rounds, self.house, model.progressive.meters.hits - self.hits_at_start,
                      self.faults, len(model.voided))
