"""What the table shows: lamps, the dealer display and the sign, from public information only.

A family's outputs extend `TableOutputs` with their own lamps and dealer-display text. Every
value here is computed from what anyone at the table can see, so the hole card cannot reach a
lamp, the sign or the display (R5, R17): the peek's one bit is the blackjack lamp.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Protocol

from controller.procedure.core.effects import Lamp, LampState
from controller.procedure.core.model import HOLD_STATES
from controller.procedure.core.states import TableState

SHARED_LAMPS: Final = (str(Lamp.FAULT), str(Lamp.NO_MORE_BETS), str(Lamp.SHUFFLE))
"""The lamps every family lights (`TableOutputs.lamps`); a family declares its own beside it."""


@dataclass(frozen=True, slots=True)
class PublicView:
    """Everything a player, the dealer or an engineer's log can see of the table."""

    lamps: tuple[tuple[str, LampState], ...]
    dealer_text: str
    sign_amount: int | None
    sign_message: str
    sign_win: tuple[int, int] = (0, 0)


class OutputsHost(Protocol):
    """What the shared outputs read of the model (public facts only)."""

    state: str
    camera_down: str
    pauses_without_layout: bool

    def layout_answers(self) -> bool:
        """The layout board answers (a card table pauses while it does not)."""
        ...

    def offers_progressive(self) -> bool:
        """The table offers the Blazing 7's progressive wager."""
        ...


class SignDesk(Protocol):
    """What the outputs read of the progressive desk: its links and the sign."""

    links_down: set[str]
    sign_win: tuple[int, int]

    def is_open(self) -> bool:
        """Progressive wagers are accepted now."""
        ...

    def sign(self) -> tuple[int | None, str]:
        """What the progressive sign shows: the meter, and a win or a fault."""
        ...


class TableOutputs:
    """The lamps and dealer display every family shares; a family adds its own.

    Args:
        model: The procedure model, as the outputs see it.
        progressive: The progressive desk (its links and what the sign shows).
    """

    def __init__(self, model: OutputsHost, progressive: SignDesk) -> None:
        self.model = model
        self.progressive = progressive

    def lamps(self) -> dict[str, LampState]:
        """Every lamp's state: these shared ones, and a family adds its own."""
        on, off = LampState.ON, LampState.OFF
        state = self.model.state
        # Steady while a device is lost or the progressive is closed; flashing in a hold.
        degraded = bool(self.progressive.links_down) or not self.progressive.is_open()
        return {
            Lamp.FAULT: LampState.FLASH if state in HOLD_STATES else on if degraded else off,
            Lamp.NO_MORE_BETS: off if state == TableState.BETTING else on,
            Lamp.SHUFFLE: on if state in (TableState.SHOE_LOADING,
                                          TableState.RESHUFFLE_DISCARDS) else off,
        }

    def dealer_text(self) -> str:
        """The dealer display: a hold, open betting, else the family's `round_text`."""
        state = self.model.state
        if state in HOLD_STATES:
            return f"{state.upper()}: SUPERVISOR KEY REQUIRED"
        if self.model.pauses_without_layout and not self.model.layout_answers():
            return "LAYOUT DOWN: TABLE PAUSED" if state == TableState.BETTING else (
                f"LAYOUT DOWN - {self.round_text()}")
        if state == TableState.BETTING:
            return "PLACE YOUR BETS" + (" - PROGRESSIVE CLOSED" if (
                self.model.offers_progressive() and not self.progressive.is_open())
                else "")
        return self.round_text()

    def round_text(self) -> str:
        """The dealer display while a round is dealt or settled (a family says more)."""
        return self.model.state.upper()

    def public_view(self) -> PublicView:
        """Lamps, dealer display and sign, from public information only (R5)."""
        desk = self.progressive
        amount, message = desk.sign()
        lamps = tuple(sorted((str(name), state) for name, state in self.lamps().items()))
        text = self.dealer_text()
        if self.model.camera_down:
            text = f"CAMERA DOWN - {text}"
        return PublicView(lamps, text, amount, message, desk.sign_win)
