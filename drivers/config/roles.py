"""The device roles (`[devices.<role>]`) and which kinds stand in for hardware."""

from __future__ import annotations

from enum import StrEnum
from typing import Final


class Role(StrEnum):
    """What a device is for; the `[devices.<role>]` section name."""

    SHOE = "shoe"
    LAYOUT = "layout"
    SIGN = "sign"
    CAMERA = "camera"
    WHEEL = "wheel"


EMULATED: Final = "emulated"
"""The kind (or kind prefix) of every emulated device."""


RECORDED_CAMERA_KINDS: Final = ("file", "folder", "video")
"""Camera kinds that replay recorded frames: stand-ins for a camera, like the emulated kinds."""


def is_emulated(kind: str) -> bool:
    """True for the emulated kinds: a byte-level emulator, or drawn camera frames."""
    return kind == EMULATED or kind.startswith(EMULATED + "-")


def stands_in(role: str, kind: str) -> bool:
    """True for kinds that stand in for hardware (they need the explicit flag).

    The emulated kinds, and cameras of recorded frames (a still image, a folder, a video):
    every status line calls them EMULATED.
    """
    return is_emulated(kind) or (role == "camera" and kind in RECORDED_CAMERA_KINDS)
