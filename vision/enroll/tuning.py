"""The confidence model, tuned by cross-validation inside the enrolment set."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from vision.cards import RANKS, RED_SUITS, SUITS
from vision.classify import NearestNeighbours, log_softmax
from vision.enroll.options import EnrolOptions
from vision.enroll.samples import Sample, _by_shot, class_arrays
from vision.errors import DatasetError
from vision.index import IndexLayout
from vision.profile import ColourModel, DeckProfile
from vision.recognize import (
    NOVEL,
    CardVerdict,
    CornerFeatures,
    assess_corners,
    lone_corner,
    verdict_of,
)


@dataclass(frozen=True, slots=True)
class _HeldOut:
    code: str
    corners: list[CornerFeatures]
    rank_distances: npt.NDArray[np.float32]
    suit_distances: npt.NDArray[np.float32]


@dataclass(frozen=True, slots=True)
class _Tuning:
    rank_temperature: float
    suit_temperature: float
    rank_novelty: float
    suit_novelty: float
    colour: ColourModel


def _nearest(samples: Sequence[Sample], part: str, temperature: float = 1.0,
             novelty: float = np.inf) -> NearestNeighbours:
    return NearestNeighbours(*class_arrays(samples, part), temperature, novelty)


def _held_out_folds(samples: Sequence[Sample], folds: int, glare: bool = True
                    ) -> Iterator[tuple[list[Sample], list[list[Sample]]]]:
    """Per fold: the samples of the other folds, and the fold's held-out shots.

    A shot is a held-out photo as taken or one of its table copies or (with `glare`) glare
    copies; its corners go together.
    Folds whose training samples miss a rank or a suit, or that hold no original sample,
    are left out.
    """
    for fold in range(folds):
        train = [s for s in samples if s.fold != fold]
        test = [s for s in samples
                if s.fold == fold and (s.original or s.on_table or (glare and s.glared))]
        if any(s.original for s in test) and _covers_all(train):
            yield train, _by_shot(test)


def _cross_validate(samples: Sequence[Sample], folds: int) -> list[_HeldOut]:
    held_out: list[_HeldOut] = []
    # a glare-washed corner lies far from every sample: letting it set the novelty limits
    # would loosen them to twice (measured on the dev deck); glare copies only test the
    # thresholds
    for train, photos in _held_out_folds(samples, folds, glare=False):
        rank_model, suit_model = _nearest(train, "rank"), _nearest(train, "suit")
        held_out += [_HeldOut(
            corners[0].code, [s.features for s in corners],
            rank_model.class_distances(np.stack([s.features.rank for s in corners])),
            suit_model.class_distances(np.stack([s.features.suit for s in corners])))
            for corners in photos]
    if not held_out:
        raise DatasetError("too few photos to cross-validate: every rank and suit needs photos "
                           "in at least two folds (two photos of each card is enough)")
    return held_out


def _covers_all(samples: Sequence[Sample]) -> bool:
    return {s.code[0] for s in samples} == set(RANKS) and {s.code[1] for s in samples} == set(
        SUITS)


def _tune(held_out: Sequence[_HeldOut]) -> _Tuning:
    rank_rows = np.concatenate([h.rank_distances for h in held_out])
    suit_rows = np.concatenate([h.suit_distances for h in held_out])
    rank_truth = np.concatenate([[RANKS.index(h.code[0])] * len(h.corners) for h in held_out])
    suit_truth = np.concatenate([[SUITS.index(h.code[1])] * len(h.corners) for h in held_out])
    redness = np.array([c.redness for h in held_out for c in h.corners])
    red = np.array([h.code[1] in RED_SUITS for h in held_out for _ in h.corners])
    return _Tuning(fit_temperature(rank_rows, rank_truth), fit_temperature(suit_rows, suit_truth),
                   novelty_limit(rank_rows, rank_truth), novelty_limit(suit_rows, suit_truth),
                   fit_colour(redness[red], redness[~red]))


def fit_temperature(distances: npt.NDArray[np.float32], truth: npt.NDArray[np.integer]) -> float:
    """Softmax temperature that best predicts held-out labels from class distances.

    It never falls below a tenth of the median margin between the true class and the nearest
    other class, so a set with no held-out mistakes still yields graded confidences.
    """
    rows = np.arange(len(truth))
    true_distance = distances[rows, truth]
    others = distances.copy()
    others[rows, truth] = np.inf
    margin = float(np.median(others.min(axis=1) - true_distance))
    floor = max(0.1 * margin, 1e-3)
    candidates = np.geomspace(floor, max(floor * 50, 1.0), 60)
    losses = [-float(log_softmax(-distances / t)[rows, truth].mean()) for t in candidates]
    return float(candidates[int(np.argmin(losses))])


def novelty_limit(distances: npt.NDArray[np.float32], truth: npt.NDArray[np.integer]) -> float:
    """Nearest-sample distance beyond which a glyph counts as unlike the enrolled ones.

    2.5 times the 99th percentile of held-out glyphs' distance to their own class.
    """
    own = distances[np.arange(len(truth)), truth]
    return float(2.5 * np.quantile(own, 0.99))


def fit_colour(red: npt.NDArray[np.float64], black: npt.NDArray[np.float64]) -> ColourModel:
    """Red/black boundary halfway between the two inks' typical redness."""
    if red.size == 0 or black.size == 0:
        return ColourModel()
    low, high = float(np.quantile(black, 0.95)), float(np.quantile(red, 0.05))
    middle = (low + high) / 2 if high > low else (float(np.median(black)) +
                                                 float(np.median(red))) / 2
    spread = float(np.median(red)) - float(np.median(black))
    return ColourModel(middle, max(0.01, spread / 12))


def _profile(name: str, layout: IndexLayout, samples: Sequence[Sample], tuning: _Tuning,
             thresholds: _Thresholds, info: dict[str, object]) -> DeckProfile:
    return DeckProfile(
        name=name, kind="enrolled", layout=layout,
        rank=_nearest(samples, "rank", tuning.rank_temperature, tuning.rank_novelty),
        suit=_nearest(samples, "suit", tuning.suit_temperature, tuning.suit_novelty),
        colour=tuning.colour, unsure_below=thresholds.unsure_below, info=info,
        one_corner_below=thresholds.one_corner_below)


@dataclass(frozen=True, slots=True)
class _Outcome:
    """Held-out shots of one kind read at the chosen thresholds.

    `lone_right` and `lone_wrong` count the answers given by one corner (`lone_corner`).
    """

    shots: int
    right: int
    answered: int
    wrong: int
    lone_right: int = 0
    lone_wrong: int = 0


@dataclass(frozen=True, slots=True)
class _Verdicts:
    """A held-out shot's verdicts: both corners together, and one corner alone (or None)."""

    code: str
    kind: str
    """"photo" (as taken), "table" (a table copy) or "glare" (a glare copy)."""
    joint: CardVerdict
    lone: CardVerdict | None


@dataclass(frozen=True, slots=True)
class _Thresholds:
    unsure_below: float
    one_corner_below: float | None


def _choose_threshold(samples: Sequence[Sample], folds: int, tuning: _Tuning,
                      layout: IndexLayout, options: EnrolOptions
                      ) -> tuple[_Thresholds, tuple[_Outcome, _Outcome, _Outcome]]:
    """Lowest thresholds (not below the option's floor) that leave no held-out answer wrong.

    The unsure threshold keeps every wrong joint answer of the held-out shots unsure; the
    one-corner threshold (`one_corner_threshold`) every wrong answer by one corner.

    Returns:
        The thresholds, and the outcome on the held-out photos as taken, on their table
        copies and on their glare copies.
    """
    verdicts = []
    for train, shots in _held_out_folds(samples, folds):
        profile = _profile("fold", layout, train, tuning, _Thresholds(0.0, None), {})
        for corners in shots:
            evidence = assess_corners(profile, [s.features for s in corners])
            joint = verdict_of(profile, evidence, 0.0)
            lone = lone_corner(profile, evidence) if joint.reason == NOVEL else None
            verdicts.append(_Verdicts(corners[0].code, _kind(corners[0]), joint, lone))
    wrong = [v.joint.confidence for v in verdicts if not v.joint.reason and v.joint.guess != v.code]
    threshold = max([options.min_unsure_below] + [min(c + 0.005, 0.995) for c in wrong])
    thresholds = _Thresholds(threshold, one_corner_threshold(
        [(v.lone.confidence, v.lone.guess == v.code) for v in verdicts if v.lone], threshold))

    def outcome(shot_kind: str) -> _Outcome:
        kind = [v for v in verdicts if v.kind == shot_kind]
        joint = [v for v in kind if not v.joint.reason and v.joint.confidence >= threshold]
        lone = [v for v in kind if v.lone and thresholds.one_corner_below is not None
                and v.lone.confidence >= thresholds.one_corner_below]
        right = sum(v.joint.guess == v.code for v in joint)
        lone_right = sum(v.lone is not None and v.lone.guess == v.code for v in lone)
        answered = len(joint) + len(lone)
        return _Outcome(len(kind), right + lone_right, answered, answered - right - lone_right,
                        lone_right, len(lone) - lone_right)

    return thresholds, (outcome("photo"), outcome("table"), outcome("glare"))


def _kind(sample: Sample) -> str:
    return "table" if sample.on_table else "glare" if sample.glared else "photo"


ONE_CORNER_CEILING: Final = 0.99
"""A one-corner answer wrong at this confidence or above turns answering by one corner off."""


def one_corner_threshold(answers: Sequence[tuple[float, bool]], unsure_below: float
                         ) -> float | None:
    """Lowest confidence at which held-out answers by one corner are never wrong.

    Just above the most confident wrong answer by one corner (`lone_corner`), and not below
    `unsure_below`.

    Args:
        answers: (confidence, right) of each held-out one-corner answer.
        unsure_below: The profile's unsure threshold.

    Returns:
        The threshold, or None (never answer by one corner) when a wrong one-corner answer
        reaches `ONE_CORNER_CEILING`.
    """
    wrong = [confidence for confidence, right in answers if not right]
    if any(confidence >= ONE_CORNER_CEILING for confidence in wrong):
        return None
    return max([unsure_below] + [confidence + 0.005 for confidence in wrong])
