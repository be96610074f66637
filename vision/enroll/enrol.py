"""Enrol a deck: learn a profile from labelled photos of its cards.

Each photo's card is found and both index corners are read; each corner gives one rank and
one suit sample. Extra samples come from altered copies of each photo (the card's outline
nudged, the card shrunk, its light, contrast, focus and noise changed), so the profile is
not tied to the enrolment photos' exact framing and lighting. Table copies (`table_copy`)
show the card as a hold'em camera sees a board: 75 to 110 pixels wide, turned, seen
obliquely, on a drawn table of grain, weave or felt, through a small camera's blur, noise and
JPEG. Glare copies (`glare_copy`) wash part of the card under a lamp's reflection.

The confidence model is tuned by cross-validation inside the enrolment set: the photos are
split into folds (the n-th photo of each card in fold n mod k; with a single photo of each
card, its two index corners are the two folds); each fold is read with
classifiers built from the other folds. The held-out readings (of each held-out photo as
taken and of its table copies: the other folds never saw that photo) set the softmax
temperatures, the novelty limits and the red/black ink model; with the held-out glare copies
they set the unsure threshold (the lowest that keeps every held-out wrong answer unsure) and
the one-corner threshold (`one_corner_threshold`: the lowest that keeps every held-out answer
given by one corner, `vision.recognize.lone_corner`, right). The final classifiers use every
photo.
"""


from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from vision.cards import RANKS, SUITS
from vision.edges import Image
from vision.enroll.copies import alter, glare_copy, table_copy
from vision.enroll.options import EnrolOptions
from vision.enroll.samples import Sample
from vision.enroll.tuning import _choose_threshold, _cross_validate, _profile, _tune
from vision.errors import DatasetError
from vision.index import IndexLayout, read_corners
from vision.locate import Quad, find_cards, long_over_short
from vision.profile import DeckProfile
from vision.recognize import CornerFeatures


@dataclass(frozen=True, slots=True)
class EnrolReport:
    """What enrolment did and how well the profile read its own held-out folds.

    Attributes:
        photos: Photos offered.
        problems: One line per photo that gave nothing ("file: why").
        samples: Corner samples learned (including altered copies).
        held_out: Photos read in cross-validation.
        right: Held-out photos answered correctly.
        answered: Held-out photos answered (right or wrong).
        wrong: Held-out photos answered wrongly.
        unsure_below: The chosen unsure threshold.
        seconds: Wall-clock time of enrolment.
        table_held_out: Table copies of held-out photos read in cross-validation.
        table_right: Of those, answered correctly (at the chosen threshold).
        table_wrong: Of those, answered wrongly.
        glare_held_out: Glare copies of held-out photos read in cross-validation.
        glare_right: Of those, answered correctly (at the chosen thresholds).
        glare_wrong: Of those, answered wrongly.
        one_corner_below: The chosen one-corner threshold (`DeckProfile.one_corner_below`),
            or None.
        one_corner_right: Held-out photos and table copies answered by one corner
            (`vision.recognize.lone_corner`) and right, at that threshold (counted in
            `right`, `table_right` and `glare_right` too).
        one_corner_wrong: Of those answered by one corner, wrongly.
    """

    photos: int
    problems: list[str] = field(default_factory=list)
    samples: int = 0
    held_out: int = 0
    right: int = 0
    answered: int = 0
    wrong: int = 0
    unsure_below: float = 0.0
    seconds: float = 0.0
    table_held_out: int = 0
    table_right: int = 0
    table_wrong: int = 0
    glare_held_out: int = 0
    glare_right: int = 0
    glare_wrong: int = 0
    one_corner_below: float | None = None
    one_corner_right: int = 0
    one_corner_wrong: int = 0


Progress = Callable[[int, int], None]


def enroll(photos: Sequence[tuple[str, Image, str]], name: str,
           options: EnrolOptions | None = None,
           progress: Progress | None = None) -> tuple[DeckProfile, EnrolReport]:
    """Learn a deck profile from labelled photos, one card per photo.

    Args:
        photos: (label for messages, BGR image, card code) per photo.
        name: The profile's name.
        options: Enrolment settings.
        progress: Called with (photos done, photos in all) as photos are read.

    Raises:
        DatasetError: The photos do not cover every rank and every suit with a readable
            card, or every photo failed (the message lists the problems).
    """
    options = options or EnrolOptions()
    started = time.perf_counter()
    layout = options.layout or IndexLayout(card_aspect=_measured_aspect(photos),
                                           faint_first=True)
    samples, problems = collect_samples(photos, layout, options, progress)
    _check_coverage(samples, problems)
    samples, folds = _assign_folds(samples, options.folds)
    held_out = _cross_validate(samples, folds)
    tuning = _tune(held_out)
    thresholds, outcome = _choose_threshold(samples, folds, tuning, layout, options)
    profile = _profile(name, layout, samples, tuning, thresholds,
                       {"photos": len(photos), "samples": len(samples), "folds": folds})
    photo, table, glare = outcome
    report = EnrolReport(len(photos), problems, len(samples), photo.shots, photo.right,
                         photo.answered, photo.wrong, thresholds.unsure_below,
                         time.perf_counter() - started, table.shots, table.right, table.wrong,
                         glare.shots, glare.right, glare.wrong, thresholds.one_corner_below,
                         sum(o.lone_right for o in outcome), sum(o.lone_wrong for o in outcome))
    return replace(profile, info=dict(profile.info) | _report_info(report)), report


def collect_samples(photos: Sequence[tuple[str, Image, str]], layout: IndexLayout,
                    options: EnrolOptions, progress: Progress | None = None
                    ) -> tuple[list[Sample], list[str]]:
    """Read every photo (and its altered copies) into corner samples.

    Returns:
        The samples, and one line per photo that gave none.
    """
    rng = np.random.default_rng(options.seed)
    seen: Counter[str] = Counter()
    samples: list[Sample] = []
    problems: list[str] = []
    for number, (label, image, code) in enumerate(photos):
        fold = seen[code]
        seen[code] += 1
        found, problem = photo_samples(image, code, number, fold, layout, options, rng)
        samples += found
        if problem:
            problems.append(f"{label}: {problem}")
        if progress:
            progress(number + 1, len(photos))
    return samples, problems


def photo_samples(image: Image, code: str, photo: int, fold: int, layout: IndexLayout,
                  options: EnrolOptions, rng: np.random.Generator) -> tuple[list[Sample], str]:
    """Corner samples of the largest card in one photo and of its altered and other copies.

    `options.augment` altered copies (`alter`), `options.table_copies` table copies
    (`table_copy`), `options.glare_copies` glare copies (`glare_copy`), numbered in that
    order from 1.

    Returns:
        The samples, and a description of the problem when the photo gave none.
    """
    quads = find_cards(image)
    if not quads:
        return [], "no card found"
    quad = quads[0]
    def corners(shot: Image, outline: Quad, copy: int, on_table: bool,
                glared: bool = False) -> list[Sample]:
        return [Sample(code, photo, fold, CornerFeatures.of(corner), copy == 0, number, copy,
                       on_table, glared)
                for number, corner in enumerate(read_corners(shot, outline, layout))
                if corner is not None]

    samples = corners(image, quad, 0, False)
    if not samples:
        return [], "card found but no index read in either corner"
    for copy in range(1, options.augment + 1):
        samples += corners(*alter(image, quad, rng), copy, False)
    first_table = options.augment + 1
    for copy in range(first_table, first_table + options.table_copies):
        samples += corners(*table_copy(image, quad, rng), copy, True)
    first_glare = first_table + options.table_copies
    for copy in range(first_glare, first_glare + options.glare_copies):
        samples += corners(*glare_copy(image, quad, rng), copy, False, True)
    return samples, ""


def _measured_aspect(photos: Sequence[tuple[str, Image, str]]) -> float:
    aspects = []
    for _, image, _ in photos[:: max(1, len(photos) // 40)]:
        quads = find_cards(image)
        if quads:
            aspects.append(long_over_short(quads[0]))
    return round(float(np.median(aspects)), 3) if aspects else IndexLayout().card_aspect


def _check_coverage(samples: Sequence[Sample], problems: Sequence[str]) -> None:
    if not samples:
        detail = "; ".join(problems[:5]) + (" ..." if len(problems) > 5 else "")
        raise DatasetError(f"no card could be read in any photo ({detail})")
    ranks = {s.code[0] for s in samples}
    suits = {s.code[1] for s in samples}
    missing = [r for r in RANKS if r not in ranks] + [s for s in SUITS if s not in suits]
    if missing:
        raise DatasetError("the readable photos do not show every rank and suit; missing: "
                           + " ".join(missing))


def _assign_folds(samples: list[Sample], wanted: int) -> tuple[list[Sample], int]:
    """Split the samples into cross-validation folds.

    By photo (the n-th photo of each card in fold n mod k); with one photo per card, the
    card's two index corners are the two folds.
    """
    per_card = _photos_per_card(samples)
    if per_card >= 2:
        folds = max(2, min(wanted, per_card))
        return [replace(s, fold=s.fold % folds) for s in samples], folds
    return [replace(s, fold=s.corner) for s in samples], 2


def _photos_per_card(samples: Sequence[Sample]) -> int:
    per_card = Counter(code for code, _ in {(s.code, s.photo) for s in samples})
    return max(per_card.values())


def _report_info(report: EnrolReport) -> dict[str, object]:
    return {"held_out": report.held_out, "held_out_right": report.right,
            "held_out_answered": report.answered, "held_out_wrong": report.wrong,
            "table_held_out": report.table_held_out, "table_right": report.table_right,
            "table_wrong": report.table_wrong,
            "glare_held_out": report.glare_held_out, "glare_right": report.glare_right,
            "glare_wrong": report.glare_wrong,
            "one_corner_right": report.one_corner_right,
            "one_corner_wrong": report.one_corner_wrong,
            "enrol_seconds": round(report.seconds, 1)}
