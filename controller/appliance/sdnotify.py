"""A dependency-free client of systemd's service notification protocol (sd_notify).

systemd starts a `Type=notify` service with `NOTIFY_SOCKET` naming a datagram socket
(a path, or an abstract socket written with a leading `@`). The service sends newline-
separated `KEY=VALUE` assignments to it: `READY=1` when start-up (integrity check,
configuration, device handshakes) is done, `STATUS=` for `systemctl status`,
`WATCHDOG=1` to prove the main loop is alive, and `STOPPING=1` on an orderly shutdown.
With `WatchdogSec=` set, systemd also passes `WATCHDOG_USEC` (and `WATCHDOG_PID`); a
service that stops pinging is killed with SIGABRT and restarted by `Restart=on-failure`.

Outside systemd (a developer's shell, the tests, `make demo`) there is no `NOTIFY_SOCKET`
and every call is a cheap no-op, so callers never need to branch on it.

STATUS text is an operational channel, visible to anyone who can run `systemctl status`:
never put card identities in it (R5, R17).
"""

from __future__ import annotations

import logging
import os
import socket
import time
from collections.abc import Callable, Mapping
from typing import Final

_log = logging.getLogger(__name__)

NOTIFY_SOCKET_ENV: Final = "NOTIFY_SOCKET"
WATCHDOG_USEC_ENV: Final = "WATCHDOG_USEC"
WATCHDOG_PID_ENV: Final = "WATCHDOG_PID"
_MAX_STATUS_CHARS: Final = 200


class NotifyError(OSError):
    """NOTIFY_SOCKET names an address this client cannot use."""


def _socket_address(raw: str) -> str | bytes:
    """Turn a NOTIFY_SOCKET value into an AF_UNIX address (abstract names start with '@')."""
    if raw.startswith("@"):
        return b"\0" + raw[1:].encode()
    if raw.startswith("/"):
        return raw
    raise NotifyError(f"{NOTIFY_SOCKET_ENV}={raw!r}: only path and @abstract sockets are supported")


def _one_line(text: str) -> str:
    """Flatten text to one line: a newline would start a new assignment in the datagram."""
    flat = " ".join(text.split())
    return flat[:_MAX_STATUS_CHARS]


class Notifier:
    """Sends sd_notify datagrams to the socket systemd gave this process (if any).

    Args:
        address: the NOTIFY_SOCKET value; None means "not started by systemd" and
            makes every call a no-op.
    """

    def __init__(self, address: str | None) -> None:
        self._name = address or ""
        self._address = _socket_address(address) if address else None
        self._sock: socket.socket | None = None

    @classmethod
    def from_environment(
        cls, environ: Mapping[str, str] | None = None, *, unset: bool = False
    ) -> Notifier:
        """Build a notifier from NOTIFY_SOCKET.

        Args:
            environ: the environment to read (default: os.environ).
            unset: remove NOTIFY_SOCKET from os.environ so child processes (emulators,
                helpers) cannot send notifications in this service's name.
        """
        env = os.environ if environ is None else environ
        address = env.get(NOTIFY_SOCKET_ENV) or None
        if unset:
            os.environ.pop(NOTIFY_SOCKET_ENV, None)
        return cls(address)

    @property
    def enabled(self) -> bool:
        """True when this process was started by systemd with a notification socket."""
        return self._address is not None

    def send(self, *assignments: str) -> bool:
        """Send `KEY=VALUE` assignments in one datagram; return True if it was sent.

        A failure to send is logged, never raised: a missing notification must not stop
        the table (systemd will notice a missing READY or WATCHDOG on its own).
        """
        if self._address is None or not assignments:
            return False
        payload = "\n".join(assignments).encode()
        try:
            if self._sock is None:
                self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
            self._sock.sendto(payload, self._address)
        except OSError as exc:
            _log.warning("sd_notify to %s failed: %s", self._name, exc)
            return False
        return True

    def ready(self, status: str | None = None) -> bool:
        """Tell systemd start-up is complete (READY=1), optionally with a status line."""
        extra = [f"STATUS={_one_line(status)}"] if status else []
        return self.send("READY=1", *extra, f"MAINPID={os.getpid()}")

    def status(self, text: str) -> bool:
        """Set the free-form status line `systemctl status` shows (no card data: R5, R17)."""
        return self.send(f"STATUS={_one_line(text)}")

    def watchdog(self) -> bool:
        """Ping the service watchdog (WATCHDOG=1); call only from a healthy main loop."""
        return self.send("WATCHDOG=1")

    def stopping(self, status: str | None = None) -> bool:
        """Tell systemd an orderly shutdown has begun (STOPPING=1)."""
        extra = [f"STATUS={_one_line(status)}"] if status else []
        return self.send("STOPPING=1", *extra)

    def close(self) -> None:
        """Close the datagram socket (it is reopened on the next send)."""
        if self._sock is not None:
            self._sock.close()
            self._sock = None


def watchdog_interval(environ: Mapping[str, str] | None = None) -> float | None:
    """Return the watchdog timeout in seconds systemd expects, or None if there is none.

    Follows sd_watchdog_enabled(3): WATCHDOG_USEC must be a positive integer, and when
    WATCHDOG_PID is set it must be this process (otherwise the watchdog is a parent's).

    Raises:
        NotifyError: WATCHDOG_USEC or WATCHDOG_PID is set but malformed.
    """
    env = os.environ if environ is None else environ
    raw_usec = env.get(WATCHDOG_USEC_ENV)
    if not raw_usec:
        return None
    raw_pid = env.get(WATCHDOG_PID_ENV)
    if raw_pid:
        if not raw_pid.isdigit():
            raise NotifyError(f"{WATCHDOG_PID_ENV}={raw_pid!r} is not a process id")
        if int(raw_pid) != os.getpid():
            return None
    if not raw_usec.isdigit() or int(raw_usec) == 0:
        raise NotifyError(f"{WATCHDOG_USEC_ENV}={raw_usec!r} is not a positive integer")
    return int(raw_usec) / 1_000_000


class LoopWatchdog:
    """Pings systemd's watchdog from the main loop, at half the timeout, only when healthy.

    Call `tick(healthy)` once per loop iteration, after the loop's health checks. A loop
    that stops iterating (wedged on a lock or a blocking read) stops pinging, and systemd
    restarts the service; so does a loop that keeps running but reports itself unhealthy.
    Never drive this from a free-running thread: that would hide a wedged loop.

    Args:
        notifier: where pings go.
        timeout_s: systemd's watchdog timeout (from `watchdog_interval()`); None disables.
        clock: monotonic clock, injectable for tests.
    """

    def __init__(
        self,
        notifier: Notifier,
        timeout_s: float | None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._notifier = notifier
        self._period = timeout_s / 2 if timeout_s else None
        self._clock = clock
        self._last_ping: float | None = None

    @classmethod
    def from_environment(cls, notifier: Notifier) -> LoopWatchdog:
        """Build a loop watchdog from WATCHDOG_USEC/WATCHDOG_PID."""
        return cls(notifier, watchdog_interval())

    @property
    def period_s(self) -> float | None:
        """Seconds between pings (half the timeout), or None when no watchdog is armed."""
        return self._period

    def tick(self, healthy: bool) -> bool:
        """Ping if the loop is healthy and a ping is due; return True if one was sent."""
        if self._period is None or not healthy:
            return False
        now = self._clock()
        if self._last_ping is not None and now - self._last_ping < self._period:
            return False
        if self._notifier.watchdog():
            self._last_ping = now
            return True
        return False
