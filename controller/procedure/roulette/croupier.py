"""The roulette dealer's steps after the wheel decides: `croupier.<name>` in the table.

The marker goes on the winning number at the console (on that number only); the spin is then
settled by the rules (`settle_spin`), the losing wagers are cleared, and only then are the
winners paid (RULES.md, "Roulette"): each step a journal record, the settled spin the
round's result.
"""

from __future__ import annotations

from typing import Any, Protocol

from transitions import EventData

from controller.procedure.core.effects import Effect, Journal, OpLog
from controller.procedure.core.roundstate import Round
from controller.procedure.roulette.spin import Spin, wager_record
from controller.procedure.roulette.states import RO
from controller.procedure.shared.setup import Setup
from controller.rules import roulette as ro


class SpinHost(Protocol):
    """What settling a spin reads of the roulette model."""

    setup: Setup
    spin: Spin

    @property
    def wheel(self) -> ro.Wheel:
        """The configured wheel and layout."""
        ...

    def placed_wagers(self) -> list[ro.RouletteWager]:
        """The wagers on the layout (the wagers' own list)."""
        ...


class CroupierHost(SpinHost, Protocol):
    """What the croupier reads and changes of the roulette model."""

    state: str
    round: Round
    settled: ro.SpinSettlement | None
    results: list[dict[str, Any]]

    def emit(self, *effects: Effect) -> None:
        """Queue effects for the runtime."""
        ...


class Croupier:
    """The marker, the losing wagers cleared, the winners paid.

    Args:
        model: The roulette model, as the croupier sees it (its spin, wagers and settlement).
    """

    def __init__(self, model: CroupierHost) -> None:
        self.model = model

    def marker_refusal(self, number: object) -> str:
        """Why the marker cannot go on `number` ("" when it can)."""
        spin = self.model.spin
        if self.model.state != RO.MARKER or spin.number is None:
            return "there is no winning number to mark"
        if number != spin.number:
            return (f"the winning number is {spin.number}: put the marker on {spin.number}, "
                    f"not on {number}")
        return ""

    def marker_matches(self, event: EventData) -> bool:
        """Condition: the marker goes on the wheel's number."""
        return self.marker_refusal(event.kwargs.get("number")) == ""

    def place_marker(self, event: EventData) -> None:
        """Callback: the marker is on the number; settle, and say what to clear."""
        model = self.model
        number = str(model.spin.number)
        model.spin.marker = True
        model.settled = settle(model)
        model.emit(Journal("spin:marker", {"round": model.round.number, "number": number,
                                           "source": event.kwargs.get("source", "")}),
                   OpLog(f"marker on {number}: clear {len(model.settled.losers)} losing "
                         "wagers"))

    def clear_losers(self, event: EventData) -> None:
        """Callback: the losing wagers are off the layout (before any winner is paid)."""
        settled = self.model.settled
        assert settled is not None
        losers = [wager_record(r.wager) for r in settled.losers]
        self.model.emit(Journal("spin:losers_cleared", {
            "round": self.model.round.number, "losers": losers,
            "source": event.kwargs.get("source", "")}))

    def settle_round(self, event: EventData) -> None:
        """Callback: the winners are paid; the spin's record is the round's result."""
        model = self.model
        settled = model.settled
        assert settled is not None
        pays = model.setup.config.paytables.roulette
        paid = [{**wager_record(r.wager), "pays": str(pays.odds(r.wager.bet)), "net": r.net}
                for r in settled.winners]
        record = self.round_record(settled)
        model.round.settled = True
        model.round.result = record
        model.results.append(record)
        model.emit(Journal("spin:winners_paid", {"round": model.round.number, "winners": paid,
                                                 "source": event.kwargs.get("source", "")}),
                   Journal("round:settled", record),
                   OpLog(f"spin {model.round.number} settled: players net {settled.net} "
                         "cents"))

    def settle_empty_layout(self, event: EventData) -> None:
        """Callback: a spin no wager was on is settled with nothing to clear or pay."""
        model = self.model
        model.settled = settle(model)
        record = self.round_record(model.settled)
        model.round.settled = True
        model.round.result = record
        model.results.append(record)
        model.emit(Journal("round:settled", record),
                   OpLog(f"spin {model.round.number} settled: no wagers on the layout"))

    def round_record(self, settled: ro.SpinSettlement) -> dict[str, Any]:
        """The settled spin: its number, game, and every seat's wagers with their nets."""
        seats: dict[int, list[dict[str, Any]]] = {}
        for result in (*settled.losers, *settled.winners):
            wager = result.wager
            seats.setdefault(wager.seat, []).append(
                {"bet": wager.bet.value, "numbers": list(wager.numbers), "cents": wager.cents,
                 "net": result.net})
        return {"round": self.model.round.number, "game": self.model.spin.game,
                "number": settled.number, "colour": ro.colour(settled.number),
                "seats": [{"seat": s, "wagers": w} for s, w in sorted(seats.items())]}


def settle(model: SpinHost) -> ro.SpinSettlement:
    """The rules' settlement of the wagers on the layout on the spin's number."""
    assert model.spin.number is not None
    return ro.settle_spin(model.placed_wagers(), model.spin.number, model.wheel,
                          model.setup.config.paytables.roulette)
