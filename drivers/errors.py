"""The `DriverError` family: everything a driver raises names the device it concerns."""

from __future__ import annotations


class DriverError(Exception):
    """Base class of every error raised by `drivers`.

    Attributes:
        device: The configured device name (`shoe`, `layout`, ...), or "" when none applies.
    """

    def __init__(self, device: str, message: str) -> None:
        self.device = device
        super().__init__(f"[devices.{device}] {message}" if device else message)


class DeviceConfigError(DriverError, ValueError):
    """A `[devices.*]` section that cannot be built: unknown key, bad value, pin conflict."""

    def __init__(self, device: str, key: str, message: str) -> None:
        self.key = key
        super().__init__(device, f"{key}: {message}" if key else message)


class DeviceUnavailableError(DriverError, ConnectionError):
    """The device cannot be opened or stopped answering (port missing, USB unplugged)."""


class HandshakeError(DriverError, ConnectionError):
    """The device answered, but is not the firmware or configuration this host expects."""


class PairingError(DriverError, PermissionError):
    """The board's pairing key cannot be used (the message names the file and how to pair).

    The key file is missing, unreadable, readable by every user, or holds no key.
    """


class DeviceClosedError(DriverError, RuntimeError):
    """A command was given to a device that has been closed."""
