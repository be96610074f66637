"""What a blackjack table shows: its lamps, the dealer display, and what the camera should see.

The lamps and display come from public information only: the dealer's blackjack lamp is the
peek's one bit (R5), lit once the hole card is turned over on a blackjack. The camera's
expected layout holds the hole card as face down (None) until it is turned over.
"""

from __future__ import annotations

from typing import Any, Final, Protocol

from controller.procedure.blackjack.states import BJ
from controller.procedure.core.effects import CameraCheck, Effect, Lamp, LampState, seat_lamp
from controller.procedure.core.roundstate import Round, ShoeTally
from controller.procedure.shared.setup import Setup
from controller.procedure.shared.table_outputs import (
    SHARED_LAMPS,
    OutputsHost,
    SignDesk,
    TableOutputs,
)
from controller.rules import blackjack as bj
from controller.rules.hands import DEALER, Position

LAMPS: Final = (*SHARED_LAMPS, str(Lamp.BLACKJACK), str(Lamp.INSURANCE), str(Lamp.DRAW),
                str(Lamp.STAND))
"""The table-wide lamps a blackjack table lights (`BlackjackOutputs.lamps`)."""

SEAT_LAMPS: Final = ("blazing7s", "turn")
"""Each seat's lamps: its Blazing 7's wager accepted, its card or decision due."""


class BlackjackOutputsHost(OutputsHost, Protocol):
    """What the blackjack outputs read of the model besides the shared outputs' facts."""

    setup: Setup
    round: Round
    game: bj.BlackjackRound | None

    def accepted_seats(self) -> list[int]:
        """Seats whose Blazing 7's wager was accepted at the lock-out."""
        ...

    def card_due_to(self) -> Position | None:
        """Where the next card from the shoe goes (None: none is due)."""
        ...

    def decision_due(self) -> tuple[int, int] | None:
        """(seat number, hand index) whose decision is awaited."""
        ...

    def exposed_card_offered(self) -> bool:
        """An exposed card drawn in error is offered to the hand in turn (R8)."""
        ...

    def seat_asked(self) -> int | None:
        """The next seat to answer insurance."""
        ...


class BlackjackOutputs(TableOutputs):
    """The shared lamps plus the dealer's and each seat's; the display says who is due."""

    model: BlackjackOutputsHost

    def __init__(self, model: BlackjackOutputsHost, progressive: SignDesk) -> None:
        super().__init__(model, progressive)
        self.model = model

    def lamps(self) -> dict[str, LampState]:
        """The shared lamps, the dealer's and each seat's (the peek shows one bit, R5)."""
        on, off = LampState.ON, LampState.OFF
        model = self.model
        lamps = super().lamps()
        game = model.game
        shown_bj = bool(game and game.hole_revealed and game.peeked and game.dealer_blackjack)
        lamps[Lamp.BLACKJACK] = on if shown_bj else off
        lamps[Lamp.INSURANCE] = on if model.state == BJ.INSURANCE else off
        lamps[Lamp.DRAW] = on if model.state == BJ.DEALER else off
        lamps[Lamp.STAND] = on if model.state == BJ.ROUND_OVER and game else off
        accepted = set(model.accepted_seats())
        due = model.card_due_to()
        turn = model.decision_due() or (model.seat_asked(), 0)
        for number in range(1, model.setup.config.table.seats + 1):
            lamps[seat_lamp(number, SEAT_LAMPS[0])] = on if number in accepted else off
            lit = number == turn[0] or (due is not None and due.seat == number)
            lamps[seat_lamp(number, SEAT_LAMPS[1])] = on if lit else off
        return lamps

    def round_text(self) -> str:
        """Whose card or decision is due, else the state, the round and the accepted count."""
        model = self.model
        due = model.card_due_to()
        if due is not None:
            return "DEAL DEALER" if due.is_dealer else f"DEAL SEAT {due.seat}"
        decision = model.decision_due()
        if decision and model.exposed_card_offered():
            return f"SEAT {decision[0]} HAND {decision[1] + 1}: EXPOSED CARD - TAKE OR REFUSE"
        if decision:
            return f"SEAT {decision[0]} HAND {decision[1] + 1}: DECIDE"
        asked = model.seat_asked()
        if asked:
            return f"SEAT {asked}: INSURANCE?"
        return (f"{model.state.upper()} ROUND {model.round.number} "
                f"ACCEPTED {len(model.accepted_seats())}")


class CameraHost(Protocol):
    """What the camera's view reads of the blackjack model."""

    game: bj.BlackjackRound | None

    def emit(self, *effects: Effect) -> None:
        """Queue effects for the runtime."""
        ...

    def held_cards(self) -> list[list[Any]]:
        """[position, card] dealt physically but not yet fed to the rules (the deal's)."""
        ...


class CardsOut(Protocol):
    """What the camera's view reads of the shoe: its tally (cards out)."""

    tally: ShoeTally


class BlackjackCamera:
    """The camera's view of a blackjack layout: zones by seat, what lies where, checks.

    Args:
        model: The blackjack model, as the camera's view sees it.
        shoe: The shoe (its count of cards out names each check).
    """

    def __init__(self, model: CameraHost, shoe: CardsOut) -> None:
        self.model = model
        self.shoe = shoe

    @staticmethod
    def zone(seat: int) -> str:
        """The camera's name for a layout position: "dealer" or "seat<n>"."""
        return "dealer" if seat == DEALER else f"seat{seat}"

    def check(self, position: Position, card: str) -> None:
        """Ask the camera to confirm a card dealt face up where it lies (R9)."""
        if not position.hole:
            self.model.emit(CameraCheck(self.zone(position.seat), card,
                                        f"card {self.shoe.tally.cards_out}"))

    def layout(self, zones: dict[str, list[str | None]]) -> dict[str, list[str | None]]:
        """Cards by position (every hand of a seat together); the hole card until turned over."""
        game = self.model.game
        if game is not None:
            for seat in game.seats:
                zones[self.zone(seat.seat)] = [str(c) for hand in seat.hands for c in hand.cards]
            dealer: list[str | None] = [str(c) for c in game.dealer]
            if len(dealer) > 1 and not game.hole_revealed:
                dealer[1] = None
            zones[self.zone(DEALER)] = dealer
        for (seat, _hand, hole), card in self.model.held_cards():
            zones.setdefault(self.zone(seat), []).append(None if hole else card)
        return zones
