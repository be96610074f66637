"""Altered copies of an enrolment photo: the outline nudged, relit, on a drawn table, glare."""

from __future__ import annotations

from typing import Final

import cv2
import numpy as np
import numpy.typing as npt

from vision.edges import Image
from vision.locate import Quad, long_over_short


def alter(image: Image, quad: Quad, rng: np.random.Generator) -> tuple[Image, Quad]:
    """A changed copy of the card's surroundings: moved outline, smaller, other light and focus.

    Returns:
        The altered crop and the card's (nudged) outline in it.
    """
    x0, y0 = np.maximum(np.floor(quad.min(axis=0)) - 12, 0).astype(int)
    x1, y1 = np.ceil(quad.max(axis=0) + 12).astype(int)
    crop = image[y0:y1, x0:x1]
    scale = float(rng.uniform(0.4, 1.0))
    size = (max(8, round(crop.shape[1] * scale)), max(8, round(crop.shape[0] * scale)))
    crop = cv2.resize(crop, size, interpolation=cv2.INTER_AREA)
    moved = (quad - np.array([x0, y0], np.float32)) * scale
    card_width = float(np.linalg.norm(moved[1] - moved[0]))
    return _relight(crop, rng), _nudged(moved, card_width, rng)


GLARE_PEAK: Final = (60.0, 130.0)
"""Range of a glare copy's brightening at the reflection's centre, in grey levels."""


GLARE_RADIUS: Final = (0.15, 0.45)
"""Range of a glare copy's reflection radius (its Gaussian's sigma), in card widths."""


def glare_copy(image: Image, quad: Quad, rng: np.random.Generator) -> tuple[Image, Quad]:
    """The photo under a lamp's reflection: a soft bright spot over part of the card.

    The spot is centred on one of the card's two index corners, moved by up to a third of
    the card's width, round or drawn out along any direction (up to twice as long as wide),
    and brightens by `GLARE_PEAK` grey levels at its centre, falling off as a Gaussian of
    `GLARE_RADIUS` card widths: it washes out strokes of the index without hiding it. The
    outline returned is nudged as `alter` nudges it.

    Returns:
        The glare copy (a crop around the card) and the card's (nudged) outline in it.
    """
    x0, y0 = np.maximum(np.floor(quad.min(axis=0)) - 12, 0).astype(int)
    x1, y1 = np.ceil(quad.max(axis=0) + 12).astype(int)
    crop = image[y0:y1, x0:x1].astype(np.float32)
    moved = np.asarray(quad, np.float32) - np.array([x0, y0], np.float32)
    card_width = float(np.linalg.norm(moved[1] - moved[0]))
    first = rng.random() < 0.5  # the index corner at quad[0], or the one opposite
    corner, inward = (moved[0], 0.12) if first else (moved[2], -0.12)
    centre = corner + inward * (moved[2] - moved[0]) + rng.uniform(-1, 1, 2) * card_width / 3
    sigma = float(rng.uniform(*GLARE_RADIUS)) * card_width
    stretch, angle = float(rng.uniform(1.0, 2.0)), float(rng.uniform(0, np.pi))
    ys, xs = np.mgrid[0:crop.shape[0], 0:crop.shape[1]].astype(np.float32)
    along = (xs - centre[0]) * np.float32(np.cos(angle)) + (ys - centre[1]) * np.float32(
        np.sin(angle))
    across = (ys - centre[1]) * np.float32(np.cos(angle)) - (xs - centre[0]) * np.float32(
        np.sin(angle))
    spread = (along / np.float32(stretch)) ** 2 + across ** 2
    spot = float(rng.uniform(*GLARE_PEAK)) * np.exp(-spread / np.float32(2 * sigma**2))
    washed = np.clip(crop + spot[..., None] + 0.5, 0, 255).astype(np.uint8)
    return washed, _nudged(moved, card_width, rng)


def _relight(crop: Image, rng: np.random.Generator) -> Image:
    gamma = float(rng.uniform(0.7, 1.4))
    gain = float(rng.uniform(0.7, 1.15))
    table = np.clip(255.0 * gain * (np.arange(256) / 255.0) ** gamma, 0, 255).astype(np.uint8)
    out = cv2.LUT(crop, table).astype(np.float32)
    sigma = float(rng.uniform(0.0, 1.2))
    if sigma > 0.3:
        out = cv2.GaussianBlur(out, (0, 0), sigma)
    out += rng.normal(0, float(rng.uniform(0, 4)), out.shape).astype(np.float32)
    return np.clip(out + 0.5, 0, 255).astype(np.uint8)


TABLE_CARD_WIDTH: Final = (75.0, 110.0)
"""Range of a table copy's card width in pixels: a hold'em camera's 640x480 frame of a board
or of exposed hands shows cards 80 to 100 pixels wide."""


_TABLE_MARGIN: Final = 14
"""Table shown around a table copy's card, in pixels."""


def table_copy(image: Image, quad: Quad, rng: np.random.Generator) -> tuple[Image, Quad]:
    """The card alone as a hold'em camera sees it on the table: small, turned, oblique.

    The card is warped to `TABLE_CARD_WIDTH` pixels across, turned any way, each corner moved
    by up to 4% of the card's width (an oblique camera), with rounded corners, onto a drawn
    table (`drawn_table`), then blurred, noised and JPEG-compressed as a small camera does.
    Half the copies are sampled straight down (their strokes alias, as a cheap sensor's do),
    half from a copy blurred first. The outline returned is nudged as `alter` nudges it.

    Returns:
        The table copy and the card's (nudged) outline in it.
    """
    quad = np.asarray(quad, np.float32)
    across = float(np.linalg.norm(quad[1] - quad[0]) + np.linalg.norm(quad[2] - quad[3])) / 2
    width = float(rng.uniform(*TABLE_CARD_WIDTH))
    height = width * long_over_short(quad)
    card = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float64) - [
        width / 2, height / 2]
    angle = float(rng.uniform(0, 2 * np.pi))
    turn = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    seen = card @ turn.T + rng.uniform(-0.04, 0.04, (4, 2)) * width
    seen -= seen.min(axis=0) - _TABLE_MARGIN
    size = (int(np.ceil(seen[:, 0].max())) + _TABLE_MARGIN,
            int(np.ceil(seen[:, 1].max())) + _TABLE_MARGIN)
    seen = seen.astype(np.float32)
    source = image
    if rng.random() < 0.5:
        source = cv2.GaussianBlur(image, (0, 0), 0.35 * across / width)
    to_table = cv2.getPerspectiveTransform(quad, seen)
    face = cv2.warpPerspective(source, to_table, size, flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    cover = _rounded_cover(seen, height / width, size)[..., None]
    scene = face * cover + drawn_table(size, rng) * (1.0 - cover)
    return _small_camera(scene, rng), _nudged(seen, width, rng)


def _rounded_cover(seen: npt.NDArray[np.float32], aspect: float, size: tuple[int, int]
                   ) -> npt.NDArray[np.float32]:
    """Coverage (0 to 1) of a card of `aspect` with rounded corners, seen at `seen`.

    `seen` holds the card's top-left, top-right, bottom-right and bottom-left corners.
    """
    radius_u, radius_v = 0.06, 0.06 / aspect  # a corner's radius, 6% of the card's width
    centres = ((radius_u, radius_v, 180), (1 - radius_u, radius_v, 270),
               (1 - radius_u, 1 - radius_v, 0), (radius_u, 1 - radius_v, 90))
    arcs = [(u + radius_u * np.cos(t), v + radius_v * np.sin(t))
            for u, v, start in centres for t in np.radians(np.linspace(start, start + 90, 6))]
    upright = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    outline = cv2.perspectiveTransform(np.array([arcs], np.float32),
                                       cv2.getPerspectiveTransform(upright, seen))[0]
    scale = 4  # drawn at four times the size, then averaged down: smooth edges
    mask = np.zeros((size[1] * scale, size[0] * scale), np.uint8)
    cv2.fillPoly(mask, [np.round(outline * scale).astype(np.int32)], 255)
    small = cv2.resize(mask, size, interpolation=cv2.INTER_AREA)
    return np.asarray(small, np.float32) / np.float32(255.0)


def drawn_table(size: tuple[int, int], rng: np.random.Generator) -> npt.NDArray[np.float32]:
    """A table surface of `size` (width, height), float BGR.

    Any colour from nearly black to pale, with grain lines (sharp or soft, any spacing and
    direction, wavy) or a fine weave, and fine noise.
    """
    width, height = size
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float32)
    theta = float(rng.uniform(0, np.pi))
    across = -xs * np.float32(np.sin(theta)) + ys * np.float32(np.cos(theta))
    coarse = rng.standard_normal((4, 4)).astype(np.float32)
    wave = cv2.resize(coarse, size, interpolation=cv2.INTER_CUBIC) * float(rng.uniform(0, 12))
    lines = np.sin((across + wave) * np.float32(2 * np.pi / rng.uniform(3, 15)))
    lines = np.sign(lines) * np.abs(lines) ** float(rng.uniform(1, 4))
    if rng.random() < 0.3:  # a weave instead of grain
        period = float(rng.uniform(2.5, 4.5))
        lines = np.sin(xs * np.float32(2 * np.pi / period)) * np.sin(
            ys * np.float32(2 * np.pi / period))
    shade = (1.0 + float(rng.uniform(0, 0.3)) * lines
             + 0.04 * rng.standard_normal((height, width)).astype(np.float32))
    colour = rng.uniform(15, 190, 3).astype(np.float32)
    return np.asarray(shade[..., None] * colour, np.float32)


def _small_camera(scene: npt.NDArray[np.float32], rng: np.random.Generator) -> Image:
    """`scene` through a small camera: focus blur, light level, sensor noise, JPEG."""
    scene = cv2.GaussianBlur(scene, (0, 0), float(rng.uniform(0.3, 0.9)))
    scene = scene * float(rng.uniform(0.75, 1.1))
    scene += rng.normal(0, float(rng.uniform(1, 4)), scene.shape[:2]).astype(np.float32)[
        ..., None]
    frame = np.clip(scene + 0.5, 0, 255).astype(np.uint8)
    ok, data = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(70, 95))])
    decoded = cv2.imdecode(data, cv2.IMREAD_COLOR) if ok else None
    return frame if decoded is None else np.asarray(decoded, np.uint8)


def _nudged(quad: npt.NDArray[np.float32], card_width: float, rng: np.random.Generator
            ) -> Quad:
    """The outline moved as a finder's may be: each corner by about 1.2% of the card's width."""
    return np.asarray(quad + rng.normal(0, 0.012 * card_width, quad.shape), np.float32)
