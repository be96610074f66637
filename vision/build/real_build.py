"""The generic profile and its nets, learnt from synthetic decks and real corners.

    python -m vision.build.real_build --real-glyphs DIR [--out FILE] [--nets-out FILE]
        [--glyph-cache DIR] [--jobs N] [--check]
    python -m vision.build.real_build --real-glyphs DIR --folds OUT

Both halves of the shipped pair learn from the generic build's synthetic decks
(`vision.build.generic`, `vision.build.learned`: the same seeds, the same drawing) and from
the real corners of the licensed photos of `shared/cards-train`
(`vision.build.real_glyphs`), each real corner seen `REPEAT` times a pass. Everything that
tunes them stays synthetic: the temperatures, the novelty limits, the unsure thresholds and
the pair's rule are set on the build's synthetic validation decks, by the build's own rules.
So a real photo teaches glyphs and never sets how sure the reader must be.

`DIR` holds the glyph sets `python -m vision.build.real_glyphs --out DIR` writes; a set
whose source's licence does not allow a shipped model to learn from it is refused. The
profile records each set's name, source, corners and SHA-256 (`info["real"]`).

`--folds OUT` builds, for each source the sets hold, the pair learnt without that source:
`OUT/without-<source>.npz`, the profile `bench/vision.py --section by-source --folds OUT`
reads that source with, so every figure of a source is measured by a model that never saw
it. `--check` rebuilds and compares with `--out` (as `vision.build.generic --check` does).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from vision.build import learned_combined
from vision.build.generic import (
    GenericBuildOptions,
    compare,
    fitted,
    same_fingerprint,
)
from vision.build.learned import NetOptions, _glyphs, build_learned
from vision.build.learned_data import GlyphSet, synthetic_glyphs
from vision.build.real_glyphs import RealGlyphs, load_real_glyphs, safe_name
from vision.enroll import Sample
from vision.errors import VisionError
from vision.learned import LearnedGlyphs, save_learned
from vision.profile import DeckProfile, generic_profile_path, load_profile, save_profile
from vision.recognize import CornerFeatures

REPEAT = 2
"""Times each real corner is seen a pass: about 5,000 real corners beside 22,000 drawn."""
NAME = "generic (synthetic decks and real corners)"


def samples_of(glyphs: GlyphSet) -> list[Sample]:
    """The set's corners as the perceptrons learn them: HOG features, one photo a card."""
    return [Sample(str(code), int(card), int(card) % 4, CornerFeatures(rank, suit, float(red)),
                   True)
            for code, card, rank, suit, red in zip(
                glyphs.codes, glyphs.cards, glyphs.rank_features, glyphs.suit_features,
                glyphs.redness, strict=True)]


def build_pair(real: RealGlyphs, hold_out: Sequence[str], options: GenericBuildOptions,
               cache: Path | None, progress: bool = False
               ) -> tuple[DeckProfile, LearnedGlyphs]:
    """The pair (the profile) and its nets, learnt from the synthetic decks and `real`."""
    started = time.perf_counter()
    drawing = options.drawing
    train = _glyphs(cache, "train", options.cards, options.seed, drawing, options.jobs)
    validation = _glyphs(cache, "validation", options.validation_cards, options.seed + 1,
                         drawing, options.jobs)
    info = {"real": {"sets": list(real.manifest), "repeat": REPEAT,
                     "hold_out": list(hold_out)}}
    perceptrons = fitted(samples_of(train), samples_of(validation), options, started, NAME,
                         samples_of(real.glyphs) * REPEAT, info)
    nets = build_learned(GlyphSet.joined([train] + [real.glyphs] * REPEAT), validation,
                         NetOptions(), progress=progress)
    nets = LearnedGlyphs(nets.rank, nets.suit, nets.unsure_below, dict(nets.info) | info)
    pair = learned_combined.combined_profile(
        perceptrons, nets, validation, options, rule=learned_combined.SHIPPED_RULE,
        calibration=learned_combined.calibration_glyphs(options))
    return pair, nets


def fold_name(source: str) -> str:
    """The file of the pair learnt without `source` in a folds folder."""
    return f"without-{safe_name(source)}.npz"


def check(path: Path, real: RealGlyphs, options: GenericBuildOptions, cache: Path | None,
          test_cards: int = 400) -> tuple[bool, dict[str, float]]:
    """Rebuild the pair and compare it with the one at `path` on fresh synthetic cards.

    Equivalent means: the same real sets (by SHA-256), the same training-card fingerprint,
    the same unsure threshold to within 0.01, and the same answer on at least 98% of the
    test cards.
    """
    shipped = load_profile(path)
    rebuilt, _ = build_pair(real, (), options, cache)
    fresh = synthetic_glyphs(test_cards, options.seed + 2, drawing=options.drawing,
                             jobs=options.jobs)
    figures = compare(shipped, rebuilt, learned_combined.combined_samples(fresh))
    same_sets = shipped.info.get("real", {}).get("sets") == list(real.manifest)
    same_cards = same_fingerprint(shipped.info.get("prefix"), rebuilt.info.get("prefix"))
    figures["same_real_sets"] = float(same_sets)
    figures["same_training_cards"] = float(same_cards)
    close = abs(shipped.unsure_below - rebuilt.unsure_below) <= 0.01
    return same_sets and same_cards and close and figures["agreement"] >= 0.98, figures


def main(argv: Sequence[str] | None = None) -> int:
    """Build the pair and its nets (or the folds, or check the shipped pair)."""
    parser = argparse.ArgumentParser(prog="python -m vision.build.real_build",
                                     description="The generic pair, learnt from synthetic "
                                                 "decks and real corners.")
    parser.add_argument("--real-glyphs", required=True,
                        help="folder of real glyph sets (python -m vision.build.real_glyphs)")
    parser.add_argument("--out", default=str(generic_profile_path()), help="the pair's file")
    parser.add_argument("--nets-out", default=str(learned_combined.NETS),
                        help="the nets' file")
    parser.add_argument("--folds", default="",
                        help="build one pair without each source into this folder instead")
    parser.add_argument("--glyph-cache", default="",
                        help="folder keeping the drawn corners between runs (build data)")
    parser.add_argument("--jobs", type=int, default=1, help="processes drawing the cards")
    parser.add_argument("--check", action="store_true",
                        help="rebuild and compare with --out instead of writing it")
    args = parser.parse_args(argv)
    cache = Path(args.glyph_cache) if args.glyph_cache else None
    for flag, folder in (("--glyph-cache", cache), ("--folds", Path(args.folds or "."))):
        if folder is not None and not folder.is_dir():
            parser.error(f"{flag} {folder}: no such folder")
    options = GenericBuildOptions(jobs=max(1, args.jobs))
    try:
        real = load_real_glyphs(Path(args.real_glyphs))
        if args.check:
            equivalent, figures = check(Path(args.out), real, options, cache)
            sys.stdout.write(f"{'equivalent' if equivalent else 'DIFFERENT'}: {figures}\n")
            return 0 if equivalent else 1
        if args.folds:
            for source in dict.fromkeys(entry["source"] for entry in real.manifest):
                pair, _ = build_pair(load_real_glyphs(Path(args.real_glyphs), (source,)),
                                     (source,), options, cache, progress=True)
                path = Path(args.folds) / fold_name(source)
                save_profile(pair, path)
                sys.stdout.write(f"wrote {path}: unsure below {pair.unsure_below:.3f}\n")
            return 0
        pair, nets = build_pair(real, (), options, cache, progress=True)
    except VisionError as error:
        sys.stderr.write(f"cannot build the generic pair: {error}\n")
        return 2
    save_learned(nets, Path(args.nets_out))
    save_profile(pair, Path(args.out))
    sys.stdout.write(f"wrote {args.nets_out} and {args.out}: unsure below "
                     f"{pair.unsure_below:.3f}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
