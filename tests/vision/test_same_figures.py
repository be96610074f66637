"""The reader's quicker computations give the figures of the plain ones they stand for.

Each quick path (a histogram for a sort, OpenCV's masked mean for numpy's, one classifier
call per frame for one per card, a search for covered cards cut short where no new card can
start) is checked against the plain computation, written out here as it was first written.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

import vision.corners as corners_module
from vision import Recognizer
from vision.build.evaluate import stress_scene
from vision.build.synth import CardStyle, Effects, Placement, compose
from vision.corners import Corner, _sharpened, covered_cards
from vision.edges import Quad, rolled, vector_length
from vision.index import _Ink, _paper_colour, _percentiles
from vision.locate import LocateParams, _paper_masks, locate_cards, paper_contrast, work_image
from vision.recognize import _reading_order


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


def test_ink_percentiles_are_numpys_linear_percentiles() -> None:
    for grey in _greys(600, seed=1):
        expected = tuple(float(v) for v in np.percentile(grey, (90, 1)))
        assert _percentiles(grey, (0.9, 0.01)) == expected


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
        ink = _Ink(grey, np.zeros(grey.shape, np.int32), np.zeros((1, 5), np.int32), paper, [])
        assert np.array_equal(_paper_colour(patch, ink), expected)


def _plain_paper_contrast(small: np.ndarray, quad: Quad) -> float:
    import cv2

    size, margin = (40, 54), 7
    inner = np.array([[margin, margin], [size[0] - margin, margin],
                      [size[0] - margin, size[1] - margin], [margin, size[1] - margin]],
                     np.float32)
    transform = cv2.getPerspectiveTransform(np.asarray(quad, np.float32), inner)
    patch = cv2.warpPerspective(small, transform, size, flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_REPLICATE)
    ring = np.zeros(patch.shape, bool)
    ring[margin + 1:-margin - 1, margin + 1:-margin - 1] = True
    ring[margin + 4:-margin - 4, margin + 4:-margin - 4] = False
    around = np.zeros(patch.shape, bool)
    around[1:-1, 1:-1] = True
    around[margin - 2:-margin + 2, margin - 2:-margin + 2] = False
    return float(np.median(patch[ring]) - np.median(patch[around]))


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
        assert paper_contrast(small, quad) == _plain_paper_contrast(small, quad)


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
    paper, bright = _paper_masks(small)
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
