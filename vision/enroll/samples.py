"""The samples of an enrolment: one rank and one suit reading of a corner, and their groups."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from vision.cards import RANKS, SUITS
from vision.recognize import CornerFeatures


@dataclass(frozen=True, slots=True)
class Sample:
    """One index corner read from an enrolment photo (or an altered copy of it).

    Attributes:
        code: The card ("QH").
        photo: Number of the photo it came from.
        fold: Cross-validation fold of that photo.
        features: What the classifiers see.
        original: False for a corner read from an altered copy.
        corner: 0 for the card's first index corner, 1 for the opposite one.
        copy: 0 for the photo as taken, else the number of the altered or table copy.
        on_table: True for a corner read from a table copy (see `table_copy`).
        glared: True for a corner read from a glare copy (see `glare_copy`).
    """

    code: str
    photo: int
    fold: int
    features: CornerFeatures
    original: bool
    corner: int = 0
    copy: int = 0
    on_table: bool = False
    glared: bool = False


def by_photo(samples: Sequence[Sample]) -> list[list[Sample]]:
    """The samples grouped by photo (in photo-number order), each group in sample order."""
    groups: dict[int, list[Sample]] = {}
    for sample in samples:
        groups.setdefault(sample.photo, []).append(sample)
    return [groups[photo] for photo in sorted(groups)]


def class_arrays(samples: Sequence[Sample], part: str
                 ) -> tuple[str, npt.NDArray[np.float32], npt.NDArray[np.int64]]:
    """The classes of `part` ("rank" or "suit"), the samples' features and class numbers."""
    classes, position = (RANKS, 0) if part == "rank" else (SUITS, 1)
    features = np.stack([getattr(s.features, part) for s in samples]).astype(np.float32)
    labels = np.array([classes.index(s.code[position]) for s in samples], np.int64)
    return classes, features, labels


def _by_shot(samples: Sequence[Sample]) -> list[list[Sample]]:
    """The samples grouped by photo and copy (in that order), each group in sample order."""
    groups: dict[tuple[int, int], list[Sample]] = {}
    for sample in samples:
        groups.setdefault((sample.photo, sample.copy), []).append(sample)
    return [groups[shot] for shot in sorted(groups)]
