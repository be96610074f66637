"""The roulette dealer's steps after the wheel decides: `croupier.<name>` in the table.

The marker goes on the winning number at the console (on that number only); the spin is then
settled by the rules (`settle_spin`), the losing wagers are cleared, and only then are the
winners paid (RULES.md, "Roulette"): each step a journal record, the settled spin the
round's result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from transitions import EventData

from controller.procedure.core.effects import Journal, OpLog
from controller.procedure.roulette.states import RO
from controller.rules import roulette as ro

if TYPE_CHECKING:
    from controller.procedure.roulette.model import RouletteModel


def wager_record(wager: ro.RouletteWager) -> dict[str, Any]:
    """A wager as the journal and the console carry it."""
    return {"seat": wager.seat, "bet": wager.bet.value, "numbers": list(wager.numbers),
            "cents": wager.cents, "named": wager.describe()}


def wager_from_record(data: dict[str, Any]) -> ro.RouletteWager:
    """A wager back from `wager_record`."""
    return ro.RouletteWager(int(data["seat"]), ro.RouletteBet(data["bet"]),
                            frozenset(data["numbers"]), int(data["cents"]))


class Croupier:
    """The marker, the losing wagers cleared, the winners paid.

    Args:
        model: The roulette model (its spin, wagers and settlement).
    """

    def __init__(self, model: RouletteModel) -> None:
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


def settle(model: RouletteModel) -> ro.SpinSettlement:
    """The rules' settlement of the wagers on the layout on the spin's number."""
    assert model.spin.number is not None
    return ro.settle_spin(model.wagers.placed, model.spin.number, model.wheel,
                          model.setup.config.paytables.roulette)
