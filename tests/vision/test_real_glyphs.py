"""The real corners the generic pair learns from (`vision.build.real_glyphs`).

A corner boxed without its card is read by imagining the card around its ink: that card
must be the corner's upright view, never its mirror image (a mirrored 3 reads as nothing the
classifiers know). The sets a build learns from must come from licensed sources only, and a
source held out must stay out. The shared photos are needed by the last test; without them
it fails, it does not skip.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import load_generic_profile
from vision.build import real_sources
from vision.build.learned_data import GlyphSet
from vision.build.real_glyphs import (
    glyphs_of,
    imagined_quad,
    index_corner_views,
    likelier_view,
    load_real_glyphs,
    source_of,
)
from vision.build.synth import random_card_style, render_card
from vision.cards import RANKS, SUITS
from vision.errors import VisionError
from vision.profile import DeckProfile
from vision.recognize import decide, describe_corners

pytestmark = pytest.mark.usefixtures("typefaces")

CASES = 40
NAMED = 26
"""Of `CASES` synthetic corners at random turns, the views of the imagined card name their
card 33 times with the shipped profile (measured); as mirror images, 8 times."""


@pytest.fixture(scope="module")
def profile() -> DeckProfile:
    return load_generic_profile()


@pytest.mark.parametrize("degrees", [0, 37, 90, 160, 250, 300])
def test_the_imagined_card_is_turned_never_mirrored(degrees: int) -> None:
    angle = np.radians(degrees)
    down = np.array([-np.sin(angle), np.cos(angle)])
    quad = imagined_quad(np.array([100.0, 100.0]), down, 27.0)
    right, below = quad[1] - quad[0], quad[3] - quad[0]
    assert right[0] * below[1] - right[1] * below[0] > 0  # as (1, 0) then (0, 1): no mirror
    assert np.allclose(below / np.linalg.norm(below), down, atol=1e-5)
    assert np.linalg.norm(below) / np.linalg.norm(right) == pytest.approx(1.4, rel=1e-3)


def card_on_table(code: str, degrees: float, seed: int
                  ) -> tuple[np.ndarray, tuple[float, float, float, float]]:
    """A synthetic card turned on a plain table, and its top-left index's box in the frame."""
    rng = np.random.default_rng(seed)
    rendered = render_card(code, random_card_style(rng), 260, seed=seed)
    height, width = rendered.image.shape[:2]
    x0 = min(rendered.rank_box[0], rendered.suit_box[0]) * width
    y0 = min(rendered.rank_box[1], rendered.suit_box[1]) * height
    x1 = max(rendered.rank_box[2], rendered.suit_box[2]) * width
    y1 = max(rendered.rank_box[3], rendered.suit_box[3]) * height
    side = int(np.hypot(width, height)) + 40
    turn = cv2.getRotationMatrix2D((width / 2, height / 2), degrees, 1)
    turn[:, 2] += (side - width) / 2, (side - height) / 2
    card = cv2.warpAffine(rendered.image, turn, (side, side), flags=cv2.INTER_AREA)
    alpha = cv2.warpAffine(rendered.alpha, turn, (side, side))[:, :, None]
    table = np.full((side, side, 3), (200, 205, 200), np.uint8)
    frame = (card * alpha + table * (1 - alpha)).astype(np.uint8)
    moved = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]) @ turn[:, :2].T + turn[:, 2]
    low, high = moved.min(axis=0), moved.max(axis=0)
    return frame, (float(low[0]), float(low[1]), float(high[0]), float(high[1]))


def test_a_corner_boxed_alone_is_read_upright_at_any_turn(profile: DeckProfile) -> None:
    rng = np.random.default_rng(5)
    named = 0
    for number in range(CASES):
        code = RANKS[int(rng.integers(13))] + SUITS[int(rng.integers(4))]
        frame, box = card_on_table(code, float(rng.uniform(0, 360)), number)
        views = index_corner_views(frame, box, profile)
        guesses = {decide(profile, describe_corners(profile, [view]), 0.0).guess
                   for view in views}
        named += code in guesses
        chosen = likelier_view(views, code, profile)
        assert (chosen is None) == (not views)
        assert chosen is None or any(chosen is view for view in views)
    assert named >= NAMED, f"{named} of {CASES} corners named their card"


def small_set(path: Path, codes: list[str], cards: list[int] | None = None) -> None:
    count = len(codes)
    GlyphSet(np.array(codes, dtype="<U2"),
             np.array(cards if cards is not None else range(count), np.int64),
             np.zeros((count, 36, 24), np.float32), np.zeros((count, 24, 24), np.float32),
             np.zeros(count, np.float32), np.zeros((count, 4), np.float32),
             np.zeros((count, 4), np.float32)).save(path)


def test_real_sets_are_joined_recorded_and_held_out(tmp_path: Path) -> None:
    small_set(tmp_path / "cardcounter--phone-A.npz", ["AS", "KH"])
    small_set(tmp_path / "pokercards--phone.npz", ["2C", "2C", "9D"], [0, 0, 1])
    real = load_real_glyphs(tmp_path)
    assert len(real.glyphs) == 5
    assert [entry["source"] for entry in real.manifest] == ["cardcounter", "pokercards"]
    assert all(len(entry["sha256"]) == 64 for entry in real.manifest)
    assert len(set(real.glyphs.cards.tolist())) == 4  # photo 0 of each set stays apart
    held = load_real_glyphs(tmp_path, ("pokercards",))
    assert held.glyphs.codes.tolist() == ["AS", "KH"]
    assert [entry["file"] for entry in held.manifest] == ["cardcounter--phone-A.npz"]


def test_a_source_that_may_not_teach_is_refused(tmp_path: Path) -> None:
    small_set(tmp_path / "cardcounter--phone-A.npz", ["AS"])
    small_set(tmp_path / "designs--many-designs.npz", ["AS"])
    with pytest.raises(VisionError, match=r"designs--many-designs\.npz: its source's licence"):
        load_real_glyphs(tmp_path)
    with pytest.raises(VisionError, match="hold-out nowhere: not a source"):
        load_real_glyphs(tmp_path, ("nowhere",))
    with pytest.raises(VisionError, match="no real glyph sets"):
        load_real_glyphs(tmp_path / "empty")
    assert source_of(Path("templates-fourcorner--four-index-scans.npz")) == "templates/fourcorner"
    assert source_of(Path("elsewhere--x.npz")) is None


def test_labelled_photos_give_labelled_corners(profile: DeckProfile) -> None:
    for source in ("pokercards", "cardcounter"):
        images = real_sources.load_source(source)[::40]
        glyphs = glyphs_of(images, profile)
        assert len(glyphs) >= 30, f"{source}: {len(glyphs)} corners of {len(images)} photos"
        labelled = {card for image in images for card in image.cards}
        assert set(glyphs.codes.tolist()) <= labelled
        assert glyphs.ranks.shape[1:] == (36, 24)
        assert glyphs.suits.shape[1:] == (24, 24)
        assert glyphs.rank_features.shape[0] == len(glyphs)
