"""Reading `--paytable FILE`: pay tables in the table file's own TOML format.

The file is either a fragment of a table file (`[paytables.<bet>]`, `[rules.baccarat]`,
`[progressive]` sections; the table file's other sections are ignored, a section no table
file has is refused) or just the keys of the wager's own section (what would follow
`[paytables.<bet>]`). Every value is validated by the rules'
validators, so an error names the section and the key.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from controller.odds.errors import OddsError
from controller.odds.registry import Bet, Settings, default_meter
from controller.rules.errors import ConfigError
from controller.rules.meter import check_progressive_wager, progressive_from_mapping
from controller.rules.options import (
    TABLE_FILE_SECTIONS,
    baccarat_rules_from_mapping,
    check_sections,
)
from controller.rules.paytables import paytables_from_mapping


def read_toml(path: Path) -> dict[str, object]:
    """Parse a TOML file.

    Raises:
        OddsError: the file cannot be read or is not TOML.
    """
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except OSError as err:
        raise OddsError(f"--paytable {path}: cannot read: {err.strerror or err}") from err
    except UnicodeDecodeError as err:
        raise OddsError(f"--paytable {path}: not UTF-8 text (byte {err.start})") from err
    except tomllib.TOMLDecodeError as err:
        raise OddsError(f"--paytable {path}: not valid TOML: {err}") from err
    except RecursionError:
        raise OddsError(f"--paytable {path}: not valid TOML: arrays or tables nested too deep "
                        "to read") from None


def apply_paytable(bet: Bet, settings: Settings, document: Mapping[str, object],
                   source: str) -> Settings:
    """The settings with the pay table of `document` (read from `source`) in force.

    Raises:
        OddsError: the wager has no pay table, or the file has no section for it.
        controller.rules.errors.ConfigError: a section, key or value the validators refuse,
            the message starting `--paytable FILE: `.
    """
    if bet.section is None:
        raise OddsError(f"--paytable: {bet.name} has no pay table")
    if not document:
        raise OddsError(f"--paytable {source}: the file is empty")
    try:
        return _applied(bet, bet.section, settings, document, source)
    except ConfigError as err:
        raise ConfigError(f"--paytable {source}: {err}") from err


def _applied(bet: Bet, section: str, settings: Settings, document: Mapping[str, object],
             source: str) -> Settings:
    fragment = _as_fragment(section, document)
    if _lookup(fragment, section) is None:
        raise OddsError(f"--paytable {source}: no [{section}] section for {bet.name}")
    tables = _mapping(fragment.get("paytables"), "paytables")
    rules = _mapping(fragment.get("rules"), "rules")
    paytables = paytables_from_mapping(tables)
    meter = settings.meter
    if "progressive" in fragment or "blazing7s" in tables:
        progressive = progressive_from_mapping(_mapping(fragment.get("progressive"),
                                                        "progressive"))
        check_progressive_wager(progressive, paytables.blazing7s.wager)
        meter = default_meter(paytables, progressive)
    return replace(
        settings,
        paytables=paytables,
        baccarat=baccarat_rules_from_mapping(_mapping(rules.get("baccarat"), "rules.baccarat")),
        meter=meter,
    )


def _as_fragment(section: str, document: Mapping[str, object]) -> dict[str, object]:
    """The document as a table file: itself, or the bare keys of `section` put in place.

    A document with a table file's section, or with a table that is no deck count (only
    Match the Dealer's bare keys are tables: `[6]`), is read as a table file fragment and
    every top-level section must be one a table file has (`[progresive]` is refused).
    """
    if any(key in TABLE_FILE_SECTIONS or (isinstance(value, Mapping) and not key.isdigit())
           for key, value in document.items()):
        check_sections(document)
        return dict(document)
    top, name = section.split(".", 1)
    return {top: {name: dict(document)}}


def _lookup(document: Mapping[str, object], dotted: str) -> object:
    node: object = document
    for part in dotted.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node


def _mapping(value: object, name: str) -> dict[str, object]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise OddsError(f"[{name}]: expected a table of keys, got {value!r}")
    return dict(value)
