"""In-process fakes of the driver interfaces, for controller unit tests (no bytes, no threads).

Each fake satisfies its interface's contract (the same suites in `tests/drivers/` run against
the fakes and the byte-level emulated rig) and adds:

Stimulus:
    `FakeShoe.load()`, `draw(code, quality)`, `fault(kind)`; every fake's `drop_link()` /
    `restore_link()`; `FakeLayout.place_chip(sensor)`, `remove_chip`, `press(button)`,
    `turn_key(position)`; `FakeSign.go_silent()` / `answer_again()`.

Observation:
    `FakeShoe.state` and `FakeShoe.handled_records` (what the owner declared handled);
    `FakeLayout.lamps` (current states) and `FakeLayout.timeline`
    (every `(time, lamp, state)`); `FakeSign.shown` (every `(time, what, fields)`).

Every event is delivered synchronously to the sink on the caller's thread.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from drivers.config import KEY_NORMAL, LayoutConfig
from drivers.errors import DeviceClosedError, DeviceUnavailableError, DriverError
from drivers.events import (
    BetSensorChanged,
    BoardNumbering,
    ButtonPressed,
    CardDrawn,
    DriverEvent,
    EventSink,
    KeySwitchTurned,
    LinkDown,
    LinkUp,
    ShoeFault,
    ShoeFaultKind,
    ShoeLoaded,
)
from drivers.interfaces import LampMode, ShoeState
from drivers.sign import check_amount, check_fault_text, check_win
from drivers.timing import Scheduler
from tests.support.timing import ManualScheduler


class _FakeDevice:
    """Life cycle shared by the fakes."""

    def __init__(self, name: str, sink: EventSink, scheduler: Scheduler | None) -> None:
        self._name = name
        self._sink = sink
        self._scheduler = scheduler or ManualScheduler()
        self._started = False
        self._closed = False
        self._up = False

    @property
    def name(self) -> str:
        """The configured device name."""
        return self._name

    @property
    def emulated(self) -> bool:
        """Fakes are always emulated."""
        return True

    @property
    def link_up(self) -> bool:
        """True while started and not failed."""
        return self._up and not self._closed

    def start(self) -> None:
        """Start reporting; a `LinkUp` is reported."""
        if self._closed:
            raise DeviceClosedError(self._name, "the device is closed")
        self._started = True
        self._set_link(True, "fake")

    def close(self) -> None:
        """Stop (idempotent)."""
        self._closed = True
        self._up = False

    def drop_link(self, reason: str = "fake link lost") -> None:
        """Stimulus: the link goes down (a `LinkDown` is reported)."""
        self._set_link(False, reason)

    def restore_link(self) -> None:
        """Stimulus: the link comes back (a `LinkUp` is reported)."""
        self._set_link(True, "fake")

    def _set_link(self, up: bool, detail: str) -> None:
        if up == self._up:
            return
        self._up = up
        now = self._scheduler.now()
        self._sink(LinkUp(self._name, detail, now) if up else LinkDown(self._name, detail, now))

    def _check_usable(self) -> None:
        if self._closed:
            raise DeviceClosedError(self._name, "the device is closed")
        if not self._started:
            raise DriverError(self._name, "the device is not started")
        if not self._up:
            raise DeviceUnavailableError(self._name, "the link is down")


class FakeShoe(_FakeDevice):
    """A `ShoeScanner` fake: cards appear when the test says so."""

    def __init__(self, name: str, sink: EventSink, scheduler: Scheduler | None = None) -> None:
        super().__init__(name, sink, scheduler)
        self.state = ShoeState(cards_out=0, lid_open=False, jammed=False, empty=False)
        self.handled_records: list[DriverEvent] = []

    def query_state(self) -> ShoeState:
        """The shoe's state as the stimuli left it."""
        self._check_usable()
        return self.state

    def handled(self, record: DriverEvent) -> None:
        """Note that the owner declared `record` handled (there is no board to tell)."""
        self.handled_records.append(record)

    def resume(self, numbering: BoardNumbering, last: int) -> None:
        """Note where the owner said the numbering stands (the fake numbers by itself)."""
        self.resumed = (numbering, last)

    def load(self) -> None:
        """Stimulus: a new shoe is loaded (card numbers restart)."""
        self._check_usable()
        self.state = ShoeState(0, False, False, False)
        self._sink(ShoeLoaded(self._name, self._scheduler.now()))

    def draw(self, code: str | None, quality: int = 100) -> None:
        """Stimulus: a card leaves the shoe (None: unreadable)."""
        self._check_usable()
        self.state = replace(self.state, cards_out=self.state.cards_out + 1)
        count, now = self.state.cards_out, self._scheduler.now()
        if code is None:
            self._sink(ShoeFault(self._name, ShoeFaultKind.UNREADABLE, count, True, now))
        self._sink(CardDrawn(self._name, count, code, quality if code else 0, now))

    def fault(self, kind: ShoeFaultKind, active: bool = True) -> None:
        """Stimulus: the shoe reports a condition."""
        self._check_usable()
        self._sink(ShoeFault(self._name, kind, self.state.cards_out, active,
                             self._scheduler.now()))


class FakeLayout(_FakeDevice):
    """A `LayoutLamps` and `LayoutInputs` fake built from a layout configuration."""

    def __init__(self, config: LayoutConfig, sink: EventSink,
                 scheduler: Scheduler | None = None) -> None:
        super().__init__(config.name, sink, scheduler)
        self._config = config
        self.lamps: dict[str, LampMode] = dict.fromkeys(config.lamps, LampMode.OFF)
        self.timeline: list[tuple[float, str, LampMode]] = []
        self._inputs = dict.fromkeys(config.inputs(), False)

    def start(self) -> None:
        """Start reporting: a `LinkUp`, then every bet sensor's state (the drivers' contract)."""
        super().start()
        now = self._scheduler.now()
        for sensor in self._config.bet_sensors:
            self._sink(BetSensorChanged(self._name, sensor, self._inputs[sensor], now))

    @property
    def lamp_names(self) -> tuple[str, ...]:
        """Every configured lamp."""
        return tuple(self._config.lamps)

    @property
    def input_names(self) -> tuple[str, ...]:
        """Every configured input."""
        return tuple(self._inputs)

    def set_lamp(self, lamp: str, state: LampMode) -> None:
        """Record the lamp's new state."""
        self._check_usable()
        if lamp not in self.lamps:
            raise DriverError(self._name, f"lamps: no lamp named {lamp!r}")
        self.lamps[lamp] = LampMode(state)
        self.timeline.append((self._scheduler.now(), lamp, LampMode(state)))

    def all_safe(self) -> None:
        """Every lamp off."""
        for lamp in self.lamps:
            self.set_lamp(lamp, LampMode.OFF)

    def input_states(self) -> Mapping[str, bool]:
        """The current input states."""
        return dict(self._inputs)

    def place_chip(self, sensor: str) -> None:
        """Stimulus: a chip lands on a bet sensor."""
        self._change(sensor, self._config.bet_sensors, True)

    def remove_chip(self, sensor: str) -> None:
        """Stimulus: the chip is taken off a bet sensor."""
        self._change(sensor, self._config.bet_sensors, False)

    def press(self, button: str) -> None:
        """Stimulus: a button is pressed and released."""
        self._change(button, self._config.buttons, True)
        self._inputs[button] = False

    def turn_key(self, position: str) -> None:
        """Stimulus: the supervisor turns the key to a position (`normal` or a configured one)."""
        self._check_usable()
        if position != KEY_NORMAL and position not in self._config.key_switches:
            raise DriverError(self._name, f"no key position {position!r}")
        for name in self._config.key_switches:
            self._inputs[name] = name == position
        self._sink(KeySwitchTurned(self._name, position, self._scheduler.now(),
                                   key=f"{self._name} fake key switch", authenticated=True))

    def _change(self, name: str, table: Mapping[str, int], active: bool) -> None:
        self._check_usable()
        if name not in table:
            raise DriverError(self._name, f"no such input {name!r}")
        if self._inputs[name] == active:
            return
        self._inputs[name] = active
        now = self._scheduler.now()
        if table is self._config.bet_sensors:
            self._sink(BetSensorChanged(self._name, name, active, now))
        else:
            self._sink(ButtonPressed(self._name, name, now))


class FakeSign(_FakeDevice):
    """A `JackpotSign` fake that records what it was told to show."""

    def __init__(self, name: str, sink: EventSink, scheduler: Scheduler | None = None) -> None:
        super().__init__(name, sink, scheduler)
        self.shown: list[tuple[float, str, tuple[int | str, ...]]] = []

    def show_amount(self, cents: int) -> None:
        """Record an amount."""
        check_amount(self._name, cents)
        self._record("amount", cents)

    def show_win(self, seat: int, cents: int, hold_s: int = 20) -> None:
        """Record a win."""
        check_win(self._name, seat, cents, hold_s)
        self._record("win", seat, cents, hold_s)

    def show_fault(self, text: str) -> None:
        """Record a fault text."""
        check_fault_text(self._name, text)
        self._record("fault", text)

    def go_silent(self) -> None:
        """Stimulus: the sign stops answering (a `LinkDown` is reported)."""
        self.drop_link("sign not answering")

    def answer_again(self) -> None:
        """Stimulus: the sign answers again (a `LinkUp` is reported)."""
        self.restore_link()

    def _record(self, what: str, *fields: int | str) -> None:
        self._check_usable()
        self.shown.append((self._scheduler.now(), what, fields))

