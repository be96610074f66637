"""The progressive controller's configuration file (`shoectl progressive serve --config`).

TOML with `[link]` (broker, group, `tables`: the group's tables, `max_boots_per_day`, and for
`mqtts://` the ca, cert and key files, relative to the file) and `[progressive]` (the meter's
parameters, as at a table). Every error names the file, the section and the key in one line
(`FloorConfigError`). A plain `mqtt://` broker is refused unless every address its host name
resolves to is a loopback address (`PlainLinkError`, exit 2 at every start-up).
"""

from __future__ import annotations

import ipaddress
import socket
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from confkeys import Section
from controller.floor.ledger import MAX_BOOTS_PER_DAY
from controller.floor.link import BrokerUrl, TlsFiles
from controller.floor.protocol import FloorProtocolError, check_name
from controller.rules.errors import ConfigError, config_error
from controller.rules.meter import ProgressiveSettings, progressive_from_mapping
from controller.rules.options import LINK_KEYS


class FloorConfigError(ValueError):
    """A configuration file that cannot be used; the text names the file and the key."""


class PlainLinkError(ConfigError):
    """A plain `mqtt://` broker off the machine (the text names the key)."""


def require_private(broker: BrokerUrl, key: str) -> None:
    """An `mqtt://` broker must resolve to loopback addresses only; `mqtts://` always passes.

    Anyone on the path of a plain link reads and writes it: the tables' answers, and the
    journal rows shipped to the floor.

    Raises:
        PlainLinkError: one line naming `key`.
    """
    if broker.tls:
        return
    try:
        found = {str(info[4][0]) for info in socket.getaddrinfo(broker.host, broker.port,
                                                                proto=socket.IPPROTO_TCP)}
    except (OSError, UnicodeError) as exc:
        raise PlainLinkError(f"{key}: {broker}: cannot resolve {broker.host!r} ({exc}); a plain "
                             "mqtt:// link is allowed on loopback only (use mqtts://)") from None
    remote = sorted(a for a in found if not ipaddress.ip_address(a.split("%")[0]).is_loopback)
    if remote or not found:
        raise PlainLinkError(f"{key}: {broker}: {broker.host} resolves to "
                             f"{', '.join(remote) or 'nothing'}, not loopback: a plain mqtt:// "
                             "link is allowed on loopback only (use mqtts:// with ca, cert, key)")


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
    tables: tuple[str, ...] = ()
    """`[link] tables`: the group's tables; a message of any other is refused."""
    max_boots_per_day: int = MAX_BOOTS_PER_DAY
    """`[link] max_boots_per_day`: boots a table may announce a day before it is refused."""


def _tables(section: Mapping[str, object]) -> tuple[tuple[str, ...], int]:
    """`[link] tables` (required) and `max_boots_per_day` (default 10)."""
    reader = Section("link", {k: section[k] for k in ("tables", "max_boots_per_day")
                              if k in section}, error=config_error)
    boots = reader.integer("max_boots_per_day", MAX_BOOTS_PER_DAY, minimum=1, maximum=10_000)
    names = section.get("tables")
    if (not isinstance(names, list) or not names
            or not all(isinstance(n, str) for n in names)):
        raise ConfigError('[link] tables: expected the group\'s table names, e.g. '
                          f'["T1", "T2"], got {names!r}')
    try:
        checked = tuple(check_name("table", n) for n in names)
    except FloorProtocolError as exc:
        raise ConfigError(f"[link] tables: {exc}") from None
    if len(set(checked)) != len(checked):
        raise ConfigError(f"[link] tables: names repeated in {names!r}")
    return checked, boots


def link_from_mapping(data: object, base: Path) -> LinkSettings:
    """Validate a `[link]` section (`ConfigError` names the key)."""
    reader = Section("link", data, error=config_error)
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
        ConfigError: a bad link key (named as `[progressive] KEY`); `PlainLinkError`: a plain
            `mqtt://` link off the machine.
    """
    section = document.get("progressive")
    if not isinstance(section, Mapping) or "link" not in section:
        return None
    keys = {key: section[key] for key in LINK_KEYS if key in section}
    try:
        link = link_from_mapping({"broker": keys.pop("link"), **keys}, base)
        require_private(link.broker, "[progressive] link")
        return link
    except PlainLinkError:
        raise
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
        section = data.get("link")
        if not isinstance(section, Mapping):
            raise ConfigError("[link]: missing (broker, group, tables)")
        tables, boots = _tables(section)
        link = link_from_mapping({k: v for k, v in section.items()
                                  if k not in ("tables", "max_boots_per_day")}, path.parent)
        require_private(link.broker, "[link] broker")
        progressive = progressive_from_mapping(data.get("progressive"))
    except PlainLinkError as exc:
        raise PlainLinkError(f"{path}: {exc}") from None
    except ConfigError as exc:
        raise FloorConfigError(f"{path}: {exc}") from None
    return ServerSettings(link, progressive, tables, boots)
