"""Enrolment's table copies: each photo's card small, turned and oblique on a drawn table, as a
hold'em camera sees a board; trained on, and held out only with the photo they come from."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.build.evaluate import iou
from vision.cards import all_codes
from vision.dataset import read_image, read_labels
from vision.enroll import TABLE_CARD_WIDTH, EnrolReport, Sample, table_copy
from vision.enroll.tuning import _held_out_folds
from vision.features import RANK_BOX, SUIT_BOX, feature_length
from vision.index import IndexLayout, read_corners
from vision.locate import find_cards, long_over_short
from vision.profile import DeckProfile
from vision.recognize import CornerFeatures


@pytest.fixture(scope="module")
def dev_sample(dev_photos: Path) -> list[tuple[np.ndarray, str]]:
    """Every eighth dev photo (26 cards of all ranks and suits)."""
    return [(read_image(item.path), item.code) for item in read_labels(dev_photos)[::8]]


def test_a_table_copy_shows_the_card_small_turned_and_readable(
        dev_sample: list[tuple[np.ndarray, str]]) -> None:
    rng = np.random.default_rng(3)
    widths, turns, fits, read = [], [], [], 0
    for image, _ in dev_sample:
        quad = find_cards(image)[0]
        copy, outline = table_copy(image, quad, rng)
        width = float(np.linalg.norm(outline[1] - outline[0]) +
                      np.linalg.norm(outline[2] - outline[3])) / 2
        widths.append(width)
        turns.append(float(np.degrees(np.arctan2(*(outline[1] - outline[0])[::-1]))))
        found = find_cards(copy)
        assert len(found) == 1
        fits.append(iou(found[0], outline))
        assert abs(long_over_short(outline) - long_over_short(quad)) < 0.12
        read += sum(corner is not None for corner in read_corners(copy, outline,
                                                                  _layout(quad)))
    # the outline given is the card's, nudged a little (the finder fits one side of a small
    # oblique card now and then askew)
    assert np.median(fits) > 0.93, fits
    assert min(fits) > 0.8, fits
    low, high = TABLE_CARD_WIDTH
    assert low * 0.95 <= min(widths), widths
    assert max(widths) <= high * 1.05, widths
    assert np.ptp(widths) > 0.5 * (high - low)  # the whole range is drawn
    assert np.ptp(turns) > 180  # turned any way
    assert read >= 0.9 * 2 * len(dev_sample)  # both corners of nearly every copy are read


def test_a_table_copy_is_drawn_on_a_table_not_the_photo_s_own(
        dev_sample: list[tuple[np.ndarray, str]]) -> None:
    rng = np.random.default_rng(4)
    colours = []
    for image, _ in dev_sample[:12]:
        copy, _ = table_copy(image, find_cards(image)[0], rng)
        colours.append(copy[:8, :8].reshape(-1, 3).astype(float).mean(axis=0))
    # the dev photos all lie on one pale grey table (a copy keeping it: standard deviation of
    # the copies' corner colours 20.6 at most in a channel); drawn tables vary (measured 47.5)
    assert np.std(colours, axis=0).max() > 35, np.std(colours, axis=0)


def _layout(quad: np.ndarray) -> IndexLayout:
    return IndexLayout(card_aspect=long_over_short(quad))


def _samples() -> list[Sample]:
    """Two photos of every card (folds 0 and 1), each read as taken, as an altered copy and as
    two table copies; features are the photo's number, so a leak is visible."""
    samples = []
    for number, code in enumerate(all_codes()):
        for shot in (0, 1):
            photo = 2 * number + shot
            features = CornerFeatures(np.full(feature_length(RANK_BOX), photo, np.float32),
                                      np.full(feature_length(SUIT_BOX), photo, np.float32), 0.0)
            for copy, on_table in ((0, False), (1, False), (2, True), (3, True)):
                samples += [Sample(code, photo, shot, features, copy == 0, corner, copy,
                                   on_table) for corner in (0, 1)]
    return samples


def test_cross_validation_holds_out_table_copies_with_their_photo_only() -> None:
    samples = _samples()
    folds = list(_held_out_folds(samples, 2))
    assert len(folds) == 2
    for train, shots in folds:
        trained = {s.photo for s in train}
        held = {corners[0].photo for corners in shots}
        assert not trained & held  # no copy of a held-out photo is trained on
        assert len(shots) == 3 * 52  # each photo as taken and its two table copies
        for corners in shots:
            assert len({(s.photo, s.copy) for s in corners}) == 1
            assert [s.corner for s in corners] == [0, 1]
        assert sum(corners[0].on_table for corners in shots) == 2 * 52
        assert not any(s.copy == 1 for corners in shots for s in corners)  # altered: trained only


def test_the_dev_enrolment_reads_its_own_held_out_table_copies(
        dev_enrolled: tuple[DeckProfile, EnrolReport]) -> None:
    profile, report = dev_enrolled
    assert report.table_held_out >= 0.95 * 4 * 156  # four table copies of every photo
    assert report.table_wrong == 0
    assert report.table_right >= 0.9 * report.table_held_out, report
    assert profile.info["table_held_out"] == report.table_held_out
    assert profile.layout.faint_first
