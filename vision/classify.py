"""Glyph classifiers: nearest neighbours (enrolled decks) and a small perceptron (generic).

Both give log-probabilities over their classes and say when a glyph looks like nothing they
were trained on.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np
import numpy.typing as npt

Floats = npt.NDArray[np.float32]


class GlyphClassifier(Protocol):
    """What the recogniser needs of a rank or suit classifier."""

    @property
    def classes(self) -> str:
        """The class letters, in score order (e.g. "SHDC")."""
        ...

    def log_probabilities(self, features: Floats) -> Floats:
        """Log-probabilities (n x classes) for n feature vectors."""
        ...

    def novelty(self, features: Floats) -> Floats:
        """Per vector: 1.0 or more where the glyph is unlike every training glyph."""
        ...

    def assess(self, features: Floats) -> tuple[Floats, Floats]:
        """Both `log_probabilities` and `novelty`, sharing the work."""
        ...


def log_softmax(scores: npt.NDArray[np.floating]) -> Floats:
    """Row-wise log of the softmax of `scores`."""
    shifted = scores - scores.max(axis=1, keepdims=True)
    return (shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))).astype(np.float32)


class NearestNeighbours:
    """Nearest-neighbour scores from labelled glyph samples.

    A class's score is the distance from the glyph to that class's nearest sample;
    probabilities are the softmax of minus the distances over `temperature`.

    Args:
        classes: Class letters.
        samples: Feature vectors (n x d).
        labels: Class index of each sample (n).
        temperature: Softmax temperature in feature-distance units.
        novelty_distance: A glyph further than this from every sample is novel.
    """

    def __init__(self, classes: str, samples: Floats, labels: npt.NDArray[np.integer],
                 temperature: float, novelty_distance: float) -> None:
        order = np.argsort(labels, kind="stable")
        self._classes = classes
        self.samples = np.ascontiguousarray(samples[order], np.float32)
        self.labels = np.asarray(labels[order], np.int16)
        self.temperature = float(temperature)
        self.novelty_distance = float(novelty_distance)
        counts = np.bincount(self.labels, minlength=len(classes))
        if (counts == 0).any():
            missing = "".join(c for c, n in zip(classes, counts, strict=True) if n == 0)
            raise ValueError(f"no samples of class(es) {missing}")
        self._starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
        self._norms = (self.samples * self.samples).sum(axis=1)

    @property
    def classes(self) -> str:
        """The class letters, in score order."""
        return self._classes

    def class_distances(self, features: Floats) -> Floats:
        """Distance from each vector to each class's nearest sample (n x classes)."""
        features = np.atleast_2d(np.asarray(features, np.float32))
        squared = ((features * features).sum(axis=1)[:, None] + self._norms[None, :]
                   - 2.0 * features @ self.samples.T)
        nearest = np.minimum.reduceat(squared, self._starts, axis=1)
        return np.sqrt(np.maximum(nearest, 0.0)).astype(np.float32)

    def log_probabilities(self, features: Floats) -> Floats:
        """Log-probabilities (n x classes) from the class distances."""
        return log_softmax(-self.class_distances(features) / self.temperature)

    def novelty(self, features: Floats) -> Floats:
        """Nearest-sample distance over `novelty_distance`."""
        return self.assess(features)[1]

    def assess(self, features: Floats) -> tuple[Floats, Floats]:
        """Log-probabilities and novelty from one distance computation."""
        distances = self.class_distances(features)
        novelty = (distances.min(axis=1) / self.novelty_distance).astype(np.float32)
        return log_softmax(-distances / self.temperature), novelty


class Perceptron:
    """An ensemble of one-hidden-layer perceptrons over standardised features.

    The members' output scores are averaged; their hidden activations, side by side, are the
    space in which novelty is measured.

    Args:
        classes: Class letters.
        mean: Feature means used to standardise inputs.
        scale: Feature standard deviations used to standardise inputs.
        weights: (w1, b1, w2, b2) with a leading member axis: w1 is members x inputs x
            hidden, b1 members x hidden, w2 members x hidden x classes, b2 members x classes.
        temperature: Softmax temperature applied to the averaged scores.
        reference: Hidden activations of training glyphs, for the novelty measure.
        novelty_distance: A glyph whose hidden activation is further than this from every
            reference activation is novel.
    """

    def __init__(self, classes: str, mean: Floats, scale: Floats,
                 weights: tuple[Floats, Floats, Floats, Floats], temperature: float,
                 reference: Floats, novelty_distance: float) -> None:
        self._classes = classes
        self.mean = np.asarray(mean, np.float32)
        self.scale = np.asarray(scale, np.float32)
        w1, b1, w2, b2 = (np.asarray(w, np.float32) for w in weights)
        if w1.ndim != 3 or b1.ndim != 2 or w2.ndim != 3 or b2.ndim != 2:
            raise ValueError("perceptron weights need a leading member axis")
        self.weights: tuple[Floats, Floats, Floats, Floats] = (w1, b1, w2, b2)
        self.temperature = float(temperature)
        self.reference = np.asarray(reference, np.float32)
        self.novelty_distance = float(novelty_distance)
        self._reference_norms = (self.reference * self.reference).sum(axis=1)

    @property
    def classes(self) -> str:
        """The class letters, in score order."""
        return self._classes

    @property
    def members(self) -> int:
        """Number of perceptrons in the ensemble."""
        return int(self.weights[0].shape[0])

    def _member_hidden(self, features: Floats) -> Floats:
        w1, b1, _, _ = self.weights
        standard = (np.atleast_2d(features) - self.mean) / self.scale
        return np.maximum(np.matmul(standard[None], w1) + b1[:, None, :], 0.0).astype(
            np.float32)

    def _scores(self, member_hidden: Floats) -> Floats:
        _, _, w2, b2 = self.weights
        return (np.matmul(member_hidden, w2) + b2[:, None, :]).mean(axis=0).astype(np.float32)

    @staticmethod
    def _side_by_side(member_hidden: Floats) -> Floats:
        members, count, size = member_hidden.shape
        return np.ascontiguousarray(member_hidden.transpose(1, 0, 2).reshape(count,
                                                                           members * size))

    def hidden(self, features: Floats) -> Floats:
        """Hidden activations of every member, side by side (n x members * hidden)."""
        return self._side_by_side(self._member_hidden(features))

    def scores(self, features: Floats) -> Floats:
        """Averaged output scores before the softmax (n x classes)."""
        return self._scores(self._member_hidden(features))

    def log_probabilities(self, features: Floats) -> Floats:
        """Log-probabilities (n x classes)."""
        return log_softmax(self.scores(features) / self.temperature)

    def novelty(self, features: Floats) -> Floats:
        """Distance in hidden space to the nearest reference activation, over the limit."""
        return self._novelty(self.hidden(features))

    def assess(self, features: Floats) -> tuple[Floats, Floats]:
        """Log-probabilities and novelty from one pass through the hidden layers."""
        member_hidden = self._member_hidden(features)
        scores = self._scores(member_hidden)
        return (log_softmax(scores / self.temperature),
                self._novelty(self._side_by_side(member_hidden)))

    def _novelty(self, hidden: Floats) -> Floats:
        squared = ((hidden * hidden).sum(axis=1)[:, None] + self._reference_norms[None, :]
                   - 2.0 * hidden @ self.reference.T)
        nearest = np.sqrt(np.maximum(squared.min(axis=1), 0.0))
        return (nearest / self.novelty_distance).astype(np.float32)
