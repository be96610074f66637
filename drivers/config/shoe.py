"""`[devices.shoe]`: the shoe scanner, real or emulated."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from confkeys import Section
from drivers.config.boards import (
    DEFAULT_TIMEOUT_MS,
    BoardTrust,
    SerialPortConfig,
    UsbPortConfig,
    read_serial_port,
    read_timeout,
    read_trust,
    read_usb_port,
)
from drivers.emulated.shoe_file import ShoeFileError, shoe_file_cards
from drivers.emulated.shoe_model import PENETRATION_PERCENT

DECK_TYPES: Final = ("standard", "spanish")


DECK_COUNTS: Final = (1, 2, 4, 5, 6, 8)


@dataclass(frozen=True, slots=True)
class ShoeEmulation:
    """What an emulated shoe holds.

    Attributes:
        decks: Decks in the shoe.
        deck: `standard` (52 cards) or `spanish` (48, no tens).
        seed: Shuffle seed; None draws one from the operating system.
        penetration: Where the cut card sits: the percent of the shoe dealt before it.
        cut_card_from_end: Cards behind the cut card; overrides `penetration` when set.
        script: Exactly these cards in this order, no cut card (`--shoe-file` shoes).
        transport: `serial` (a pseudo-terminal) or `usb` (a pyusb backend).
    """

    decks: int = 6
    deck: str = "standard"
    seed: int | None = None
    penetration: int = 75
    cut_card_from_end: int | None = None
    script: tuple[str, ...] | None = None
    transport: str = "serial"


@dataclass(frozen=True, slots=True)
class ShoeConfig:
    """`[devices.shoe]`: the shoe scanner.

    Attributes:
        name: Section name.
        kind: `serial`, `usb` or `emulated`.
        port: The port of a real shoe; None when emulated.
        timeout_ms: Silence after which the link is declared down.
        emulation: The emulated shoe's contents; None for a real shoe.
        trust: Its pairing key and accepted firmware.
    """

    name: str
    kind: str
    port: SerialPortConfig | UsbPortConfig | None
    timeout_ms: int = DEFAULT_TIMEOUT_MS
    emulation: ShoeEmulation | None = None
    trust: BoardTrust = field(default_factory=BoardTrust)


def read_shoe(section: Section, kind: str) -> ShoeConfig:
    """Build the shoe's record from its section."""
    timeout, trust = read_timeout(section), read_trust(section, kind)
    if kind == "serial":
        return ShoeConfig(section.name, kind, read_serial_port(section), timeout, trust=trust)
    if kind == "usb":
        return ShoeConfig(section.name, kind, read_usb_port(section), timeout, trust=trust)
    return ShoeConfig(section.name, kind, None, timeout, read_shoe_emulation(section), trust)


def read_shoe_emulation(section: Section) -> ShoeEmulation:
    """Read the emulated shoe's keys (`decks`, `deck`, `seed`, `penetration`, ...)."""
    decks = section.integer("decks", 6, minimum=1, maximum=8)
    if decks not in DECK_COUNTS:
        raise section.error("decks", f"{decks} is not one of {', '.join(map(str, DECK_COUNTS))}")
    low, high = PENETRATION_PERCENT
    penetration = section.integer("penetration", 75, minimum=low, maximum=high)
    from_end = section.get("cut_card_from_end", int, None)
    if from_end is not None and not 1 <= from_end < decks * 48:
        raise section.error("cut_card_from_end", f"{from_end} does not fit a {decks}-deck shoe")
    return ShoeEmulation(
        decks=decks,
        deck=section.choice("deck", DECK_TYPES, "standard"),
        seed=section.get("seed", int, None),
        penetration=penetration,
        cut_card_from_end=from_end,
        script=_read_script(section),
        transport=section.choice("transport", ("serial", "usb"), "serial"),
    )


def _read_script(section: Section) -> tuple[str, ...] | None:
    if section.has("script") and section.has("script_file"):
        raise section.error("script_file", "give either script or script_file, not both")
    path = section.path("script_file")
    if path is not None:
        try:
            return tuple(card.code for card in shoe_file_cards(Path(path)))
        except ShoeFileError as exc:
            raise section.error("script_file", str(exc)) from exc
    script = section.get("script", list, None)
    if script is None:
        return None
    if not all(isinstance(code, str) for code in script):
        raise section.error("script", "expected an array of card codes such as \"QH\"")
    return tuple(script)
