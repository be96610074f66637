"""The vision package's exceptions: one base class, `VisionError`, and its kinds."""

from __future__ import annotations


class VisionError(Exception):
    """Base class of every error raised by `vision`."""


class ImageError(VisionError, ValueError):
    """A frame is not an image the recogniser can read (wrong type, shape or depth)."""


class ProfileError(VisionError, ValueError):
    """A deck profile file is missing, unreadable or inconsistent."""


class DatasetError(VisionError, ValueError):
    """A labelled photo folder is wrong: missing `labels.csv`, a bad line, an unreadable image."""


class SceneError(VisionError, ValueError):
    """A synthetic scene cannot be drawn: not a card code, unknown position or background."""
