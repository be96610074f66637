"""The exceptions the game rules raise."""

from __future__ import annotations

from confkeys import error_line


class ConfigError(ValueError):
    """A table configuration value that is unknown, mistyped or impossible.

    The message always names the section and the key, e.g.
    `[paytables.perfect-pairs] perfect_pair: expected a ratio like "25:1", got 25`.
    """


class RulesError(ValueError):
    """A step the rules do not allow at this point of the round (e.g. a double on 21)."""


def config_error(section: str, key: str, message: str) -> ConfigError:
    """The `ConfigError` a table-file section raises: `[section] key: message`."""
    return ConfigError(error_line(section, key, message))
