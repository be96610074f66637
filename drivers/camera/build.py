"""`build_camera`: a `[devices.camera]` section's kind and keys to a camera source."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final

from drivers.camera.emulated import build_emulated
from drivers.camera.options import CameraOptions
from drivers.camera.picam import build_picamera2
from drivers.camera.recorded import build_file, build_folder, build_video
from drivers.camera.source import CameraSource, Render
from drivers.camera.v4l2 import build_v4l2
from drivers.errors import DeviceConfigError
from firmware_bridge.clock import Clock

CAMERA_KINDS: Final = ("v4l2", "picamera2", "file", "folder", "video", "emulated")


def build_camera(name: str, kind: str, options: Mapping[str, Any], *,
                 render: Render | None = None, clock: Clock | None = None,
                 base: Path | None = None) -> CameraSource:
    """Validate a `[devices.camera]` section's options and build its source (not opened).

    Args:
        name: The section name (for messages).
        kind: One of `CAMERA_KINDS`.
        options: The section's keys other than `kind`.
        render: The layout renderer; required for the emulated kind, refused otherwise.
        clock: Timestamp source (monotonic seconds by default).
        base: The folder a relative `path` is read from (the table file's).

    Raises:
        DeviceConfigError: Unknown kind, unknown or missing key, or a value of the wrong type,
            naming the key.
    """
    if kind not in CAMERA_KINDS:
        raise DeviceConfigError(name, "kind",
                                f"{kind!r}: expected one of {', '.join(CAMERA_KINDS)}")
    reader = CameraOptions(name, kind, options, base)
    source = _BUILDERS[kind](reader, render, clock)
    reader.finish()
    return source


_Builder = Callable[[CameraOptions, Render | None, Clock | None], CameraSource]
_BUILDERS: Final[dict[str, _Builder]] = {
    "v4l2": build_v4l2, "picamera2": build_picamera2, "file": build_file, "folder": build_folder,
    "video": build_video, "emulated": build_emulated,
}
