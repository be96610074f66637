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


class NearestSamples:
    """Squared distance from vectors to each group's nearest sample, without the full product.

    The plain search multiplies every vector with every sample (an enrolled deck's 4000
    samples of 816 rank features: most of a frame's classifying time). Here each sample's
    distance is first bounded from below in the samples' principal subspace: the distance
    between the two projections onto the leading principal axes (those holding
    `VARIANCE_KEPT` of the samples' variance), plus the difference of the lengths of the two
    parts outside it (the triangle inequality there). Per vector and group the sample of
    least bound is measured exactly; only the group's samples whose bound does not exceed
    that distance (by a margin far above float rounding) can be nearer, and only they are
    measured. Every distance measured is |x|^2 + |s|^2 - 2 x.s, as the plain product gives
    it, so the figures differ from the plain search's only in the rounding of the dot
    products' last bits.

    Args:
        samples: The samples (n x d), sorted by group.
        starts: Index of each group's first sample (groups are contiguous and non-empty).
    """

    VARIANCE_KEPT = 0.995
    """Share of the samples' variance the bounding subspace holds."""
    _MOST_AXES = 160
    _MARGIN = 1e-5
    """Margin of a bound, times the squared lengths: far above float32's rounding (1.2e-7)."""

    def __init__(self, samples: Floats, starts: npt.NDArray[np.integer]) -> None:
        self.samples = np.ascontiguousarray(samples, np.float32)
        count = len(self.samples)
        self.norms = (self.samples * self.samples).sum(axis=1)
        self._longest = float(self.norms.max(initial=0.0))
        self._mean = np.asarray(self.samples.astype(np.float64).mean(axis=0), np.float32)
        centred = self.samples - self._mean
        self._axes = _principal_axes(centred, self.VARIANCE_KEPT, self._MOST_AXES)
        self._projected, self._residuals = self._projections(centred)
        self._projected_norms = (self._projected * self._projected).sum(axis=1)
        ends = np.append(np.asarray(starts[1:], np.int64), count)
        widths = ends - np.asarray(starts, np.int64)
        # each group's sample indices in a row, padded with `count`: a bound of infinity
        self._slots = np.full((len(widths), int(widths.max())), count, np.int64)
        for group, (start, width) in enumerate(zip(starts, widths, strict=True)):
            self._slots[group, :width] = np.arange(start, start + width)

    @property
    def axes(self) -> int:
        """Number of principal axes the bounds are computed in."""
        return len(self._axes)

    def squared(self, vectors: Floats) -> Floats:
        """Squared distance from each vector to each group's nearest sample (n x groups)."""
        vectors = np.atleast_2d(np.asarray(vectors, np.float32))
        lengths = (vectors * vectors).sum(axis=1)
        bounds = self._bounds(vectors)[:, self._slots]  # vectors x groups x slots
        groups = np.arange(len(self._slots))
        least = bounds.argmin(axis=2)  # per vector and group, the slot of least bound
        first = self._slots[groups[None, :], least]
        rows = np.broadcast_to(np.arange(len(vectors))[:, None], first.shape)
        best = self._measured(vectors, lengths, rows, first)
        # rounding in |x|^2 + |s|^2 - 2 x.s grows with the lengths, not with the distance
        margin = self._MARGIN * (lengths + self._longest)
        row, group, slot = np.nonzero(bounds <= (best + margin[:, None])[:, :, None])
        nearest = np.full(bounds.shape, np.inf, np.float32)
        nearest[row, group, slot] = self._measured(vectors, lengths, row, self._slots[group, slot])
        nearest[rows, groups[None, :], least] = best
        return np.asarray(nearest.min(axis=2), np.float32)

    def _measured(self, vectors: Floats, lengths: Floats, rows: npt.NDArray[np.integer],
                  chosen: npt.NDArray[np.integer]) -> Floats:
        """Squared distances of the vectors `rows` to the samples `chosen` (any equal shape)."""
        products = np.einsum("...i,...i->...", vectors[rows], self.samples[chosen])
        return np.asarray(lengths[rows] + self.norms[chosen] - 2.0 * products, np.float32)

    def _bounds(self, vectors: Floats) -> Floats:
        """Lower bounds of every squared distance (vectors x samples, then a column of inf)."""
        projected, residuals = self._projections(vectors - self._mean)
        projected_norms = (projected * projected).sum(axis=1)
        gap = residuals[:, None] - self._residuals[None, :]
        bounds = (projected_norms[:, None] + self._projected_norms[None, :]
                  - 2.0 * projected @ self._projected.T + gap * gap)
        padding = np.full((len(vectors), 1), np.inf, np.float32)
        return np.concatenate([bounds.astype(np.float32), padding], axis=1)

    def _projections(self, centred: Floats) -> tuple[Floats, Floats]:
        """Centred vectors' coordinates on the axes, and the lengths of their parts outside.

        The part outside is measured itself: |c|^2 - |p|^2 in float32 cancels where it is
        small.
        """
        projected = np.ascontiguousarray(centred @ self._axes.T, np.float32)
        outside = centred - projected @ self._axes
        return projected, np.sqrt((outside * outside).sum(axis=1)).astype(np.float32)


def _principal_axes(centred: Floats, variance: float, most: int) -> Floats:
    """The leading principal axes (rows) holding `variance` of the variance, at most `most`."""
    with np.errstate(all="ignore"):
        # Some arm64 BLAS kernels leave the floating-point flags raised after a finite
        # product (numpy issue 28687), and numpy then warns "divide by zero encountered in
        # matmul" with a right result: the product itself is checked instead.
        scatter = (centred.T @ centred).astype(np.float64)
    if not np.isfinite(scatter).all():
        raise ValueError("the glyph samples hold a value that is not finite")
    values, vectors = np.linalg.eigh(scatter)
    values, vectors = values[::-1], vectors[:, ::-1]
    total = float(values.sum())
    if total <= 0:
        return np.zeros((1, centred.shape[1]), np.float32)
    needed = int(np.searchsorted(np.cumsum(values) / total, variance)) + 1
    return np.ascontiguousarray(vectors[:, :min(needed, most, centred.shape[1])].T, np.float32)


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
        self._nearest = NearestSamples(self.samples, self._starts)

    @property
    def classes(self) -> str:
        """The class letters, in score order."""
        return self._classes

    def class_distances(self, features: Floats) -> Floats:
        """Distance from each vector to each class's nearest sample (n x classes)."""
        nearest = self._nearest.squared(features)
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
        self._nearest = NearestSamples(self.reference, np.zeros(1, np.int64))

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
        nearest = np.sqrt(np.maximum(self._nearest.squared(hidden)[:, 0], 0.0))
        return (nearest / self.novelty_distance).astype(np.float32)


class TwoOpinions:
    """Two classifiers of the same classes reading each glyph, each from its own features.

    A glyph's feature vector is the first classifier's input (`split` values) followed by
    the second's. Its log-probabilities are the renormalised geometric mean of the two
    classifiers' probabilities, through a softmax temperature tuned for the pair; it is
    novel where either classifier finds it novel; and the two dissent where their best
    classes differ (`opinions`), which the recogniser takes as doubt: an answer needs both
    to name the same card.

    Args:
        first: The classifier reading the first `split` values of each vector.
        second: The classifier reading the rest.
        split: Length of the first classifier's input.
        temperature: Softmax temperature applied to the mean of the two log-probabilities.
    """

    def __init__(self, first: GlyphClassifier, second: GlyphClassifier, split: int,
                 temperature: float = 1.0) -> None:
        if first.classes != second.classes:
            raise ValueError(f"two opinions of different classes: {first.classes!r} and "
                             f"{second.classes!r}")
        if split <= 0:
            raise ValueError(f"the first classifier's input length {split} is not positive")
        self.first = first
        self.second = second
        self.split = int(split)
        self.temperature = float(temperature)

    @property
    def classes(self) -> str:
        """The class letters, in score order."""
        return self.first.classes

    def each(self, features: Floats) -> tuple[tuple[Floats, Floats], tuple[Floats, Floats]]:
        """Each classifier's own `assess` of the vectors: (first's, second's)."""
        features = np.atleast_2d(np.asarray(features, np.float32))
        if features.shape[1] <= self.split:
            raise ValueError(f"feature vectors of {features.shape[1]} values: the first "
                             f"classifier alone reads {self.split}")
        return (self.first.assess(features[:, :self.split]),
                self.second.assess(features[:, self.split:]))

    def together(self, first: tuple[Floats, Floats], second: tuple[Floats, Floats]
                 ) -> tuple[Floats, Floats, npt.NDArray[np.bool_]]:
        """The pair's log-probabilities, novelty and dissent from each classifier's `assess`."""
        (first_lp, first_novelty), (second_lp, second_novelty) = first, second
        mean = (first_lp.astype(np.float64) + second_lp) / 2.0
        dissent = first_lp.argmax(axis=1) != second_lp.argmax(axis=1)
        return (log_softmax(mean / self.temperature),
                np.maximum(first_novelty, second_novelty).astype(np.float32), dissent)

    def opinions(self, features: Floats) -> tuple[Floats, Floats, npt.NDArray[np.bool_]]:
        """Log-probabilities, novelty and, per vector, whether the two best classes differ."""
        return self.together(*self.each(features))

    def log_probabilities(self, features: Floats) -> Floats:
        """Log-probabilities (n x classes) of the pair."""
        return self.opinions(features)[0]

    def novelty(self, features: Floats) -> Floats:
        """The larger of the two classifiers' novelty."""
        return self.opinions(features)[1]

    def assess(self, features: Floats) -> tuple[Floats, Floats]:
        """Both `log_probabilities` and `novelty`, from one pass through each classifier."""
        log_probabilities, novelty, _ = self.opinions(features)
        return log_probabilities, novelty


def dissent_of(classifier: GlyphClassifier, features: Floats
               ) -> tuple[Floats, Floats, npt.NDArray[np.bool_] | None]:
    """`assess`, with where a `TwoOpinions` classifier's two dissent (None for others)."""
    if isinstance(classifier, TwoOpinions):
        return classifier.opinions(features)
    log_probabilities, novelty = classifier.assess(features)
    return log_probabilities, novelty, None
