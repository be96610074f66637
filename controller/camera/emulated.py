"""The emulated overhead camera's frames: the layout as the procedure has dealt it.

`TableRenderer` draws the emulated layout camera's frames (`drivers.camera` takes it as its
injected renderer) with `vision.build.synth`: the i-th card of a position on its i-th slot
(`controller.camera.worker.layout_points`), each frame placed a little differently, as a
dealer's hand and a real sensor would, so that another frame is another chance for an unsure
reading. The table's surface is drawn once and each card once per place (the same table, the
same printed card, frame after frame), so a frame costs its laying, not its drawing, and only
the cards' parts of it are developed into pixels. Only an emulated `[devices.camera]` uses it
(`--allow-emulated`, the simulation).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt

from controller.camera.worker import layout_points, slot_card_width
from controller.rules.errors import ConfigError
from drivers.camera import emulated_render_options
from drivers.config import CameraConfig
from vision import Image
from vision.build.synth import (
    BACKGROUNDS,
    CardStyle,
    Effects,
    Placement,
    RenderedCard,
    develop,
    laid_extent,
    lay_card,
    render_card,
    render_width,
    table_background,
)

SENSOR = Effects()
"""The emulated camera's imperfections: none but the cards' shadows (a pixel develops alone)."""
CARDS_KEPT = 256
"""Drawn cards kept for the next frames (a few rounds' cards; then drawn afresh)."""


class TableRenderer:
    """Draws the layout as the emulated overhead camera sees it (`drivers.camera.Render`).

    Args:
        zones: The table's layout positions.
        size: Frame (width, height).
        card_width: Card width in pixels (default: what fits the slots).
        background: A `vision.build.synth.BACKGROUNDS` table surface.
        seed: Seed of the table texture and of each frame's placement.
    """

    def __init__(self, zones: Sequence[str], *, size: tuple[int, int] = (1280, 960),
                 card_width: float | None = None, background: str = "felt-green",
                 seed: int = 0) -> None:
        self.zones = tuple(zones)
        self.size = size
        self.card_width = card_width or slot_card_width(self.zones, size)
        self.points = layout_points(self.zones, size, self.card_width)
        self.background = background
        self.seed = seed
        self.frames = 0
        self._style = CardStyle()
        self._surfaces: tuple[npt.NDArray[np.float32], npt.NDArray[np.float32], Image] | None = (
            None)
        self._cards: dict[tuple[str, int, int], RenderedCard] = {}

    def __call__(self, codes_by_position: Mapping[str, Sequence[str]]) -> Image:
        """The frame showing each position's cards (`vision.build.synth.BACK`: face down).

        Raises:
            ValueError: A position that is not on this layout.
        """
        self.frames += 1
        placements = self.placements(codes_by_position, self.frames)
        table, scene, frame = self._surface()
        frame = frame.copy()
        laid: list[tuple[int, int, int, int]] = []
        try:
            for placement in placements:
                card = self._card(placement)
                quad = lay_card(scene, card.image, card.alpha, placement, SENSOR.shadow)
                laid.append(laid_extent(quad, placement.width, scene.shape[:2]))
            for left, top, right, bottom in laid:
                frame[top:bottom, left:right] = develop(scene[top:bottom, left:right])
        finally:
            for left, top, right, bottom in laid:  # the scene is the bare table again
                scene[top:bottom, left:right] = table[top:bottom, left:right]
        return frame

    def placements(self, codes_by_position: Mapping[str, Sequence[str]],
                   frame: int) -> list[Placement]:
        """Where the `frame`-th frame shows each position's cards, in the order laid.

        Raises:
            ValueError: A position that is not on this layout.
        """
        rng = np.random.default_rng([self.seed, frame])
        placements = []
        for zone, codes in codes_by_position.items():
            if zone not in self.zones:
                raise ValueError(f"position {zone!r} is not on the layout "
                                 f"(positions: {', '.join(self.zones)})")
            for number, code in enumerate(codes):
                placements.append(self._placement(zone, number, code, rng))
        return placements

    def _surface(self) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32], Image]:
        """The bare table, the scene the cards are laid on, and the bare table's frame.

        Drawn once: the same table in every frame. Only the cards' parts of the scene are
        laid and developed each frame (`vision.build.synth.develop`), then laid bare again.
        """
        if self._surfaces is None:
            table = table_background(self.background, self.size,
                                     np.random.default_rng(self.seed)).astype(np.float32)
            self._surfaces = (table, table.copy(), develop(table))
        return self._surfaces

    def table(self) -> npt.NDArray[np.float32]:
        """The bare table's light (float BGR, the scene before any card is laid): a copy."""
        return self._surface()[0].copy()

    def _card(self, placement: Placement) -> RenderedCard:
        """A card as drawn for its place (drawn once per card, size and place: kept)."""
        key = (placement.code, render_width(placement.width), placement.seed)
        card = self._cards.get(key)
        if card is None:
            if len(self._cards) >= CARDS_KEPT:
                self._cards.clear()
            card = self._cards[key] = render_card(placement.code, self._style, key[1],
                                                  placement.seed)
        return card

    def _placement(self, zone: str, number: int, code: str,
                   rng: np.random.Generator) -> Placement:
        slots = [name for name in self.points if name.partition(".")[0] == zone]
        # Beyond its slots a position's cards overlap the last one (not readable: unsure).
        x, y = self.points[slots[min(number, len(slots) - 1)]]
        overflow = max(0, number - len(slots) + 1) * 0.25 * self.card_width
        jitter = 0.04 * self.card_width
        return Placement(code, (x + overflow + float(rng.uniform(-jitter, jitter)),
                                y + float(rng.uniform(-jitter, jitter))),
                         self.card_width, float(rng.uniform(-4.0, 4.0)), 0.0,
                         seed=self.zones.index(zone) * 32 + number)


def emulated_renderer(camera: CameraConfig, zones: Sequence[str]) -> TableRenderer:
    """The renderer of an emulated `[devices.camera]` section (its width, height...).

    Raises:
        ConfigError: A render option of the wrong type or value, naming the key.
        drivers.errors.ConfigError: The same, as the camera driver reports it.
    """
    found = emulated_render_options(camera.name, camera.options)
    if found.get("background", BACKGROUNDS[0]) not in BACKGROUNDS:
        raise ConfigError(f"[devices.{camera.name}] background: expected one of "
                          f"{', '.join(BACKGROUNDS)}, got {found['background']!r}")
    return TableRenderer(zones, **found)
