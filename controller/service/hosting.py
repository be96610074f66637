"""What the process around the table provides: the software check, service manager, watchdog.

The service does not know systemd or the installed manifest: whoever starts the table hands
it a `Hosting`. `shoectl run` gives the appliance's (`controller.appliance`: the manifest
check of R16, sd_notify and the loop watchdog); a simulation keeps the defaults, which record
the software as unverified and tell no service manager anything.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

KIND_VERIFIED: Final = "system:software-verified"
KIND_MISMATCH: Final = "system:software-mismatch"
KIND_UNVERIFIED: Final = "system:software-unverified"
"""The journal records of the start-of-service software check (R16)."""

Recorder = Callable[[str, dict[str, Any]], None]
"""Appends one journal record `(kind, data)`."""

Authenticate = Callable[[Recorder], object]
"""Checks the running software, records the outcome, and raises to refuse the start."""


class ServiceManager(Protocol):
    """The service manager's side: told when the table is ready and when it stops."""

    def ready(self, status: str | None = None) -> bool:
        """The table is up (`status`: one line for the manager's status)."""

    def stopping(self, status: str | None = None) -> bool:
        """The table is stopping."""

    def status(self, text: str) -> bool:
        """The table's status line changed."""


class Watchdog(Protocol):
    """Pinged from the loop while the table is healthy."""

    @property
    def period_s(self) -> float | None:
        """Seconds between pings, or None when no watchdog is armed."""

    def tick(self, healthy: bool) -> bool:
        """Ping if healthy and a ping is due; True when one was sent."""


class NoServiceManager:
    """No service manager: nothing is told."""

    def ready(self, status: str | None = None) -> bool:
        """Tell no one."""
        return False

    def stopping(self, status: str | None = None) -> bool:
        """Tell no one."""
        return False

    def status(self, text: str) -> bool:
        """Tell no one."""
        return False


class NoWatchdog:
    """No watchdog armed."""

    period_s: float | None = None

    def tick(self, healthy: bool) -> bool:
        """Never pings."""
        return False


def unverified(record: Recorder) -> None:
    """The default check: no manifest to verify against, recorded as unverified."""
    record(KIND_UNVERIFIED, {"severity": "warning", "reason": "no software check configured"})


@dataclass
class Hosting:
    """The start-of-service software check, the service manager and the loop watchdog."""

    authenticate: Authenticate = unverified
    manager: ServiceManager = field(default_factory=NoServiceManager)
    watchdog: Watchdog = field(default_factory=NoWatchdog)
