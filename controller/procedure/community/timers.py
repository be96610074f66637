"""The stations' decision timers, on the loop's clock (injected in tests).

A station's timer runs while it must decide: insurance on its spots under an ace, or its
round of decisions (seed 004). It starts with the full limit each time the station starts
deciding (the start of the decision phase, and again after every community card it asked
for); a stand keeps it running; a hit, split or double stops it; so does finishing. At
expiry the table fires `timer_expired` for the station: insurance is declined on every spot
still to answer, every hand that can stand stands.

The timers are scheduled on a `TimerScheduler` (the service's `EventLoop`: `call_at` on its
clock) and never read wall-clock time themselves; each start and stop is journalled with the
scheduler's time. Timers started by the same step share one deadline (the clock is read once),
so when they run out they run out together and reach the table as one step (`fire_together`:
one commit, one publication), however many stations there are. Without a scheduler (a model
driven by hand) no timer runs and only the station's own decisions move it on.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, Protocol

from controller.procedure.core.effects import Effect, Journal
from controller.procedure.core.roundstate import Round
from controller.procedure.core.timing import Cancellable, Fire, FireTogether, TimerScheduler

DECISION_SECONDS: Final = 15.0
"""The decision limit of a station's round of decisions (and of its insurance answer)."""


class TimersHost(Protocol):
    """What the timers read and call of the community model."""

    state: str
    round: Round

    def emit(self, *effects: Effect) -> None:
        """Queue effects for the runtime."""
        ...

    def fire(self, name: str, **kwargs: Any) -> bool:
        """Fire a trigger (an expiry, when no runtime fires it)."""
        ...

    def stations_deciding(self) -> list[int]:
        """The stations the dealer waits for."""
        ...


class StationTimers:
    """One timer per station that must decide; `sync` starts and stops them after each trigger.

    Attributes:
        seconds: The limit of one round of decisions.
        scheduler: The loop the timers run on (None: no timers).
        fire: How an expiry reaches the table: the runtime's `fire` (which journals it),
            or the model's own when driven without a runtime.
        fire_together: How expiries due at the same moment reach the table together (the
            runtime's `fire_together`: one commit); None: one `fire` each.
        running: Station -> (its timer's number, its deadline on the scheduler's clock).
    """

    def __init__(self, model: TimersHost, seconds: float = DECISION_SECONDS) -> None:
        self.model = model
        self.seconds = seconds
        self.scheduler: TimerScheduler | None = None
        self.fire: Callable[..., bool] = model.fire
        self.fire_together: Callable[[list[tuple[str, dict[str, Any]]]], None] | None = None
        self.running: dict[int, tuple[int, float]] = {}
        self._handles: dict[int, Cancellable] = {}
        self._numbers = 0

    def attach(self, scheduler: TimerScheduler, fire: Fire | None = None,
               fire_together: FireTogether | None = None) -> None:
        """Run the timers on `scheduler`; expiries go through `fire` (default: the model).

        Expiries due at the same moment go through `fire_together` when given. A station
        deciding in a restored round gets a full timer now.
        """
        self.scheduler = scheduler
        if fire is not None:
            self.fire = fire
        self.fire_together = fire_together
        self.sync()

    def sync(self) -> None:
        """Start a timer for each station now deciding, stop those of the others."""
        if self.scheduler is None:
            return
        deciding = set(self.model.stations_deciding())
        for station in sorted(set(self.running) - deciding):
            self._stop(station, "decided")
        starting = sorted(deciding - set(self.running))
        if starting:
            deadline = self.scheduler.clock() + self.seconds  # one deadline for all of them
            for station in starting:
                self._start(station, deadline)

    def stop_all(self) -> None:
        """Cancel every timer (the round ends, or is voided)."""
        for station in sorted(self.running):
            self._stop(station, "round_over")

    def is_current(self, station: int, number: int) -> bool:
        """True when timer `number` is the one running for `station` (not a stale expiry)."""
        running = self.running.get(station)
        return running is not None and running[0] == number

    def expired(self, station: int) -> None:
        """The station's timer ran out: it is no longer running (the table acts on it)."""
        self.running.pop(station, None)
        self._handles.pop(station, None)

    def remaining(self, station: int) -> float | None:
        """Seconds left on the station's timer (None: none runs)."""
        running = self.running.get(station)
        if running is None or self.scheduler is None:
            return None
        return max(0.0, running[1] - self.scheduler.clock())

    def _start(self, station: int, deadline: float) -> None:
        assert self.scheduler is not None
        self._numbers += 1
        number = self._numbers
        self.running[station] = (number, deadline)
        model = self.model

        def expire() -> None:
            self._expire_due(station, number)

        self._handles[station] = self.scheduler.call_at(deadline, expire)
        model.emit(Journal("station:timer_started", {
            "round": model.round.number, "station": station, "timer": number,
            "seconds": self.seconds, "deadline": deadline, "stage": model.state}))

    def _expire_due(self, station: int, number: int) -> None:
        """Timer `number` of `station` ran out: so did every other one due by now, together."""
        assert self.scheduler is not None
        now = self.scheduler.clock()
        due = [(station, number)] + [(s, n) for s, (n, deadline) in sorted(self.running.items())
                                     if deadline <= now and s != station]
        if self.fire_together is None or len(due) == 1:
            for s, n in due:
                self.fire("timer_expired", station=s, timer=n)
            return
        for s, _ in due[1:]:  # their own callbacks must not fire them again
            handle = self._handles.get(s)
            if handle is not None:
                handle.cancel()
        self.fire_together([("timer_expired", {"station": s, "timer": n}) for s, n in due])

    def _stop(self, station: int, why: str) -> None:
        number, deadline = self.running.pop(station)
        handle = self._handles.pop(station, None)
        if handle is not None:
            handle.cancel()
        assert self.scheduler is not None
        left = max(0.0, deadline - self.scheduler.clock())
        self.model.emit(Journal("station:timer_stopped", {
            "round": self.model.round.number, "station": station, "timer": number,
            "why": why, "seconds_left": round(left, 3)}))
