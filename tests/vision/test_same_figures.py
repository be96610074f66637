"""The reader's quicker computations give the figures of the plain ones they stand for.

Each quick path (a histogram for a sort, OpenCV's threshold for a comparison, a run's
erosion for the least channel, OpenCV's masked mean for numpy's, one classifier call per
frame for one per card, a search for covered cards cut short where no new card can start,
an outline's four sides fitted and a card's four edges sampled at once, a frame's glyphs
described in one call, side lines met in Python floats, the nearest samples found within
bounds, 16-bit component labels, a glyph's ink amounts and channel ratios looked up, the
candidate glyphs filtered in Python, a corner's reduction factor from float32 lengths, a
frame's thumbnails shrunk in one call) is checked against the plain computation, written
out here as it was first written.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import numpy as np
import pytest

import vision.corners as corners_module
from vision import Recognizer
from vision.build.evaluate import stress_scene
from vision.build.synth import CardStyle, Effects, Placement, compose
from vision.classify import NearestNeighbours, NearestSamples, Perceptron
from vision.corners import Corner, _sharpened, covered_cards
from vision.edges import Quad, intersect, rolled, vector_length
from vision.index import _Ink, _paper_colour, _percentiles
from vision.locate import LocateParams, locate_cards, paper_contrast, paper_levels, work_image
from vision.locate.paper import _paper_masks
from vision.recognize import _reading_order

from .plain_forms import plain_paper_contrast


def _greys(count: int, seed: int) -> Iterator[np.ndarray]:
    """Grey patches of many sizes: noise over the whole range, over a narrow range, flat."""
    rng = np.random.default_rng(seed)
    for number in range(count):
        height, width = (int(v) for v in rng.integers(1, 120, 2))
        low = int(rng.integers(0, 250)) if number % 3 else 0
        high = low + 1 if number % 7 == 0 else 256
        yield rng.integers(low, high, (height, width)).astype(np.uint8)


def test_rolled_points_and_vector_lengths_are_numpys() -> None:
    rng = np.random.default_rng(4)
    for count in range(1, 7):
        points = rng.normal(0, 100, (count, 2)).astype(np.float32)
        for start in range(-5, 9):
            assert np.array_equal(rolled(points, start), np.roll(points, -start, axis=0))
    for dtype in (np.float32, np.float64):
        for vector in rng.normal(0, 300, (500, 2)).astype(dtype):
            assert vector_length(vector) == float(np.linalg.norm(vector))


def test_the_least_channel_is_numpys_minimum_over_the_channels() -> None:
    from vision.edges import min_channel

    rng = np.random.default_rng(17)
    for _ in range(300):
        height, width = (int(v) for v in rng.integers(2, 90, 2))
        image = rng.integers(0, 256, (height, width, 3)).astype(np.uint8)
        assert np.array_equal(min_channel(image), image.min(axis=2))
        part = image[::2, 1:]  # a view, not contiguous
        assert np.array_equal(min_channel(part), part.min(axis=2))
    grey = rng.integers(0, 256, (20, 30)).astype(np.uint8)
    assert min_channel(grey) is grey


def test_ink_percentiles_are_numpys_linear_percentiles() -> None:
    for grey in _greys(600, seed=1):
        expected = tuple(float(v) for v in np.percentile(grey, (90, 1)))
        assert _percentiles(grey, (0.9, 0.01)) == expected


def test_the_ink_split_by_opencvs_threshold_is_the_plain_comparisons() -> None:
    import cv2

    from vision.index import _EDGE_STRIP, _segment

    rng = np.random.default_rng(15)
    for number, grey in enumerate(_greys(400, seed=16)):
        # whole levels too, where "darker than" leaves out the pixels exactly at the level
        level = float(rng.integers(1, 256)) if number % 2 else float(rng.uniform(0.01, 255.99))
        ink = (grey < level).astype(np.uint8)
        ink[:_EDGE_STRIP, :] = 0
        ink[:, :_EDGE_STRIP] = 0
        _, labels, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
        found = _segment(grey, (level, 200.0))
        assert np.array_equal(found.labels, labels)
        assert np.array_equal(found.stats, stats)


def test_components_too_many_for_16_bit_labels_get_32_bit_ones() -> None:
    import cv2

    from vision.index import _EDGE_STRIP, _segment

    # one dark pixel in every 2 x 2 block: 67,081 components, more than 16 bits can label
    grey = np.full((520, 520), 250, np.uint8)
    grey[1::2, 1::2] = 10
    ink = (grey < 100).astype(np.uint8)
    ink[:_EDGE_STRIP, :] = 0
    ink[:, :_EDGE_STRIP] = 0
    count, labels, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    assert count > 2**16
    found = _segment(grey, (100.0, 250.0))
    assert np.array_equal(found.labels, labels)
    assert np.array_equal(found.stats, stats)


def _blotted_patches(count: int, seed: int) -> Iterator[np.ndarray]:
    """BGR corner patches of blurred blots of ink, black and coloured, on paper-like grounds."""
    import cv2

    rng = np.random.default_rng(seed)
    for number in range(count):
        height, width = (int(v) for v in rng.integers(12, 190, 2))
        paper = rng.integers(120, 256, 3)
        patch = np.empty((height, width, 3), np.float32)
        patch[:] = paper
        for _ in range(int(rng.integers(0, 12))):
            centre = (int(rng.integers(0, width)), int(rng.integers(0, height)))
            axes = (int(rng.integers(1, 20)), int(rng.integers(1, 30)))
            ink = [float(v) for v in (rng.integers(0, 80, 3) if number % 2 else
                                      (rng.integers(0, 60), rng.integers(0, 60),
                                       rng.integers(100, 256)))]
            cv2.ellipse(patch, centre, axes, float(rng.uniform(0, 180)), 0, 360, ink, -1)
        patch = cv2.GaussianBlur(patch, (0, 0), float(rng.uniform(0.3, 2.5)))
        patch += rng.normal(0, float(rng.uniform(0, 12)), patch.shape).astype(np.float32)
        yield np.clip(np.rint(patch), 0, 255).astype(np.uint8)


def _plain_glyph(patch: np.ndarray, ink: _Ink, box: tuple[int, int, int, int], ids: list[int],
                 paper_bgr: np.ndarray) -> tuple[np.ndarray, tuple[int, int, int, int], float]:
    """A glyph's ink map, box and redness as first written: per pixel, in numpy.

    Only the ink amounts and the redness changed form; the region is `glyph_region`'s.
    """
    from vision.index import glyph_region

    (x0, y0, x1, y1), own_mask, span = glyph_region(ink, box, ids)
    grey = ink.grey[y0:y1, x0:x1]
    amount = np.clip((ink.paper - grey.astype(np.float32)) / span, 0.0, 1.0) * own_mask.view(bool)
    if float(amount.sum()) <= 0:
        return amount.astype(np.float32), (x0, y0, x1, y1), 0.0
    ratio = patch[y0:y1, x0:x1].astype(np.float32) / np.maximum(paper_bgr, 1.0)
    blue, green, red = ratio[..., 0], ratio[..., 1], ratio[..., 2]
    chroma = red - np.maximum(green, blue)
    darkness = np.maximum(1.0 - np.minimum(np.minimum(blue, green), red), 0.0)
    redness = float((amount * chroma).sum() / max(float((amount * darkness).sum()), 1e-6))
    return amount.astype(np.float32), (x0, y0, x1, y1), redness


def test_a_glyphs_looked_up_ink_map_and_redness_are_the_per_pixel_ones() -> None:
    from vision.index import _glyph, _segment

    rng = np.random.default_rng(18)
    glyphs = inkless = red = 0
    for patch in _blotted_patches(300, seed=19):
        grey = patch.min(axis=2)
        paper = float(np.percentile(grey, 90)) + float(rng.choice([0.0, 0.5, -3.25]))
        ink = _segment(grey, (paper - float(rng.uniform(10, 80)), paper))
        paper_bgr = _paper_colour(patch, ink)
        if rng.random() < 0.2:  # a paper darker than one grey level in some channel
            paper_bgr = (paper_bgr * np.float32(rng.uniform(0, 0.004))).astype(np.float32)
        # and a paper level below every pixel's: no ink at all
        faint = replace(ink, paper=float(grey.min()) - float(rng.uniform(0, 3)))
        for label in range(1, min(len(ink.boxes), 8)):
            ids = [label] if label % 3 else [label, int(rng.integers(1, len(ink.boxes)))]
            box = ink.boxes[label]
            read = faint if label == 5 else ink
            found = _glyph(patch, read, box, ids, paper_bgr)
            amount, plain_box, redness = _plain_glyph(patch, read, box, ids, paper_bgr)
            assert found.ink.dtype == amount.dtype
            assert found.ink.shape == amount.shape
            assert found.ink.tobytes() == amount.tobytes()
            assert found.box == plain_box
            assert found.redness == redness
            glyphs += 1
            inkless += redness == 0.0
            red += redness > 0.3
    assert glyphs >= 500
    assert inkless >= 5
    assert red >= 50


def _plain_nearest_candidates(ink: _Ink, width: int, height: int) -> list[int]:
    """The candidate glyphs nearest the corner first, as first written: numpy's filters."""
    from vision.index import _EDGE_STRIP

    x, y, w, h, area = ink.stats[1:].T
    edge = _EDGE_STRIP + 1
    sliver = ((x <= edge) & (w < 0.5 * h)) | ((y <= edge) & (h < 0.5 * w))
    fits = (h >= 10.5) & (h <= 0.6 * height) & (w <= 0.8 * width) & (area >= 12)
    ids = [int(label) + 1 for label in np.flatnonzero(fits & ~sliver)]
    distances = np.hypot(ink.stats[ids, 0], ink.stats[ids, 1]).tolist()
    return [label for _, label in sorted(zip(distances, ids, strict=True),
                                         key=lambda pair: pair[0])]


def _stroked_greys(count: int, seed: int) -> Iterator[np.ndarray]:
    """Corner patches of thin strokes and bars near the size limits of a glyph, some along
    the ignored strip by the edges, and pairs of bars whose top-left corners lie at equal
    squared distances from the corner that `np.hypot` parts by a last bit."""
    import cv2

    rng = np.random.default_rng(seed)
    for number in range(count):
        grey = np.full((189, 90), 230, np.uint8)
        for _ in range(int(rng.integers(1, 9))):
            x, y = int(rng.integers(0, 85)), int(rng.integers(0, 180))
            if number % 2:  # a stroke one or two pixels wide, 9 to 14 long, any way
                length, wide = int(rng.integers(9, 15)), int(rng.integers(1, 3))
                size = (wide, length) if rng.random() < 0.6 else (length, wide)
            else:
                size = (int(rng.integers(3, 40)), int(rng.integers(8, 120)))
            cv2.rectangle(grey, (x, y), (x + size[0] - 1, y + size[1] - 1), 20, -1)
        yield grey
    for (ax, ay), (bx, by) in (((52, 17), (47, 28)), ((28, 47), (17, 52)),
                               ((57, 25), (45, 43)), ((82, 29), (62, 61))):
        grey = np.full((189, 90), 230, np.uint8)
        for x, y in ((ax, ay), (bx, by)):
            grey[y:y + 15, x:x + 4] = 20
        yield grey


def test_the_candidate_glyphs_and_their_order_are_numpys() -> None:
    from vision.index import _candidates, _nearest_first, _segment

    compared = 0
    patches = [patch.min(axis=2) for patch in _blotted_patches(300, seed=20)]
    for grey in patches + list(_stroked_greys(300, seed=22)):
        for share in (0.3, 0.6):
            paper = float(np.percentile(grey, 90))
            ink = _segment(grey, (paper - share * (paper - float(grey.min())), paper))
            height, width = grey.shape
            found = _nearest_first(ink, _candidates(ink, width, height))
            assert found == _plain_nearest_candidates(ink, width, height)
            compared += len(found) > 1
    assert compared >= 100


def _plain_reduction_factor(quad: np.ndarray) -> int:
    """`vision.index._reduction_factor` as first written: the lengths by `np.linalg.norm`."""
    across = float(np.linalg.norm(quad[1] - quad[0]) + np.linalg.norm(quad[2] - quad[3])) / 2
    return int(across // 600)


def _phone_sized_quads(rng: np.random.Generator) -> Iterator[np.ndarray]:
    """Card outlines 400 to 2000 pixels across, turned and askew, and some whose two
    widths' float32 sum reaches a whole multiple of 1200 only after rounding."""
    for _ in range(300):
        width = float(rng.uniform(400, 2000))
        angle = float(rng.uniform(0, 2 * np.pi))
        turn = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
        corners = np.array([[-0.5, -0.7], [0.5, -0.7], [0.5, 0.7], [-0.5, 0.7]]) * width
        yield ((corners + rng.normal(0, 0.03 * width, (4, 2))) @ turn.T + 1100).astype(
            np.float32)
    for whole in (1200, 1800, 2400):
        below = np.nextafter(np.float32(whole / 2), np.float32(0))
        for top, bottom in ((whole / 2, below), (below, whole / 2)):
            yield np.array([[100, 100], [100 + top, 100], [100 + bottom, 1500], [100, 1500]],
                           np.float32)


def test_a_corners_reduction_is_the_one_from_numpys_lengths() -> None:
    from vision.index import CARD_WIDTH_PX, _reduction_factor

    assert 2 * CARD_WIDTH_PX == 600  # the plain form's divisor
    rng = np.random.default_rng(21)
    factors = set()
    for quad in _phone_sized_quads(rng):
        factor = _reduction_factor(quad)
        assert factor == _plain_reduction_factor(quad)
        factors.add(factor)
    assert {2, 3} <= factors  # cards reduced by two and by three
    assert factors & {0, 1}  # and cards left whole


def test_the_paper_colour_is_the_mean_of_the_pixels_near_the_papers_level() -> None:
    rng = np.random.default_rng(2)
    for number in range(600):
        height, width = (int(v) for v in rng.integers(8, 120, 2))
        patch = rng.integers(0, 256, (height, width, 3)).astype(np.uint8)
        grey = patch.min(axis=2)
        # whole levels too, where "within 10 levels" includes the pixels exactly 10 below
        paper = float(rng.integers(30, 256)) if number % 2 else float(rng.uniform(30, 270))
        bright = grey >= paper - 10
        expected = (patch[bright].mean(axis=0) if bright.any()
                    else patch.reshape(-1, 3).mean(axis=0)).astype(np.float32)
        ink = _Ink(grey, np.zeros(grey.shape, np.int32), np.zeros((1, 5), np.int32), paper, [],
                   [])
        assert np.array_equal(_paper_colour(patch, ink), expected)


def test_paper_contrast_is_the_difference_of_the_two_bands_medians() -> None:
    import cv2

    rng = np.random.default_rng(3)
    for number in range(400):
        small = rng.integers(0, 256, (240, 320)).astype(np.uint8)
        if number % 2:
            small = cv2.GaussianBlur(small, (0, 0), 3)
        centre = rng.uniform([40, 40], [280, 200])
        half = rng.uniform(15, 80, 2)
        angle = float(rng.uniform(0, 2 * np.pi))
        turn = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
        quad = ((np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * half) @ turn.T
                + centre).astype(np.float32)
        assert paper_contrast(small, quad) == plain_paper_contrast(small, quad)


@pytest.mark.usefixtures("typefaces")
def test_a_frame_read_at_once_reads_as_its_cards_read_one_by_one(generic: Recognizer) -> None:
    frames = [stress_scene(kind, number).frame for kind in ("several", "overlap")
              for number in range(6)]
    compared = covered = 0
    for frame in frames:
        located = locate_cards(frame, generic.locate, generic.profile.layout.card_aspect)
        alone = sorted((generic.read_covered(frame, card.quad) if card.covered
                        else generic.read_card(frame, card.quad) for card in located),
                       key=_reading_order)
        together = generic.recognize(frame)
        assert len(together) == len(alone)
        for one, other in zip(together, alone, strict=True):
            assert (one.card, one.guess, one.reason, one.quad, one.index_box) == (
                other.card, other.guess, other.reason, other.quad, other.index_box)
            # one matrix product for many corners may round its last bit differently
            assert one.confidence == pytest.approx(other.confidence, abs=1e-5)
        compared += len(together)
        covered += sum(card.covered for card in located)
    assert compared >= 30
    assert covered >= 5


def _full_search(grey: np.ndarray, corners: list[Corner], involved: set[int],
                 known: list[Quad], sizes: tuple[float, float]) -> list[Corner]:
    """Every corner taking part in a rough hypothesis sharpened, the search never cut short."""
    return [_sharpened(grey, corner, sizes[0]) if index in involved else corner
            for index, corner in enumerate(corners)]


def _fanned(codes: list[str], angle: float, step: tuple[float, float]) -> np.ndarray:
    """A hand fanned by `step` card widths a card: covered cards show two corners only."""
    theta = np.radians(angle)
    offset = np.array([[np.cos(theta), np.sin(theta)], [-np.sin(theta), np.cos(theta)]]) @ (
        np.array(step) * 140.0)
    placements = [Placement(code, (250 + k * offset[0], 200 + k * offset[1]), 140.0, angle,
                            0.02, k) for k, code in enumerate(codes)]
    return compose(placements, (800, 600), CardStyle(), "felt-green",
                   Effects(blur=0.7, noise=2.0, jpeg_quality=85)).frame


def _covered_with_each_known(frame: np.ndarray) -> list[list[list[list[float]]]]:
    """The covered cards of a frame found when none, each one, or all but one are known."""
    params = LocateParams()
    small, scale = work_image(frame, params.work_width)
    paper, bright = _paper_masks(small, paper_levels(small))
    min_side = float(np.sqrt(params.min_area * small.shape[0] * small.shape[1] / 1.4))
    hand = covered_cards(frame, paper, bright, scale, [], 1.4, min_side)
    return [[quad.tolist() for quad in covered_cards(frame, paper, bright, scale, known,
                                                     1.4, min_side)]
            for known in [[]] + [[quad] for quad in hand]
            + [hand[:index] + hand[index + 1:] for index in range(len(hand))]]


@pytest.mark.usefixtures("typefaces")
def test_the_covered_search_cut_short_finds_what_the_full_search_finds(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # dealt hands with none, each or all but one of their cards known already (the search
    # must still find the others), and glare beside single cards (regions holding no card)
    hands = [stress_scene("overlap", number).frame for number in range(6)] + [
        _fanned(["9S", "4H", "KD", "2C"], angle, step)
        for angle, step in ((0.0, (0.0, 0.3)), (5.0, (0.4, 0.05)))]
    glare = [stress_scene("glare", number).frame for number in (0, 1, 6, 9)]
    quick = [_covered_with_each_known(frame) for frame in hands]
    quick_glare = [locate_cards(frame) for frame in glare]
    short = corners_module._sharpened_corners
    cut_short = []

    def counted(*args: object) -> list[Corner] | None:
        found = short(*args)  # type: ignore[arg-type]
        cut_short.append(found is None)
        return found

    monkeypatch.setattr(corners_module, "_sharpened_corners", counted)
    for frame in hands + glare:
        locate_cards(frame)
    monkeypatch.setattr(corners_module, "_sharpened_corners", _full_search)
    assert quick == [_covered_with_each_known(frame) for frame in hands]
    assert sum(len(found) for searches in quick for found in searches) >= 30
    full_glare = [locate_cards(frame) for frame in glare]
    for fast, slow in zip(quick_glare, full_glare, strict=True):
        assert [(card.covered, card.quad.tolist()) for card in fast] == [
            (card.covered, card.quad.tolist()) for card in slow]
    assert sum(cut_short) >= 4


def _drawn_cards(seed: int, count: int) -> Iterator[tuple[np.ndarray, list[np.ndarray]]]:
    """Frames of bright, turned, rounded-cornered rectangles on noisy cloth, and their quads."""
    import cv2

    rng = np.random.default_rng(seed)
    for _ in range(count):
        frame = rng.integers(20, 90, (480, 640, 3)).astype(np.uint8)
        quads = []
        for _ in range(int(rng.integers(1, 5))):
            centre = rng.uniform([100, 100], [540, 380])
            size = rng.uniform(40, 120)
            angle = float(rng.uniform(0, 180))
            box = cv2.boxPoints(((*centre,), (size, size * 1.4), angle)).astype(np.float32)
            cv2.fillConvexPoly(frame, np.rint(box).astype(np.int32),
                               tuple(int(v) for v in rng.integers(170, 256, 3)), cv2.LINE_AA)
            for corner in box:
                cv2.circle(frame, tuple(int(v) for v in corner), 3, (60, 60, 60), -1)
            quads.append(box)
        yield cv2.GaussianBlur(frame, (0, 0), float(rng.uniform(0.5, 2.0))), quads


def _plain_side_line(points: np.ndarray, start: np.ndarray, end: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray] | None:
    import cv2

    direction = end - start
    length = vector_length(direction)
    if length < 4:
        return None
    unit = direction / length
    relative = points - start
    along = relative @ unit / length
    across = np.abs(relative @ np.array([-unit[1], unit[0]], np.float32))
    near = points[(along > 0.15) & (along < 0.85) & (across < max(2.0, 0.03 * length))]
    if len(near) < 5:
        return None
    vx, vy, x0, y0 = cv2.fitLine(near, cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
    return np.array([x0, y0], np.float64), np.array([vx, vy], np.float64)


def _plain_edge_line(image: np.ndarray, points: np.ndarray, outward: np.ndarray,
                     offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    import cv2

    samples = points[:, None, :] + offsets[None, :, None] * outward
    values = cv2.remap(image, np.ascontiguousarray(samples[..., 0], np.float32),
                       np.ascontiguousarray(samples[..., 1], np.float32), cv2.INTER_LINEAR,
                       borderMode=cv2.BORDER_REPLICATE)
    profile = values.min(axis=2).astype(np.float32)
    fall = profile[:, :-2] - profile[:, 2:]
    steepest = fall.argmax(axis=1)
    strong = fall[np.arange(len(steepest)), steepest] > 8.0
    if int(strong.sum()) < 6:
        return None
    edge = points[strong] + offsets[steepest[strong] + 1][:, None] * outward
    vx, vy, x0, y0 = cv2.fitLine(edge.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
    return np.array([x0, y0], np.float64), np.array([vx, vy], np.float64)


def _plain_lines_met(quad: Quad, lines: list[tuple[np.ndarray, np.ndarray] | None],
                     max_move: float) -> Quad:
    if any(line is None for line in lines):
        return quad
    corners = [intersect(*lines[index - 1], *lines[index]) for index in range(4)]  # type: ignore[misc]
    if any(c is None for c in corners):
        return quad
    refined = np.array(corners, np.float32)
    return quad if float(np.abs(refined - quad).max()) > max_move else refined


def _plain_refined(frame: np.ndarray, quad: Quad, reach: float) -> Quad:
    """`refine_edges` as first written: each side sampled and fitted on its own."""
    centre = quad.mean(axis=0)
    offsets = np.arange(-reach - 1.5, reach + 1.75, 0.5, dtype=np.float32)
    along_side = np.linspace(0.15, 0.85, 16, dtype=np.float32)[:, None]
    lines = []
    for index in range(4):
        start, end = quad[index], quad[(index + 1) % 4]
        direction = end - start
        length = vector_length(direction)
        if length < 8:
            return quad
        unit = direction / length
        normal = np.array([-unit[1], unit[0]], np.float32)
        if float(np.dot((start + end) / 2 - centre, normal)) < 0:
            normal = -normal
        lines.append(_plain_edge_line(frame, start + along_side * direction, normal, offsets))
    return _plain_lines_met(quad, lines, 2.5 * reach + 3)


def test_the_four_sides_fitted_at_once_are_each_sides_own_fit() -> None:
    import cv2

    from vision.locate import fit_sides
    from vision.locate.finder import _quadrilateral

    fitted = 0
    for frame, _ in _drawn_cards(seed=5, count=40):
        small, _ = work_image(frame, 400)
        edges = cv2.dilate(cv2.Canny(small, 20, 60), np.ones((3, 3), np.uint8))
        contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
        for contour in contours:
            quad = _quadrilateral(contour)
            if quad is None or cv2.contourArea(contour) < 100:
                continue
            points = contour.reshape(-1, 2).astype(np.float32)
            shortest = min(vector_length(quad[i] - quad[(i + 1) % 4]) for i in range(4))
            plain = _plain_lines_met(quad, [_plain_side_line(points, quad[i], quad[(i + 1) % 4])
                                            for i in range(4)], 0.15 * shortest)
            quick = fit_sides(points, quad)
            assert np.array_equal(quick, plain)
            fitted += not np.array_equal(quick, quad)
    assert fitted >= 100


def test_the_four_edges_sampled_at_once_are_each_edges_own_samples() -> None:
    from vision.locate import refine_edges

    rng = np.random.default_rng(6)
    moved = 0
    for frame, quads in _drawn_cards(seed=7, count=40):
        for quad in quads:
            for reach in (1.0, 2.0):
                rough = (quad + rng.normal(0, reach, quad.shape)).astype(np.float32)
                quick = refine_edges(frame, rough, reach)
                assert np.array_equal(quick, _plain_refined(frame, rough, reach))
                moved += not np.array_equal(quick, rough)
    assert moved >= 100


def test_lines_meet_where_intersect_says() -> None:
    from vision.locate import meeting_point

    rng = np.random.default_rng(8)
    met = 0
    for _ in range(3000):
        p, q = rng.normal(200, 150, (2, 2))
        r, s = rng.normal(0, 1, (2, 2))
        if rng.random() < 0.1:
            s = r * rng.choice([1.0, -1.0]) + rng.normal(0, 1e-7, 2)  # parallel, or nearly
        expected = intersect(p, r, q, s)
        found = meeting_point((*p.tolist(), *r.tolist()), (*q.tolist(), *s.tolist()))
        assert (found is None) == (expected is None)
        if expected is not None:
            assert found == (float(expected[0]), float(expected[1]))
            met += 1
    assert met >= 2500


def test_the_means_of_four_corners_are_numpys() -> None:
    rng = np.random.default_rng(9)
    for points in rng.normal(300, 200, (2000, 4, 2)).astype(np.float32):
        assert np.array_equal(points.sum(axis=0) / len(points), points.mean(axis=0))


def test_glyphs_described_at_once_are_each_glyphs_own_description() -> None:
    import cv2

    from vision.features import RANK_BOX, SUIT_BOX, glyph_features, glyphs_features

    rng = np.random.default_rng(10)
    for trial in range(120):
        inks = []
        for _ in range(int(rng.integers(1, 21))):
            height, width = (int(v) for v in rng.integers(2, 80, 2))
            ink = rng.random((height, width)).astype(np.float32)
            if trial % 3 == 0:
                ink = (ink > 0.5).astype(np.float32)
            if trial % 4 == 0:
                ink = cv2.GaussianBlur(ink, (0, 0), 2.0)
            if trial % 7 == 0:
                ink[:] = 0
            inks.append(ink)
        for box in (RANK_BOX, SUIT_BOX, (25, 37)):  # the last not shrunk by a whole factor
            plain = np.stack([glyph_features(ink, box) for ink in inks])
            quick = glyphs_features(inks, box)
            assert quick.dtype == plain.dtype
            assert np.array_equal(quick, plain)
    assert glyphs_features([], RANK_BOX).shape == (0, glyph_features(inks[0], RANK_BOX).size)


def test_a_frames_corners_described_at_once_are_each_corners_own_description() -> None:
    from vision.index import CornerIndex, Glyph
    from vision.recognize import CornerFeatures

    rng = np.random.default_rng(11)

    def glyph() -> Glyph:
        height, width = (int(v) for v in rng.integers(4, 60, 2))
        return Glyph(rng.random((height, width)).astype(np.float32), (0, 0, width, height),
                     float(rng.uniform(-0.2, 1.2)))

    corners = [CornerIndex(glyph(), glyph(), np.zeros((4, 2), np.float32)) for _ in range(25)]
    for one, alone in zip(CornerFeatures.of_all(corners), map(CornerFeatures.of, corners),
                          strict=True):
        assert np.array_equal(one.rank, alone.rank)
        assert np.array_equal(one.suit, alone.suit)
        assert one.redness == alone.redness
    assert CornerFeatures.of_all([]) == []


def _plain_squared(vectors: np.ndarray, samples: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Each group's nearest squared distance from the whole product, as first written."""
    squared = ((vectors * vectors).sum(axis=1)[:, None] + (samples * samples).sum(axis=1)[None, :]
               - 2.0 * vectors @ samples.T)
    return np.minimum.reduceat(squared, starts, axis=1)


def _queries(samples: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Samples as they are, nudged a little and a lot, between two, their mean, far, zero."""
    picked = samples[rng.choice(len(samples), 60)]
    spread = float(samples.std())
    nudged = [picked[:20] + rng.normal(0, scale * spread, picked[:20].shape)
              for scale in (0.01, 0.1, 0.5, 2.0)]
    between = (picked[20:40] + picked[40:60]) / 2
    far = samples.mean(axis=0) + rng.normal(0, 10 * spread, (5, samples.shape[1]))
    return np.concatenate([picked[:10], *nudged, between, samples.mean(axis=0)[None], far,
                           np.zeros((1, samples.shape[1]))]).astype(np.float32)


def _grouped_searches() -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Sample sets by group: the generic profile's reference activations grouped by the
    class the perceptron gives them, and glyph-like clusters in many dimensions."""
    from vision import load_generic_profile
    from vision.build.learned_combined import perceptron_half

    profile = perceptron_half(load_generic_profile())
    for classifier in (profile.rank, profile.suit):
        assert isinstance(classifier, Perceptron)
        classes = classifier._scores(np.stack(np.split(classifier.reference, classifier.members,
                                                       axis=1))).argmax(axis=1)
        order = np.argsort(classes, kind="stable")
        counts = np.bincount(classes)
        yield classifier.reference[order], np.concatenate([[0], np.cumsum(counts[counts > 0])[:-1]])
    rng = np.random.default_rng(12)
    for dimensions, groups in ((816, 13), (496, 4), (40, 3)):
        basis = rng.normal(0, 1, (24, dimensions))
        centres = rng.normal(0, 1, (groups, 24)) @ basis
        sizes = rng.integers(20, 300, groups)
        samples = np.concatenate([centre + rng.normal(0, 0.4, (size, 24)) @ basis
                                  + rng.normal(0, 0.05, (size, dimensions))
                                  for centre, size in zip(centres, sizes, strict=True)])
        yield samples.astype(np.float32), np.concatenate([[0], np.cumsum(sizes)[:-1]])


def test_the_bounded_nearest_search_finds_what_the_whole_product_finds(
        monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(13)
    measured = []
    plain_measured = 0
    original = NearestSamples._measured

    def counted(self: NearestSamples, *args: np.ndarray) -> np.ndarray:
        found = original(self, *args)
        measured.append(found.size)
        return found

    monkeypatch.setattr(NearestSamples, "_measured", counted)
    for samples, starts in _grouped_searches():
        search = NearestSamples(samples, starts)
        assert 1 <= search.axes < samples.shape[1]
        queries = _queries(samples, rng)
        plain = _plain_squared(queries, samples, starts)
        for rows in (slice(None), slice(0, 1), slice(7, 30)):
            batch, expected = queries[rows], plain[rows]
            quick = search.squared(batch)
            # the same figure but for the rounding of the dot products' last bits
            scale = float((batch * batch).sum(axis=1).max() + (samples * samples).sum(axis=1).max())
            np.testing.assert_allclose(quick, expected, rtol=0, atol=2e-6 * scale)
            if expected.shape[1] > 1:  # the same nearest group but where two tie
                two = np.sort(expected, axis=1)[:, :2]
                clear = two[:, 1] - two[:, 0] > 4e-6 * scale
                assert np.array_equal(quick.argmin(axis=1)[clear], expected.argmin(axis=1)[clear])
        plain_measured += 3 * len(queries) * len(samples)
    assert sum(measured) < 0.25 * plain_measured


def test_an_enrolled_decks_class_distances_are_the_whole_products() -> None:
    rng = np.random.default_rng(14)
    samples, starts = list(_grouped_searches())[2]  # 13 glyph-like groups of 816 features
    labels = np.repeat(np.arange(len(starts)), np.diff(np.append(starts, len(samples))))
    shuffled = rng.permutation(len(samples))  # the model sorts its samples by class itself
    model = NearestNeighbours("A23456789TJQK", samples[shuffled], labels[shuffled], 0.4, 3.0)
    queries = _queries(samples, rng)
    plain = np.maximum(_plain_squared(queries, samples, starts), 0.0)
    scale = float((queries * queries).sum(axis=1).max() + (samples * samples).sum(axis=1).max())
    np.testing.assert_allclose(model.class_distances(queries) ** 2, plain, rtol=0,
                               atol=2e-6 * scale)


def test_samples_that_are_not_finite_are_refused_in_words() -> None:
    """The scatter product is checked itself (some arm64 BLAS kernels raise the FP flags on
    a right product, so numpy's own warning is silenced there): a NaN sample is refused."""
    samples = np.random.default_rng(3).random((6, 8), dtype=np.float32)
    index = NearestSamples(samples, np.array([0, 3]))
    assert index.samples.shape == (6, 8)
    samples[4, 2] = np.nan
    with pytest.raises(ValueError, match="not finite"):
        NearestSamples(samples, np.array([0, 3]))
