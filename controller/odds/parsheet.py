"""The par sheet: pay lines with exact probabilities, the house edge, JSON and a text table."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Final

from controller.odds.errors import OddsError
from controller.rules.money import Odds

JsonValue = None | bool | int | float | str | list["JsonValue"] | dict[str, "JsonValue"]


@dataclass(frozen=True, slots=True)
class Payout:
    """What one pay line pays.

    Attributes:
        label: the pay as printed on the sheet: `25:1`, `500 for 1`, `push`, `loses`.
        net: the player's net result per unit wagered (25 for 25:1, -1 for a loss);
            None where the line is not a wager outcome (a card-pattern chance).
    """

    label: str
    net: Fraction | None


LOSES: Final = Payout("loses", Fraction(-1))
PUSH: Final = Payout("push", Fraction(0))
NOT_A_WAGER: Final = Payout("n/a", None)


def to_one(odds: Fraction | int) -> Payout:
    """A win paid `odds` to 1 (the stake comes back on top)."""
    value = Fraction(odds)
    return Payout(f"{_number(value)}:1", value)


def ratio(odds: Odds) -> Fraction:
    """A pay table's "to 1" odds as an exact number (3:2 -> 3/2)."""
    return Fraction(odds.win, odds.per)


def odds_payout(odds: Odds) -> Payout:
    """A pay table's "to 1" odds as a par-sheet payout."""
    return to_one(ratio(odds))


def for_one(returned: Fraction | int, label: str | None = None) -> Payout:
    """A win paid `returned` for 1 (the stake is not returned on top)."""
    value = Fraction(returned)
    return Payout(label or f"{_number(value)} for 1", value - 1)


def _number(value: Fraction) -> str:
    if value.denominator == 1:
        return str(value.numerator)
    return f"{float(value):.10g}"


@dataclass(frozen=True, slots=True)
class ParLine:
    """One line of a par sheet: an outcome, what it pays and its exact probability."""

    name: str
    payout: Payout
    probability: Fraction


@dataclass(frozen=True, slots=True)
class ParSheet:
    """A complete par sheet for one wager at one deck count.

    The lines are exhaustive and mutually exclusive: their probabilities sum to exactly 1.

    Attributes:
        bet: the wager's name (`perfect-pairs`, ...).
        decks: decks in the shoe (None for a game not dealt from a shoe: roulette).
        lines: every outcome, the losing line included.
        wagered: True when the lines settle a wager (so a house edge exists).
        extras: further keys for the JSON object (options used, breakdowns).
        notes: sentences printed under the table (method, conditioning, sources).
        summary: rows (the first a header) printed instead of the line list when the lines
            are too many to read (dealer outcomes); the JSON always has every line.
        setting: what the sheet is computed for, in the table's title when there is no
            shoe ("double-zero wheel (38 pockets)").
    """

    bet: str
    decks: int | None
    lines: tuple[ParLine, ...]
    wagered: bool = True
    extras: Mapping[str, JsonValue] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    summary: tuple[tuple[str, ...], ...] = ()
    setting: str = ""

    def __post_init__(self) -> None:
        total = sum((line.probability for line in self.lines), Fraction(0))
        if total != 1:
            raise OddsError(f"{self.bet}: the lines' probabilities sum to {total}, not 1")
        if self.wagered and any(line.payout.net is None for line in self.lines):
            raise OddsError(f"{self.bet}: a wager's line has no payout")

    @property
    def house_edge(self) -> Fraction | None:
        """The house's expected gain per unit wagered (positive = house advantage)."""
        if not self.wagered:
            return None
        return -sum((line.probability * _net(line) for line in self.lines), Fraction(0))

    def to_json(self) -> dict[str, JsonValue]:
        """The sheet as one JSON-ready object (see the module docstring of `cli`)."""
        edge = self.house_edge
        lines: list[JsonValue] = [
            {
                "name": line.name,
                "pays": line.payout.label,
                "probability": float(line.probability),
                "exact": exact_text(line.probability),
            }
            for line in self.lines
        ]
        data: dict[str, JsonValue] = {
            "bet": self.bet,
            "decks": self.decks,
            "lines": lines,
            "house_edge": None if edge is None else float(edge),
            "house_edge_exact": None if edge is None else exact_text(edge),
            "method": "exact enumeration (fractions.Fraction), shoe dealt without replacement",
        }
        data.update(self.extras)
        return data

    def to_json_text(self) -> str:
        """`to_json` serialised on one line."""
        return json.dumps(self.to_json())

    def to_table(self) -> str:
        """A human-readable par sheet."""
        shoe = f"{self.decks} deck{'s' if self.decks != 1 else ''}"
        text = [f"Par sheet: {self.bet}, {self.setting or shoe}"]
        if self.summary:
            return "\n".join(text + _format_rows(self.summary)
                             + [f"Note: {note}" for note in self.notes])
        rows = [("Line", "Pays", "Probability", "1 in", "Return")]
        rows += [(line.name, line.payout.label, f"{float(line.probability):.10f}",
                  _one_in(line.probability), _contribution(line)) for line in self.lines]
        text += _format_rows(rows)
        edge = self.house_edge
        if edge is not None:
            text.append(f"House edge: {float(edge) * 100:.4f}% of the wager")
        text += [f"Note: {note}" for note in self.notes]
        return "\n".join(text)


def _net(line: ParLine) -> Fraction:
    if line.payout.net is None:
        raise OddsError(f"line {line.name!r} pays nothing measurable")
    return line.payout.net


def _contribution(line: ParLine) -> str:
    if line.payout.net is None:
        return ""
    return f"{float(line.probability * line.payout.net):+.6f}"


def exact_text(value: Fraction) -> str:
    """An exact probability as JSON carries it: `numerator/denominator`."""
    return f"{value.numerator}/{value.denominator}"


def _one_in(probability: Fraction) -> str:
    if probability == 0:
        return "never"
    return f"{float(1 / probability):,.2f}"


def _format_rows(rows: Sequence[tuple[str, ...]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    out = []
    for number, row in enumerate(rows):
        cells = [row[0].ljust(widths[0]), row[1].ljust(widths[1])]
        cells += [cell.rjust(width) for cell, width in zip(row[2:], widths[2:], strict=True)]
        out.append("  ".join(cells).rstrip())
        if number == 0:
            out.append("  ".join("-" * width for width in widths))
    return out
