"""The life cycle every device shares: the `Device` protocol.

`drivers.interfaces` re-exports it with the interfaces that extend it; it stands on its own
so that `drivers.camera`, which `drivers.interfaces` imports, can extend it as well.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable


@runtime_checkable
class Device(Protocol):
    """What every device has."""

    @property
    def name(self) -> str:
        """The configured device name (`[devices.<name>]`)."""

    @property
    def emulated(self) -> bool:
        """True for an emulated device; logs and status then say EMULATED."""

    @property
    def link_up(self) -> bool:
        """True while the device is started and answering."""

    def start(self) -> None:
        """Open the device and begin reporting to the sink.

        Raises:
            DeviceUnavailableError: The port or device cannot be opened.
            HandshakeError: The device is not the firmware/configuration expected.
        """

    def close(self) -> None:
        """Put outputs in their safe state and release the device (idempotent)."""
