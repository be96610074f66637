"""Build the generic deck profile from synthetic cards: `python -m vision.build.generic`.

The generic profile reads decks nobody enrolled. It is trained only on cards this package
draws itself (`vision.build.synth`: ranks in this package's stroke outlines and in the typefaces of
`vision.build.typefaces.TRAINING_FAMILIES` at many weights and widths, "10" or "T", drawn suits of
varied proportions, index layouts from small to jumbo, inks and papers), laid on varied
tables and photographed through varied imperfections (blur, low resolution, noise, JPEG,
perspective, small cards, glare, tinted light), then read through the same corner reader as
real frames. A second, independently seeded set of synthetic decks (same families) tunes the
confidence model (softmax temperatures, novelty limits and the unsure threshold); no real
photo is used, and no card of `vision.build.typefaces.HELD_OUT_FAMILIES`, on which the profile is
measured (`bench/vision.py`).

Building needs OpenCV 5 (its font engine) and the fonts of the trained typeface families
(the Debian font packages `.ci/sysdeps` installs); reading cards with the built profile needs
neither. `--jobs N` draws the synthetic cards in N processes (the same profile for any N).
`--table-share S` draws that share of the training and tuning cards small on a table, as a
hold'em camera sees a board, and `--faint-first` reads their corners, and makes the profile
read, with the ink level nearer the paper first (`Drawing`; both off by default).

The shipped generic profile reads every glyph with two opinions: the build's last step pairs
the perceptrons it trained with the committed learned nets (`vision/build/learned_glyphs.npz`)
under the `either-card` rule (`vision.build.learned_combined`), their pair temperatures fitted
on the same validation decks, each half at its own build's threshold (`--calibration-cards N`
sets one threshold for both on N cards in held-out typefaces instead, seed + 3;
`learned_combined.calibrated_rule`: measured, not shipped). The build is deterministic for a
seed; `--check` rebuilds the perceptrons and compares them with the shipped pair's first
half, and checks that its second half is the committed nets under that rule at each half's
own threshold (or, for a calibrated pair, at the threshold the calibration decks give again).
`tests/vision/test_generic_profile.py` checks the same in seconds on a smaller build.
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from vision.build.synth import (
    BACKGROUNDS,
    CardStyle,
    Effects,
    Placement,
    RenderedCard,
    Scene,
    compose,
    lay_card,
    photograph,
    random_card_style,
    random_effects,
    render_card,
)
from vision.build.training import TrainOptions, train_perceptron
from vision.build.typefaces import TRAINING_FAMILIES, missing
from vision.cards import RANKS, SUITS
from vision.classify import Perceptron, log_softmax
from vision.enroll import TABLE_CARD_WIDTH, Sample, by_photo, class_arrays, drawn_table
from vision.errors import VisionError
from vision.index import CARD_WIDTH_PX, Box, CornerIndex, IndexLayout, read_corners
from vision.learned import load_learned
from vision.profile import (
    ColourModel,
    DeckProfile,
    load_profile,
    save_profile,
)
from vision.recognize import CornerFeatures, decide

PREFIX = 24
"""Training samples whose fingerprint the profile records (see `fingerprint`)."""
GENERIC_LAYOUT = IndexLayout(card_aspect=1.40, width=0.30, height=0.45)
"""The generic profile's index layout as built before `Drawing.faint_first` (Otsu's level first)."""
GENERIC_COLOUR = ColourModel(red_above=0.1, softness=0.025)
"""Black ink has no red excess after the paper's colour is divided out (redness about 0 up
to noise); any red ink has a clear excess. The boundary sits just above the noise."""


@dataclass(frozen=True, slots=True)
class Drawing:
    """How the synthetic cards are drawn and read (the same for training and tuning decks).

    Attributes:
        table_share: Share of the cards drawn as a hold'em camera sees a board (`table_card`):
            75 to 110 pixels across on a drawn table of grain or weave, through a small
            camera. The other cards are drawn as before (`_read_synthetic`).
        faint_first: Read every corner with the ink level nearer the paper first
            (`vision.index.IndexLayout.faint_first`); the profile's layout then says so too.
    """

    table_share: float = 0.0
    faint_first: bool = False

    @property
    def layout(self) -> IndexLayout:
        """The index layout the cards are read with and the profile records."""
        return replace(GENERIC_LAYOUT, faint_first=self.faint_first)

    @classmethod
    def of(cls, info: dict[str, Any]) -> Drawing:
        """The drawing a profile's `info` records (a profile built before it: the defaults)."""
        recorded = info.get("drawing") or {}
        return cls(float(recorded.get("table_share", 0.0)),
                   bool(recorded.get("faint_first", False)))


@dataclass(frozen=True, slots=True)
class GenericBuildOptions:
    """Generic profile build settings.

    Attributes:
        cards: Synthetic cards to train on.
        validation_cards: Synthetic cards (other decks) to tune the confidence model on.
        seed: Seed of the training decks (validation uses seed + 1).
        max_wrong: Largest share of validation answers allowed to be wrong.
        min_unsure_below: The unsure threshold never goes below this (a deck nobody enrolled
            deserves more caution than an enrolled one).
        train: Perceptron training settings.
        jobs: Processes drawing the synthetic cards (the profile does not depend on it).
        drawing: How the training and tuning cards are drawn and read.
        calibration_cards: Synthetic cards (seed + 3) in the held-out
            `vision.build.typefaces.CALIBRATION_FAMILIES` on which the two-opinion profile's
            threshold is set (`vision.build.learned_combined.calibrated_rule`); 0, the
            shipped build's, keeps each opinion at its own build's threshold.
        max_unseen_wrong: The largest share of wrong answers allowed on designs never trained
            on: the calibration cards' share must stay under it with 95% confidence.
        min_pair_unsure_below: The calibrated threshold never goes below this.
    """

    cards: int = 12000
    validation_cards: int = 2500
    seed: int = 2024
    max_wrong: float = 0.001
    min_unsure_below: float = 0.95
    train: TrainOptions = field(default_factory=TrainOptions)
    jobs: int = 1
    drawing: Drawing = field(default_factory=Drawing)
    calibration_cards: int = 0
    max_unseen_wrong: float = 0.005
    min_pair_unsure_below: float = 0.5


BuildProgress = Callable[[str, int, int], None]


def build(options: GenericBuildOptions | None = None, progress: BuildProgress | None = None
          ) -> DeckProfile:
    """Render, train and tune the generic profile."""
    options = options or GenericBuildOptions()
    problems = missing(TRAINING_FAMILIES)
    if problems:
        raise VisionError("cannot build the generic profile here: " + "; ".join(problems))
    started = time.perf_counter()
    drawing = options.drawing
    train = synthetic_samples(options.cards, options.seed, progress, jobs=options.jobs,
                              drawing=drawing)
    validation = synthetic_samples(options.validation_cards, options.seed + 1, progress,
                                   jobs=options.jobs, drawing=drawing)
    return fitted(train, validation, options, started)


def fitted(train: Sequence[Sample], validation: Sequence[Sample],
           options: GenericBuildOptions, started: float, name: str = "generic (synthetic decks)",
           extra: Sequence[Sample] = (), info: dict[str, Any] | None = None) -> DeckProfile:
    """The perceptrons trained on `train` (and `extra`), tuned on `validation`.

    `train` and `validation` are the synthetic decks `options` draws (the first `PREFIX` of
    `train` are fingerprinted); `extra` are further corners to learn from (real ones,
    `vision.build.real_build`), which `info` describes.
    """
    drawing = options.drawing
    learnt = [*train, *extra]
    rank = _fit("rank", learnt, validation, options.train)
    suit = _fit("suit", learnt, validation, options.train)
    profile = DeckProfile(name, "generic", drawing.layout, rank, suit, GENERIC_COLOUR, 1.0, {})
    unsure_below, figures = choose_threshold(profile, validation, options)
    recorded = {"cards": options.cards, "validation_cards": options.validation_cards,
                "seed": options.seed, "samples": len(learnt), "train": asdict(options.train),
                "drawing": asdict(drawing), "prefix": fingerprint(train[:PREFIX])
                } | (info or {}) | {
                "build_seconds": round(time.perf_counter() - started, 1)} | figures
    return DeckProfile(name, "generic", drawing.layout, rank, suit, GENERIC_COLOUR,
                       unsure_below, recorded)


def synthetic_samples(count: int, seed: int, progress: BuildProgress | None = None,
                      families: tuple[str, ...] = TRAINING_FAMILIES,
                      jobs: int = 1, drawing: Drawing | None = None) -> list[Sample]:
    """Corner samples of `count` synthetic cards, each of a newly drawn deck style.

    A corner is kept only if the reader picked the glyphs that were drawn there, so a label
    is never attached to the wrong glyph. Card n depends only on (seed, n, families,
    drawing), so `jobs` processes drawing blocks of cards give the same samples in the same
    order.
    """
    drawing = drawing or Drawing()
    if jobs <= 1 or count < 2 * _BLOCK:
        return _samples_of(range(count), seed, families, progress, drawing)
    blocks = [range(start, min(start + _BLOCK, count)) for start in range(0, count, _BLOCK)]
    samples: list[Sample] = []
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(jobs, mp_context=context) as pool:
        drawn = pool.map(_samples_of, blocks, [seed] * len(blocks), [families] * len(blocks),
                         [None] * len(blocks), [drawing] * len(blocks))
        for block, block_samples in zip(blocks, drawn, strict=True):
            samples.extend(block_samples)
            if progress:
                progress(f"rendered (seed {seed})", block.stop, count)
    return samples


_BLOCK = 500
"""Cards a build process draws at a time."""


def _samples_of(numbers: range, seed: int, families: tuple[str, ...],
                progress: BuildProgress | None = None,
                drawing: Drawing | None = None) -> list[Sample]:
    drawing = drawing or Drawing()
    samples: list[Sample] = []
    count = numbers.stop
    for number in numbers:
        rng = np.random.default_rng([seed, number])
        code = RANKS[int(rng.integers(13))] + SUITS[int(rng.integers(4))]
        style = random_card_style(rng, families)
        samples.extend(Sample(code, number, number % 4, CornerFeatures.of(corner), True, side)
                       for side, corner in _read_synthetic(code, style, number, rng,
                                                           _table_rng(seed, number, drawing),
                                                           drawing.layout))
        if progress and (number + 1) % 500 == 0:
            progress(f"rendered (seed {seed})", number + 1, count)
    return samples


def fingerprint(samples: Sequence[Sample]) -> list[list[Any]]:
    """A compact record of training samples, by which a rebuild shows it drew the same cards.

    Per sample: card, photo number, sums and norms of the rank and suit features, redness.
    """
    return [[s.code, s.photo, round(float(s.features.rank.sum()), 3),
             round(float(np.linalg.norm(s.features.rank)), 4),
             round(float(s.features.suit.sum()), 3),
             round(float(np.linalg.norm(s.features.suit)), 4), round(s.features.redness, 4)]
            for s in samples]


def same_fingerprint(recorded: Any, regenerated: Any, tolerance: float = 2e-3) -> bool:
    """Whether two `fingerprint`s record the same cards.

    The same cards and photos, their sums and norms equal within `tolerance` (relative or
    absolute; another machine's float rounding moves the third decimal of a sum).
    """
    if not isinstance(recorded, list) or not isinstance(regenerated, list) \
            or len(recorded) != len(regenerated):
        return False
    for then, now in zip(recorded, regenerated, strict=True):
        if list(then[:2]) != list(now[:2]) or len(then) != len(now):
            return False
        if not np.allclose(np.asarray(now[2:], np.float64), np.asarray(then[2:], np.float64),
                           rtol=tolerance, atol=tolerance):
            return False
    return True


def _table_rng(seed: int, number: int, drawing: Drawing) -> np.random.Generator | None:
    """The generator of card `number`'s table drawing, or None when it is drawn as before.

    A stream of its own: a build without table cards draws exactly the cards it drew before
    table cards existed.
    """
    if drawing.table_share <= 0:
        return None
    rng = np.random.default_rng([seed, number, _TABLE_STREAM])
    return rng if rng.random() < drawing.table_share else None


_TABLE_STREAM = 7
"""Third seed word of the table drawings' generators."""


def _read_synthetic(code: str, style: CardStyle, number: int, rng: np.random.Generator,
                    table: np.random.Generator | None = None,
                    layout: IndexLayout = GENERIC_LAYOUT) -> list[tuple[int, CornerIndex]]:
    if table is not None:
        scene, width = table_card(code, style, number, table)
        rng = table
    else:
        scene, width = _plain_card(code, style, number, rng)
    truth = scene.cards[0]
    quad = scene.quads[0] + rng.normal(0, 0.008 * width, (4, 2)).astype(np.float32)
    return [(side, corner)
            for side, corner in enumerate(read_corners(scene.frame, quad, layout))
            if corner is not None and _picked_drawn_glyphs(corner, truth)]


def _plain_card(code: str, style: CardStyle, number: int, rng: np.random.Generator
                ) -> tuple[Scene, float]:
    """A card 55 to 330 pixels wide on one of synth's tables, through `training_effects`.

    Returns:
        The scene and the card's width in pixels.
    """
    width = float(rng.uniform(55, 110) if rng.random() < 0.35 else rng.uniform(100, 330))
    side = int(width * style.aspect * 1.3) + 8
    placement = Placement(code, (side / 2, side / 2), width, float(rng.uniform(0, 360)),
                          float(rng.uniform(0, 0.22)), number)
    background = BACKGROUNDS[int(rng.integers(len(BACKGROUNDS)))]
    return compose([placement], (side, side), style, background,
                   training_effects(rng, width), int(rng.integers(1 << 30))), width


def table_card(code: str, style: CardStyle, number: int, rng: np.random.Generator
               ) -> tuple[Scene, float]:
    """A card as a hold'em camera sees one of the board: small, turned, oblique, on a table.

    `vision.enroll.TABLE_CARD_WIDTH` (75 to 110 pixels) across, turned any way, tilted by up
    to 0.15 (an oblique camera), casting a soft shadow on a drawn table of grain lines or a
    weave in any colour (`vision.enroll.drawn_table`), through `table_effects`.

    Returns:
        The scene (one card, its outline and drawing) and the card's width in pixels.
    """
    width = float(rng.uniform(*TABLE_CARD_WIDTH))
    side = int(width * style.aspect * 1.3) + 8
    canvas = drawn_table((side, side), rng)
    card = render_card(code, style, max(200, round(1.5 * width)), number)
    placement = Placement(code, (side / 2, side / 2), width, float(rng.uniform(0, 360)),
                          float(rng.uniform(0, 0.15)), number)
    quad = lay_card(canvas, card.image, card.alpha, placement, float(rng.uniform(0.1, 0.45)))
    frame = photograph(canvas, table_effects(rng, width), rng)
    return Scene(frame, [code], [quad], [card], style), width


def table_effects(rng: np.random.Generator, card_width: float) -> Effects:
    """A table camera's imperfections on a card `card_width` pixels wide.

    Uneven light, a glare spot now and then, focus blur of 0.3 to 1 pixel (at most 1.2% of
    the card's width), sensor noise, a colour cast, washed-out colour, exposure and JPEG 70
    to 94: the camera `vision.build.composite` and `vision.enroll.table_copy` draw.
    """
    return Effects(
        light_gradient=float(rng.uniform(0, 0.2)),
        glare=int(rng.random() < 0.1), glare_strength=float(rng.uniform(30, 70)),
        blur=float(min(rng.uniform(0.3, 1.0), 0.012 * card_width)),
        noise=float(rng.uniform(1, 5)), colour_cast=float(rng.uniform(0, 0.1)),
        jpeg_quality=int(rng.integers(70, 95)), shadow=0.0,
        saturation=float(1.0 - rng.uniform(0, 0.3)), exposure=float(rng.uniform(0.75, 1.1)))


def training_effects(rng: np.random.Generator, card_width: float) -> Effects:
    """The camera imperfections a training card `card_width` pixels wide is seen through.

    Wider than a typical camera's (`vision.build.synth.random_effects`), so blur, low resolution
    and heavy JPEG are learned rather than met for the first time at the table; blur and
    resolution loss are bounded relative to the card's size, so an index is never trained
    on after it stopped being legible (that would only teach the classifiers to doubt).
    """
    effects = random_effects(rng, float(rng.uniform(0.2, 1.2)))
    blur_limit = 0.012 * card_width
    effects = replace(effects, blur=min(effects.blur, blur_limit))
    if rng.random() < 0.15:
        effects = replace(effects, blur=float(rng.uniform(min(1.2, blur_limit), blur_limit)))
    if rng.random() < 0.25:
        effects = replace(effects, downscale=float(rng.uniform(1.3, max(1.3, min(
            2.8, card_width / 55)))))
    if rng.random() < 0.2:
        effects = replace(effects, jpeg_quality=int(rng.integers(30, 55)))
    return effects


def _picked_drawn_glyphs(corner: CornerIndex, truth: RenderedCard) -> bool:
    scale = (CARD_WIDTH_PX, CARD_WIDTH_PX * GENERIC_LAYOUT.card_aspect)
    return (_overlap(corner.rank.box, truth.rank_box, scale) > 0.4
            and _overlap(corner.suit.box, truth.suit_box, scale) > 0.4)


def _overlap(found: Box, drawn: tuple[float, float, float, float],
             scale: tuple[float, float]) -> float:
    """Intersection over union of a found box and a drawn box (card fractions)."""
    x0, y0 = drawn[0] * scale[0], drawn[1] * scale[1]
    x1, y1 = drawn[2] * scale[0], drawn[3] * scale[1]
    width = min(found[2], x1) - max(found[0], x0)
    height = min(found[3], y1) - max(found[1], y0)
    if width <= 0 or height <= 0:
        return 0.0
    inter = width * height
    union = (found[2] - found[0]) * (found[3] - found[1]) + (x1 - x0) * (y1 - y0) - inter
    return float(inter / union)


def _fit(part: str, train: Sequence[Sample], validation: Sequence[Sample],
         options: TrainOptions) -> Perceptron:
    """Train one classifier, then set its temperature and novelty limit on validation."""
    classes, features, labels = class_arrays(train, part)
    model = train_perceptron(classes, features, labels, options)
    _, held, truth = class_arrays(validation, part)
    temperature = fit_scaled_temperature(model.scores(held), truth)
    return Perceptron(classes, model.mean, model.scale, model.weights, temperature,
                      model.reference, _novelty_limit(model, held))


def fit_scaled_temperature(scores: npt.NDArray[np.float32],
                           truth: npt.NDArray[np.integer]) -> float:
    """The softmax temperature that minimises the held-out negative log-likelihood."""
    rows = np.arange(len(truth))
    candidates = np.geomspace(0.3, 10.0, 60)
    losses = [-float(log_softmax(scores / t)[rows, truth].mean()) for t in candidates]
    return float(candidates[int(np.argmin(losses))])


def _novelty_limit(model: Perceptron, held: npt.NDArray[np.float32]) -> float:
    """Three times the 99th percentile of validation glyphs' hidden-space distance."""
    probe = Perceptron(model.classes, model.mean, model.scale, model.weights, 1.0,
                       model.reference, 1.0)
    return float(3.0 * np.quantile(probe.novelty(held), 0.99))


def choose_threshold(profile: DeckProfile, validation: Sequence[Sample],
                     options: GenericBuildOptions) -> tuple[float, dict[str, float]]:
    """The lowest unsure threshold keeping validation mistakes rare.

    Returns:
        The threshold (validation answers wrong at most `max_wrong` of the time) and the
        validation figures at that threshold.
    """
    confidences, right = answers(profile, validation)
    threshold = options.min_unsure_below
    for candidate in np.concatenate([[options.min_unsure_below],
                                     np.linspace(options.min_unsure_below, 0.999, 200)]):
        answered = confidences >= candidate
        wrong = float((answered & ~right).sum()) / max(1, len(right))
        threshold = float(candidate)
        if wrong <= options.max_wrong:
            break
    answered = confidences >= threshold
    return threshold, {"validation_read": float(len(right)),
                       "validation_right": float((answered & right).sum() / len(right)),
                       "validation_answered": float(answered.sum() / len(right)),
                       "validation_wrong": float((answered & ~right).sum() / len(right))}


def answers(profile: DeckProfile, samples: Sequence[Sample]
            ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_]]:
    """Per synthetic card, its confidence and whether its guess is right.

    The confidence is the one it is answered with at any threshold up to it (-1 when a check
    other than confidence leaves it unsure).
    """
    verdicts = []
    for corners in by_photo(samples):
        verdict = decide(profile, [s.features for s in corners], 0.0)
        verdicts.append((verdict.confidence if not verdict.reason else -1.0,
                         verdict.guess == corners[0].code))
    return (np.array([c for c, _ in verdicts], np.float64),
            np.array([r for _, r in verdicts], np.bool_))


def read_all(profile: DeckProfile, samples: Sequence[Sample]) -> list[tuple[str, str | None]]:
    """Per synthetic card: its code and the profile's answer (None when unsure)."""
    readings = []
    for corners in by_photo(samples):
        verdict = decide(profile, [s.features for s in corners], profile.unsure_below)
        readings.append((corners[0].code, None if verdict.reason else verdict.guess))
    return readings


def compare(shipped: DeckProfile, rebuilt: DeckProfile,
            samples: Sequence[Sample]) -> dict[str, float]:
    """How alike two profiles read the same synthetic cards.

    Returns:
        `agreement` (share of cards given the same answer, unsure counting as an answer) and
        each profile's share of cards read right.
    """
    first, second = read_all(shipped, samples), read_all(rebuilt, samples)
    total = max(1, len(first))
    return {"cards": float(len(first)),
            "agreement": sum(a == b for (_, a), (_, b) in zip(first, second, strict=True)) / total,
            "shipped_right": sum(code == answer for code, answer in first) / total,
            "rebuilt_right": sum(code == answer for code, answer in second) / total}


def check(shipped: DeckProfile, options: GenericBuildOptions,
          progress: BuildProgress | None = None,
          test_cards: int = 400) -> tuple[bool, dict[str, float]]:
    """Rebuild the perceptrons with `options` and compare with `shipped`'s on fresh cards.

    Equivalent means: the same training-card fingerprint, the same unsure threshold to within
    0.01, and the same answer on at least 98% of the test cards.
    """
    rebuilt = build(options, progress)
    figures = compare(shipped, rebuilt, synthetic_samples(test_cards, options.seed + 2,
                                                          jobs=options.jobs,
                                                          drawing=options.drawing))
    same_data = same_fingerprint(shipped.info.get("prefix"), rebuilt.info.get("prefix"))
    figures["same_training_cards"] = float(same_data)
    close = abs(shipped.unsure_below - rebuilt.unsure_below) <= 0.01
    return same_data and close and figures["agreement"] >= 0.98, figures


def paired(perceptrons: DeckProfile, options: GenericBuildOptions) -> DeckProfile:
    """The shipped form of the built perceptrons: paired with the committed nets.

    Under `learned_combined.SHIPPED_RULE`, the pair's temperatures fitted on the build's
    validation decks (drawn again, with their maps).
    """
    from vision.build import learned_combined  # it builds on this module

    return learned_combined.combined_profile(
        perceptrons, load_learned(learned_combined.NETS),
        learned_combined.validation_glyphs(options), options,
        rule=learned_combined.SHIPPED_RULE,
        calibration=learned_combined.calibration_glyphs(options))


def check_pair(path: Path, options: GenericBuildOptions, progress: BuildProgress | None = None,
               test_cards: int = 400) -> tuple[bool, dict[str, float], list[str]]:
    """`check` the pair at `path`'s perceptrons, and that its nets and rule are the committed.

    Returns:
        Whether both halves are as built, `check`'s figures, and what differs in the second
        half (`learned_combined.pair_problems`).
    """
    from vision.build import learned_combined  # it builds on this module

    shipped = load_profile(path)
    equivalent, figures = check(learned_combined.perceptron_half(shipped), options, progress,
                                test_cards)
    calibration = learned_combined.calibration_glyphs(options)
    problems = learned_combined.pair_problems(shipped, load_learned(learned_combined.NETS),
                                              calibration=calibration, options=options)
    return equivalent and not problems, figures, problems


def main(argv: Sequence[str] | None = None) -> int:
    """Build the generic profile and write it (by default into the package's data folder)."""
    parser = argparse.ArgumentParser(prog="python -m vision.build.generic",
                                     description="Build the generic deck profile.")
    parser.add_argument("--out", required=True,
                        help="output .npz file (the shipped pair, learnt from real corners "
                             "too, is built by python -m vision.build.real_build)")
    defaults = GenericBuildOptions()
    parser.add_argument("--cards", type=int, default=defaults.cards)
    parser.add_argument("--validation-cards", type=int, default=defaults.validation_cards)
    parser.add_argument("--seed", type=int, default=defaults.seed)
    parser.add_argument("--jobs", type=int, default=defaults.jobs,
                        help="processes drawing the synthetic cards (same profile for any)")
    parser.add_argument("--table-share", type=float, default=defaults.drawing.table_share,
                        help="share of the cards drawn small on a table (table_card)")
    parser.add_argument("--faint-first", action=argparse.BooleanOptionalAction,
                        default=defaults.drawing.faint_first,
                        help="read corners with the ink level nearer the paper first")
    parser.add_argument("--calibration-cards", type=int, default=defaults.calibration_cards,
                        help="cards in held-out designs the pair's threshold is set on "
                             "(0: each opinion's own)")
    parser.add_argument("--check", action="store_true",
                        help="rebuild and compare with --out instead of writing it")
    parser.add_argument("--perceptrons-only", action="store_true",
                        help="write the perceptrons alone, not paired with the nets "
                             "(for measuring)")
    args = parser.parse_args(argv)
    if not 0.0 <= args.table_share <= 1.0:
        parser.error(f"--table-share {args.table_share} must lie between 0 and 1")
    if args.calibration_cards < 0:
        parser.error(f"--calibration-cards {args.calibration_cards} must be 0 or more")
    options = GenericBuildOptions(args.cards, args.validation_cards, args.seed,
                                  jobs=max(1, args.jobs),
                                  drawing=Drawing(args.table_share, args.faint_first),
                                  calibration_cards=args.calibration_cards)

    def report(stage: str, done: int, total: int) -> None:
        sys.stderr.write(f"{stage}: {done}/{total}\n")

    try:
        if args.check:
            equivalent, figures, problems = check_pair(Path(args.out), options, report)
            sys.stdout.write(f"{'equivalent' if equivalent else 'DIFFERENT'}: {figures}"
                             + "".join(f"; {problem}" for problem in problems) + "\n")
            return 0 if equivalent else 1
        profile = build(options, report)
        if not args.perceptrons_only:
            profile = paired(profile, options)
    except VisionError as error:
        sys.stderr.write(f"cannot build the generic profile: {error}\n")
        return 2
    save_profile(profile, Path(args.out))
    sys.stdout.write(f"wrote {args.out}: {dict(profile.info)}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
