"""Read a table file (TOML) and validate its game sections.

The file is one TOML document: [table], [rules.*], [paytables.*], [progressive] are the game
rules' (validated by `controller.rules.options.game_config_from_mapping`); other sections
([devices.*], [journal], [vision]) are returned untouched for their owners.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from controller.rules.errors import ConfigError
from controller.rules.options import GameConfig, game_config_from_mapping

DEFAULT_TABLE = "default_table.toml"


@dataclass(frozen=True, slots=True)
class TableFile:
    """A parsed table file: the validated game configuration and the whole document."""

    source: str
    game: GameConfig
    document: dict[str, Any]


def parse_table_text(text: str, source: str = "<text>") -> TableFile:
    """Parse TOML text and validate its game sections.

    Raises:
        ConfigError: the text is not TOML, or a game section is wrong (message names the
            source, the section and the key).
    """
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{source}: not valid TOML: {err}") from err
    try:
        game = game_config_from_mapping(document)
    except ConfigError as err:
        raise ConfigError(f"{source}: {err}") from err
    return TableFile(source, game, document)


def load_table_file(path: Path | str) -> TableFile:
    """Read and validate the table file at `path`.

    Raises:
        ConfigError: unreadable file, invalid TOML or a bad game section.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as err:
        raise ConfigError(f"{path}: cannot read the table file: {err.strerror}") from err
    return parse_table_text(text, str(path))


def default_table_text() -> str:
    """The shipped Mount Airy defaults (`controller/service/default_table.toml`)."""
    return resources.files("controller.service").joinpath(DEFAULT_TABLE).read_text(encoding="utf-8")


def load_default_table() -> TableFile:
    """The shipped defaults, parsed and validated."""
    return parse_table_text(default_table_text(), DEFAULT_TABLE)
