"""The seat table of the live view: one row per hand, a column per wager."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from controller.rules.money import format_cents
from controller.rules.sidebets import SideBet
from controller.sim.table_view.snapshot import HandRow, SeatRow
from controller.sim.table_view.text import TextLine, card_segments, signed_cents

WAGER_ORDER: Final = ("main", "banker", "player", "tie", "dragon-banker", "dragon-player",
                      *(b.value for b in SideBet))
SHORT_NAMES: Final = {
    "perfect-pairs": "PP", "lucky-ladies": "LL", "match-the-dealer": "MtD",
    "blazing7s": "B7", "axman": "AX", "insurance": "INS", "super-bonus": "SB", "envy": "ENVY",
    "banker": "BNK", "player": "PLR", "dragon-banker": "DB", "dragon-player": "DP",
}


@dataclass(frozen=True, slots=True)
class _Cell:
    text: str
    style: str = ""
    right: bool = False


def seat_table(seats: Sequence[SeatRow], width: int) -> list[TextLine]:
    """The seats as a table: one row per hand, a column per wager (full names if they fit).

    Before settlement a wager's cell is its stake; after, its net, signed.
    """
    if not seats:
        return [[("  no wagers on the layout", "dim")]]
    names = _columns(seats)
    hands = any(seat.hands for seat in seats)
    settled = any(seat.nets is not None for seat in seats)
    rows = [cells for seat in seats for cells in _seat_rows(seat, names, hands, settled)]
    for short in (False, True):
        heads = [_head(n, short) for n in names]
        head = [_Cell(" "), _Cell("seat"),
                *([_Cell("cards"), _Cell("total"), _Cell("last")] if hands else []),
                *(_Cell(h, right=True) for h in heads),
                *([_Cell("net", right=True)] if settled else [])]
        table = _layout([head, *rows], header=True)
        if short is True or max(_visible(line) for line in table) <= width:
            break
    legend = [f"{_head(n, True)} {n}" for n in names if _head(n, True) != n]
    return table + (_wrapped(legend, width) if short else [])


def _wrapped(words: Sequence[str], width: int) -> list[TextLine]:
    """`words` as dim lines of at most `width` characters (an indent of two)."""
    lines: list[str] = []
    for word in words:
        if lines and len(lines[-1]) + 2 + len(word) <= width:
            lines[-1] += "  " + word
        else:
            lines.append("  " + word)
    return [[(line, "dim")] for line in lines]


def _columns(seats: Sequence[SeatRow]) -> list[str]:
    names = {name for seat in seats for name, _ in (*seat.wagers, *(seat.nets or ()))}
    if any(seat.hands for seat in seats):
        names.add("main")
    return sorted(names, key=lambda n: (WAGER_ORDER.index(n) if n in WAGER_ORDER else 99, n))


def _head(name: str, short: bool) -> str:
    return SHORT_NAMES.get(name, name) if short else name


def _seat_rows(seat: SeatRow, names: Sequence[str], hands: bool,
               with_net: bool) -> list[list[_Cell]]:
    stakes, nets = dict(seat.wagers), dict(seat.nets or {})
    settled = seat.nets is not None
    rows: list[list[_Cell]] = []
    for index, hand in enumerate(seat.hands or (None,)):
        label = str(seat.seat) if len(seat.hands) < 2 else f"{seat.seat}{'abcdefgh'[index]}"
        marker = (hand.marker if hand else "") or (seat.marker if index == 0 else "")
        cells = [_Cell(marker, "turn"), _Cell(label, "bold")]
        if hands:
            cells += _hand_cells(hand)
        for name in names:
            if name == "main" and hand is not None:
                cells.append(_money(hand.net if settled else hand.stake, settled))
            elif index == 0 and name in (nets if settled else stakes):
                cells.append(_money((nets if settled else stakes)[name], settled))
            else:
                cells.append(_Cell(""))
        if with_net:
            total = sum(nets.values()) + sum(h.net or 0 for h in seat.hands)
            cells.append(_money(total, True) if settled and index == 0 else _Cell(""))
        rows.append(cells)
    return rows


def _hand_cells(hand: HandRow | None) -> list[_Cell]:
    if hand is None:
        return [_Cell(""), _Cell(""), _Cell("")]
    return [_Cell(" ".join(hand.cards), "cards"), _Cell(hand.total, "bold"),
            _Cell(hand.last, "dim")]


def _money(cents: int | None, signed: bool) -> _Cell:
    if cents is None:
        return _Cell("")
    if not signed:
        return _Cell(format_cents(cents), right=True)
    return _Cell(signed_cents(cents), "plus" if cents > 0 else "minus" if cents < 0 else "",
                 right=True)


def _layout(rows: Sequence[Sequence[_Cell]], *, header: bool) -> list[TextLine]:
    widths = [max(len(row[i].text) for row in rows) for i in range(len(rows[0]))]
    lines: list[TextLine] = []
    for number, row in enumerate(rows):
        line: TextLine = []
        for cell, wide in zip(row, widths, strict=True):
            text = cell.text.rjust(wide) if cell.right else cell.text.ljust(wide)
            style = "head" if header and number == 0 and cell.text.strip() else cell.style
            line += _cards_line(text) if style == "cards" else [(text, style)]
            line.append(("  " if wide else "", ""))
        lines.append(line)
    return lines


def _cards_line(text: str) -> TextLine:
    padded = len(text) - len(text.rstrip())
    cards = card_segments(text.split())
    return [*cards, (" " * padded, "")] if cards else [(text, "")]


def _visible(line: TextLine) -> int:
    return len("".join(text for text, _ in line).rstrip())
