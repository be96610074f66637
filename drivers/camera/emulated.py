"""`emulated`: frames drawn from the cards dealt onto an emulated layout."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any, Final

from drivers.camera.options import CameraOptions
from drivers.camera.source import (
    FILE_READ_TIMEOUT,
    CameraSource,
    FrameReadError,
    Image,
    Render,
    _Source,
)
from drivers.errors import DeviceConfigError
from firmware_bridge.clock import Clock

_LOG = logging.getLogger(__name__)


class EmulatedLayoutCamera(_Source):
    """An overhead camera over an emulated layout: it shows the cards dealt so far.

    The controller's emulation (or a test) tells it what lies where with `deal`, `clear`
    or `show`; each read draws the current layout with the injected `render`.

    Args:
        name: Device name for messages.
        render: Draws a frame from {position: [codes in the order dealt]}.
        clock: Timestamp source.
    """

    def __init__(self, name: str, render: Render, *, clock: Clock | None = None,
                 read_timeout: float = FILE_READ_TIMEOUT) -> None:
        super().__init__(name, clock, read_timeout)
        self._render = render
        self._layout: dict[str, list[str]] = {}

    @property
    def emulated(self) -> bool:
        """True: frames are drawn, not captured."""
        return True

    def deal(self, position: str, code: str) -> None:
        """Put card `code` on `position` (after the cards already there)."""
        with self._lock:
            self._layout.setdefault(position, []).append(code)

    def clear(self, position: str | None = None) -> None:
        """Take the cards off one position, or off the whole layout."""
        with self._lock:
            if position is None:
                self._layout.clear()
            else:
                self._layout.pop(position, None)

    def show(self, layout: Mapping[str, Sequence[str]]) -> None:
        """Replace the whole layout."""
        with self._lock:
            self._layout = {position: list(codes) for position, codes in layout.items()}

    def layout(self) -> dict[str, list[str]]:
        """What lies where now (a copy)."""
        with self._lock:
            return {position: list(codes) for position, codes in self._layout.items()}

    def _acquire(self) -> None:
        _LOG.warning("%s: EMULATED camera (frames are drawn, not captured)", self._name)

    def _release(self) -> None:
        """Nothing to release."""

    def _grab(self) -> Image:
        with self._lock:
            snapshot = {position: tuple(codes) for position, codes in self._layout.items()}
        try:
            return self._render(snapshot)
        except (ValueError, KeyError, TypeError) as error:
            raise FrameReadError(self._name, f"emulated camera could not draw the layout: "
                                 f"{error}") from None


EMULATED_RENDER_KEYS: Final = ("width", "height", "card_width", "background", "seed")
"""Keys of an emulated camera section that configure its renderer (the composition root
passes them to `vision.build.synth.LayoutRenderer`; see `emulated_render_options`)."""


def build_emulated(options: CameraOptions, render: Render | None,
                 clock: Clock | None) -> CameraSource:
    """Build the `emulated` camera; it needs the composition root's renderer."""
    emulated_render_options(options.name, {key: options.raw(key)
                                           for key in EMULATED_RENDER_KEYS if options.has(key)})
    if render is None:
        raise DeviceConfigError(options.name, "kind", "the emulated camera needs a layout renderer "
                          "from the composition root (vision.build.synth.LayoutRenderer)")
    return EmulatedLayoutCamera(options.name, render, clock=clock,
                                read_timeout=options.read_timeout(FILE_READ_TIMEOUT))


def emulated_render_options(name: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """The renderer settings of an emulated camera section, validated.

    Returns:
        Keyword arguments for `vision.build.synth.LayoutRenderer`: `size`, `card_width`,
        `background`, `seed` (only those present in the section).

    Raises:
        DeviceConfigError: A value of the wrong type or range, naming the key.
    """
    reader = CameraOptions(name, "emulated", options)
    found: dict[str, Any] = {}
    width, height = reader.positive("width"), reader.positive("height")
    if (width is None) != (height is None):
        raise DeviceConfigError(name, "width" if width is None else "height",
                          "give both width and height, or neither")
    if width is not None:
        found["size"] = (width, height)
    card_width = reader.get("card_width", (int, float), None)
    if card_width is not None:
        if card_width <= 0:
            raise DeviceConfigError(name, "card_width", f"must be positive, got {card_width}")
        found["card_width"] = float(card_width)
    for key, types in (("background", (str,)), ("seed", (int,))):
        value = reader.get(key, types, None)
        if value is not None:
            found[key] = value
    return found
