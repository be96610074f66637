"""The learned index-corner finder (`vision.locate.indices`) and how it is measured.

Its decoding and its file are checked on made-up score maps; its training targets on
made-up boxes; then the shipped finder runs over every 10th photo of `shared/cards-train`'s
`pokercards` source, a deck and a photographer it never learnt from (it learnt from
`cardcounter` only). The shared photos are required: a checkout without them fails here, it
does not skip. The floor and ceiling are the shipped finder's measured figures on this
sample (`bench/vision.py --section index-finder` has them all): a change that finds fewer of
these cards, or more boxes off them, fails.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.build import real_sources
from vision.build.finder_figures import FinderTally, judge_finders, measure_finders
from vision.build.index_finder import targets
from vision.build.real_sources import LabelledBox, SourceImage
from vision.errors import ProfileError
from vision.locate.indices import (
    SIZE_UNIT,
    STRIDE,
    IndexBox,
    grey_input,
    load_index_finder,
    peaks,
    save_index_finder,
)

SAMPLE_EVERY = 10
HELD_OUT_FLOOR = 0.98  # share of the sample's cards the index finder finds, at least (99.5%)
OFF_CARD_CEILING = 0.6  # boxes found on no labelled card, per image, at most (0.40)


def test_a_box_is_a_local_maximum_of_the_score_above_the_threshold() -> None:
    scores = np.zeros((20, 30), np.float32)
    scores[5, 7] = 0.9
    scores[5, 8] = 0.6          # beside a higher score: not a maximum
    scores[15, 20] = 0.5
    scores[10, 3] = 0.2         # under the threshold
    sides = np.zeros((2, 20, 30), np.float32)
    sides[:, 5, 7] = (24.0, 40.0)
    sides[:, 15, 20] = (16.0, 16.0)
    found = peaks(scores, sides, 0.5, threshold=0.3)
    assert [round(box.score, 2) for box in found] == [0.9, 0.5]
    first = found[0]
    # cell (row 5, column 7) is centred at input pixel (30, 22); a factor of 0.5 doubles it
    assert first.centre == pytest.approx(((7 + 0.5) * STRIDE / 0.5, (5 + 0.5) * STRIDE / 0.5))
    assert (first.width, first.height) == pytest.approx((48.0, 80.0))


def test_the_input_is_reduced_to_its_longest_side_and_padded_to_the_nets_stride() -> None:
    grey, factor = grey_input(np.full((720, 1280, 3), 200, np.uint8), 800)
    assert factor == pytest.approx(0.625)
    assert grey.shape == (464, 800)  # 450 rows padded to a multiple of 16
    small, kept = grey_input(np.zeros((100, 90), np.uint8), 800)
    assert kept == 1.0
    assert small.shape == (112, 96)


def test_a_training_target_peaks_at_each_boxs_centre_with_its_size() -> None:
    heat, size, mask = targets(np.array([[40, 60, 72, 108], [250, 250, 300, 300]],
                                        np.float32), 128)
    row, column = int(84 / STRIDE), int(56 / STRIDE)
    assert heat[row, column] == 1.0
    assert mask.sum() == 1  # the second box lies outside
    assert np.exp(size[:, row, column]) * SIZE_UNIT == pytest.approx((32.0, 48.0))
    assert 0 < heat[row, column + 2] < 1


def test_a_file_that_is_no_finder_is_refused_naming_it(tmp_path: Path) -> None:
    wrong = tmp_path / "deck.npz"
    np.savez(wrong, meta=np.array('{"format": "shoectl-profile", "version": 1}'),
             onnx=np.zeros(3, np.uint8))
    with pytest.raises(ProfileError, match=r"deck\.npz: not an index finder of version"):
        load_index_finder(wrong)
    with pytest.raises(ProfileError, match=r"missing\.npz: not an index finder"):
        load_index_finder(tmp_path / "missing.npz")
    cut = tmp_path / "cut.npz"  # a copy cut short, as a full disk leaves it
    shipped = (Path(__file__).resolve().parents[2] / "vision" / "locate" / "index_finder.npz")
    cut.write_bytes(shipped.read_bytes()[:50_000])
    with pytest.raises(ProfileError, match=r"cut\.npz: not an index finder"):
        load_index_finder(cut)


def test_the_shipped_finder_saves_and_loads_unchanged(tmp_path: Path) -> None:
    shipped = load_index_finder()
    copy = tmp_path / "finder.npz"
    save_index_finder(shipped, copy)
    again = load_index_finder(copy)
    assert (again.onnx, again.threshold, again.longest) == (
        shipped.onnx, shipped.threshold, shipped.longest)
    assert shipped.info["licence"] == "CC BY 4.0"
    assert shipped.info["held_out"] == ""
    frame = np.full((480, 640, 3), 90, np.uint8)
    assert again.find(frame) == shipped.find(frame)


def test_a_labelled_card_is_found_by_a_box_on_one_of_its_index_corners() -> None:
    image = SourceImage("cardcounter", "webcam", real_sources.data_root() / "x.jpg", (
        LabelledBox("AS", "index", (10, 10, 30, 40)),
        LabelledBox("AS", "index", (200, 200, 220, 230)),
        LabelledBox("KH", "index", (100, 10, 120, 40))))
    outline = np.array([[0, 0], [60, 0], [60, 60], [0, 60]], np.float32)
    tally = judge_finders(image, [outline], [
        IndexBox(200, 205, 20, 20, 0.9),   # on AS's second corner
        IndexBox(400, 400, 10, 10, 0.8),   # on no card
    ], 0.0, 640, 480)
    assert (tally.cards, tally.outline_found, tally.index_found) == (2, 1, 1)
    assert (tally.index_boxes, tally.index_boxes_found, tally.off_card) == (3, 1, 1)
    assert tally.on_card == 1


def test_a_single_card_is_found_by_a_box_on_it_and_not_by_one_on_the_cloth() -> None:
    image = SourceImage("designs", "many designs", real_sources.data_root() / "y.jpg",
                        (LabelledBox("7H", "none", None),))
    margin = real_sources.MARGIN
    on_card = IndexBox(margin + 10, margin + 10, 20, 30, 0.9)
    on_cloth = IndexBox(5, 5, 20, 30, 0.9)
    assert judge_finders(image, [], [on_card], margin, 224, 224).index_found == 1
    cloth = judge_finders(image, [], [on_cloth], margin, 224, 224)
    assert (cloth.index_found, cloth.off_card) == (0, 1)


@pytest.fixture(scope="module")
def held_out_sample() -> FinderTally:
    cv2.setNumThreads(1)
    images = real_sources.load_source("pokercards")[::SAMPLE_EVERY]
    return measure_finders(load_index_finder(), images)["phone, four-index deck on tables"]


def test_the_finder_finds_cards_of_a_deck_it_never_saw(held_out_sample: FinderTally) -> None:
    tally = held_out_sample
    assert tally.index_found >= HELD_OUT_FLOOR * tally.cards, tally.line()
    assert tally.index_found > tally.outline_found, tally.line()
    assert tally.off_card <= OFF_CARD_CEILING * tally.images, tally.line()
