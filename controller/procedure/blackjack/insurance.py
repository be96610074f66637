"""Insurance, even money and the peek at a blackjack table (R4, R5, R6).

Conditions and callbacks named `insurer.<name>` in the blackjack transition table. With an
ace up, each seat in turn answers insurance (or even money on its blackjack); insurance
closes before the peek, and the peek's only output is one bit: the blackjack lamp. The hole
card itself goes to the secured journal only once it is turned over.
"""

from __future__ import annotations

from typing import Protocol

from transitions import EventData

from controller.procedure.blackjack.host import Step
from controller.procedure.blackjack.states import BJ
from controller.procedure.core.effects import CameraCheck, Effect, Journal, OpLog
from controller.procedure.core.roundstate import Round
from controller.rules import blackjack as bj
from controller.rules.hands import DEALER


class InsuranceHost(Protocol):
    """What insurance and the peek read and call of the blackjack model."""

    state: str
    round: Round
    game: bj.BlackjackRound | None
    rules_table: bj.BlackjackTable

    def emit(self, *effects: Effect) -> None:
        """Queue effects for the runtime."""
        ...

    def step(self, step: Step) -> None:
        """Apply one step to the rules' round."""
        ...

    def try_step(self, step: Step) -> bool:
        """True when the rules would accept `step` now (nothing is applied)."""
        ...

    def start_players(self, event: EventData) -> None:
        """Decisions begin (the decisions' own callback)."""
        ...

    def camera_zone(self, seat: int) -> str:
        """The camera's name for a layout position."""
        ...


class InsuranceAndPeek:
    """Who has answered insurance, and the steps of the peek.

    Attributes:
        answered: Seats that have answered insurance or even money this round.
    """

    def __init__(self, model: InsuranceHost) -> None:
        self.model = model
        self.answered: list[int] = []

    def seats_to_answer(self) -> list[int]:
        """Public: the seats still to answer insurance or even money (any order)."""
        game = self.model.game
        if game is None or self.model.state != BJ.INSURANCE:
            return []
        return [s.seat for s in game.seats if s.seat not in self.answered]

    def seat_asked(self) -> int | None:
        """Public: the next seat to answer, in seat order (what a layout button answers for)."""
        waiting = self.seats_to_answer()
        return waiting[0] if waiting else None

    def answering(self, event: EventData) -> int:
        """The seat an answer is for: the one named, else the next to answer (0: none)."""
        named = event.kwargs.get("seat")
        if named is None:
            return self.seat_asked() or 0
        return int(named) if int(named) in self.seats_to_answer() else 0

    def open(self, event: EventData) -> None:
        """Callback: insurance and even money are offered to every seat in play (ace up, R4)."""
        self.answered = []
        self.model.emit(Journal("round:insurance_open", {"round": self.model.round.number}))

    def due(self, event: EventData) -> bool:
        """Condition: the seat answering is still to answer."""
        return self.answering(event) != 0

    def allowed(self, event: EventData) -> bool:
        """Condition: the rules accept this insurance from the seat answering."""
        return self.model.try_step(self._insurance_step(event))

    def _insurance_step(self, event: EventData) -> Step:
        model = self.model
        seat = self.answering(event)
        amount = event.kwargs.get("cents")
        if amount is None and model.game is not None and seat:
            state = model.game.seat_state(seat)
            amount = bj.max_insurance(state.bets.wager, model.rules_table.rules.insurance_chip)
        return ["insure", seat, int(amount or 0)]

    def even_money_allowed(self, event: EventData) -> bool:
        """Condition: the seat answering has an uninsured blackjack and even money is offered."""
        return self.model.try_step(["even_money", self.answering(event)])

    def take(self, event: EventData) -> None:
        """Callback: the seat insures (up to half the wager; pays 2:1 on a dealer blackjack)."""
        step = self._insurance_step(event)
        self.model.step(step)
        self.answered.append(step[1])
        self.model.emit(Journal("decision:insurance", {"seat": step[1], "cents": step[2],
                                                       "source": _source(event)}))

    def take_even_money(self, event: EventData) -> None:
        """Callback: even money: the blackjack is paid 1:1 at once; the hand is over."""
        seat = self.answering(event)
        self.model.step(["even_money", seat])
        self.answered.append(seat)
        self.model.emit(Journal("decision:even_money", {"seat": seat, "source": _source(event)}))

    def decline(self, event: EventData) -> None:
        """Callback: the seat declines."""
        seat = self.answering(event)
        self.answered.append(seat)
        self.model.emit(Journal("decision:no_insurance", {"seat": seat,
                                                          "source": _source(event)}))

    def closed(self, event: EventData) -> bool:
        """Condition: every seat has answered (the peek follows the last answer)."""
        return not self.seats_to_answer()

    def close(self, event: EventData) -> None:
        """Callback: insurance closes before the peek (R4)."""
        self.model.step(["close_insurance"])
        self.model.emit(Journal("round:insurance_closed", {"round": self.model.round.number}))

    # ------------------------------------------------------------------ the peek
    def dealer_has_blackjack(self, event: EventData) -> bool:
        """Condition: the one bit of the peek (the hole card itself never leaves the rules)."""
        game = self.model.game
        return game is not None and game.dealer_blackjack

    def reveal_blackjack(self, event: EventData) -> None:
        """Callback: dealer blackjack: the lamp lights, the hole card is turned over (R6)."""
        self.model.step(["peek"])
        self.model.emit(Journal("peek", {"round": self.model.round.number, "blackjack": True}),
                        OpLog("peek: dealer blackjack"))
        self.journal_hole()

    def peek_clear(self, event: EventData) -> None:
        """Callback: no blackjack; play goes on and nothing else is shown (R5)."""
        self.model.step(["peek"])
        self.model.emit(Journal("peek", {"round": self.model.round.number, "blackjack": False}),
                        OpLog("peek: no dealer blackjack"))
        self.model.start_players(event)

    def reveal_hole(self, event: EventData) -> None:
        """Callback: the dealer turns the hole card over."""
        self.journal_hole()

    def journal_hole(self) -> None:
        """The hole card, now turned over: to the secured journal and the camera check."""
        game = self.model.game
        assert game is not None
        hole = str(game.dealer[1])
        self.model.emit(Journal("card:hole_revealed", {"round": self.model.round.number,
                                                       "card": hole}),
                        CameraCheck(self.model.camera_zone(DEALER), hole, "hole card"))


def _source(event: EventData) -> str:
    """Where an answer came from: the layout's buttons (default), the console, a bot."""
    return str(event.kwargs.get("source", "layout"))
