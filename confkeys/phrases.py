"""How a reader words what is wrong with a value; the section and the key are added around it.

Two families of lines are in use and operators' runbooks quote both: the table file's
(`[table] decks: expected a whole number, got True`, `must be 1..9, got 12`, unknown keys
listed with the known ones) and the device sections' (`[devices.shoe] baud: expected an
integer, got str`, `100 is out of range 10..95`). `TABLE` and `DEVICE` are those two; a
reader whose lines differ again (a device kind naming itself) subclasses one of them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar, Final


def format_cents(cents: int) -> str:
    """`-123456` -> `"-1,234.56"`."""
    sign = "-" if cents < 0 else ""
    whole, part = divmod(abs(cents), 100)
    return f"{sign}{whole:,}.{part:02d}"


class Phrases:
    """The table file's wording: the value quoted, ranges as `must be LOW..HIGH`."""

    type_names: ClassVar[Mapping[type, str]] = {
        str: "a string", int: "a whole number", float: "a number", bool: "true or false",
        dict: "a table", list: "a list"}

    def expected(self, kinds: Sequence[type]) -> str:
        """What the key should hold: `a whole number`, `an integer or a string`."""
        return " or ".join(self.type_names.get(kind, kind.__name__) for kind in kinds)

    def wrong_type(self, kinds: Sequence[type], value: object) -> str:
        """The value has none of the TOML types `kinds`."""
        return f"expected {self.expected(kinds)}, got {value!r}"

    def missing(self) -> str:
        """A required key is absent."""
        return "missing (required)"

    def out_of_range(self, value: int, low: int, high: int | None) -> str:
        """An integer outside [low, high] (no upper bound when `high` is None)."""
        bound = f"{low}..{high}" if high is not None else f">= {low}"
        return f"must be {bound}, got {value}"

    def cents_out_of_range(self, value: int, low: int, high: int) -> str:
        """An amount of cents above its ceiling."""
        return f"must be {low}..{high} cents (at most {format_cents(high)}), got {value}"

    def not_a_choice(self, value: str, choices: Sequence[str]) -> str:
        """A string that is none of the accepted words."""
        return f"expected one of {', '.join(choices)}, got {value!r}"

    def unknown_key(self, known: Sequence[str]) -> str:
        """A key no getter asked for; `known` are those asked for, in order."""
        return f"unknown key (known keys: {', '.join(known) or 'none'})"


class DevicePhrases(Phrases):
    """The device sections' wording: the type of a wrong value, `N is out of range`."""

    type_names: ClassVar[Mapping[type, str]] = {
        str: "a string", int: "an integer", float: "a number", bool: "a boolean",
        dict: "a table", list: "an array"}

    def wrong_type(self, kinds: Sequence[type], value: object) -> str:
        """The value has none of the TOML types `kinds` (named by its type, not quoted)."""
        got = "a boolean" if isinstance(value, bool) else type(value).__name__
        return f"expected {self.expected(kinds)}, got {got}"

    def out_of_range(self, value: int, low: int, high: int | None) -> str:
        """An integer outside [low, high]."""
        if high is None:
            return f"{value} is below {low}"
        return f"{value} is out of range {low}..{high}"

    def not_a_choice(self, value: str, choices: Sequence[str]) -> str:
        """A string that is none of the accepted words."""
        return f"{value!r} is not one of {', '.join(choices)}"

    def unknown_key(self, known: Sequence[str]) -> str:
        """A key no getter asked for."""
        return "unknown key"


TABLE: Final = Phrases()
"""The table file's sections (`[table]`, `[rules.*]`, `[paytables.*]`, `[vision]`, ...)."""
DEVICE: Final = DevicePhrases()
"""The `[devices.*]` sections."""
