"""The generic profile's two opinions: the perceptrons and the learned nets read each glyph.

    python -m vision.build.learned_combined --perceptrons FILE --out FILE [--nets FILE]
        [--glyphs FILE] [--pair-temperature T] [--rule mean|either|either-card] [--jobs N]
        [--calibration-cards N] [--calibration-glyphs FILE]

The shipped perceptrons (`vision.build.generic`) and the learned nets (`vision.build.learned`)
err differently: on the dev deck's Queen the nets name the rank right and the perceptrons do
not. Read together (`vision.classify.TwoOpinions`), a glyph's probabilities are the
renormalised geometric mean of the two classifiers', through one temperature per part; it is
novel where either finds it novel, and an answer needs both to name the same rank and suit.
Each classifier keeps its own temperature and novelty limit; the pair's temperatures and the
unsure threshold are set on the generic build's own synthetic validation decks, by its own
rules (`vision.build.generic.fit_scaled_temperature` and `choose_threshold`: the wrong-answer
budget, the 0.95 floor). No real photo or composite tunes anything.

`--rule either` answers a card by a different rule (`vision.profile.PairRule`): when both
classifiers name it on every corner and at least one of them, read alone through every
check, answers it at a threshold (`--rule either-card`: when both name the same card, each
one's corners combined). That threshold is each classifier's own build's; with
`--calibration-cards N` it is one for both, set on calibration decks: N synthetic cards in
held-out typeface families the build never trains on
(`vision.build.typefaces.CALIBRATION_FAMILIES`), the lowest at which their share answered
wrong stays under 0.5% with 95% confidence (`calibrated_rule`; measured, not shipped). The
validation decks then only confirm that its wrong answers keep within the build's budget
(`choose_threshold` raises a floor if not). The held-out families left
(`vision.build.typefaces.UNTUNED_FAMILIES`) measure it on designs nothing in the build saw.

The command combines a built perceptron profile (or a pair's perceptrons) with nets and
writes the pair as a profile (version 2, `vision.profile`), for measuring
(`bench/vision_learned.py --profile FILE`). The shipped generic profile is such a pair,
under `either-card` (`SHIPPED_RULE`): `vision.build.generic` builds the perceptrons and pairs
them with the committed nets, and its `--check` verifies both halves (`perceptron_half`,
`pair_problems`; decision 163 "Vision: two opinions of every glyph").
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from vision.build.generic import (
    Drawing,
    GenericBuildOptions,
    answers,
    choose_threshold,
    fit_scaled_temperature,
)
from vision.build.learned_data import GlyphSet, synthetic_glyphs
from vision.build.typefaces import CALIBRATION_FAMILIES
from vision.classify import GlyphClassifier, Perceptron, TwoOpinions
from vision.enroll import Sample
from vision.errors import VisionError
from vision.features import RANK_BOX, SUIT_BOX, feature_length
from vision.learned import ConvGlyphClassifier, LearnedGlyphs, load_learned
from vision.profile import DeckProfile, PairRule, load_profile, save_profile
from vision.recognize import CornerFeatures

NETS = Path(__file__).resolve().parent / "learned_glyphs.npz"
"""The learned nets the generic profile is built with."""
SHIPPED_RULE = "either-card"
"""The pair rule of the shipped generic profile."""
_PAIR_INFO = ("perceptrons", "nets", "pair_temperature", "pair_rule", "calibration")
"""Keys `combined_profile` adds to the perceptrons' info (besides the pair's own figures)."""


def combined_profile(perceptrons: DeckProfile, nets: LearnedGlyphs, validation: GlyphSet,
                     options: GenericBuildOptions | None = None,
                     temperature: float | None = None, rule: str = "mean",
                     calibration: GlyphSet | None = None) -> DeckProfile:
    """The perceptron profile reading every glyph with the nets too, tuned on `validation`.

    `validation` holds the corners of the synthetic decks the perceptrons were tuned on,
    with both their HOG features and their maps (`vision.build.learned_data`). The pair's
    temperatures are fitted there too unless `temperature` is given (for measuring: 0.5
    makes the pair's probabilities the renormalised product of the two, as if the opinions
    were independent). `rule` is the pair's (`vision.profile.PairRule`): under "either" each
    classifier answers at its own build's threshold, or, given `calibration` (the corners of
    synthetic decks in designs never trained on, `calibration_glyphs`), at one threshold
    for both set there (`calibrated_rule`); the threshold chosen on `validation` is only a
    floor under them.
    """
    options = options or GenericBuildOptions()
    if not isinstance(perceptrons.rank, Perceptron) or not isinstance(perceptrons.suit,
                                                                      Perceptron):
        raise VisionError("two opinions need a profile of perceptrons "
                          f"({perceptrons.name!r} has other classifiers)")
    rank = _paired(perceptrons.rank, nets.rank, validation, "rank", temperature)
    suit = _paired(perceptrons.suit, nets.suit, validation, "suit", temperature)
    pair_rule = pair_rule_of(rule, perceptrons, nets)
    provisional = DeckProfile(perceptrons.name, "generic", perceptrons.layout, rank, suit,
                              perceptrons.colour, 1.0, {}, pair=pair_rule)
    pair: dict[str, Any] = {
        "pair_temperature": "fitted on validation" if temperature is None else "given",
        "pair_rule": rule}
    floor = options
    if calibration is not None and rule != "mean":
        pair_rule, pair["calibration"] = calibrated_rule(provisional, calibration, options)
        provisional = replace(provisional, pair=pair_rule)
        floor = replace(options, min_unsure_below=pair_rule.unsure_below[0])
    unsure_below, figures = choose_threshold(provisional, combined_samples(validation), floor)
    return DeckProfile(perceptrons.name, "generic", perceptrons.layout, rank, suit,
                       perceptrons.colour, unsure_below,
                       _info(perceptrons, nets, figures) | pair, pair=pair_rule)


def pair_rule_of(rule: str, perceptrons: DeckProfile, nets: LearnedGlyphs) -> PairRule:
    """The pair rule `rule`, under "either" rules with each opinion's own build's threshold."""
    if rule == "mean":
        return PairRule()
    if rule in ("either", "either-card"):
        return PairRule(rule, (perceptrons.unsure_below, nets.unsure_below))
    raise VisionError(f"unknown pair rule {rule!r} (mean, either or either-card)")


def calibrated_rule(pair: DeckProfile, calibration: GlyphSet, options: GenericBuildOptions
                    ) -> tuple[PairRule, dict[str, Any]]:
    """`pair`'s rule with one threshold for both opinions, set on designs never trained on.

    The lowest threshold, from `options.min_pair_unsure_below` up, at which the share of the
    calibration cards answered wrong stays under `options.max_unseen_wrong` with 95%
    confidence (`wilson_upper`). Returns the rule and the calibration's figures.
    """
    floor = options.min_pair_unsure_below
    provisional = replace(pair, pair=PairRule(pair.pair.rule, (floor, floor)))
    confidences, right = answers(provisional, combined_samples(calibration))
    threshold = 0.999
    for candidate in np.linspace(floor, 0.999, 200):
        wrong = int((confidences >= candidate)[~right].sum())
        if wilson_upper(wrong, len(right)) <= options.max_unseen_wrong:
            threshold = float(candidate)
            break
    answered = confidences >= threshold
    wrong = int((answered & ~right).sum())
    read = max(1, len(right))
    return PairRule(pair.pair.rule, (threshold, threshold)), {
        "families": list(CALIBRATION_FAMILIES), "cards": options.calibration_cards,
        "seed": options.seed + 3, "read": len(right), "threshold": threshold,
        "right": float((answered & right).sum() / read),
        "answered": float(answered.sum() / read), "wrong": wrong / read,
        "wrong_upper_95": wilson_upper(wrong, len(right)),
        "max_unseen_wrong": options.max_unseen_wrong}


def wilson_upper(wrong: int, read: int, z: float = 1.6449) -> float:
    """The one-sided upper bound of the share `wrong` of `read`; 1.0 when nothing was read.

    Wilson's score interval; `z` 1.6449 for 95% confidence.
    """
    if read <= 0:
        return 1.0
    share, spread = wrong / read, z * z / read
    centre = share + spread / 2
    margin = z * math.sqrt(share * (1 - share) / read + spread / (4 * read))
    return min(1.0, (centre + margin) / (1 + spread))


def calibration_glyphs(options: GenericBuildOptions) -> GlyphSet | None:
    """The calibration decks' corners (None for no cards: each opinion keeps its own threshold).

    `options.calibration_cards` cards of seed + 3 in the held-out `CALIBRATION_FAMILIES`,
    drawn as the validation decks are.
    """
    if options.calibration_cards <= 0:
        return None
    return synthetic_glyphs(options.calibration_cards, options.seed + 3, CALIBRATION_FAMILIES,
                            drawing=options.drawing, jobs=options.jobs)


def _paired(first: Perceptron, second: ConvGlyphClassifier, validation: GlyphSet,
            part: str, temperature: float | None = None) -> TwoOpinions:
    """The part's two opinions, their mean's temperature fitted on the validation corners."""
    hog = validation.rank_features if part == "rank" else validation.suit_features
    if temperature is not None:
        return TwoOpinions(first, second, hog.shape[1], temperature)
    maps = validation.ranks if part == "rank" else validation.suits
    pair = TwoOpinions(first, second, hog.shape[1], 1.0)
    mean = pair.log_probabilities(np.concatenate([hog, maps.reshape(len(maps), -1)], axis=1))
    temperature = fit_scaled_temperature(mean, validation.labels(part))
    return TwoOpinions(first, second, hog.shape[1], temperature)


def _info(perceptrons: DeckProfile, nets: LearnedGlyphs, figures: dict[str, float]
          ) -> dict[str, Any]:
    """The perceptron profile's provenance, each opinion's own threshold and figures, the pair's."""
    own = {key: value for key, value in perceptrons.info.items()
           if not key.startswith("validation_")}
    alone = {key: value for key, value in perceptrons.info.items()
             if key.startswith("validation_")}
    return own | figures | {
        "perceptrons": {"unsure_below": perceptrons.unsure_below} | alone,
        "nets": {"unsure_below": nets.unsure_below} | {
            key: value for key, value in nets.info.items()
            if key.startswith("validation_") or key in ("net", "train_corners", "drawing")}}


def combined_samples(glyphs: GlyphSet) -> list[Sample]:
    """The set's corners as samples whose features are the HOG features, then the maps."""
    ranks = np.concatenate([glyphs.rank_features, glyphs.ranks.reshape(len(glyphs), -1)], axis=1)
    suits = np.concatenate([glyphs.suit_features, glyphs.suits.reshape(len(glyphs), -1)], axis=1)
    return [Sample(str(code), int(card), int(card) % 4,
                   CornerFeatures(rank, suit, float(redness)), True)
            for code, card, rank, suit, redness in zip(
                glyphs.codes, glyphs.cards, ranks.astype(np.float32), suits.astype(np.float32),
                glyphs.redness, strict=True)]


def one_opinion(profile: DeckProfile, which: str) -> DeckProfile:
    """A two-opinion profile's perceptrons ("perceptrons") or nets ("nets") alone.

    Each at the unsure threshold its own build chose, for measuring the pair against them.
    The nets' profile reads maps only (`vision.build.learned_reader.LearnedRecognizer`).
    """
    if not isinstance(profile.rank, TwoOpinions) or not isinstance(profile.suit, TwoOpinions):
        raise VisionError(f"{profile.name!r} does not read with two opinions")

    def part(pair: TwoOpinions) -> GlyphClassifier:
        return pair.first if which == "perceptrons" else pair.second

    return DeckProfile(f"{profile.name} ({which} alone)", profile.kind, profile.layout,
                       part(profile.rank), part(profile.suit), profile.colour,
                       float(profile.info[which]["unsure_below"]),
                       dict(profile.info[which]))


def perceptron_half(pair: DeckProfile) -> DeckProfile:
    """The perceptron profile `pair` was combined from, as `vision.build.generic` wrote it.

    Its classifiers, threshold, provenance and validation figures; a profile of perceptrons
    is returned as it is.
    """
    if isinstance(pair.rank, Perceptron) and isinstance(pair.suit, Perceptron):
        return pair
    if not (isinstance(pair.rank, TwoOpinions) and isinstance(pair.suit, TwoOpinions)
            and isinstance(pair.info.get("perceptrons"), dict)):
        raise VisionError(f"{pair.name!r} is neither perceptrons nor a pair combined from them")
    alone = dict(pair.info["perceptrons"])
    own = {key: value for key, value in pair.info.items()
           if not key.startswith("validation_") and key not in _PAIR_INFO}
    return DeckProfile(pair.name, pair.kind, pair.layout, pair.rank.first, pair.suit.first,
                       pair.colour, float(alone.pop("unsure_below")), own | alone)


def pair_problems(pair: DeckProfile, nets: LearnedGlyphs, rule: str = SHIPPED_RULE,
                  calibration: GlyphSet | None = None,
                  options: GenericBuildOptions | None = None) -> list[str]:
    """How `pair` differs from its perceptrons combined with `nets` under `rule` (none: []).

    Its second opinions must be the nets as they were saved (ONNX bytes, reference
    embeddings, temperatures, novelty limits), and its rule `rule` at each half's own
    threshold (`pair_rule_of`), or, for a calibrated pair, at the threshold its calibration
    recorded; given the calibration decks' corners, that threshold is set again on them
    (`calibrated_rule`, under `options`) and must come out within 0.01.
    """
    if not (isinstance(pair.rank, TwoOpinions) and isinstance(pair.suit, TwoOpinions)):
        return [f"{pair.name!r} does not read with two opinions"]
    problems = [problem for part in ("rank", "suit")
                if (problem := _net_problem(part, getattr(pair, part).second,
                                            getattr(nets, part)))]
    recorded = pair.info.get("calibration")
    wanted = (PairRule(rule, (recorded["threshold"],) * 2) if isinstance(recorded, dict)
              else pair_rule_of(rule, perceptron_half(pair), nets))
    if pair.pair != wanted:
        problems.append(f"its pair rule is {pair.pair}, not {wanted}")
    elif isinstance(recorded, dict) and calibration is not None:
        again, _ = calibrated_rule(pair, calibration, options or GenericBuildOptions())
        if abs(again.unsure_below[0] - recorded["threshold"]) > 0.01:
            problems.append(f"its calibrated threshold {recorded['threshold']:.4f} comes out "
                            f"{again.unsure_below[0]:.4f} on the calibration decks")
    return problems


def _net_problem(part: str, ours: GlyphClassifier, committed: ConvGlyphClassifier) -> str:
    """What differs between a pair's `part` net and the committed one ("" when nothing)."""
    if not isinstance(ours, ConvGlyphClassifier) or ours.onnx != committed.onnx:
        return f"its {part} net is not the committed one"
    saved = committed.reference.astype(np.float16).astype(np.float32)
    if ((ours.size, ours.temperature, ours.novelty_distance)
            != (committed.size, committed.temperature, committed.novelty_distance)
            or not np.array_equal(ours.reference, saved)):
        return f"its {part} net's tuning is not the committed one's"
    return ""


def check_hog_lengths(profile: DeckProfile) -> None:
    """Refuse a perceptron profile whose inputs are not this package's HOG features."""
    for part, box in (("rank", RANK_BOX), ("suit", SUIT_BOX)):
        classifier = getattr(profile, part)
        if isinstance(classifier, Perceptron) and classifier.mean.shape != (feature_length(box),):
            raise VisionError(f"{profile.name!r}: its {part} perceptrons read "
                              f"{classifier.mean.shape} features, not this package's HOG")


def validation_glyphs(options: GenericBuildOptions) -> GlyphSet:
    """The generic build's validation decks' corners, with HOG features and maps."""
    return synthetic_glyphs(options.validation_cards, options.seed + 1,
                            drawing=options.drawing, jobs=options.jobs)


def _calibration_of(args: argparse.Namespace, options: GenericBuildOptions
                    ) -> GlyphSet | None:
    """The calibration corners the command line asks for (None: each opinion's own threshold)."""
    if args.rule == "mean" or options.calibration_cards <= 0:
        return None
    if args.calibration_glyphs:
        return GlyphSet.load(Path(args.calibration_glyphs))
    return calibration_glyphs(options)


def main(argv: Sequence[str] | None = None) -> int:
    """Combine a perceptron profile with nets and write the two-opinion profile."""
    parser = argparse.ArgumentParser(prog="python -m vision.build.learned_combined",
                                     description="Read every glyph with two opinions.")
    parser.add_argument("--perceptrons", required=True,
                        help="a generic profile of perceptrons, or a pair (its perceptrons)")
    parser.add_argument("--nets", default=str(NETS), help="learned nets (vision.build.learned)")
    parser.add_argument("--out", required=True, help="output .npz file")
    parser.add_argument("--glyphs", default="",
                        help="the validation decks' corners, saved by vision.build.learned "
                             "--glyph-cache (drawn anew when not given)")
    parser.add_argument("--jobs", type=int, default=1, help="processes drawing the cards")
    parser.add_argument("--pair-temperature", type=float, default=None,
                        help="the pair's temperature instead of the one fitted on validation "
                             "(measuring only: 0.5 multiplies the two opinions)")
    parser.add_argument("--rule", choices=("mean", "either", "either-card"), default="mean",
                        help="how the pair answers a card (vision.profile.PairRule)")
    parser.add_argument("--calibration-cards", type=int,
                        default=GenericBuildOptions().calibration_cards,
                        help="cards in held-out designs the threshold of an 'either' rule is "
                             "set on (0, the default: each opinion's own build's threshold)")
    parser.add_argument("--calibration-glyphs", default="",
                        help="those cards' corners, saved as a glyph set (drawn anew when not "
                             "given)")
    args = parser.parse_args(argv)
    if args.pair_temperature is not None and not args.pair_temperature > 0:
        parser.error(f"--pair-temperature {args.pair_temperature} must be above 0")
    if args.calibration_cards < 0:
        parser.error(f"--calibration-cards {args.calibration_cards} must be 0 or more")
    try:
        perceptrons = perceptron_half(load_profile(Path(args.perceptrons)))
        check_hog_lengths(perceptrons)
        options = GenericBuildOptions(
            int(perceptrons.info["cards"]), int(perceptrons.info["validation_cards"]),
            int(perceptrons.info["seed"]), jobs=max(1, args.jobs),
            drawing=Drawing.of(dict(perceptrons.info)),
            calibration_cards=args.calibration_cards)
        glyphs = (GlyphSet.load(Path(args.glyphs)) if args.glyphs
                  else validation_glyphs(options))
        profile = combined_profile(perceptrons, load_learned(Path(args.nets)), glyphs, options,
                                   args.pair_temperature, args.rule,
                                   _calibration_of(args, options))
    except (VisionError, KeyError) as error:
        sys.stderr.write(f"cannot combine: {error}\n")
        return 2
    save_profile(profile, Path(args.out))
    figures = {k: v for k, v in profile.info.items() if k.startswith("validation_")}
    calibrated = profile.info.get("calibration")
    if isinstance(calibrated, dict):
        sys.stdout.write(f"calibrated on {calibrated['read']} cards of held-out designs: "
                         f"threshold {calibrated['threshold']:.4f}, {calibrated['right']:.2%} "
                         f"right, {calibrated['wrong']:.3%} wrong (at most "
                         f"{calibrated['wrong_upper_95']:.3%} at 95%)\n")
    sys.stdout.write(f"wrote {args.out}: unsure below {profile.unsure_below:.3f}, "
                     f"temperatures {profile.rank.temperature:.3f} (rank), "  # type: ignore[attr-defined]
                     f"{profile.suit.temperature:.3f} (suit), {figures}\n")  # type: ignore[attr-defined]
    return 0


if __name__ == "__main__":
    sys.exit(main())
