"""The wagers on a roulette layout: any number a seat, each its bet, spot and amount.

Conditions and callbacks named `wagers.<name>` in the roulette transition table. Each wager is
checked by the rules (`spot_for`, the table's limits) and journalled with its spot; a player
may take a wager back until no more bets.
"""

from __future__ import annotations

from typing import Any, Protocol

from transitions import EventData

from controller.procedure.core.effects import Journal
from controller.procedure.roulette.spin import wager_record
from controller.procedure.shared.wager_book import ProgressiveGate, WagerBook, WagerHost
from controller.rules import roulette as ro
from controller.rules.errors import RulesError


class RouletteWagersHost(WagerHost, Protocol):
    """What the roulette wagers read of the model besides the shared book's host."""

    @property
    def wheel(self) -> ro.Wheel:
        """The configured wheel and layout."""
        ...


class RouletteWagers(WagerBook):
    """The wagers on the layout: any number a seat, each its bet, spot and amount."""

    model: RouletteWagersHost

    def __init__(self, model: RouletteWagersHost, progressive: ProgressiveGate) -> None:
        super().__init__(model, progressive, ())
        self.model = model
        self.placed: list[ro.RouletteWager] = []

    def refusal(self, kwargs: dict[str, Any]) -> str:
        """Why a `wager` cannot be placed ("" when it can)."""
        try:
            self._wager(kwargs)
        except RulesError as exc:
            return str(exc)
        return ""

    def _wager(self, kwargs: dict[str, Any]) -> ro.RouletteWager:
        table = self.model.setup.config.table
        seat, cents = kwargs.get("seat"), kwargs.get("cents")
        if not isinstance(seat, int) or not 1 <= seat <= table.seats:
            raise RulesError(f"seat must be a seat number from 1 to {table.seats}")
        if not isinstance(cents, int) or not table.min_wager <= cents <= table.max_wager:
            raise RulesError(f"seat {seat}: {cents} cents is outside the table limits "
                             f"{table.min_wager}..{table.max_wager} cents")
        numbers = kwargs.get("numbers") or []
        if not isinstance(numbers, list) or not all(isinstance(n, str) for n in numbers):
            raise RulesError("numbers must be a list of pockets such as [\"17\", \"20\"]")
        which = kwargs.get("which")
        spot = ro.spot_for(str(kwargs.get("bet", "")), self.model.wheel, numbers,
                           which if isinstance(which, int) else None)
        return ro.RouletteWager(seat, ro.RouletteBet(str(kwargs["bet"])), spot, cents)

    def wager_allowed(self, event: EventData) -> bool:
        """Condition: a wager the layout has, on a seat, within the table limits."""
        return self.refusal(event.kwargs) == ""

    def place_wager(self, event: EventData) -> None:
        """Callback: the wager is on the layout (journalled with its spot)."""
        wager = self._wager(event.kwargs)
        self.placed.append(wager)
        self.model.emit(Journal("bet:wager", {"round": self.model.round.number,
                                              **wager_record(wager),
                                              "source": event.kwargs.get("source", "")}))

    def cancel_refusal(self, kwargs: dict[str, Any]) -> str:
        """Why a `cancel_wager` cannot be taken ("" when it can)."""
        try:
            wager = self._wager(kwargs)
        except RulesError as exc:
            return str(exc)
        return "" if wager in self.placed else f"seat {wager.seat} has no {wager.describe()} " \
                                               f"of {wager.cents} cents on the layout"

    def cancel_allowed(self, event: EventData) -> bool:
        """Condition: that wager is on the layout."""
        return self.cancel_refusal(event.kwargs) == ""

    def cancel_wager(self, event: EventData) -> None:
        """Callback: the player takes the wager back before no more bets."""
        wager = self._wager(event.kwargs)
        self.placed.remove(wager)
        self.model.emit(Journal("bet:cancelled", {"round": self.model.round.number,
                                                  **wager_record(wager),
                                                  "source": event.kwargs.get("source", "")}))

    def seats_in_play(self) -> dict[int, int | None]:
        """Each seat with wagers on the layout, and its total wagered."""
        seats: dict[int, int | None] = {}
        for wager in self.placed:
            seats[wager.seat] = (seats.get(wager.seat) or 0) + wager.cents
        return dict(sorted(seats.items()))

    def has_wagers(self, event: EventData) -> bool:
        """Condition: some wager is on the layout."""
        return bool(self.placed)

    def layout_is_empty(self, event: EventData) -> bool:
        """Condition: no wager is on the layout."""
        return not self.placed

    def in_play(self) -> list[dict[str, Any]]:
        """Every wager on the layout (what a void returns)."""
        return [wager_record(w) for w in self.placed]

    def clear(self) -> None:
        """A new spin: the layout is empty."""
        super().clear()
        self.placed = []
