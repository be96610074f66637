"""What a game's own timers need of the table's loop: its clock and `call_at`.

A family whose procedure runs timers of its own (the community game's decision timers)
takes the loop through `TableModel.run_timers_on`; the service hands every model the loop
the same way, whatever its family.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol


class Cancellable(Protocol):
    """A scheduled callback that can be cancelled."""

    def cancel(self) -> None:
        """Stop the callback from running."""
        ...


class TimerScheduler(Protocol):
    """What the timers need of the loop: its clock and `call_at`."""

    clock: Callable[[], float]

    def call_at(self, when: float, callback: Callable[[], None]) -> Cancellable:
        """Run `callback` on the loop thread once the clock reaches `when`."""
        ...


Fire = Callable[..., bool]
"""Fires a trigger (`fire(name, **kwargs)`), True when it was taken."""
FireTogether = Callable[[list[tuple[str, dict[str, Any]]]], None]
"""Fires triggers that fall due at the same moment, with one commit."""
