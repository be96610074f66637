"""Real typefaces for synthetic decks: drawn by OpenCV 5's font engine, split into trained and
held-out families, and clear about what a machine lacks."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.build.glyphs import GlyphStyle, random_style, rank_mask
from vision.build.synth import random_card_style, render_card
from vision.build.typefaces import (
    FACES,
    HELD_OUT_FAMILIES,
    ORIGINAL_HELD_OUT,
    STROKE,
    TRAINING_FAMILIES,
    face_named,
    faces_of,
    text_mask,
)
from vision.errors import SceneError

needs_fonts = pytest.mark.usefixtures("typefaces")


def test_held_out_families_share_nothing_with_training() -> None:
    assert not set(TRAINING_FAMILIES) & set(HELD_OUT_FAMILIES)
    assert {face.family for face in FACES} <= set(TRAINING_FAMILIES + HELD_OUT_FAMILIES)
    assert faces_of((STROKE,)) == []
    rng = np.random.default_rng(5)
    for _ in range(40):
        style = random_style(rng, HELD_OUT_FAMILIES)
        assert face_named(style.typeface).family in HELD_OUT_FAMILIES
    drawn = {random_style(rng).typeface for _ in range(80)}
    assert "" in drawn  # the stroke outlines
    assert {face_named(name).family for name in drawn - {""}} <= set(TRAINING_FAMILIES)


@needs_fonts
def test_every_face_draws_every_rank_as_one_tall_glyph() -> None:
    for face in FACES:
        for text in ("A", "7", "10", "Q", "T"):
            mask = text_mask(text, face, 700)
            assert mask.dtype == np.float32
            assert float(mask.min()) >= 0.0
            assert float(mask.max()) <= 1.0
            assert mask.shape[0] > 60, (face.name, text)
            assert mask.max(axis=1).min() > 0.05, (face.name, text)  # cropped to the ink


@needs_fonts
def test_weight_and_emboldening_change_the_ink() -> None:
    sans = face_named("cv-sans")
    assert text_mask("8", sans, 800).sum() > 1.3 * text_mask("8", sans, 300).sum()
    light = GlyphStyle(typeface="dejavu-serif", embolden=-0.02)
    heavy = GlyphStyle(typeface="dejavu-serif", embolden=0.04)
    assert rank_mask("K", heavy).sum() > rank_mask("K", light).sum()


@needs_fonts
def test_the_ten_is_drawn_as_printed() -> None:
    ten = rank_mask("T", GlyphStyle(typeface="dejavu-sans"))
    letter = rank_mask("T", GlyphStyle(typeface="dejavu-sans", ten="T"))
    assert ten.shape[1] > 1.3 * letter.shape[1]  # "10" is two digits wide
    stroke_letter = rank_mask("T", GlyphStyle(ten="T"))
    assert stroke_letter.shape[1] < rank_mask("T", GlyphStyle()).shape[1]


@needs_fonts
def test_held_out_decks_render() -> None:
    rng = np.random.default_rng(8)
    for _ in range(6):
        style = random_card_style(rng, HELD_OUT_FAMILIES)
        card = render_card("TD", style, 150)
        assert card.image.shape[1] == 150


def test_unknown_faces_are_refused() -> None:
    with pytest.raises(SceneError, match="unknown typeface 'comic'"):
        face_named("comic")


def _alike(first: np.ndarray, second: np.ndarray) -> float:
    """Intersection over union of two glyph masks stretched to one box."""
    a = cv2.resize(first, (48, 64), interpolation=cv2.INTER_AREA) > 0.5
    b = cv2.resize(second, (48, 64), interpolation=cv2.INTER_AREA) > 0.5
    return float((a & b).sum() / max(1, (a | b).sum()))


@needs_fonts
def test_no_held_out_face_is_a_copy_of_a_trained_one() -> None:
    """A held-out design must not reach training in another cut (URW P052 is Pagella)."""
    assert set(ORIGINAL_HELD_OUT) <= set(HELD_OUT_FAMILIES)
    characters = "Q8925"
    trained = {face.name: [text_mask(c, face) for c in characters]
               for face in faces_of(TRAINING_FAMILIES)}
    for face in faces_of(HELD_OUT_FAMILIES):
        glyphs = [text_mask(c, face) for c in characters]
        nearest = max(float(np.mean([_alike(g, t) for g, t in zip(glyphs, masks, strict=True)]))
                      for masks in trained.values())
        assert nearest < 0.93, face.name
    pagella, p052 = face_named("pagella"), face_named("urw-p052")
    assert _alike(text_mask("Q", pagella), text_mask("Q", p052)) > 0.96  # one design, two cuts
