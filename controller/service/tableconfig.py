"""Read a table file (TOML) and validate its game sections.

The file is one TOML document: [table], [rules.*], [paytables.*], [progressive] are the game
rules' (validated by `controller.rules.options.game_config_from_mapping`); other sections
([devices.*], [journal], [vision]) are returned untouched for their owners, who read every
relative path in them from the file's folder (`TableFile.base`), never the working folder.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from controller.rules.errors import ConfigError
from controller.rules.options import GameConfig, check_sections, game_config_from_mapping

DEFAULT_TABLE = "default_table.toml"


@dataclass(frozen=True, slots=True)
class TableFile:
    """A parsed table file: the validated game configuration and the whole document."""

    source: str
    game: GameConfig
    document: dict[str, Any]

    @property
    def base(self) -> Path:
        """The folder relative paths of the file are read from: the file's own (absolute).

        A key file, a state directory or a shoe file named `keys/layout.key` is found
        beside the table file whatever folder the service was started in (decision 060).
        """
        return Path(self.source).absolute().parent


def parse_table_text(text: str, source: str = "<text>") -> TableFile:
    """Parse TOML text and validate its game sections.

    Raises:
        ConfigError: the text is not TOML (or nests too deep to read), a top-level section
            is unknown, or a game section is wrong (message names the source, the section
            and the key).
    """
    document = parse_toml(text, source)
    try:
        check_sections(document)
        game = game_config_from_mapping(document)
    except ConfigError as err:
        raise ConfigError(f"{source}: {err}") from err
    return TableFile(source, game, document)


def parse_toml(text: str, source: str) -> dict[str, Any]:
    """Parse TOML text, refusing (in one line) text that is not TOML or nests too deep.

    Raises:
        ConfigError: naming `source` and the reason.
    """
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{source}: not valid TOML: {err}") from err
    except RecursionError:
        # tomllib recurses once per nested array or inline table: thousands of them exhaust
        # the interpreter's stack before any value is read.
        raise ConfigError(f"{source}: not valid TOML: arrays or tables nested too deep to "
                          "read") from None


def load_table_file(path: Path | str) -> TableFile:
    """Read and validate the table file at `path`.

    Raises:
        ConfigError: unreadable file, invalid TOML or a bad game section.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as err:
        raise ConfigError(f"{path}: cannot read the table file: {err.strerror}") from err
    except UnicodeDecodeError as err:
        raise ConfigError(f"{path}: cannot read the table file: not UTF-8 text (byte "
                          f"{err.start})") from err
    return parse_table_text(text, str(path))


def default_table_text() -> str:
    """The shipped Mount Airy defaults (`controller/service/default_table.toml`)."""
    return resources.files("controller.service").joinpath(DEFAULT_TABLE).read_text(encoding="utf-8")


def load_default_table() -> TableFile:
    """The shipped defaults, parsed and validated."""
    return parse_table_text(default_table_text(), DEFAULT_TABLE)
