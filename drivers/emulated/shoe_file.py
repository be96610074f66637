"""The shoe file: exactly the cards a scripted shoe deals, in order.

One format for `shoectl emulate shoe --shoe-file` and `shoectl simulate --shoe-file`
(`drivers/DEVICES.md`, "Shoe file"): UTF-8 text; cards separated by any whitespace (spaces,
tabs, line breaks: one a line, or a whole shoe on one line); `#` starts a comment that runs
to the end of its line. A card is a rank `A23456789TJQK` (`10` for `T`) and a suit `SHDC`,
in either case (`qh`, `10S`). A token that is no card is refused naming the file, its line
and the token; so is a file that holds no card.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from drivers.emulated.shoe_model import ShoeModelError, normalise_code


class ShoeFileError(ShoeModelError):
    """A shoe file that cannot be read, holds no card, or holds a token that is no card."""


@dataclass(frozen=True, slots=True)
class ShoeFileCard:
    """One card of a shoe file: its line (from 1) and its canonical code (`TS`)."""

    line: int
    code: str


def shoe_file_cards(path: Path) -> list[ShoeFileCard]:
    """The cards of the shoe file at `path`, in dealing order.

    Raises:
        ShoeFileError: the file cannot be read or is not UTF-8, a token is no card (the
            message names the file, the line and the token), or the file holds no card.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ShoeFileError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise ShoeFileError(f"{path}: not UTF-8 text (byte {exc.start})") from exc
    cards = []
    for number, line in enumerate(text.splitlines(), 1):
        for token in line.split("#", 1)[0].split():
            try:
                cards.append(ShoeFileCard(number, normalise_code(token)))
            except ShoeModelError:
                raise ShoeFileError(f"{path} line {number}: {token!r} is not a card (a rank "
                                    "A23456789TJQK, then a suit SHDC, e.g. QH)") from None
    if not cards:
        raise ShoeFileError(f"{path}: no card in the file")
    return cards
