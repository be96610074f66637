"""Enrol a deck: learn a profile from labelled photos of its cards.

Each photo's card is found and both index corners are read; each corner gives one rank and
one suit sample. Extra samples come from altered copies of each photo (the card's outline
nudged, the card shrunk, its light, contrast, focus and noise changed), so the profile is
not tied to the enrolment photos' exact framing and lighting. Table copies (`table_copy`)
show the card as a hold'em camera sees a board: 75 to 110 pixels wide, turned, seen
obliquely, on a drawn table of grain, weave or felt, through a small camera's blur, noise and
JPEG. Glare copies (`glare_copy`) wash part of the card under a lamp's reflection.

The confidence model is tuned by cross-validation inside the enrolment set: the photos are
split into folds (the n-th photo of each card in fold n mod k; with a single photo of each
card, its two index corners are the two folds); each fold is read with
classifiers built from the other folds. The held-out readings (of each held-out photo as
taken and of its table copies: the other folds never saw that photo) set the softmax
temperatures, the novelty limits and the red/black ink model; with the held-out glare copies
they set the unsure threshold (the lowest that keeps every held-out wrong answer unsure) and
the one-corner threshold (`one_corner_threshold`: the lowest that keeps every held-out answer
given by one corner, `vision.recognize.lone_corner`, right). The final classifiers use every
photo.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Final

import cv2
import numpy as np
import numpy.typing as npt

from vision.cards import RANKS, RED_SUITS, SUITS
from vision.classify import NearestNeighbours, log_softmax
from vision.edges import Image
from vision.errors import DatasetError
from vision.index import IndexLayout, read_corners
from vision.locate import Quad, find_cards, long_over_short
from vision.profile import ColourModel, DeckProfile
from vision.recognize import (
    NOVEL,
    CardVerdict,
    CornerFeatures,
    assess_corners,
    lone_corner,
    verdict_of,
)


@dataclass(frozen=True, slots=True)
class EnrolOptions:
    """Enrolment settings.

    Attributes:
        augment: Altered copies read per photo.
        table_copies: Table copies (`table_copy`: a small card on a drawn table) read per
            photo; they are also held out in cross-validation.
        glare_copies: Glare copies (`glare_copy`: a lamp's reflection washing part of the
            card) read per photo; they are trained on, and held out in cross-validation to
            test the thresholds (not to set the novelty limits or temperatures).
        folds: Cross-validation folds for tuning the confidence model (at most the number
            of photos of the most photographed card).
        seed: Seed of the alterations.
        min_unsure_below: The unsure threshold never goes below this.
        layout: Index placement; None measures the card's proportions from the photos and
            reads faint ink first (`IndexLayout.faint_first`).
    """

    augment: int = 6
    table_copies: int = 4
    glare_copies: int = 2
    folds: int = 4
    seed: int = 0
    min_unsure_below: float = 0.9
    layout: IndexLayout | None = None


@dataclass(frozen=True, slots=True)
class Sample:
    """One index corner read from an enrolment photo (or an altered copy of it).

    Attributes:
        code: The card ("QH").
        photo: Number of the photo it came from.
        fold: Cross-validation fold of that photo.
        features: What the classifiers see.
        original: False for a corner read from an altered copy.
        corner: 0 for the card's first index corner, 1 for the opposite one.
        copy: 0 for the photo as taken, else the number of the altered or table copy.
        on_table: True for a corner read from a table copy (see `table_copy`).
        glared: True for a corner read from a glare copy (see `glare_copy`).
    """

    code: str
    photo: int
    fold: int
    features: CornerFeatures
    original: bool
    corner: int = 0
    copy: int = 0
    on_table: bool = False
    glared: bool = False


@dataclass(frozen=True, slots=True)
class EnrolReport:
    """What enrolment did and how well the profile read its own held-out folds.

    Attributes:
        photos: Photos offered.
        problems: One line per photo that gave nothing ("file: why").
        samples: Corner samples learned (including altered copies).
        held_out: Photos read in cross-validation.
        right: Held-out photos answered correctly.
        answered: Held-out photos answered (right or wrong).
        wrong: Held-out photos answered wrongly.
        unsure_below: The chosen unsure threshold.
        seconds: Wall-clock time of enrolment.
        table_held_out: Table copies of held-out photos read in cross-validation.
        table_right: Of those, answered correctly (at the chosen threshold).
        table_wrong: Of those, answered wrongly.
        glare_held_out: Glare copies of held-out photos read in cross-validation.
        glare_right: Of those, answered correctly (at the chosen thresholds).
        glare_wrong: Of those, answered wrongly.
        one_corner_below: The chosen one-corner threshold (`DeckProfile.one_corner_below`),
            or None.
        one_corner_right: Held-out photos and table copies answered by one corner
            (`vision.recognize.lone_corner`) and right, at that threshold (counted in
            `right`, `table_right` and `glare_right` too).
        one_corner_wrong: Of those answered by one corner, wrongly.
    """

    photos: int
    problems: list[str] = field(default_factory=list)
    samples: int = 0
    held_out: int = 0
    right: int = 0
    answered: int = 0
    wrong: int = 0
    unsure_below: float = 0.0
    seconds: float = 0.0
    table_held_out: int = 0
    table_right: int = 0
    table_wrong: int = 0
    glare_held_out: int = 0
    glare_right: int = 0
    glare_wrong: int = 0
    one_corner_below: float | None = None
    one_corner_right: int = 0
    one_corner_wrong: int = 0


@dataclass(frozen=True, slots=True)
class _HeldOut:
    code: str
    corners: list[CornerFeatures]
    rank_distances: npt.NDArray[np.float32]
    suit_distances: npt.NDArray[np.float32]


@dataclass(frozen=True, slots=True)
class _Tuning:
    rank_temperature: float
    suit_temperature: float
    rank_novelty: float
    suit_novelty: float
    colour: ColourModel


Progress = Callable[[int, int], None]


def enroll(photos: Sequence[tuple[str, Image, str]], name: str,
           options: EnrolOptions | None = None,
           progress: Progress | None = None) -> tuple[DeckProfile, EnrolReport]:
    """Learn a deck profile from labelled photos, one card per photo.

    Args:
        photos: (label for messages, BGR image, card code) per photo.
        name: The profile's name.
        options: Enrolment settings.
        progress: Called with (photos done, photos in all) as photos are read.

    Raises:
        DatasetError: The photos do not cover every rank and every suit with a readable
            card, or every photo failed (the message lists the problems).
    """
    options = options or EnrolOptions()
    started = time.perf_counter()
    layout = options.layout or IndexLayout(card_aspect=_measured_aspect(photos),
                                           faint_first=True)
    samples, problems = collect_samples(photos, layout, options, progress)
    _check_coverage(samples, problems)
    samples, folds = _assign_folds(samples, options.folds)
    held_out = _cross_validate(samples, folds)
    tuning = _tune(held_out)
    thresholds, outcome = _choose_threshold(samples, folds, tuning, layout, options)
    profile = _profile(name, layout, samples, tuning, thresholds,
                       {"photos": len(photos), "samples": len(samples), "folds": folds})
    photo, table, glare = outcome
    report = EnrolReport(len(photos), problems, len(samples), photo.shots, photo.right,
                         photo.answered, photo.wrong, thresholds.unsure_below,
                         time.perf_counter() - started, table.shots, table.right, table.wrong,
                         glare.shots, glare.right, glare.wrong, thresholds.one_corner_below,
                         sum(o.lone_right for o in outcome), sum(o.lone_wrong for o in outcome))
    return replace(profile, info=dict(profile.info) | _report_info(report)), report


def collect_samples(photos: Sequence[tuple[str, Image, str]], layout: IndexLayout,
                    options: EnrolOptions, progress: Progress | None = None
                    ) -> tuple[list[Sample], list[str]]:
    """Read every photo (and its altered copies) into corner samples.

    Returns:
        The samples, and one line per photo that gave none.
    """
    rng = np.random.default_rng(options.seed)
    seen: Counter[str] = Counter()
    samples: list[Sample] = []
    problems: list[str] = []
    for number, (label, image, code) in enumerate(photos):
        fold = seen[code]
        seen[code] += 1
        found, problem = photo_samples(image, code, number, fold, layout, options, rng)
        samples += found
        if problem:
            problems.append(f"{label}: {problem}")
        if progress:
            progress(number + 1, len(photos))
    return samples, problems


def photo_samples(image: Image, code: str, photo: int, fold: int, layout: IndexLayout,
                  options: EnrolOptions, rng: np.random.Generator) -> tuple[list[Sample], str]:
    """Corner samples of the largest card in one photo and of its altered and other copies.

    `options.augment` altered copies (`alter`), `options.table_copies` table copies
    (`table_copy`), `options.glare_copies` glare copies (`glare_copy`), numbered in that
    order from 1.

    Returns:
        The samples, and a description of the problem when the photo gave none.
    """
    quads = find_cards(image)
    if not quads:
        return [], "no card found"
    quad = quads[0]
    def corners(shot: Image, outline: Quad, copy: int, on_table: bool,
                glared: bool = False) -> list[Sample]:
        return [Sample(code, photo, fold, CornerFeatures.of(corner), copy == 0, number, copy,
                       on_table, glared)
                for number, corner in enumerate(read_corners(shot, outline, layout))
                if corner is not None]

    samples = corners(image, quad, 0, False)
    if not samples:
        return [], "card found but no index read in either corner"
    for copy in range(1, options.augment + 1):
        samples += corners(*alter(image, quad, rng), copy, False)
    first_table = options.augment + 1
    for copy in range(first_table, first_table + options.table_copies):
        samples += corners(*table_copy(image, quad, rng), copy, True)
    first_glare = first_table + options.table_copies
    for copy in range(first_glare, first_glare + options.glare_copies):
        samples += corners(*glare_copy(image, quad, rng), copy, False, True)
    return samples, ""


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


def _measured_aspect(photos: Sequence[tuple[str, Image, str]]) -> float:
    aspects = []
    for _, image, _ in photos[:: max(1, len(photos) // 40)]:
        quads = find_cards(image)
        if quads:
            aspects.append(long_over_short(quads[0]))
    return round(float(np.median(aspects)), 3) if aspects else IndexLayout().card_aspect


def _check_coverage(samples: Sequence[Sample], problems: Sequence[str]) -> None:
    if not samples:
        detail = "; ".join(problems[:5]) + (" ..." if len(problems) > 5 else "")
        raise DatasetError(f"no card could be read in any photo ({detail})")
    ranks = {s.code[0] for s in samples}
    suits = {s.code[1] for s in samples}
    missing = [r for r in RANKS if r not in ranks] + [s for s in SUITS if s not in suits]
    if missing:
        raise DatasetError("the readable photos do not show every rank and suit; missing: "
                           + " ".join(missing))


def _assign_folds(samples: list[Sample], wanted: int) -> tuple[list[Sample], int]:
    """Split the samples into cross-validation folds.

    By photo (the n-th photo of each card in fold n mod k); with one photo per card, the
    card's two index corners are the two folds.
    """
    per_card = _photos_per_card(samples)
    if per_card >= 2:
        folds = max(2, min(wanted, per_card))
        return [replace(s, fold=s.fold % folds) for s in samples], folds
    return [replace(s, fold=s.corner) for s in samples], 2


def _photos_per_card(samples: Sequence[Sample]) -> int:
    per_card = Counter(code for code, _ in {(s.code, s.photo) for s in samples})
    return max(per_card.values())


def by_photo(samples: Sequence[Sample]) -> list[list[Sample]]:
    """The samples grouped by photo (in photo-number order), each group in sample order."""
    groups: dict[int, list[Sample]] = {}
    for sample in samples:
        groups.setdefault(sample.photo, []).append(sample)
    return [groups[photo] for photo in sorted(groups)]


def class_arrays(samples: Sequence[Sample], part: str
                 ) -> tuple[str, npt.NDArray[np.float32], npt.NDArray[np.int64]]:
    """The classes of `part` ("rank" or "suit"), the samples' features and class numbers."""
    classes, position = (RANKS, 0) if part == "rank" else (SUITS, 1)
    features = np.stack([getattr(s.features, part) for s in samples]).astype(np.float32)
    labels = np.array([classes.index(s.code[position]) for s in samples], np.int64)
    return classes, features, labels


def _nearest(samples: Sequence[Sample], part: str, temperature: float = 1.0,
             novelty: float = np.inf) -> NearestNeighbours:
    return NearestNeighbours(*class_arrays(samples, part), temperature, novelty)


def _held_out_folds(samples: Sequence[Sample], folds: int, glare: bool = True
                    ) -> Iterator[tuple[list[Sample], list[list[Sample]]]]:
    """Per fold: the samples of the other folds, and the fold's held-out shots.

    A shot is a held-out photo as taken or one of its table copies or (with `glare`) glare
    copies; its corners go together.
    Folds whose training samples miss a rank or a suit, or that hold no original sample,
    are left out.
    """
    for fold in range(folds):
        train = [s for s in samples if s.fold != fold]
        test = [s for s in samples
                if s.fold == fold and (s.original or s.on_table or (glare and s.glared))]
        if any(s.original for s in test) and _covers_all(train):
            yield train, _by_shot(test)


def _by_shot(samples: Sequence[Sample]) -> list[list[Sample]]:
    """The samples grouped by photo and copy (in that order), each group in sample order."""
    groups: dict[tuple[int, int], list[Sample]] = {}
    for sample in samples:
        groups.setdefault((sample.photo, sample.copy), []).append(sample)
    return [groups[shot] for shot in sorted(groups)]


def _cross_validate(samples: Sequence[Sample], folds: int) -> list[_HeldOut]:
    held_out: list[_HeldOut] = []
    # a glare-washed corner lies far from every sample: letting it set the novelty limits
    # would loosen them to twice (measured on the dev deck); glare copies only test the
    # thresholds
    for train, photos in _held_out_folds(samples, folds, glare=False):
        rank_model, suit_model = _nearest(train, "rank"), _nearest(train, "suit")
        held_out += [_HeldOut(
            corners[0].code, [s.features for s in corners],
            rank_model.class_distances(np.stack([s.features.rank for s in corners])),
            suit_model.class_distances(np.stack([s.features.suit for s in corners])))
            for corners in photos]
    if not held_out:
        raise DatasetError("too few photos to cross-validate: every rank and suit needs photos "
                           "in at least two folds (two photos of each card is enough)")
    return held_out


def _covers_all(samples: Sequence[Sample]) -> bool:
    return {s.code[0] for s in samples} == set(RANKS) and {s.code[1] for s in samples} == set(
        SUITS)


def _tune(held_out: Sequence[_HeldOut]) -> _Tuning:
    rank_rows = np.concatenate([h.rank_distances for h in held_out])
    suit_rows = np.concatenate([h.suit_distances for h in held_out])
    rank_truth = np.concatenate([[RANKS.index(h.code[0])] * len(h.corners) for h in held_out])
    suit_truth = np.concatenate([[SUITS.index(h.code[1])] * len(h.corners) for h in held_out])
    redness = np.array([c.redness for h in held_out for c in h.corners])
    red = np.array([h.code[1] in RED_SUITS for h in held_out for _ in h.corners])
    return _Tuning(fit_temperature(rank_rows, rank_truth), fit_temperature(suit_rows, suit_truth),
                   novelty_limit(rank_rows, rank_truth), novelty_limit(suit_rows, suit_truth),
                   fit_colour(redness[red], redness[~red]))


def fit_temperature(distances: npt.NDArray[np.float32], truth: npt.NDArray[np.integer]) -> float:
    """Softmax temperature that best predicts held-out labels from class distances.

    It never falls below a tenth of the median margin between the true class and the nearest
    other class, so a set with no held-out mistakes still yields graded confidences.
    """
    rows = np.arange(len(truth))
    true_distance = distances[rows, truth]
    others = distances.copy()
    others[rows, truth] = np.inf
    margin = float(np.median(others.min(axis=1) - true_distance))
    floor = max(0.1 * margin, 1e-3)
    candidates = np.geomspace(floor, max(floor * 50, 1.0), 60)
    losses = [-float(log_softmax(-distances / t)[rows, truth].mean()) for t in candidates]
    return float(candidates[int(np.argmin(losses))])


def novelty_limit(distances: npt.NDArray[np.float32], truth: npt.NDArray[np.integer]) -> float:
    """Nearest-sample distance beyond which a glyph counts as unlike the enrolled ones.

    2.5 times the 99th percentile of held-out glyphs' distance to their own class.
    """
    own = distances[np.arange(len(truth)), truth]
    return float(2.5 * np.quantile(own, 0.99))


def fit_colour(red: npt.NDArray[np.float64], black: npt.NDArray[np.float64]) -> ColourModel:
    """Red/black boundary halfway between the two inks' typical redness."""
    if red.size == 0 or black.size == 0:
        return ColourModel()
    low, high = float(np.quantile(black, 0.95)), float(np.quantile(red, 0.05))
    middle = (low + high) / 2 if high > low else (float(np.median(black)) +
                                                 float(np.median(red))) / 2
    spread = float(np.median(red)) - float(np.median(black))
    return ColourModel(middle, max(0.01, spread / 12))


def _profile(name: str, layout: IndexLayout, samples: Sequence[Sample], tuning: _Tuning,
             thresholds: _Thresholds, info: dict[str, object]) -> DeckProfile:
    return DeckProfile(
        name=name, kind="enrolled", layout=layout,
        rank=_nearest(samples, "rank", tuning.rank_temperature, tuning.rank_novelty),
        suit=_nearest(samples, "suit", tuning.suit_temperature, tuning.suit_novelty),
        colour=tuning.colour, unsure_below=thresholds.unsure_below, info=info,
        one_corner_below=thresholds.one_corner_below)


@dataclass(frozen=True, slots=True)
class _Outcome:
    """Held-out shots of one kind read at the chosen thresholds.

    `lone_right` and `lone_wrong` count the answers given by one corner (`lone_corner`).
    """

    shots: int
    right: int
    answered: int
    wrong: int
    lone_right: int = 0
    lone_wrong: int = 0


@dataclass(frozen=True, slots=True)
class _Verdicts:
    """A held-out shot's verdicts: both corners together, and one corner alone (or None)."""

    code: str
    kind: str
    """"photo" (as taken), "table" (a table copy) or "glare" (a glare copy)."""
    joint: CardVerdict
    lone: CardVerdict | None


@dataclass(frozen=True, slots=True)
class _Thresholds:
    unsure_below: float
    one_corner_below: float | None


def _choose_threshold(samples: Sequence[Sample], folds: int, tuning: _Tuning,
                      layout: IndexLayout, options: EnrolOptions
                      ) -> tuple[_Thresholds, tuple[_Outcome, _Outcome, _Outcome]]:
    """Lowest thresholds (not below the option's floor) that leave no held-out answer wrong.

    The unsure threshold keeps every wrong joint answer of the held-out shots unsure; the
    one-corner threshold (`one_corner_threshold`) every wrong answer by one corner.

    Returns:
        The thresholds, and the outcome on the held-out photos as taken, on their table
        copies and on their glare copies.
    """
    verdicts = []
    for train, shots in _held_out_folds(samples, folds):
        profile = _profile("fold", layout, train, tuning, _Thresholds(0.0, None), {})
        for corners in shots:
            evidence = assess_corners(profile, [s.features for s in corners])
            joint = verdict_of(profile, evidence, 0.0)
            lone = lone_corner(profile, evidence) if joint.reason == NOVEL else None
            verdicts.append(_Verdicts(corners[0].code, _kind(corners[0]), joint, lone))
    wrong = [v.joint.confidence for v in verdicts if not v.joint.reason and v.joint.guess != v.code]
    threshold = max([options.min_unsure_below] + [min(c + 0.005, 0.995) for c in wrong])
    thresholds = _Thresholds(threshold, one_corner_threshold(
        [(v.lone.confidence, v.lone.guess == v.code) for v in verdicts if v.lone], threshold))

    def outcome(shot_kind: str) -> _Outcome:
        kind = [v for v in verdicts if v.kind == shot_kind]
        joint = [v for v in kind if not v.joint.reason and v.joint.confidence >= threshold]
        lone = [v for v in kind if v.lone and thresholds.one_corner_below is not None
                and v.lone.confidence >= thresholds.one_corner_below]
        right = sum(v.joint.guess == v.code for v in joint)
        lone_right = sum(v.lone is not None and v.lone.guess == v.code for v in lone)
        answered = len(joint) + len(lone)
        return _Outcome(len(kind), right + lone_right, answered, answered - right - lone_right,
                        lone_right, len(lone) - lone_right)

    return thresholds, (outcome("photo"), outcome("table"), outcome("glare"))


def _kind(sample: Sample) -> str:
    return "table" if sample.on_table else "glare" if sample.glared else "photo"


ONE_CORNER_CEILING: Final = 0.99
"""A one-corner answer wrong at this confidence or above turns answering by one corner off."""


def one_corner_threshold(answers: Sequence[tuple[float, bool]], unsure_below: float
                         ) -> float | None:
    """Lowest confidence at which held-out answers by one corner are never wrong.

    Just above the most confident wrong answer by one corner (`lone_corner`), and not below
    `unsure_below`.

    Args:
        answers: (confidence, right) of each held-out one-corner answer.
        unsure_below: The profile's unsure threshold.

    Returns:
        The threshold, or None (never answer by one corner) when a wrong one-corner answer
        reaches `ONE_CORNER_CEILING`.
    """
    wrong = [confidence for confidence, right in answers if not right]
    if any(confidence >= ONE_CORNER_CEILING for confidence in wrong):
        return None
    return max([unsure_below] + [confidence + 0.005 for confidence in wrong])


def _report_info(report: EnrolReport) -> dict[str, object]:
    return {"held_out": report.held_out, "held_out_right": report.right,
            "held_out_answered": report.answered, "held_out_wrong": report.wrong,
            "table_held_out": report.table_held_out, "table_right": report.table_right,
            "table_wrong": report.table_wrong,
            "glare_held_out": report.glare_held_out, "glare_right": report.glare_right,
            "glare_wrong": report.glare_wrong,
            "one_corner_right": report.one_corner_right,
            "one_corner_wrong": report.one_corner_wrong,
            "enrol_seconds": round(report.seconds, 1)}
