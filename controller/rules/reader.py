"""The table file's sections read key by key: `confkeys.Section` plus the pay lines.

Every error is a `ConfigError` naming the section and the key. A section refuses keys
nobody read: call `finish()` after the last read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar, cast

from confkeys import Section
from controller.rules.errors import config_error
from controller.rules.limits import DEFAULT_MAX_ODDS, MAX_RATIO_TERM, MAX_WAGER_CENTS
from controller.rules.money import ForOne, MeterShare, Odds

T = TypeVar("T")


class SectionReader(Section):
    """Typed, checked access to one section: `[paytables.perfect-pairs]` and the like.

    `max_odds` is the highest pay line the section may set (`[paytables] max_odds`): a "to 1"
    ratio at most `max_odds`:1, a "for 1" line at most `max_odds + 1` for 1.
    """

    def __init__(self, name: str, data: object, *, max_odds: int = DEFAULT_MAX_ODDS) -> None:
        self.max_odds = max_odds
        super().__init__(name, data, error=config_error)

    def child(self, name: str, data: object) -> SectionReader:
        """A nested table or list item, read with the same pay-line ceiling."""
        return SectionReader(name, data, max_odds=self.max_odds)

    def section(self, key: str, *, required: bool = False) -> SectionReader:
        """A nested table, read as its own section `[name.key]`."""
        return cast(SectionReader, super().section(key, required=required))  # built by `child`

    def money(self, key: str, default: int, *, minimum: int = 0,
              maximum: int = MAX_WAGER_CENTS) -> int:
        """An amount of cents within [minimum, maximum] (default ceiling: 1,000,000.00)."""
        return self.cents(key, default, minimum=minimum, maximum=maximum)

    def odds(self, key: str, default: Odds) -> Odds:
        """A "to 1" ratio written `"25:1"` or `"3:2"`, paying something, within `max_odds`."""
        odds = self._parsed(key, default, Odds.parse, 'a ratio like "25:1"')
        if self.has(key):
            if odds.win == 0:
                raise self.error(key, f"a winning line must pay something, got {odds}")
            if odds.per > MAX_RATIO_TERM:
                raise self.error(key, f"the second term of a ratio is at most "
                                      f"{MAX_RATIO_TERM}, got {odds}")
        if odds.win > self.max_odds * odds.per:  # a default line too: the ceiling is for all
            raise self.error(key, f"{odds}{self._default_note(key)} is above the ceiling "
                                  f"{self.max_odds:,}:1 ([paytables] max_odds)")
        return odds

    def _default_note(self, key: str) -> str:
        return "" if self.has(key) else " (the default)"

    def pay(self, key: str, default: ForOne | MeterShare) -> ForOne | MeterShare:
        """A progressive pay written `"500 for 1"` or `"10%"` (of the meter)."""
        def parse(text: str) -> ForOne | MeterShare:
            return MeterShare.parse(text) if "%" in text else ForOne.parse(text)
        pay = self._parsed(key, default, parse, 'a pay like "500 for 1" or "10%"')
        if isinstance(pay, ForOne):
            if pay.times == 0 and self.has(key):
                raise self.error(key, f"a winning line must pay something, got {pay}")
            if pay.times > self.max_odds + 1:
                raise self.error(key, f"{pay}{self._default_note(key)} is above the ceiling "
                                      f"{self.max_odds + 1:,} for 1 ([paytables] max_odds)")
        return pay

    def _parsed(self, key: str, default: T, parse: Callable[[str], T], expected: str) -> T:
        value = self.raw(key)
        if not self.has(key):
            return default
        if not isinstance(value, str):
            raise self.error(key, f"expected {expected}, got {value!r}")
        try:
            return parse(value)
        except ValueError as err:
            raise self.error(key, f"expected {expected}, got {value!r}") from err
