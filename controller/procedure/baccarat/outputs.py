"""What a baccarat table shows: the shared lamps and which hand draws, and the coup's prompt.

Baccarat cards are dealt face up: the lamps and the dealer display name the hand due a card.
"""

from __future__ import annotations

from typing import Final, Protocol

from controller.procedure.core.effects import Lamp, LampState
from controller.procedure.core.roundstate import Round
from controller.procedure.shared.table_outputs import (
    SHARED_LAMPS,
    OutputsHost,
    SignDesk,
    TableOutputs,
)
from controller.rules import baccarat as bac


class BaccaratOutputsHost(OutputsHost, Protocol):
    """What the baccarat outputs read of the model besides the shared outputs' facts."""

    round: Round

    def card_due_to(self) -> bac.Side | None:
        """Which hand is due the next card (None: none)."""
        ...


LAMPS: Final = (*SHARED_LAMPS, str(Lamp.PLAYER_DRAW), str(Lamp.BANKER_DRAW))
"""The lamps a baccarat table lights (`BaccaratOutputs.lamps`): which hand draws."""


class BaccaratOutputs(TableOutputs):
    """The shared lamps, and which hand draws; the display names the hand due a card."""

    model: BaccaratOutputsHost

    def __init__(self, model: BaccaratOutputsHost, progressive: SignDesk) -> None:
        super().__init__(model, progressive)
        self.model = model

    def lamps(self) -> dict[str, LampState]:
        """The shared lamps, and which hand draws (baccarat cards are dealt face up)."""
        on, off = LampState.ON, LampState.OFF
        lamps = super().lamps()
        due = self.model.card_due_to()
        lamps[Lamp.PLAYER_DRAW] = on if due is bac.Side.PLAYER else off
        lamps[Lamp.BANKER_DRAW] = on if due is bac.Side.BANKER else off
        return lamps

    def round_text(self) -> str:
        """The hand due a card, else the state and the coup."""
        due = self.model.card_due_to()
        if due is not None:
            return f"DEAL {due.value.upper()}"
        return f"{self.model.state.upper()} COUP {self.model.round.number}"
