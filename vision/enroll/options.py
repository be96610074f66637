"""The settings of an enrolment: copies per photo, folds, seed, the unsure floor, the layout."""

from __future__ import annotations

from dataclasses import dataclass

from vision.index import IndexLayout


@dataclass(frozen=True, slots=True)
class EnrolOptions:
    """Enrolment settings.

    Attributes:
        augment: Altered copies read per photo.
        table_copies: Table copies (`table_copy`: a small card on a drawn table) read per
            photo; they are also held out in cross-validation.
        glare_copies: Glare copies (`glare_copy`: a lamp's reflection washing part of the
            card) read per photo; they are trained on, and held out in cross-validation to
            test the thresholds (not to set the novelty limits or temperatures).
        folds: Cross-validation folds for tuning the confidence model (at most the number
            of photos of the most photographed card).
        seed: Seed of the alterations.
        min_unsure_below: The unsure threshold never goes below this.
        layout: Index placement; None measures the card's proportions from the photos and
            reads faint ink first (`IndexLayout.faint_first`).
    """

    augment: int = 6
    table_copies: int = 4
    glare_copies: int = 2
    folds: int = 4
    seed: int = 0
    min_unsure_below: float = 0.9
    layout: IndexLayout | None = None
