"""The generic pair learns glyphs from real corners too (`vision.build.real_build`).

Its synthetic half is the generic build's own decks, read from the glyph sets the nets learn
from: the perceptrons must see the very corners `vision.build.generic` draws, so the
fingerprint the shipped profile records still names them. Real corners are added to what
both halves learn, never to what tunes them, and the profile records which sets they were.
Training the nets needs PyTorch, a build tool this suite does not install: the nets half of
a build is checked by `tests/vision/test_generic_profile.py` on the committed files.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from vision import load_generic_profile
from vision.build import real_build
from vision.build.generic import (
    GenericBuildOptions,
    fingerprint,
    fitted,
    same_fingerprint,
    synthetic_samples,
)
from vision.build.learned_combined import NETS
from vision.build.learned_data import GlyphSet, glyph_set, synthetic_glyphs
from vision.build.real_build import fold_name, samples_of
from vision.build.real_glyphs import RealGlyphs
from vision.build.real_sources import LICENSED
from vision.build.training import TrainOptions
from vision.learned import load_learned
from vision.profile import generic_profile_path

pytestmark = pytest.mark.usefixtures("typefaces")

REPO = Path(__file__).resolve().parents[2]
SMALL = GenericBuildOptions(cards=60, validation_cards=30, seed=7,
                            train=TrainOptions(hidden=24, epochs=4, members=1, references=50))


def test_the_glyph_sets_hold_the_corners_the_generic_build_draws() -> None:
    drawn = synthetic_samples(30, 11)
    from_glyphs = samples_of(synthetic_glyphs(30, 11))
    assert [s.code for s in from_glyphs] == [s.code for s in drawn]
    assert [s.photo for s in from_glyphs] == [s.photo for s in drawn]
    assert same_fingerprint(fingerprint(drawn), fingerprint(from_glyphs))


def test_real_corners_are_learnt_and_recorded_but_tune_nothing() -> None:
    train = synthetic_glyphs(SMALL.cards, SMALL.seed)
    validation = synthetic_glyphs(SMALL.validation_cards, SMALL.seed + 1)
    real = synthetic_glyphs(20, 99)
    info = {"real": {"sets": [{"file": "pokercards--phone.npz"}], "repeat": 2,
                     "hold_out": []}}
    alone = fitted(samples_of(train), samples_of(validation), SMALL, 0.0)
    taught = fitted(samples_of(train), samples_of(validation), SMALL, 0.0, "taught",
                    samples_of(real) * 2, info)
    assert taught.info["samples"] == len(train) + 2 * len(real)
    assert taught.info["real"] == info["real"]
    assert taught.info["prefix"] == alone.info["prefix"]  # the synthetic decks come first
    assert taught.info["validation_read"] == alone.info["validation_read"]
    assert taught.name == "taught"


def test_a_fold_is_named_by_the_source_it_leaves_out() -> None:
    assert fold_name("pokercards") == "without-pokercards.npz"
    assert fold_name("templates/fourcorner") == "without-templates-fourcorner.npz"


def test_the_shipped_pair_learnt_only_from_licensed_sources() -> None:
    shipped = load_generic_profile()
    sets = shipped.info["real"]["sets"]
    assert sets, "the shipped pair records no real corners"
    assert {entry["source"] for entry in sets} <= LICENSED
    assert all(len(entry["sha256"]) == 64 and entry["corners"] > 0 for entry in sets)
    assert shipped.info["real"]["hold_out"] == []
    assert load_learned(NETS).info["real"] == shipped.info["real"]
    notice = (REPO / "vision" / "NOTICE.md").read_text()
    for name in ("card-detection-zk7wu", "poker-cards-cxcvz", "feliksh/CV_18-19"):
        assert name in notice


def test_a_folder_without_sets_is_one_line(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "vision.build.real_build", "--real-glyphs",
                           str(tmp_path), "--out", str(tmp_path / "p.npz"), "--nets-out",
                           str(tmp_path / "n.npz")], capture_output=True, text=True,
                          cwd=REPO, check=False)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"cannot build the generic pair: {tmp_path}: no real glyph sets "
        f"(python -m vision.build.real_glyphs --out {tmp_path})"]
    assert not (tmp_path / "p.npz").exists()


def test_an_unknown_folds_folder_is_refused(tmp_path: Path) -> None:
    GlyphSet.joined([synthetic_glyphs(2, 1)]).save(tmp_path / "pokercards--x.npz")
    done = subprocess.run([sys.executable, "-m", "vision.build.real_build", "--real-glyphs",
                           str(tmp_path), "--folds", str(tmp_path / "none")],
                          capture_output=True, text=True, cwd=REPO, check=False)
    assert done.returncode == 2
    assert f"--folds {tmp_path / 'none'}: no such folder" in done.stderr


def test_the_check_compares_whole_pairs_and_their_real_sets(
        monkeypatch: pytest.MonkeyPatch) -> None:
    shipped = load_generic_profile()
    monkeypatch.setattr(real_build, "build_pair", lambda *_: (shipped, None))
    recorded = RealGlyphs(glyph_set([], [], []), tuple(shipped.info["real"]["sets"]))
    equivalent, figures = real_build.check(generic_profile_path(), recorded,
                                           GenericBuildOptions(), None, test_cards=12)
    assert equivalent, figures
    assert figures["agreement"] == 1.0
    other = RealGlyphs(recorded.glyphs, recorded.manifest[:-1])
    equivalent, figures = real_build.check(generic_profile_path(), other,
                                           GenericBuildOptions(), None, test_cards=12)
    assert not equivalent
    assert figures["same_real_sets"] == 0.0
