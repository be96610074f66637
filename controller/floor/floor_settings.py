"""The floor process's configuration file (`shoectl floor serve|verify --config FILE`).

TOML with `[link]` (the broker, and for `mqtts://` the ca, cert and key files, relative to the
file: the floor's own certificate, `CN=floor`), `[store]` (`url`: `postgresql://...` or
`sqlite:PATH`) and, optionally, `[view]` (the floor's pit view: `listen`, `user`,
`credential`). Every error names the file, the section and the key in one line
(`FloorConfigError`).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from confkeys import Section
from controller.floor.floor_store import FloorStoreError, StoreUrl
from controller.floor.link import BrokerUrl, TlsFiles
from controller.floor.protocol import FloorProtocolError
from controller.floor.settings import FloorConfigError, PlainLinkError, require_private
from controller.rules.errors import ConfigError, config_error


@dataclass(frozen=True, slots=True)
class ViewSettings:
    """`[view]`: where the floor's pit view listens, and who may see it (HTTP Basic)."""

    listen: tuple[str, int]
    user: str
    credential: str


@dataclass(frozen=True, slots=True)
class FloorSettings:
    """Everything `shoectl floor serve` reads from its file."""

    broker: BrokerUrl
    tls: TlsFiles | None
    store: StoreUrl
    view: ViewSettings | None = None


def _view(data: object) -> ViewSettings | None:
    if data is None:
        return None
    reader = Section("view", data, error=config_error)
    text = reader.text("listen", "")
    user = reader.text("user", "supervisor")
    credential = reader.text("credential", "")
    reader.finish()
    host, colon, port = text.rpartition(":")
    if not colon or not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ConfigError(f"[view] listen: expected \"HOST:PORT\" (port 0-65535; 0 takes any "
                          f"free port), got {text!r}")
    if not credential.startswith("scrypt$"):
        raise ConfigError("[view] credential: missing or not from `shoectl console "
                          "hash-password` (the floor view is never open to anyone)")
    return ViewSettings((host.strip("[]"), int(port)), user, credential)


def _broker(data: object, base: Path) -> tuple[BrokerUrl, TlsFiles | None]:
    reader = Section("link", data, error=config_error)
    try:
        broker = BrokerUrl.parse(reader.text("broker", ""))
    except FloorProtocolError as exc:
        raise ConfigError(f"[link] broker: {exc}") from None
    files = [reader.text(name, "") for name in ("ca", "cert", "key")]
    reader.finish()
    require_private(broker, "[link] broker")
    if broker.tls and not all(files):
        raise ConfigError("[link] ca, cert, key: an mqtts:// broker needs all three files")
    return broker, TlsFiles(*(base / f for f in files)) if broker.tls else None


def _store(data: object, base: Path) -> StoreUrl:
    reader = Section("store", data, error=config_error)
    text = reader.text("url", "")
    reader.finish()
    try:
        return StoreUrl.parse(text, base)
    except FloorStoreError as exc:
        raise ConfigError(f"[store] {exc}") from None


def load_floor(path: Path) -> FloorSettings:
    """Read and check the file at `path`.

    Raises:
        FloorConfigError: unreadable, or a bad section or key (one line naming it);
            PlainLinkError: a plain `mqtt://` broker off the machine.
    """
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeError, tomllib.TOMLDecodeError) as exc:
        raise FloorConfigError(f"{path}: cannot read: {exc}") from None
    try:
        unknown = sorted(set(data) - {"link", "store", "view"})
        if unknown:
            raise ConfigError(f"[{unknown[0]}]: unknown section (expected link, store, view)")
        broker, tls = _broker(data.get("link"), path.parent)
        store = _store(data.get("store"), path.parent)
        view = _view(data.get("view"))
    except PlainLinkError as exc:
        raise PlainLinkError(f"{path}: {exc}") from None
    except ConfigError as exc:
        raise FloorConfigError(f"{path}: {exc}") from None
    return FloorSettings(broker, tls, store, view)
