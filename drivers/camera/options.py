"""A camera section's keys read for one kind: the reader and the wording of its errors."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from confkeys import DevicePhrases, Section
from drivers.camera.source import Render
from drivers.errors import DeviceConfigError


class CameraPhrases(DevicePhrases):
    """The camera section's wording: Python type names, and the kind named."""

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def expected(self, kinds: Sequence[type]) -> str:
        """`int or str`."""
        return " or ".join(kind.__name__ for kind in kinds)

    def wrong_type(self, kinds: Sequence[type], value: object) -> str:
        """The value quoted."""
        return f"expected {self.expected(kinds)}, got {value!r}"

    def missing(self) -> str:
        """A key this kind needs."""
        return f"required for kind {self.kind!r}"

    def unknown_key(self, known: Sequence[str]) -> str:
        """A key this kind does not take."""
        return f"unknown key for kind {self.kind!r}"


class CameraOptions(Section):
    """A camera section's keys (other than `kind`), read for one camera kind."""

    def __init__(self, name: str, kind: str, options: Mapping[str, Any],
                 base: Path | None = None) -> None:
        super().__init__(name, options, phrases=CameraPhrases(kind), error=DeviceConfigError,
                         base=str(base) if base is not None else None)
        self.kind = kind

    def read_timeout(self, default: float) -> float:
        """`read_timeout_ms` in seconds (50 ms to 60 s), or `default`."""
        if not self.has("read_timeout_ms"):
            self.raw("read_timeout_ms")
            return default
        return float(self.integer("read_timeout_ms", minimum=50, maximum=60_000)) / 1000

    def positive(self, key: str, default: int | None = None) -> int | None:
        """A positive integer, or `default` when absent."""
        value: int | None = self.get(key, int, default)
        if value is not None and value <= 0:
            raise self.error(key, f"must be positive, got {value}")
        return value


def refuse_render(options: CameraOptions, render: Render | None) -> None:
    """Refuse a renderer for a kind that captures or replays its frames."""
    if render is not None:
        raise DeviceConfigError(options.name, "kind", f"kind {options.kind!r} takes no renderer")
