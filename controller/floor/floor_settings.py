"""The floor process's configuration file (`shoectl floor serve|verify --config FILE`).

TOML with `[link]` (the broker, and for `mqtts://` the ca, cert and key files, relative to the
file: the floor's own certificate, `CN=floor`) and `[store]` (`url`: `postgresql://...` or
`sqlite:PATH`). Every error names the file, the section and the key in one line
(`FloorConfigError`).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from controller.floor.floor_store import FloorStoreError, StoreUrl
from controller.floor.link import BrokerUrl, TlsFiles
from controller.floor.protocol import FloorProtocolError
from controller.floor.settings import FloorConfigError
from controller.rules.errors import ConfigError
from controller.rules.reader import SectionReader


@dataclass(frozen=True, slots=True)
class FloorSettings:
    """Everything `shoectl floor serve` reads from its file."""

    broker: BrokerUrl
    tls: TlsFiles | None
    store: StoreUrl


def _broker(data: object, base: Path) -> tuple[BrokerUrl, TlsFiles | None]:
    reader = SectionReader("link", data)
    try:
        broker = BrokerUrl.parse(reader.text("broker", ""))
    except FloorProtocolError as exc:
        raise ConfigError(f"[link] broker: {exc}") from None
    files = [reader.text(name, "") for name in ("ca", "cert", "key")]
    reader.finish()
    if broker.tls and not all(files):
        raise ConfigError("[link] ca, cert, key: an mqtts:// broker needs all three files")
    return broker, TlsFiles(*(base / f for f in files)) if broker.tls else None


def _store(data: object, base: Path) -> StoreUrl:
    reader = SectionReader("store", data)
    text = reader.text("url", "")
    reader.finish()
    try:
        return StoreUrl.parse(text, base)
    except FloorStoreError as exc:
        raise ConfigError(f"[store] {exc}") from None


def load_floor(path: Path) -> FloorSettings:
    """Read and check the file at `path`.

    Raises:
        FloorConfigError: unreadable, or a bad section or key (one line naming it).
    """
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeError, tomllib.TOMLDecodeError) as exc:
        raise FloorConfigError(f"{path}: cannot read: {exc}") from None
    try:
        unknown = sorted(set(data) - {"link", "store"})
        if unknown:
            raise ConfigError(f"[{unknown[0]}]: unknown section (expected link, store)")
        broker, tls = _broker(data.get("link"), path.parent)
        store = _store(data.get("store"), path.parent)
    except ConfigError as exc:
        raise FloorConfigError(f"{path}: {exc}") from None
    return FloorSettings(broker, tls, store)
