"""The progressive controller's configuration file (`shoectl progressive serve --config`).

TOML with `[link]` (broker, group, and for `mqtts://` the ca, cert and key files, relative to
the file) and `[progressive]` (the meter's parameters, as at a table). Every error names the
file, the section and the key in one line (`FloorConfigError`).
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from controller.floor.link import BrokerUrl, TlsFiles
from controller.floor.protocol import FloorProtocolError, check_name
from controller.rules.errors import ConfigError
from controller.rules.meter import ProgressiveSettings, progressive_from_mapping
from controller.rules.options import LINK_KEYS
from controller.rules.reader import SectionReader


class FloorConfigError(ValueError):
    """A configuration file that cannot be used; the text names the file and the key."""


@dataclass(frozen=True, slots=True)
class LinkSettings:
    """Where the broker is, which group, and the TLS files for `mqtts://`."""

    broker: BrokerUrl
    group: str
    tls: TlsFiles | None


@dataclass(frozen=True, slots=True)
class ServerSettings:
    """Everything `shoectl progressive serve` reads from its file."""

    link: LinkSettings
    progressive: ProgressiveSettings


def link_from_mapping(data: object, base: Path) -> LinkSettings:
    """Validate a `[link]` section (`ConfigError` names the key)."""
    reader = SectionReader("link", data)
    try:
        broker = BrokerUrl.parse(reader.text("broker", ""))
        group = check_name("group", reader.text("group", ""))
    except FloorProtocolError as exc:
        raise ConfigError(f"[link] {exc}") from None
    files = [reader.text(name, "") for name in ("ca", "cert", "key")]
    reader.finish()
    if broker.tls and not all(files):
        raise ConfigError("[link] ca, cert, key: an mqtts:// broker needs all three files")
    tls = TlsFiles(*(base / f for f in files)) if broker.tls else None
    return LinkSettings(broker, group, tls)


def table_link_from_document(document: Mapping[str, object],
                             base: Path) -> LinkSettings | None:
    """A table file's link: `[progressive] link`, `group` and for mqtts `ca`, `cert`, `key`.

    None when `link` is not set (the table's meter is its own).

    Raises:
        ConfigError: a bad link key (named as `[progressive] KEY`).
    """
    section = document.get("progressive")
    if not isinstance(section, Mapping) or "link" not in section:
        return None
    keys = {key: section[key] for key in LINK_KEYS if key in section}
    try:
        return link_from_mapping({"broker": keys.pop("link"), **keys}, base)
    except ConfigError as exc:
        raise ConfigError(str(exc).replace("[link] broker", "[progressive] link")
                          .replace("[link]", "[progressive]")) from None


def load(path: Path) -> ServerSettings:
    """Read and check the file at `path`."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeError, tomllib.TOMLDecodeError) as exc:
        raise FloorConfigError(f"{path}: cannot read: {exc}") from None
    try:
        unknown = sorted(set(data) - {"link", "progressive"})
        if unknown:
            raise ConfigError(f"[{unknown[0]}]: unknown section (expected link, progressive)")
        link = link_from_mapping(data.get("link"), path.parent)
        progressive = progressive_from_mapping(data.get("progressive"))
    except ConfigError as exc:
        raise FloorConfigError(f"{path}: {exc}") from None
    return ServerSettings(link, progressive)
