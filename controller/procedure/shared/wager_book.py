"""The wagers of the round being bet: seats in play, amounts placed, bet sensors.

Conditions and callbacks of both families' transition tables, named there `wagers.<name>`.
A seat is in play for a round when its main wager is placed (an amount entered), when the
dealer puts it in play (the console's `seat` command, with or without an amount), or when
chips lie on its main-spot sensor (`seat<n>.main`) at no more bets, whether they were put
there in this round or left on the spot from the last (a winning wager let ride: the felt, as
the layout last reported it, decides). Nothing else carries over from one round to the next:
amounts, seats put in play at the console, and side-wager and Blazing 7's sensors (the
dealer collects those chips each round) start afresh. After no more bets the sensors are
locked out: a change is journalled but not counted (R10), and still kept as the felt's.
"""

from __future__ import annotations

from typing import Any, Final, Protocol

from transitions import EventData

from controller.procedure.core.effects import Effect, Journal
from controller.procedure.core.roundstate import Round
from controller.procedure.core.states import TableState
from controller.procedure.shared.setup import Setup
from controller.rules.sidebets import SideBet

SEAT_SPOTS: Final = ("main", str(SideBet.BLAZING7S))
"""The bet spots with a sensor the book reads, each seat's (`seat<n>.main`, ...)."""


class WagerHost(Protocol):
    """What the wager book reads and does of the model it serves (any family's)."""

    setup: Setup
    state: str
    round: Round

    def emit(self, *effects: Effect) -> None:
        """Queue effects for the runtime."""
        ...


class ProgressiveGate(Protocol):
    """What the book asks the progressive desk: whether its wagers are taken now (R15)."""

    def is_open(self) -> bool:
        """Progressive wagers are accepted now."""
        ...


class WagerBook:
    """Wagers placed (`pending`, cents by seat and bet) and bet sensors (`sensors`).

    Args:
        model: The procedure model, as the book sees it.
        progressive: The progressive desk (whether Blazing 7's wagers are taken).
        main_bets: The game's main wagers (a seat plays when it has one of them).
    """

    def __init__(self, model: WagerHost, progressive: ProgressiveGate,
                 main_bets: tuple[str, ...] = ("main",)) -> None:
        self.model = model
        self.progressive = progressive
        self.main_bets = main_bets
        self.pending: dict[int, dict[str, int]] = {}
        self.sensors: dict[str, bool] = {}
        self.felt: dict[str, bool] = {}
        """Every sensor's state as the layout last reported it, counted or not."""
        self.unknown_main: set[int] = set()
        """Seats put in play without an amount (the dealer settles them by ratio)."""

    def wager_allowed(self, event: EventData) -> bool:
        """Condition: a known wager on a seat of this table (progressive only while linked)."""
        seat, bet = int(event.kwargs.get("seat", 0)), str(event.kwargs.get("bet", ""))
        cents = int(event.kwargs.get("cents", 0))
        settings = self.model.setup.config.table
        if not 1 <= seat <= settings.seats or cents <= 0:
            return False
        if bet == SideBet.BLAZING7S:
            return self.progressive.is_open()
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
        counted = self.model.state == TableState.BETTING
        self.felt[sensor] = occupied
        if counted:
            self.sensors[sensor] = occupied
        self.model.emit(Journal("bet:sensor", {"sensor": sensor, "occupied": occupied,
                                               "counted": counted}))

    def has_wagers(self, event: EventData) -> bool:
        """Condition: a seat is in play (a main wager, known or not)."""
        return bool(self.seats_in_play())

    def seats_in_play(self) -> dict[int, int | None]:
        """Each seat in play and its main wager (None: in play, amount not known)."""
        seats: dict[int, int | None] = dict.fromkeys(sorted(self.unknown_main))
        for number in range(1, self.model.setup.config.table.seats + 1):
            if self.sensors.get(f"seat{number}.{SEAT_SPOTS[0]}"):
                seats.setdefault(number, None)
        for seat, bets in self.pending.items():
            known = [bets[b] for b in self.main_bets if b in bets]
            if known:
                seats[seat] = known[0]
        return dict(sorted(seats.items()))

    def seat_allowed(self, event: EventData) -> bool:
        """Condition: a seat of this table, and a main wager within the table's limits."""
        return self.seat_refusal(event.kwargs) == ""

    def seat_refusal(self, kwargs: dict[str, Any]) -> str:
        """Why the `seat` command cannot be taken ("" when it can)."""
        settings = self.model.setup.config.table
        seat, main = kwargs.get("seat"), kwargs.get("main")
        if not isinstance(seat, int) or not 1 <= seat <= settings.seats:
            return f"seat must be a seat number from 1 to {settings.seats}"
        if main is not None and kwargs.get("in_play", True) and not (
                isinstance(main, int) and settings.min_wager <= main <= settings.max_wager):
            return (f"seat {seat}: main wager {main} is outside the table limits "
                    f"{settings.min_wager}..{settings.max_wager} cents")
        return ""

    def set_seat(self, event: EventData) -> None:
        """Callback: the dealer puts a seat in play (with its main wager, if known) or out."""
        seat, in_play = int(event.kwargs["seat"]), bool(event.kwargs.get("in_play", True))
        main = event.kwargs.get("main")
        bets = self.pending.setdefault(seat, {})
        bets.pop(self.main_bets[0], None)
        self.unknown_main.discard(seat)
        if in_play and main is not None:
            bets[self.main_bets[0]] = int(main)
        elif in_play:
            self.unknown_main.add(seat)
        if not bets:
            del self.pending[seat]
        self.model.emit(Journal("bet:seat", {"round": self.model.round.number, "seat": seat,
                                             "in_play": in_play, "main": main if in_play
                                             else None,
                                             "source": event.kwargs.get("source", "")}))

    def accepted_progressive_seats(self) -> list[int]:
        """Seats whose Blazing 7's sensor is occupied and whose main wager stands."""
        if not self.progressive.is_open():
            return []
        return self.progressive_chips()

    def progressive_chips(self) -> list[int]:
        """Seats in play with chips on their Blazing 7's spot (accepted or not)."""
        return [seat for seat in self.seats_in_play()
                if self.sensors.get(f"seat{seat}.{SideBet.BLAZING7S}")]

    def in_play(self) -> list[dict[str, Any]]:
        """What each seat has placed (returned if the round is voided before the deal)."""
        return [{"seat": seat, "wagers": dict(bets)} for seat, bets in sorted(self.pending.items())]

    def clear(self) -> None:
        """Forget every wager, seat and sensor but the main spots' chips still on the felt."""
        self.pending = {}
        self.sensors = {name: True for name, covered in self.felt.items()
                        if covered and name.endswith(".main")}
        self.unknown_main = set()
