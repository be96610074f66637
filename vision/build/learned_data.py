"""Synthetic glyph ink maps for training a learned glyph classifier (`vision.build.learned`).

The generic build (`vision.build.generic`) keeps only each corner's HOG features; a
convolutional net needs the glyphs' ink maps. These are the same synthetic cards, drawn and
read the same way (card n depends only on the seed, n, the families and the drawing), with
each corner's rank and suit ink maps stretched as `vision.learned.glyph_maps` stretches them
at run time, next to the HOG features the shipped perceptrons read, so both classifiers can
be measured on the very same corners.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from vision.build.generic import Drawing, _read_synthetic, _table_rng
from vision.build.synth import random_card_style
from vision.build.typefaces import TRAINING_FAMILIES
from vision.cards import RANKS, SUITS
from vision.errors import VisionError
from vision.features import RANK_BOX, SUIT_BOX, feature_length
from vision.index import CornerIndex
from vision.learned import RANK_MAP, SUIT_MAP, glyph_maps
from vision.recognize import CornerFeatures

_BLOCK = 250
"""Cards a process draws at a time."""


@dataclass(frozen=True, slots=True)
class GlyphSet:
    """The index corners read from synthetic cards, one row per corner.

    Attributes:
        codes: Each corner's card ("QH").
        cards: Number of the card each corner was read from (a card's corners share it).
        ranks: Rank ink maps (corners x height x width, `vision.learned.RANK_MAP`).
        suits: Suit ink maps (corners x height x width, `vision.learned.SUIT_MAP`).
        redness: Each corner's ink redness (`vision.recognize.CornerFeatures.redness`).
        rank_features: The HOG features of the rank glyphs (`vision.features`).
        suit_features: The HOG features of the suit glyphs.
    """

    codes: npt.NDArray[np.str_]
    cards: npt.NDArray[np.int64]
    ranks: npt.NDArray[np.float32]
    suits: npt.NDArray[np.float32]
    redness: npt.NDArray[np.float32]
    rank_features: npt.NDArray[np.float32]
    suit_features: npt.NDArray[np.float32]

    def __len__(self) -> int:
        return len(self.codes)

    def labels(self, part: str) -> npt.NDArray[np.int64]:
        """Class numbers of `part` ("rank" over `RANKS`, "suit" over `SUITS`)."""
        classes, position = (RANKS, 0) if part == "rank" else (SUITS, 1)
        return np.array([classes.index(code[position]) for code in self.codes], np.int64)

    def save(self, path: Path) -> None:
        """Write the set to an `.npz` file (build data: never part of the package)."""
        np.savez_compressed(path, codes=self.codes, cards=self.cards, ranks=self.ranks,
                            suits=self.suits, redness=self.redness,
                            rank_features=self.rank_features, suit_features=self.suit_features)

    @classmethod
    def load(cls, path: Path) -> GlyphSet:
        """Read a set written by `save`."""
        try:
            with np.load(path, allow_pickle=False) as arrays:
                return cls(*(arrays[name] for name in (
                    "codes", "cards", "ranks", "suits", "redness", "rank_features",
                    "suit_features")))
        except (OSError, KeyError, ValueError) as error:
            raise VisionError(f"{path}: not a glyph set ({error})") from error

    @classmethod
    def joined(cls, parts: list[GlyphSet]) -> GlyphSet:
        """The sets one after another."""
        return cls(*(np.concatenate([getattr(p, name) for p in parts]) for name in (
            "codes", "cards", "ranks", "suits", "redness", "rank_features", "suit_features")))


def synthetic_glyphs(count: int, seed: int, families: tuple[str, ...] = TRAINING_FAMILIES,
                     drawing: Drawing | None = None, jobs: int = 1) -> GlyphSet:
    """The corners of `count` synthetic cards drawn as `vision.build.generic` draws them.

    Card n is card n of `vision.build.generic.synthetic_samples` for the same seed, families
    and drawing (the same corners, kept under the same rule).
    """
    drawing = drawing or Drawing()
    blocks = [range(start, min(start + _BLOCK, count)) for start in range(0, count, _BLOCK)]
    if jobs <= 1:
        return GlyphSet.joined([_glyphs_of(b, seed, families, drawing) for b in blocks])
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(jobs, mp_context=context) as pool:
        return GlyphSet.joined(list(pool.map(_glyphs_of, blocks, [seed] * len(blocks),
                                             [families] * len(blocks),
                                             [drawing] * len(blocks))))


def _glyphs_of(numbers: range, seed: int, families: tuple[str, ...],
               drawing: Drawing) -> GlyphSet:
    codes, cards, corners = [], [], []
    for number in numbers:
        rng = np.random.default_rng([seed, number])
        code = RANKS[int(rng.integers(13))] + SUITS[int(rng.integers(4))]
        style = random_card_style(rng, families)
        for _, corner in _read_synthetic(code, style, number, rng,
                                         _table_rng(seed, number, drawing), drawing.layout):
            codes.append(code)
            cards.append(number)
            corners.append(corner)
    return glyph_set(codes, cards, corners)


def glyph_set(codes: Sequence[str], cards: Sequence[int], corners: Sequence[CornerIndex]
              ) -> GlyphSet:
    """The corners as both classifiers see them, each with its card's code and number."""
    if not corners:
        return GlyphSet(np.zeros(0, "<U2"), np.zeros(0, np.int64),
                        np.zeros((0, RANK_MAP[1], RANK_MAP[0]), np.float32),
                        np.zeros((0, SUIT_MAP[1], SUIT_MAP[0]), np.float32),
                        np.zeros(0, np.float32), _rows([], RANK_BOX), _rows([], SUIT_BOX))
    features = CornerFeatures.of_all(corners)
    ranks, suits = glyph_maps(corners)
    return GlyphSet(np.array(codes, dtype="<U2"), np.array(cards, np.int64), ranks, suits,
                    np.array([f.redness for f in features], np.float32).reshape(-1),
                    _rows([f.rank for f in features], RANK_BOX),
                    _rows([f.suit for f in features], SUIT_BOX))


def _rows(vectors: list[npt.NDArray[np.float32]], box: tuple[int, int]
          ) -> npt.NDArray[np.float32]:
    if not vectors:
        return np.zeros((0, feature_length(box)), np.float32)
    return np.stack(vectors).astype(np.float32)
