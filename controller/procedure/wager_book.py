"""The wagers of the round being bet: amounts placed and bet sensors while betting is open.

Conditions and callbacks of both families' transition tables, named there `wagers.<name>`.
After no more bets the sensors are locked out: a change is journalled but not counted (R10).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from transitions import EventData

from controller.procedure.effects import Journal
from controller.rules.sidebets import SideBet

if TYPE_CHECKING:
    from controller.procedure.table_model import TableModel


class WagerBook:
    """Wagers placed (`pending`, cents by seat and bet) and bet sensors (`sensors`).

    Args:
        model: The procedure model.
        main_bets: The game's main wagers (a seat plays when it has one of them).
    """

    def __init__(self, model: TableModel, main_bets: tuple[str, ...] = ("main",)) -> None:
        self.model = model
        self.main_bets = main_bets
        self.pending: dict[int, dict[str, int]] = {}
        self.sensors: dict[str, bool] = {}

    def wager_allowed(self, event: EventData) -> bool:
        """Condition: a known wager on a seat of this table (progressive only while linked)."""
        seat, bet = int(event.kwargs.get("seat", 0)), str(event.kwargs.get("bet", ""))
        cents = int(event.kwargs.get("cents", 0))
        settings = self.model.setup.config.table
        if not 1 <= seat <= settings.seats or cents <= 0:
            return False
        if bet == SideBet.BLAZING7S:
            return self.model.progressive.is_open()
        return bet in self.main_bets or bet in settings.side_bets

    def place_wager(self, event: EventData) -> None:
        """Callback: record a wager (Blazing 7's stands for a chip on its sensor)."""
        seat, bet = int(event.kwargs["seat"]), str(event.kwargs["bet"])
        cents = int(event.kwargs["cents"])
        if bet == SideBet.BLAZING7S:
            self.sensors[f"seat{seat}.{bet}"] = True
        else:
            self.pending.setdefault(seat, {})[bet] = cents
        self.model.emit(Journal("bet:wager", {"round": self.model.round.number, "seat": seat,
                                              "bet": bet, "cents": cents}))

    def sense_bet(self, event: EventData) -> None:
        """Callback: a bet sensor changed; after the lock-out it is ignored (R10)."""
        sensor, occupied = str(event.kwargs["sensor"]), bool(event.kwargs["occupied"])
        counted = self.model.state == "betting"
        if counted:
            self.sensors[sensor] = occupied
        self.model.emit(Journal("bet:sensor", {"sensor": sensor, "occupied": occupied,
                                               "counted": counted}))

    def has_wagers(self, event: EventData) -> bool:
        """Condition: someone has a main wager."""
        return any(any(b in w for b in self.main_bets) for w in self.pending.values())

    def accepted_progressive_seats(self) -> list[int]:
        """Seats whose Blazing 7's sensor is occupied and whose main wager stands."""
        if not self.model.progressive.is_open():
            return []
        return sorted(seat for seat in self.pending
                      if self.sensors.get(f"seat{seat}.{SideBet.BLAZING7S}"))

    def in_play(self) -> list[dict[str, Any]]:
        """What each seat has placed (returned if the round is voided before the deal)."""
        return [{"seat": seat, "wagers": dict(bets)} for seat, bets in sorted(self.pending.items())]

    def clear(self) -> None:
        """Forget every wager and sensor (a new round)."""
        self.pending = {}
        self.sensors = {}
