"""Styled text: lines of (text, style) segments, painted as plain or ANSI-styled strings."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from controller.rules.money import format_cents
from controller.sim.table_view.snapshot import HIDDEN

Segment = tuple[str, str]
"""A piece of a line: (text, style name; "" for plain)."""
TextLine = list[Segment]

STYLES: Final = {
    "title": "1;36", "bold": "1", "dim": "2", "lit": "1;7", "flash": "1;5;7;31",
    "red": "31", "black": "", "hidden": "7;2", "turn": "1;33", "win": "1;33;41",
    "plus": "1;32", "minus": "1;31", "head": "1;4", "state": "1;35", "sign": "1;33",
}


def paint(lines: Sequence[TextLine], width: int, *, color: bool) -> list[str]:
    """Lines as strings cut to `width` visible characters, with ANSI styles if `color`."""
    out = []
    for line in lines:
        room, parts = width, []
        for text, style in line:
            piece = text[:room]
            room -= len(piece)
            code = STYLES.get(style, "") if color else ""
            parts.append(f"\x1b[{code}m{piece}\x1b[0m" if code and piece else piece)
        out.append("".join(parts).rstrip())
    return out


def card_segments(cards: Sequence[str]) -> TextLine:
    """Card codes as styled segments: hearts and diamonds red, a face-down card hidden."""
    out: TextLine = []
    for code in cards:
        style = "hidden" if code == HIDDEN else "red" if code[-1] in "HD" else "black"
        out += [(code, style), (" ", "")]
    return out[:-1]


def signed_cents(cents: int) -> str:
    """A net as shown: a plus sign on a win."""
    return f"+{format_cents(cents)}" if cents > 0 else format_cents(cents)
