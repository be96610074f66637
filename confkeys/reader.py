"""One configuration section (a mapping, as `tomllib` gives it) read key by key.

Every getter records the key it asked for; `finish()` refuses any key nobody asked for, so a
misspelt option stops the start instead of being silently ignored. Every refusal is one
line naming the file (when known), the section and the key:
`table.toml: [table] seats: must be 1..9, got 12`. A path (`path()`) is read relative to the
folder of the file that names it, never the working folder.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from confkeys.phrases import TABLE, Phrases


class Required:
    """The type of `REQUIRED`."""

    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Final = Required()
"""A getter's default meaning "the key must be there"."""


def error_line(section: str, key: str, message: str, source: str | None = None) -> str:
    """`source: [section] key: message` (no key: `[section]: message`)."""
    where = f"[{section}] {key}: " if key else f"[{section}]: "
    return f"{source}: {where}{message}" if source else f"{where}{message}"


class SettingError(ValueError):
    """A configuration value that is unknown, mistyped or impossible.

    Attributes:
        section: The section's dotted name (`table`, `paytables.axman`, `shoe`).
        key: The key ("" when the section as a whole is wrong).
        source: The file, when the reader was told it.
    """

    def __init__(self, section: str, key: str, message: str, source: str | None = None) -> None:
        self.section, self.key, self.source = section, key, source
        super().__init__(error_line(section, key, message, source))


ErrorFactory = Callable[[str, str, str], Exception]
"""Builds the error a reader raises from (section, key, message)."""


class Section:
    """Typed, checked, access-tracked reads from one section.

    Args:
        name: The section's dotted name, as the error lines show it.
        data: The section's table; None reads as an empty section.
        phrases: The wording of the error lines (`confkeys.TABLE` or `confkeys.DEVICE`).
        error: Builds the error raised (section, key, message); a `SettingError` by default.
        source: The file the section comes from, named by the default errors.
        base: The folder relative paths are read from (`path()`): the table file's, as an
            absolute POSIX path. None leaves them relative (to the working folder), for
            sections no file holds.

    Raises:
        Exception: The one `error` builds, when `data` is not a table.
    """

    def __init__(self, name: str, data: object, *, phrases: Phrases = TABLE,
                 error: ErrorFactory | None = None, source: str | None = None,
                 base: str | None = None) -> None:
        self.name = name
        self.phrases = phrases
        self.source = source
        self.base = base
        self._make_error = error
        if data is None:
            data = {}
        if not isinstance(data, Mapping):
            raise self.error("", f"expected a table of keys, got {data!r}")
        self._data: Mapping[str, object] = data
        self._read: set[str] = set()
        self._asked: dict[str, None] = {}

    # ------------------------------------------------------------ the section itself

    def error(self, key: str, message: str) -> Exception:
        """The error naming this section and `key` (raise it)."""
        if self._make_error is not None:
            return self._make_error(self.name, key, message)
        return SettingError(self.name, key, message, self.source)

    def has(self, key: str) -> bool:
        """True when the section sets `key` (reading nothing)."""
        return key in self._data

    def names(self) -> list[str]:
        """The keys the section sets, in file order."""
        return list(self._data)

    def finish(self) -> None:
        """Refuse the first key (in file order) that no getter asked for.

        Raises:
            Exception: `unknown key`, naming it.
        """
        for key in self._data:
            if key not in self._read:
                raise self.error(key, self.phrases.unknown_key(list(self._asked)))

    # ------------------------------------------------------------ getters

    def raw(self, key: str) -> object:
        """The value of `key` as given (None when unset), marked as read."""
        self._asked[key] = None
        self._read.add(key)
        return self._data.get(key)

    def get(self, key: str, kinds: type | tuple[type, ...], default: Any = REQUIRED) -> Any:
        """The value of `key`, checked to have one of the TOML types `kinds`.

        A boolean is not an integer here (TOML tells them apart, Python does not).

        Raises:
            Exception: The key is missing with no default, or has another type.
        """
        self._asked[key] = None
        if key not in self._data:
            if default is REQUIRED:
                raise self.error(key, self.phrases.missing())
            return default
        self._read.add(key)
        value = self._data[key]
        wanted = kinds if isinstance(kinds, tuple) else (kinds,)
        if (isinstance(value, bool) and bool not in wanted) or not isinstance(value, wanted):
            raise self.error(key, self.phrases.wrong_type(wanted, value))
        return value

    def integer(self, key: str, default: int | Required = REQUIRED, *, minimum: int = 0,
                maximum: int | None = None) -> int:
        """An integer (not a boolean) within [minimum, maximum]; the default is not checked."""
        if key not in self._data and not isinstance(default, Required):
            self._asked[key] = None
            return default
        value: int = self.get(key, int)
        if value < minimum or (maximum is not None and value > maximum):
            raise self.error(key, self.phrases.out_of_range(value, minimum, maximum))
        return value

    def cents(self, key: str, default: int | Required = REQUIRED, *, minimum: int = 0,
              maximum: int) -> int:
        """An amount of money, in integer cents, within [minimum, maximum]."""
        value = self.integer(key, default, minimum=minimum)
        if value > maximum:
            raise self.error(key, self.phrases.cents_out_of_range(value, minimum, maximum))
        return value

    def flag(self, key: str, default: bool | Required = REQUIRED) -> bool:
        """A boolean `true` / `false`."""
        value: bool = self.get(key, bool, default)
        return value

    def text(self, key: str, default: str | Required = REQUIRED,
             choices: Sequence[str] | None = None) -> str:
        """A string; with `choices`, one of them (the default is not checked)."""
        value: str = self.get(key, str, default)
        if choices is not None and key in self._data and value not in choices:
            raise self.error(key, self.phrases.not_a_choice(value, choices))
        return value

    def choice(self, key: str, choices: Sequence[str], default: str | Required = REQUIRED) -> str:
        """A string that must be one of `choices`."""
        return self.text(key, default, choices)

    def strings(self, key: str, default: Sequence[str] | Required = REQUIRED,
                choices: Sequence[str] | None = None) -> tuple[str, ...]:
        """A list of distinct strings; with `choices`, each one of them."""
        if key not in self._data and not isinstance(default, Required):
            self._asked[key] = None
            return tuple(default)
        value = self.raw(key)
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            if value is None:
                raise self.error(key, self.phrases.missing())
            raise self.error(key, f"expected a list of strings, got {value!r}")
        for item in value:
            if choices is not None and item not in choices:
                raise self.error(key, f"unknown name {item!r} (known: {', '.join(choices)})")
        if len(set(value)) != len(value):
            raise self.error(key, f"names repeated in {value!r}")
        return tuple(value)

    def path(self, key: str) -> str | None:
        """The path `key` names (None when unset); a relative one is read from `base`.

        Text only (the reader touches no file): `~` is not expanded, a service runs as its
        own user, whose home is not the writer's.
        """
        value: str | None = self.get(key, str, None)
        if value is None:
            return None
        if not value.strip():
            raise self.error(key, "expected a path, got an empty string")
        return self.resolve(value)

    def resolve(self, value: str) -> str:
        """`value` as a path: an absolute one as it is, a relative one under `base`."""
        if value.startswith("/") or self.base is None:
            return value
        while value.startswith("./"):  # `./layout.key`: the file's folder itself
            value = value[2:].lstrip("/")
        return f"{self.base.rstrip('/')}/{value}"

    def section(self, key: str, *, required: bool = False) -> Section:
        """A nested table, read as its own section `[name.key]` (finish it too).

        Raises:
            Exception: The table is required and absent, or `key` is not a table.
        """
        self._read.add(key)
        if required and key not in self._data:
            self._asked[key] = None
            raise self.error(key, self.phrases.missing())
        return self.child(f"{self.name}.{key}", self._data.get(key))

    def child(self, name: str, data: object) -> Section:
        """A section read like this one (same wording and errors): nested tables, list items."""
        return Section(name, data, phrases=self.phrases, error=self._make_error,
                       source=self.source, base=self.base)
