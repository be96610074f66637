"""Reading one configuration section (a mapping, as `tomllib` gives it) key by key.

Every error names the section and the key. A section refuses keys nobody read: call
`finish()` after the last read.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

from controller.rules.errors import ConfigError
from controller.rules.limits import DEFAULT_MAX_ODDS, MAX_RATIO_TERM, MAX_WAGER_CENTS
from controller.rules.money import ForOne, MeterShare, Odds, format_cents

T = TypeVar("T")


class SectionReader:
    """Typed, checked access to one section: `[paytables.perfect-pairs]` and the like.

    `max_odds` is the highest pay line the section may set (`[paytables] max_odds`): a "to 1"
    ratio at most `max_odds`:1, a "for 1" line at most `max_odds + 1` for 1.
    """

    def __init__(self, name: str, data: object, *, max_odds: int = DEFAULT_MAX_ODDS) -> None:
        self.max_odds = max_odds
        if data is None:
            data = {}
        if not isinstance(data, Mapping):
            raise ConfigError(f"[{name}]: expected a table of keys, got {data!r}")
        self.name = name
        self._data: Mapping[str, object] = data
        self._read: set[str] = set()
        self._asked: list[str] = []

    def has(self, key: str) -> bool:
        """True when the section sets `key`."""
        return key in self._data

    def names(self) -> list[str]:
        """The keys the section sets, in file order."""
        return list(self._data)

    def error(self, key: str, message: str) -> ConfigError:
        """A `ConfigError` naming this section and `key`."""
        return ConfigError(f"[{self.name}] {key}: {message}")

    def _get(self, key: str) -> object:
        self._read.add(key)
        return self._data[key]

    def integer(self, key: str, default: int, *, minimum: int = 0,
                maximum: int | None = None) -> int:
        """An integer (not a bool) within [minimum, maximum]."""
        self._asked.append(key)
        if key not in self._data:
            return default
        value = self._get(key)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.error(key, f"expected a whole number, got {value!r}")
        if value < minimum or (maximum is not None and value > maximum):
            bound = f"{minimum}..{maximum}" if maximum is not None else f">= {minimum}"
            raise self.error(key, f"must be {bound}, got {value}")
        return value

    def money(self, key: str, default: int, *, minimum: int = 0,
              maximum: int = MAX_WAGER_CENTS) -> int:
        """An amount of cents within [minimum, maximum] (default ceiling: 1,000,000.00)."""
        value = self.integer(key, default, minimum=minimum)
        if value > maximum:
            raise self.error(key, f"must be {minimum}..{maximum} cents (at most "
                                  f"{format_cents(maximum)}), got {value}")
        return value

    def flag(self, key: str, default: bool) -> bool:
        """A boolean `true`/`false`."""
        self._asked.append(key)
        if key not in self._data:
            return default
        value = self._get(key)
        if not isinstance(value, bool):
            raise self.error(key, f"expected true or false, got {value!r}")
        return value

    def text(self, key: str, default: str, choices: Sequence[str] | None = None) -> str:
        """A string, optionally one of `choices`."""
        self._asked.append(key)
        if key not in self._data:
            return default
        value = self._get(key)
        if not isinstance(value, str):
            raise self.error(key, f"expected a string, got {value!r}")
        if choices is not None and value not in choices:
            raise self.error(key, f"expected one of {', '.join(choices)}, got {value!r}")
        return value

    def strings(self, key: str, default: Sequence[str], choices: Sequence[str]) -> tuple[str, ...]:
        """A list of distinct strings, each one of `choices`."""
        self._asked.append(key)
        if key not in self._data:
            return tuple(default)
        value = self._get(key)
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.error(key, f"expected a list of strings, got {value!r}")
        for item in value:
            if item not in choices:
                raise self.error(key, f"unknown name {item!r} (known: {', '.join(choices)})")
        if len(set(value)) != len(value):
            raise self.error(key, f"names repeated in {value!r}")
        return tuple(value)

    def odds(self, key: str, default: Odds) -> Odds:
        """A "to 1" ratio written `"25:1"` or `"3:2"`, paying something, within `max_odds`."""
        odds = self._parsed(key, default, Odds.parse, 'a ratio like "25:1"')
        if key in self._data:
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
        return "" if key in self._data else " (the default)"

    def pay(self, key: str, default: ForOne | MeterShare) -> ForOne | MeterShare:
        """A progressive pay written `"500 for 1"` or `"10%"` (of the meter)."""
        def parse(text: str) -> ForOne | MeterShare:
            return MeterShare.parse(text) if "%" in text else ForOne.parse(text)
        pay = self._parsed(key, default, parse, 'a pay like "500 for 1" or "10%"')
        if isinstance(pay, ForOne):
            if pay.times == 0 and key in self._data:
                raise self.error(key, f"a winning line must pay something, got {pay}")
            if pay.times > self.max_odds + 1:
                raise self.error(key, f"{pay}{self._default_note(key)} is above the ceiling "
                                      f"{self.max_odds + 1:,} for 1 ([paytables] max_odds)")
        return pay

    def _parsed(self, key: str, default: T, parse: Callable[[str], T], expected: str) -> T:
        self._asked.append(key)
        if key not in self._data:
            return default
        value = self._get(key)
        if not isinstance(value, str):
            raise self.error(key, f"expected {expected}, got {value!r}")
        try:
            return parse(value)
        except ValueError as err:
            raise self.error(key, f"expected {expected}, got {value!r}") from err

    def raw(self, key: str) -> object:
        """The value of `key` as given (None when unset), marked as read."""
        self._asked.append(key)
        self._read.add(key)
        return self._data.get(key)

    def section(self, key: str) -> SectionReader:
        """A nested table, read as its own section `[name.key]`."""
        self._read.add(key)
        return SectionReader(f"{self.name}.{key}", self._data.get(key), max_odds=self.max_odds)

    def finish(self) -> None:
        """Refuse every key that was never read.

        Raises:
            ConfigError: naming the first unknown key.
        """
        for key in self._data:
            if key not in self._read:
                known = ", ".join(dict.fromkeys(self._asked)) or "none"
                raise self.error(key, f"unknown key (known keys: {known})")
