"""The whole-card finder's quicker forms give the outlines of the plain ones, to the bit.

Each quick path of `vision.locate` (the fill test before the corners are ordered, contours
too short to enclose a card passed over, overlaps of outlines whose boxes lie apart taken as
none, a frame's cards' edges sampled in one call, Otsu's mask computed once, the colourless
image from the least channel already computed, medians by partition, the probed columns
kept) is checked against the plain computation as first written here, and the finder as a
whole against the plain finder built of them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import NamedTuple

import cv2
import numpy as np
import pytest

from vision.build.composite import SURFACES, CompositeOptions, composite, cut_outs
from vision.build.synth import BACKGROUNDS, CardStyle, Effects, compose, scatter
from vision.corners import covered_cards
from vision.dataset import read_image, read_labels
from vision.edges import Quad, min_channel
from vision.locate import (
    Located,
    LocateParams,
    find_cards,
    finder,
    fit_sides,
    locate_cards,
    long_over_short,
    neutral_paper,
    order_corners,
    paper_levels,
    refine_edges,
    work_image,
)
from vision.locate.finder import (
    _along_frame_edge,
    _candidate,
    _fewest_points,
    _hull_corners,
    _overlap_of,
    _quadrilateral,
    _threshold_candidates,
)
from vision.locate.paper import _levels_and_paper, _middle, _paper_masks
from vision.locate.refine import _refined
from vision.locate.split import _probe_columns

from .conftest import dev_fold
from .plain_forms import plain_paper_contrast

EDGE_KERNEL = np.ones((3, 3), np.uint8)


class _Plain(NamedTuple):
    quad: Quad
    fill: float
    area: float


def _plain_overlap(first: Quad, second: Quad) -> float:
    inter, _ = cv2.intersectConvexConvex(first, second)
    smaller = min(cv2.contourArea(first), cv2.contourArea(second))
    return float(inter) / smaller if smaller > 0 else 0.0


def _plain_unexplained(found: Sequence[_Plain], extra: list[_Plain]) -> list[_Plain]:
    return [c for c in extra if all(_plain_overlap(c.quad, o.quad) < 0.5 for o in found)]


def _plain_quads_of(contours: Sequence[np.ndarray], shape: tuple[int, ...],
                    params: LocateParams, found_already: Sequence[_Plain] = ()
                    ) -> list[_Plain]:
    image_area = shape[0] * shape[1]
    found = []
    for contour in contours:
        area = cv2.contourArea(contour)
        if not params.min_area * image_area <= area <= params.max_area * image_area:
            continue
        quad = _quadrilateral(contour)
        if quad is None or _along_frame_edge(quad, shape):
            continue
        quad_area = cv2.contourArea(quad)
        fill = area / quad_area if quad_area > 0 else 0.0
        aspect = long_over_short(quad)
        if (fill >= params.min_fill and params.min_aspect <= aspect <= params.max_aspect
                and (not found_already
                     or _plain_unexplained(found_already, [_Plain(quad, fill, quad_area)]))):
            refined = fit_sides(contour.reshape(-1, 2).astype(np.float32), quad)
            if not _along_frame_edge(refined, shape):
                found.append(_Plain(refined, min(fill, 1.0 / fill), quad_area))
    return found


def _plain_neutral_paper(image: np.ndarray) -> np.ndarray:
    channels = cv2.split(image)
    least = cv2.min(cv2.min(channels[0], channels[1]), channels[2])
    spread = cv2.subtract(cv2.max(cv2.max(channels[0], channels[1]), channels[2]), least)
    return cv2.subtract(least, cv2.add(spread, spread))


def _plain_candidates(small: np.ndarray, reduced: np.ndarray, params: LocateParams
                      ) -> list[_Plain]:
    """Every source's outlines that pass the paper-contrast test, as first written."""
    edges = cv2.dilate(cv2.Canny(small, 20, 60), EDGE_KERNEL)
    contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
    found = _plain_quads_of(contours, small.shape, params)
    level, _ = cv2.threshold(small, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    levels = [level]
    brighter = small[small > level]
    if brighter.size > 64:
        levels.append(cv2.threshold(brighter.reshape(-1, 1), 0, 255,
                                    cv2.THRESH_BINARY + cv2.THRESH_OTSU)[0])
    for value in levels:
        mask = cv2.morphologyEx((small > value).astype(np.uint8), cv2.MORPH_OPEN, EDGE_KERNEL)
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        found += _plain_quads_of(contours, small.shape, params)
    kept = [c for c in found if plain_paper_contrast(small, c.quad) >= params.min_contrast]
    neutral = cv2.GaussianBlur(_plain_neutral_paper(reduced), (3, 3), 0)
    _, mask = cv2.threshold(neutral, 0, 1, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, EDGE_KERNEL)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    colourless = [c for c in _plain_quads_of(contours, neutral.shape, params, kept)
                  if c.fill >= params.min_neutral_fill]
    return kept + [c for c in _plain_unexplained(kept, colourless)
                   if plain_paper_contrast(small, c.quad) >= params.min_contrast]


def _plain_without_unions(candidates: list[_Plain]) -> list[_Plain]:
    ordered = sorted(candidates, key=lambda c: -c.area)
    kept = []
    for position, candidate in enumerate(ordered):
        parts: list[_Plain] = []
        for inner in ordered[position + 1:]:
            if (inner.area <= 0.7 * candidate.area
                    and _plain_overlap(inner.quad, candidate.quad) >= 0.9
                    and all(_plain_overlap(inner.quad, part.quad) < 0.1 for part in parts)):
                parts.append(inner)
        if len(parts) < 2 or sum(part.area for part in parts) < 0.7 * candidate.area:
            kept.append(candidate)
    return kept


def _plain_merged(candidates: list[_Plain]) -> list[Quad]:
    kept: list[_Plain] = []
    twins: list[list[_Plain]] = []
    for candidate in sorted(candidates, key=lambda c: -c.area):
        for index, other in enumerate(kept):
            if _plain_overlap(candidate.quad, other.quad) >= 0.5:
                if candidate.area >= 0.85 * other.area:
                    twins[index].append(candidate)
                break
        else:
            kept.append(candidate)
            twins.append([candidate])
    merged = []
    for group in twins:
        first = group[0].quad
        matched = [first] + [np.roll(other.quad, -int(np.argmin(
            [np.abs(np.roll(other.quad, -shift, axis=0) - first).sum() for shift in range(4)])),
            axis=0) for other in group[1:]]
        merged.append(first if len(group) == 1 else np.mean(matched, axis=0).astype(np.float32))
    return merged


def _plain_locate(frame: np.ndarray) -> list[tuple[Quad, bool]]:
    """`locate_cards` with the default parameters, as first written."""
    params = LocateParams()
    reduced, scale = finder._reduced(frame, params.work_width)
    small = cv2.GaussianBlur(min_channel(reduced), (3, 3), 0)
    levels = paper_levels(small)
    kept = _plain_merged(_plain_without_unions(_plain_candidates(small, reduced, params)))
    cards = [part for quad in kept for part in finder._split_if_two(small, quad, levels, params)]
    paper, bright = _paper_masks(small, levels)
    min_side = float(np.sqrt(params.min_area * small.shape[0] * small.shape[1] / 1.4))
    whole = [refine_edges(frame, np.asarray(q / scale, dtype=np.float32), 1.0 / scale)
             for q in cards]
    covered = covered_cards(frame, paper, bright, scale, whole, 1.4, min_side)
    return [(q, False) for q in whole] + [(order_corners(q), True) for q in covered]


def _same(found: list[Located], plain: list[tuple[Quad, bool]]) -> bool:
    return len(found) == len(plain) and all(
        card.covered == covered and np.array_equal(card.quad, quad)
        for card, (quad, covered) in zip(found, plain, strict=True))


def _scattered(count: int) -> Iterator[np.ndarray]:
    """Frames of four to seven cards scattered on every drawn table, some of them touching."""
    for number in range(count):
        rng = np.random.default_rng(number)
        codes = ["QH", "TS", "7D", "AC", "2S", "KD", "9C"][:4 + number % 4]
        placements = scatter(codes, (640, 480), rng, (0.14, 0.24))
        yield compose(placements, (640, 480), CardStyle(), BACKGROUNDS[number % len(BACKGROUNDS)],
                      Effects(blur=0.8, noise=2.0), seed=number).frame


def test_the_finder_finds_the_plain_finders_outlines_on_drawn_tables() -> None:
    found = 0
    for frame in _scattered(24):
        located = locate_cards(frame)
        assert _same(located, _plain_locate(frame))
        found += len(located)
    assert found >= 80


def test_the_finder_finds_the_plain_finders_outlines_on_real_cards(dev_photos: Path) -> None:
    photos = [(item.path.name, read_image(item.path), item.code)
              for item in read_labels(dev_photos) if dev_fold(item.path) == 4]
    cards, _ = cut_outs(photos)
    found = covered = 0
    for number in range(12):
        for layout in ("board", "hands"):
            surface = list(SURFACES)[number % len(SURFACES)]
            frame = composite(cards, layout, 40 + number, CompositeOptions(surface=surface)).frame
            located = locate_cards(frame)
            assert _same(located, _plain_locate(frame)), (layout, number)
            found += len(located)
            covered += sum(card.covered for card in located)
    assert found >= 100
    assert covered >= 1


def _contours(count: int) -> Iterator[tuple[np.ndarray, tuple[int, ...]]]:
    """Every contour of the three sources' images of drawn frames, with the image's shape."""
    for frame in _scattered(count):
        small, _ = work_image(frame, 400)
        edges = cv2.dilate(cv2.Canny(small, 20, 60), EDGE_KERNEL)
        contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
        _, mask = cv2.threshold(small, 0, 1, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
        outer, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        for contour in contours + outer:
            yield contour, small.shape


def test_the_outlines_of_contours_are_the_plain_ones() -> None:
    params = LocateParams()
    found_already = [_Plain(np.array([[100, 80], [160, 80], [160, 165], [100, 165]],
                                     np.float32), 1.0, 5100.0)]
    count = 0
    for shape_contours in _grouped(_contours(8)):
        contours, shape = shape_contours
        for already in ((), found_already):
            quick = finder._quads_of(contours, shape, params,
                                     [_candidate(c.quad, c.fill, c.area) for c in already])
            plain = _plain_quads_of(contours, shape, params, already)
            assert len(quick) == len(plain)
            for mine, theirs in zip(quick, plain, strict=True):
                assert np.array_equal(mine.quad, theirs.quad)
                assert (mine.fill, mine.area) == (theirs.fill, theirs.area)
            count += len(quick)
    assert count >= 50


def _grouped(contours: Iterator[tuple[np.ndarray, tuple[int, ...]]]
             ) -> Iterator[tuple[list[np.ndarray], tuple[int, ...]]]:
    """Contours in groups of 40 of one shape."""
    group: list[np.ndarray] = []
    shape: tuple[int, ...] = ()
    for contour, its_shape in contours:
        if group and (its_shape != shape or len(group) == 40):
            yield group, shape
            group = []
        group.append(contour)
        shape = its_shape
    if group:
        yield group, shape


def test_whole_pixel_corners_enclose_the_ordered_quadrilaterals_area() -> None:
    compared = 0
    for contour, _ in _contours(10):
        corners = _hull_corners(contour)
        if corners is None:
            continue
        ordered = _quadrilateral(contour)
        assert ordered is not None
        assert cv2.contourArea(corners) == cv2.contourArea(ordered)
        compared += 1
    assert compared >= 200


def _disc_contour(radius: float, squash: float = 1.0) -> np.ndarray:
    mask = np.zeros((int(2 * radius) + 8, int(2 * radius) + 8), np.uint8)
    centre = (int(radius) + 4, int(radius) + 4)
    cv2.ellipse(mask, (centre, (2 * radius, 2 * radius * squash), 0.0), 1, -1)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    return max(contours, key=len)


def test_a_contour_too_short_for_an_area_encloses_less() -> None:
    rng = np.random.default_rng(2)
    checked = 0
    for _ in range(300):  # blobs of every shape: a short contour never encloses the area
        mask = (cv2.GaussianBlur(rng.random((60, 60)).astype(np.float32), (0, 0), 3) > 0.5)
        contours, _ = cv2.findContours(mask.astype(np.uint8), cv2.RETR_LIST,
                                       cv2.CHAIN_APPROX_NONE)
        for contour in contours:
            area = cv2.contourArea(contour)
            for wanted in [area, area + 1, *np.geomspace(5, 3000, 12)]:
                if len(contour) < _fewest_points(wanted):
                    assert area < wanted
                    checked += 1
    assert checked >= 1000
    # discs are the roundest contours: the bound keeps every one of the area wanted
    for radius in np.linspace(6, 60, 40):
        contour = _disc_contour(float(radius))
        assert len(contour) >= _fewest_points(cv2.contourArea(contour))
        assert len(contour) < 1.4 * _fewest_points(cv2.contourArea(contour))  # and is near


def test_overlaps_of_candidates_are_the_plain_overlaps() -> None:
    rng = np.random.default_rng(5)
    apart = inside = 0
    for _ in range(3000):
        first, second = (_random_quad(rng) for _ in range(2))
        expected = _plain_overlap(first, second)
        assert _overlap_of(_candidate(first, 1.0, 1.0), _candidate(second, 1.0, 1.0)) == expected
        apart += expected == 0.0
        inside += expected > 0.5
    assert apart >= 500
    assert inside >= 200


def _random_quad(rng: np.random.Generator) -> Quad:
    """A turned card-shaped quadrilateral, its corners nudged (fitted outlines need not be
    convex), now and then touching another along a whole-pixel side."""
    centre = rng.uniform(20, 140, 2).round() if rng.random() < 0.3 else rng.uniform(20, 140, 2)
    half = rng.uniform(3, 40, 2)
    angle = 0.0 if rng.random() < 0.3 else float(rng.uniform(0, np.pi))
    turn = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    corners = (np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * half) @ turn.T + centre
    corners += rng.normal(0, 0.3, corners.shape) * (rng.random() < 0.5)
    return corners.astype(np.float32)


def test_a_frames_cards_refined_together_are_each_refined_alone() -> None:
    rng = np.random.default_rng(6)
    moved = 0
    for frame in _scattered(10):
        found = find_cards(frame)
        rough = [(quad + rng.normal(0, 1.5, quad.shape)).astype(np.float32) for quad in found]
        # a side too short to place a line: left as it is, the others still refined
        rough.insert(len(rough) // 2, np.array([[300, 200], [305, 200], [305, 260], [300, 260]],
                                               np.float32))
        for reach in (1.0, 2.0):
            together = _refined(frame, rough, reach)
            alone = [refine_edges(frame, quad, reach) for quad in rough]
            assert len(together) == len(alone)
            assert all(np.array_equal(a, b) for a, b in zip(together, alone, strict=True))
            moved += sum(not np.array_equal(a, b) for a, b in zip(together, rough, strict=True))
    assert _refined(np.zeros((60, 80, 3), np.uint8), [], 1.0) == []
    assert moved >= 60


def test_the_colourless_image_is_the_plain_one_from_the_split_channels() -> None:
    rng = np.random.default_rng(7)
    for number in range(300):
        height, width = (int(v) for v in rng.integers(1, 70, 2))
        image = rng.integers(0, 256, (height, width, 3)).astype(np.uint8)
        if number % 3 == 0:  # near-grey pixels, where the spread is small
            image = np.clip(image[..., :1].astype(np.int16) + rng.integers(-6, 7, image.shape),
                            0, 255).astype(np.uint8)
        assert np.array_equal(neutral_paper(image), _plain_neutral_paper(image))
        part = image[:, ::2]  # a view, not contiguous
        assert np.array_equal(neutral_paper(part), _plain_neutral_paper(part))


def test_otsus_mask_given_gives_the_outlines_it_gives_computed() -> None:
    params = LocateParams()
    for frame in _scattered(8):
        small, _ = work_image(frame, params.work_width)
        level, _ = cv2.threshold(small, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
        mask = (small > level).astype(np.uint8)
        given = _threshold_candidates(small, params, mask)
        computed = _threshold_candidates(small, params)
        assert given
        assert len(given) == len(computed)
        assert all(np.array_equal(a.quad, b.quad) for a, b in zip(given, computed, strict=True))
        levels, paper = _levels_and_paper(small)
        assert levels == paper_levels(small)
        assert np.array_equal(paper, mask)
        assert np.array_equal(paper, _paper_masks(small, levels)[1])


def test_middles_are_numpys_medians() -> None:
    rng = np.random.default_rng(9)
    for length in range(1, 80):
        for _ in range(20):
            values = rng.integers(0, 256, length).astype(np.uint8)
            if rng.random() < 0.3:
                values = np.full(length, int(rng.integers(0, 256)), np.uint8)
            assert _middle(values.copy()) == float(np.median(values))


@pytest.mark.parametrize("columns", [3, 4, 5, 7, 12, 40, 41, 99])
def test_the_probed_columns_are_the_plain_ones_and_kept_unchanged(columns: int) -> None:
    expected = np.unique(np.linspace(1, columns - 2, 6).round().astype(np.intp))
    probes = _probe_columns(columns)
    assert np.array_equal(probes, expected)
    with pytest.raises(ValueError, match="read-only"):
        probes[0] = 0


def test_corners_matched_at_once_are_the_plain_match() -> None:
    rng = np.random.default_rng(10)
    for number in range(2000):
        reference = _random_quad(rng)
        if number % 3 == 0:  # a twin: the same outline a pixel or two off, its corners rolled
            quad = np.roll(reference + rng.normal(0, 1.5, reference.shape), -(number % 4),
                           axis=0).astype(np.float32)
        elif number % 3 == 1:  # every order equally far: the first order is kept
            quad, reference = reference, np.repeat(reference.mean(axis=0, keepdims=True), 4,
                                                   axis=0).astype(np.float32)
        else:
            quad = _random_quad(rng)
        costs = [float(np.abs(np.roll(quad, -shift, axis=0) - reference).sum())
                 for shift in range(4)]
        plain = np.roll(quad, -int(np.argmin(costs)), axis=0)
        assert np.array_equal(finder._match_corners(reference, quad), plain)


def _plain_order_corners(points: np.ndarray) -> Quad:
    centre = points.mean(axis=0)
    angles = np.arctan2(points[:, 1] - centre[1], points[:, 0] - centre[0])
    ordered = points[np.argsort(angles)]
    if np.linalg.norm(ordered[0] - ordered[1]) > np.linalg.norm(ordered[1] - ordered[2]):
        ordered = np.roll(ordered, -1, axis=0)
    if ordered[2].sum() < ordered[0].sum():
        ordered = np.roll(ordered, -2, axis=0)
    return np.ascontiguousarray(ordered, dtype=np.float32)


def test_corners_are_ordered_as_the_plain_order_puts_them() -> None:
    rng = np.random.default_rng(11)
    for number in range(3000):
        quad = _random_quad(rng)[rng.permutation(4)]
        if number % 4 == 0:  # nearly square: either side may come first
            quad = cv2.boxPoints(((80.0, 80.0), (30.0, 30.0 + rng.uniform(-0.01, 0.01)),
                                  float(rng.uniform(0, 90))))[rng.permutation(4)]
        for points in (quad.astype(np.float32), quad.astype(np.float64)):
            assert np.array_equal(order_corners(points), _plain_order_corners(points))
