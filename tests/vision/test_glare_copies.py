"""Enrolment's glare copies: a lamp's reflection washing part of each photo's card, read and
held out in cross-validation with their photo only."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.cards import all_codes
from vision.dataset import read_image, read_labels
from vision.enroll import GLARE_PEAK, EnrolReport, Sample, glare_copy
from vision.enroll.tuning import _cross_validate, _held_out_folds
from vision.features import RANK_BOX, SUIT_BOX, feature_length
from vision.index import IndexLayout, read_corners
from vision.locate import find_cards, long_over_short
from vision.profile import DeckProfile
from vision.recognize import CornerFeatures


@pytest.fixture(scope="module")
def dev_sample(dev_photos: Path) -> list[np.ndarray]:
    """Every eighth dev photo (26 cards of all ranks and suits)."""
    return [read_image(item.path) for item in read_labels(dev_photos)[::8]]


def _card_mask(shape: tuple[int, ...], quad: np.ndarray) -> np.ndarray:
    mask = np.zeros(shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, np.round(quad).astype(np.int32), 1)
    return mask.astype(bool)


def test_a_glare_copy_washes_part_of_the_card_and_leaves_its_index_readable(
        dev_sample: list[np.ndarray]) -> None:
    rng = np.random.default_rng(7)
    peaks, washed_shares, read = [], [], 0
    for image in dev_sample:
        quad = find_cards(image)[0]
        copy, outline = glare_copy(image, quad, rng)
        x0, y0 = np.maximum(np.floor(quad.min(axis=0)) - 12, 0).astype(int)
        before = image[y0:y0 + copy.shape[0], x0:x0 + copy.shape[1]].astype(float)
        lift = (copy.astype(float) - before).mean(axis=2)
        card = _card_mask(copy.shape, quad - [x0, y0])
        peaks.append(float(np.percentile(lift[card], 99)))
        washed_shares.append(float((lift[card] > 20).mean()))
        assert lift.min() >= -1  # glare only brightens
        width = float(np.linalg.norm(quad[1] - quad[0]))
        assert np.abs(outline - (quad - [x0, y0])).max() < 0.06 * width  # nudged, not moved
        layout = IndexLayout(card_aspect=long_over_short(quad), faint_first=True)
        read += sum(corner is not None for corner in read_corners(copy, outline, layout))
    # a spot, not a wash over the card: the brightest card pixels gain tens of grey levels
    # (saturating paper gains less than the peak), part of the card stays as it was
    assert np.median(peaks) > 0.4 * GLARE_PEAK[0], peaks
    assert 0.05 < np.median(washed_shares) < 0.9, washed_shares
    assert read >= 0.9 * 2 * len(dev_sample)  # both corners of nearly every copy are read


GLARED = 1000.0
"""Added to a glare copy's features in `_samples`, so its corners are told apart."""


def _samples() -> list[Sample]:
    """Two photos of every card (folds 0 and 1), each read as taken, as an altered copy, as a
    table copy and as a glare copy; features are the photo's number (plus `GLARED` for a glare
    copy), so a leak is visible."""
    samples = []
    for number, code in enumerate(all_codes()):
        for shot in (0, 1):
            photo = 2 * number + shot
            for copy, on_table, glared in ((0, False, False), (1, False, False),
                                           (2, True, False), (3, False, True)):
                value = photo + GLARED * glared
                features = CornerFeatures(np.full(feature_length(RANK_BOX), value, np.float32),
                                          np.full(feature_length(SUIT_BOX), value, np.float32),
                                          0.0)
                samples += [Sample(code, photo, shot, features, copy == 0, corner, copy,
                                   on_table, glared) for corner in (0, 1)]
    return samples


def test_cross_validation_holds_out_glare_copies_with_their_photo_only() -> None:
    for train, shots in _held_out_folds(_samples(), 2):
        held = {corners[0].photo for corners in shots}
        assert not {s.photo for s in train} & held
        assert sum(corners[0].glared for corners in shots) == 52  # one glare copy a photo
        assert len(shots) == 3 * 52  # as taken, table copy, glare copy
        assert not any(s.copy == 1 for corners in shots for s in corners)  # altered: trained


def test_glare_copies_do_not_set_the_novelty_limits() -> None:
    held_out = _cross_validate(_samples(), 2)
    assert len(held_out) == 2 * 2 * 52  # per fold: each photo as taken and its table copy
    assert all(corner.rank[0] < GLARED for shot in held_out for corner in shot.corners)


def test_the_dev_enrolment_reads_its_own_held_out_glare_copies(
        dev_enrolled: tuple[DeckProfile, EnrolReport]) -> None:
    profile, report = dev_enrolled
    assert report.glare_held_out >= 0.95 * 2 * 156  # two glare copies of every photo
    assert report.glare_wrong == 0
    assert report.glare_right >= 0.9 * report.glare_held_out, report
    assert report.one_corner_wrong == 0
    assert profile.info["glare_held_out"] == report.glare_held_out
    assert profile.one_corner_below == report.one_corner_below
