"""A snapshot as a frame of styled lines.

The header, the dealer display, the sign and the lamps, the shoe, the hands (dealer, or
Player and Banker), the seat table and the running totals.
"""

from __future__ import annotations

from collections.abc import Iterable

from controller.rules.money import format_cents
from controller.service.app import SIGN_FAULT_TEXT
from controller.sim.table_view.families import parts_of
from controller.sim.table_view.seats import seat_table
from controller.sim.table_view.snapshot import SideRow, Snapshot
from controller.sim.table_view.text import TextLine, card_segments, paint


def render(snapshot: Snapshot, width: int = 100, *, color: bool = False) -> str:
    """The frame as text: no escape codes unless `color`; lines cut to `width`."""
    return "\n".join(paint(frame_lines(snapshot, width), width, color=color))


def frame_lines(snapshot: Snapshot, width: int) -> list[TextLine]:
    """The frame's lines, styled."""
    s = snapshot
    what = parts_of(s.game).round_word
    lines: list[TextLine] = [
        [("shoectl simulate", "title"), (f"  {s.game}, {s.decks} decks  ", ""),
         (f"{what} {s.round}", "bold"), ("  ", ""), (s.state.replace("_", " ").upper(), "state")],
        _info("dealer display", [(s.dealer_text, "bold")]),
    ]
    if s.sign is not None:
        lines.append(_sign_line(s))
    lines += [_info("lamps", _lamp_segments(s.lamps)), _info("shoe", [(s.shoe, "")]), []]
    lines += [_side_line(side) for side in s.sides]
    if s.result:
        lines.append([("  ", ""), (s.result, "bold")])
    lines.append([])
    lines += seat_table(s.seats, width)
    totals = s.totals
    lines += [[], _info("totals", [(f"rounds {totals.rounds}   house win "
                                     f"{format_cents(totals.house)}   meter hits "
                                     f"{totals.hits}   faults {totals.faults}   void "
                                     f"{totals.void}", "")])]
    return lines


def _info(label: str, value: TextLine) -> TextLine:
    return [(f"{label:<15}", "dim"), *value]


def _sign_line(s: Snapshot) -> TextLine:
    assert s.sign is not None
    amount, _, win = s.sign.partition("  ")
    value: TextLine = [(amount, "flash" if s.sign == SIGN_FAULT_TEXT else "sign")]
    if win:
        value += [("  ", ""), (win, "win")]
    if s.accepted is not None:
        value.append((f"   accepted at no more bets: {s.accepted}", ""))
    return _info("Blazing 7's", value)


def _lamp_segments(lamps: Iterable[tuple[str, str]]) -> TextLine:
    out: TextLine = []
    for name, lamp_state in lamps:
        label = name.replace("_", " ")
        if lamp_state == "on":
            out.append((f"[{label.upper()}]", "lit"))
        elif lamp_state == "flash":
            out.append((f"[!{label.upper()}!]", "flash"))
        else:
            out.append((label, "dim"))
        out.append(("  ", ""))
    return out[:-1]


def _side_line(side: SideRow) -> TextLine:
    cards = card_segments(side.cards) or [("-", "dim")]
    pad = 20 - sum(len(text) for text, _ in cards)
    return [(f"{side.marker or ' ':<2}", "turn"), (f"{side.name:<8}", "bold"), *cards,
            (" " * max(1, pad), ""), (f"{side.total:<10}", "bold"), ("  ", ""),
            (side.note, "dim")]
