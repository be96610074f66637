"""The index glyphs of real photos, labelled, as the glyph classifiers see them.

    python -m vision.build.real_glyphs --out DIR [--source NAME ...] [--profile FILE]
        [--every N]

The recogniser's own finder (`vision.locate.locate_cards`) and corner reader
(`vision.index.read_corners`) run over every image of a source of `shared/cards-train`
(`vision.build.real_sources`); each corner found on a labelled card is kept with that card's
label, as a `vision.build.learned_data.GlyphSet` (the ink maps the nets read and the HOG
features the perceptrons read). One file a deck: `DIR/<source>--<deck>.npz`, so a build can
leave any deck out.

Where the labels box whole cards (`pokercards`, the templates), only what the reader itself
would read is kept: cards whose outline shows which way is up (the reader reads a
near-square outline both ways, and the label cannot say which view is the upright one),
whole cards only (not `covered`). A corner the reader finds on a card is not always its
index (a pip, a court figure's ornament): those rows carry the card's label all the same,
as noise the nets must learn through.

Where the labels box index corners (`cardcounter`), each box is read without an outline:
its ink's principal axis gives the rank-over-suit stack's direction and length, a card is
imagined around the stack each way along the axis, and the corner reader reads both ways
(`index_corner_views`). The way kept is the one under which a profile (`--profile`, by
default the generic one) finds the labelled card likelier (`likelier_view`): the label
tells which view is upright, and what the profile would answer is not kept. The imagined
card is turned, never mirrored: a mirrored 3 is a glyph no deck prints.

`--every` thins the images for a quick look. Build data only: the files hold pieces of the
photos and are never committed.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.build.learned_data import GlyphSet, glyph_set
from vision.build.real_sources import (
    LICENSED,
    SOURCES,
    SourceImage,
    _where,
    load_source,
    read_image,
    sources_present,
)
from vision.cards import RANKS, SUITS
from vision.edges import Vector, min_channel, rolled
from vision.errors import ProfileError, VisionError
from vision.index import CornerIndex, read_corner, read_corners
from vision.locate import LocateParams, locate_cards, long_over_short
from vision.profile import DeckProfile, load_generic_profile, load_profile
from vision.recognize import (
    AMBIGUOUS_ASPECT,
    CardReading,
    _index_box,
    describe_corners,
)

STACK_SHARE = 0.27
"""Length of the rank-over-suit stack over the card's height."""
STACK_CENTRE = (0.09, 0.16)
"""Where the stack's centre lies from the card's corner, in card widths and heights."""
ASPECT = 1.40
"""Card height over width."""


def ink_axis(frame: npt.NDArray[np.uint8], box: tuple[float, float, float, float]
             ) -> tuple[Vector, Vector, float] | None:
    """The ink's centre, its principal axis (a unit vector) and its length along it.

    The ink is Otsu's over the box (x0, y0, x1, y1) grown by a tenth; None when it holds
    too little ink to tell.
    """
    bx0, by0, bx1, by1 = box
    grow_x, grow_y = 0.1 * (bx1 - bx0), 0.1 * (by1 - by0)
    x0, y0 = max(0, int(bx0 - grow_x)), max(0, int(by0 - grow_y))
    x1 = min(frame.shape[1], int(np.ceil(bx1 + grow_x)))
    y1 = min(frame.shape[0], int(np.ceil(by1 + grow_y)))
    if x1 - x0 < 4 or y1 - y0 < 4:
        return None
    grey = min_channel(np.ascontiguousarray(frame[y0:y1, x0:x1]))
    _, ink = cv2.threshold(grey, 0, 255, cv2.THRESH_BINARY_INV | cv2.THRESH_OTSU)
    rows, columns = np.nonzero(ink)
    if len(rows) < 12:
        return None
    points = np.stack([columns + x0, rows + y0], axis=1).astype(np.float64)
    centre = points.mean(axis=0)
    _, _, axes = np.linalg.svd(points - centre, full_matrices=False)
    axis = axes[0]
    along = (points - centre) @ axis
    low, high = np.percentile(along, (2, 98))
    return centre + axis * (low + high) / 2, axis, float(high - low)


def imagined_quad(centre: Vector, down: Vector, length: float) -> npt.NDArray[np.float32]:
    """The card whose index stack, `length` long, runs down `down` from around `centre`.

    Its corners: top left, top right, bottom right, bottom left.
    """
    height = length / STACK_SHARE
    width = height / ASPECT
    right = np.array([down[1], -down[0]])  # down turned a quarter back: no mirror image
    corner = centre - STACK_CENTRE[0] * width * right - STACK_CENTRE[1] * height * down
    return np.array([corner, corner + width * right, corner + width * right + height * down,
                     corner + height * down], np.float32)


def index_corner_views(frame: npt.NDArray[np.uint8], box: tuple[float, float, float, float],
                       profile: DeckProfile) -> list[CornerIndex]:
    """The corner in `box` read each way along its ink's axis (none, one or two readings)."""
    found = ink_axis(frame, box)
    if found is None:
        return []
    centre, axis, length = found
    views = (read_corner(frame, imagined_quad(centre, down, length), profile.layout)
             for down in (axis, -axis))
    return [view for view in views if view is not None]


def likelier_view(views: Sequence[CornerIndex], code: str, profile: DeckProfile
                  ) -> CornerIndex | None:
    """The view under which the profile finds card `code` likelier (None for no view)."""
    if len(views) < 2:
        return views[0] if views else None
    described = describe_corners(profile, views)
    ranks = profile.rank.log_probabilities(np.stack([d.rank for d in described]))
    suits = profile.suit.log_probabilities(np.stack([d.suit for d in described]))
    score = ranks[:, RANKS.index(code[0])] + suits[:, SUITS.index(code[1])]
    return views[int(np.argmax(score))]


def glyphs_of(images: Sequence[SourceImage], profile: DeckProfile) -> GlyphSet:
    """Every labelled corner, as the classifiers see it.

    Each labelled index box read (`index_corner_views`); where the labels box whole cards,
    every corner the reader finds on a labelled, whole, upright-readable card.
    """
    codes: list[str] = []
    cards: list[int] = []
    corners: list[CornerIndex] = []
    params = LocateParams()
    for number, image in enumerate(images):
        frame = read_image(image)
        index_boxes = [b for b in image.boxes if b.kind == "index" and b.xyxy is not None]
        for box in index_boxes:
            assert box.xyxy is not None
            view = likelier_view(index_corner_views(frame, box.xyxy, profile), box.card,
                                 profile)
            if view is not None:
                codes.append(box.card)
                cards.append(number)
                corners.append(view)
        if index_boxes:
            continue
        for located in locate_cards(frame, params, profile.layout.card_aspect):
            quad = np.asarray(located.quad, np.float32)
            if located.covered or long_over_short(quad) < AMBIGUOUS_ASPECT:
                continue
            found = [c for c in read_corners(frame, rolled(quad, 0), profile.layout)
                     if c is not None]
            if not found:
                continue
            where = _where(image, CardReading(None, 0.0, None,
                                              tuple((float(x), float(y)) for x, y in quad),
                                              _index_box(found)), 0.0)
            if where is None:
                continue
            for corner in found:
                codes.append(where)
                cards.append(number)
                corners.append(corner)
    return glyph_set(codes, cards, corners)


def file_name(source: str, deck: str) -> str:
    """`<source>--<deck>.npz` with the names made safe for a file."""
    return f"{safe_name(source)}--{safe_name(deck)}.npz"


def safe_name(name: str) -> str:
    """`name` with every character but letters and digits made a hyphen, for a file name."""
    return "".join(ch if ch.isalnum() else "-" for ch in name)


def source_of(path: Path) -> str | None:
    """The source a glyph set's file (`file_name`) was read from; None for no known one."""
    prefix = path.name.split("--", 1)[0]
    return next((source for source in SOURCES if safe_name(source) == prefix), None)


@dataclass(frozen=True, slots=True)
class RealGlyphs:
    """The real corners a build learns from, and what it records of them.

    Attributes:
        glyphs: Every set's corners, one after another (card numbers made distinct).
        manifest: Per set file: its name, source, corners and SHA-256.
    """

    glyphs: GlyphSet
    manifest: tuple[dict[str, Any], ...]


def load_real_glyphs(folder: Path, hold_out: Sequence[str] = ()) -> RealGlyphs:
    """The glyph sets of `folder` (written by `main`), less the sources in `hold_out`.

    Raises:
        VisionError: the folder holds no set, a set of a source whose licence does not allow
            a shipped model to learn from it, or a file that is not a glyph set.
    """
    unknown = [name for name in hold_out if name not in SOURCES]
    if unknown:
        raise VisionError(f"hold-out {', '.join(unknown)}: not a source of cards-train "
                          f"({', '.join(SOURCES)})")
    files = sorted(folder.glob("*.npz")) if folder.is_dir() else []
    if not files:
        raise VisionError(f"{folder}: no real glyph sets (python -m vision.build.real_glyphs "
                          f"--out {folder})")
    parts: list[GlyphSet] = []
    manifest: list[dict[str, Any]] = []
    for path in files:
        source = source_of(path)
        if source is None or source not in LICENSED:
            raise VisionError(f"{path}: its source's licence does not let a shipped model "
                              f"learn from it (licensed: {', '.join(sorted(LICENSED))})")
        if source in hold_out:
            continue
        glyphs = GlyphSet.load(path)
        offset = 1_000_000 * (len(parts) + 1)
        parts.append(replace(glyphs, cards=glyphs.cards + offset))
        manifest.append({"file": path.name, "source": source, "corners": len(glyphs),
                         "sha256": hashlib.sha256(path.read_bytes()).hexdigest()})
    return RealGlyphs(GlyphSet.joined(parts) if parts else glyph_set([], [], []),
                      tuple(manifest))


def main(argv: Sequence[str] | None = None) -> int:
    """Write one glyph set a deck of each licensed source (or the named ones)."""
    parser = argparse.ArgumentParser(prog="python -m vision.build.real_glyphs",
                                     description="Labelled index glyphs of real photos.")
    parser.add_argument("--out", required=True, help="folder of the glyph sets")
    parser.add_argument("--source", action="append", default=[], choices=sorted(LICENSED),
                        help="a licensed source of cards-train (default: every one present)")
    parser.add_argument("--profile", default="",
                        help="profile whose classifiers choose the way up of a corner boxed "
                             "without its card (default: the generic profile)")
    parser.add_argument("--every", type=int, default=1, help="read every Nth image")
    args = parser.parse_args(argv)
    out = Path(args.out)
    if not out.is_dir():
        parser.error(f"--out {out}: no such folder")
    if args.every < 1:
        parser.error(f"--every {args.every} must be 1 or more")
    sources = args.source or [s for s in sources_present() if s in LICENSED]
    try:
        profile = load_profile(Path(args.profile)) if args.profile else load_generic_profile()
    except ProfileError as error:
        sys.stderr.write(f"{error}\n")
        return 2
    for source in sources:
        try:
            images = load_source(source)[::args.every]
        except FileNotFoundError as error:
            sys.stderr.write(f"{error}\n")
            return 2
        for deck in dict.fromkeys(image.deck for image in images):
            glyphs = glyphs_of([i for i in images if i.deck == deck], profile)
            path = out / file_name(source, deck)
            glyphs.save(path)
            sys.stdout.write(f"{path.name}: {len(glyphs)} corners of "
                             f"{len(set(glyphs.cards.tolist()))} images\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
