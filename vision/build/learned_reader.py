"""Reading frames with learned glyph nets, for measuring them before the reader knows them.

`LearnedRecognizer` is `vision.recognize.Recognizer` with one difference: each corner is
described by its glyphs' stretched ink maps (`vision.recognize.map_features`) instead of their
HOG features, so a profile whose classifiers are `vision.learned.ConvGlyphClassifier`s reads
through the very same checks (novelty, corners agree, colour, confidence, one corner).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from vision.build.generic import GENERIC_COLOUR, GENERIC_LAYOUT
from vision.index import CornerIndex
from vision.learned import LearnedGlyphs, load_learned
from vision.profile import DeckProfile
from vision.recognize import CornerFeatures, Recognizer, map_features


def learned_profile(learned: LearnedGlyphs) -> DeckProfile:
    """A generic profile whose classifiers are the learned nets (not saveable as a profile)."""
    return DeckProfile("generic (learned glyph nets)", "generic", GENERIC_LAYOUT, learned.rank,
                       learned.suit, GENERIC_COLOUR, learned.unsure_below, dict(learned.info))


class LearnedRecognizer(Recognizer):
    """A `Recognizer` whose corners are described for learned glyph nets."""

    @classmethod
    def of(cls, path: Path) -> LearnedRecognizer:
        """The recogniser of the nets saved at `path` (`vision.learned.save_learned`)."""
        return cls(learned_profile(load_learned(path)))

    def _described(self, corners: Sequence[CornerIndex]) -> list[CornerFeatures]:
        """Each corner's glyphs as the nets read them: their stretched ink maps."""
        return map_features(corners)
