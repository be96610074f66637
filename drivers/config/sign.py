"""`[devices.sign]`: the progressive jackpot sign."""

from __future__ import annotations

from dataclasses import dataclass, field

from confkeys import Section
from drivers.config.boards import (
    DEFAULT_TIMEOUT_MS,
    BoardTrust,
    SerialPortConfig,
    read_serial_port,
    read_timeout,
    read_trust,
)


@dataclass(frozen=True, slots=True)
class SignConfig:
    """`[devices.sign]`: the progressive jackpot sign.

    Attributes:
        name: Section name.
        kind: `serial` or `emulated`.
        port: The sign's serial port; None when emulated.
        timeout_ms: Silence after which the sign is declared not answering (R15).
        trust: Its pairing key and accepted firmware.
    """

    name: str
    kind: str
    port: SerialPortConfig | None
    timeout_ms: int = DEFAULT_TIMEOUT_MS
    trust: BoardTrust = field(default_factory=BoardTrust)


def read_sign(section: Section, kind: str) -> SignConfig:
    """Build the sign's record."""
    port = read_serial_port(section) if kind == "serial" else None
    return SignConfig(section.name, kind, port, read_timeout(section), read_trust(section, kind))
