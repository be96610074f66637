"""The classifiers and their training: probabilities, novelty, determinism."""

from __future__ import annotations

import numpy as np

from vision.build.training import TrainOptions, train_perceptron
from vision.classify import NearestNeighbours, log_softmax


def blobs(seed: int, per_class: int = 40) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    centres = np.eye(4, 12, dtype=np.float32) * 4
    labels = np.repeat(np.arange(4), per_class)
    return (centres[labels] + rng.normal(0, 0.5, (len(labels), 12))).astype(np.float32), labels


def test_log_softmax_rows_are_log_probabilities() -> None:
    scores = np.array([[1.0, 2.0, 3.0], [1000.0, 0.0, -1000.0]])
    assert np.allclose(np.exp(log_softmax(scores)).sum(axis=1), 1.0)
    assert np.isfinite(log_softmax(scores)).all()


def test_nearest_neighbours_prefers_the_nearest_class_and_flags_strangers() -> None:
    features, labels = blobs(0)
    model = NearestNeighbours("SHDC", features, labels, 0.5, 3.0)
    probe, truth = blobs(1, 5)
    predicted = model.log_probabilities(probe).argmax(axis=1)
    assert (predicted == truth).mean() == 1.0
    assert (model.novelty(probe) < 1.0).all()
    stranger = np.full((1, 12), 10.0, np.float32)
    assert model.novelty(stranger)[0] > 1.0


def test_the_perceptron_learns_and_training_is_deterministic() -> None:
    features, labels = blobs(2)
    options = TrainOptions(hidden=16, epochs=120, batch=32, members=2, references=50)
    first = train_perceptron("SHDC", features, labels, options)
    second = train_perceptron("SHDC", features, labels, options)
    for a, b in zip(first.weights, second.weights, strict=True):
        assert np.array_equal(a, b)
    probe, truth = blobs(3, 10)
    assert (first.log_probabilities(probe).argmax(axis=1) == truth).mean() >= 0.95
    assert first.members == 2
    assert first.reference.shape == (50, 32)
