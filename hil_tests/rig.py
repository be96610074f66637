"""A rig: the devices of a rig file, built through the real registry, and what they reported.

On the emulated rig every device is the real driver on a byte-level emulator behind a real
pty; on a bench rig the same drivers talk to real boards. Tests reach emulators only through
`emulator(name)`, which skips (saying why) when the rig has none.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, Final, TypeVar

import pytest

from drivers.config import is_emulated
from drivers.emulated.shoe import ShoeEmulator
from drivers.emulated.shoe_model import ShoeContents, ShoePlan
from drivers.events import DriverEvent, ShoeLoaded
from drivers.registry import BuildOptions, Devices, build_devices
from firmware_bridge import LinkTiming

E = TypeVar("E")

WAIT_S: Final = 30.0
"""How long a test waits for what a device reports: an upper bound for a loaded two-core
machine, never a speed a test relies on (a wait returns as soon as the fact holds)."""

EMULATED_TABLE_DEVICES: Final = """
[devices.shoe]
kind = "emulated"
decks = 6
seed = 3

[devices.layout]
kind = "emulated"
lamps = { fault = 0, no_more_bets = 1, blackjack = 2, seat1 = { turn = 3, blazing7s = 4 } }
bet_sensors = { seat1 = { blazing7s = 0 } }
buttons = { no_more_bets = 0, shuffle = 1 }

[devices.sign]
kind = "emulated"
"""
"""The device sections of a blackjack table whose shoe, layout and sign are all emulated,
for tests that run `shoectl run` on the emulated rig."""


class EventLog:
    """Every event the rig's devices reported, with waiting that never sleeps blindly."""

    def __init__(self) -> None:
        self._events: list[DriverEvent] = []
        self._changed = threading.Condition()

    def append(self, event: DriverEvent) -> None:
        """The devices' sink."""
        with self._changed:
            self._events.append(event)
            self._changed.notify_all()

    def mark(self) -> int:
        """A position to read from later."""
        with self._changed:
            return len(self._events)

    def since(self, mark: int = 0) -> list[DriverEvent]:
        """Events after `mark`."""
        with self._changed:
            return self._events[mark:]

    def of(self, kind: type[E], mark: int = 0) -> list[E]:
        """Events of one type after `mark`."""
        return [event for event in self.since(mark) if isinstance(event, kind)]

    def wait_for(self, condition: Callable[[list[DriverEvent]], bool], timeout: float,
                 mark: int = 0) -> bool:
        """Wait until `condition(events since mark)` holds; False after `timeout` seconds."""
        with self._changed:
            return self._changed.wait_for(lambda: condition(self._events[mark:]), timeout)

    def wait_for_event(self, kind: type[E], timeout: float, mark: int = 0,
                       where: Callable[[E], bool] = lambda event: True) -> E:
        """The first event of `kind` after `mark` that satisfies `where`; fails on timeout."""
        def found(events: list[DriverEvent]) -> bool:
            return any(isinstance(e, kind) and where(e) for e in events)

        if not self.wait_for(found, timeout, mark):
            pytest.fail(f"no {kind.__name__} within {timeout} s; got {self.since(mark)[-5:]}")
        return next(e for e in self.since(mark) if isinstance(e, kind) and where(e))


RIG_SETTINGS: Final = {
    "retransmit_timeout_ms": "retransmit_timeout",
    "max_retransmit_timeout_ms": "max_retransmit_timeout",
    "max_retransmits": "max_retransmits",
    "window": "window",
}
"""The keys of `[rig.settings]`, each with the `LinkTiming` field it sets (`_ms`: in ms)."""


def rig_timing(settings: dict[str, Any]) -> LinkTiming | None:
    """Link timing from the rig's `[rig.settings]` (None: the protocol's defaults).

    Keys the rig file leaves out keep the protocol's default; `load_rig_file` has refused
    unknown keys.
    """
    if not settings:
        return None
    changes = {RIG_SETTINGS[key]: value / 1000 if key.endswith("_ms") else value
               for key, value in settings.items()}
    return replace(LinkTiming(), **changes)


class Rig:
    """The devices of one rig file.

    Args:
        name: The rig's name.
        devices: The rig file's `[devices]` table (the table configuration's format).
        features: What the rig can do (for `needs`).
        settings: `[rig.settings]`.
        workdir: Where emulated ports get their symlinks.
    """

    def __init__(self, name: str, devices: dict[str, Any], features: frozenset[str],
                 settings: dict[str, Any], workdir: Path) -> None:
        self.name = name
        self.features = features
        self.settings = settings
        self.events = EventLog()
        self.timing = rig_timing(settings)
        self.options = BuildOptions(timing=self.timing, workdir=workdir)
        allow = any(is_emulated(str(section.get("kind", ""))) for section in devices.values())
        self.devices: Devices = build_devices(devices, self.events.append,
                                              allow_emulated=allow, options=self.options)
        self.devices.start()

    @property
    def shoe(self) -> Any:
        """The shoe scanner (skips when the rig has none)."""
        return self._need(self.devices.shoe, "shoe")

    @property
    def layout(self) -> Any:
        """The layout (skips when the rig has none)."""
        return self._need(self.devices.layout, "layout")

    @property
    def sign(self) -> Any:
        """The jackpot sign (skips when the rig has none)."""
        return self._need(self.devices.sign, "sign")

    def emulator(self, name: str) -> Any:
        """The emulator behind device `name` (skips on real hardware)."""
        return self._need(self.devices.emulators.get(name), f"an emulated {name}")

    def to_idle(self) -> None:
        """Every link up with no fault injected, and (when emulated) a fresh shoe loaded."""
        for name, emulator in self.devices.emulators.items():
            _heal(emulator)
            device = getattr(self.devices, name)
            # Every change of `link_up` comes with a LinkUp/LinkDown event, which wakes this.
            if not self.events.wait_for(lambda events, d=device: d.link_up, WAIT_S):
                raise RuntimeError(f"{name}: link not up after healing the emulator")
        for device in self.devices.all():
            if not device.link_up:
                raise RuntimeError(f"{device.name}: link is down")
        shoe = self.devices.emulators.get("shoe")
        if isinstance(shoe, ShoeEmulator):
            mark = self.events.mark()
            shoe.load(ShoeContents.shuffled(ShoePlan(decks=6, seed=1)))
            self.events.wait_for_event(ShoeLoaded, WAIT_S, mark)

    def close(self) -> None:
        """Close every device and emulator."""
        self.devices.close()

    def _need(self, thing: Any, what: str) -> Any:
        if thing is None:
            pytest.skip(f"rig {self.name!r} has no {what}")
        return thing


def _heal(emulator: Any) -> None:
    faults = getattr(emulator, "faults", None)
    if faults is not None:
        emulator.set_fault_rates(0.0, 0.0)
        faults.resume()
    if hasattr(emulator, "plugged") and not emulator.plugged:
        emulator.replug()

