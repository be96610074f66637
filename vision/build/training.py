"""Training of the perceptron classifier (NumPy only: runs wherever the package runs).

Plain mini-batch Adam on the cross-entropy with L2 weight decay; deterministic for a seed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from vision.classify import Floats, Perceptron, log_softmax


@dataclass(frozen=True, slots=True)
class TrainOptions:
    """Perceptron training settings.

    Attributes:
        hidden: Hidden units.
        epochs: Passes over the training set.
        batch: Mini-batch size.
        rate: Adam learning rate.
        decay: L2 weight decay.
        seed: Seed of the initial weights and the batch order (member k uses seed + k).
        references: Training activations kept for the novelty measure.
        members: Perceptrons in the ensemble.
        smoothing: Label smoothing: the share of each target spread over all classes (keeps
            the scores of glyphs the training set cannot tell apart from growing without end,
            so confidence stays informative).
    """

    hidden: int = 160
    epochs: int = 40
    batch: int = 128
    rate: float = 2e-3
    decay: float = 1e-3
    seed: int = 0
    references: int = 1000
    members: int = 3
    smoothing: float = 0.0


def train_perceptron(classes: str, features: Floats, labels: npt.NDArray[np.integer],
                     options: TrainOptions | None = None) -> Perceptron:
    """Fit an ensemble of one-hidden-layer perceptrons (temperature 1, no novelty limit yet).

    Args:
        classes: Class letters.
        features: Training vectors (n x d).
        labels: Class index of each vector.
        options: Training settings.
    """
    options = options or TrainOptions()
    mean = features.mean(axis=0)
    scale = features.std(axis=0) + 1e-3
    inputs = ((features - mean) / scale).astype(np.float32)
    members = [_train_member(inputs, labels, len(classes), options, options.seed + k)
               for k in range(options.members)]
    weights = (np.stack([m[0] for m in members]), np.stack([m[1] for m in members]),
               np.stack([m[2] for m in members]), np.stack([m[3] for m in members]))
    keep = np.random.default_rng(options.seed).choice(
        len(inputs), min(options.references, len(inputs)), replace=False)
    probe = Perceptron(classes, mean, scale, weights, 1.0,
                       np.zeros((1, options.hidden * options.members), np.float32), np.inf)
    return Perceptron(classes, mean, scale, weights, 1.0, probe.hidden(features[np.sort(keep)]),
                      np.inf)


def _train_member(inputs: Floats, labels: npt.NDArray[np.integer], classes: int,
                  options: TrainOptions, seed: int) -> list[Floats]:
    rng = np.random.default_rng(seed)
    params = _initial(inputs.shape[1], options.hidden, classes, rng)
    moments = [(np.zeros_like(p), np.zeros_like(p)) for p in params]
    step = 0
    for _ in range(options.epochs):
        order = rng.permutation(len(inputs))
        for start in range(0, len(order), options.batch):
            batch = order[start:start + options.batch]
            grads = _gradients(params, inputs[batch], labels[batch], options.decay,
                               options.smoothing)
            step += 1
            _adam(params, grads, moments, step, options.rate)
    return params


def _initial(inputs: int, hidden: int, outputs: int, rng: np.random.Generator) -> list[Floats]:
    return [(rng.normal(0, np.sqrt(2.0 / inputs), (inputs, hidden))).astype(np.float32),
            np.zeros(hidden, np.float32),
            (rng.normal(0, np.sqrt(1.0 / hidden), (hidden, outputs))).astype(np.float32),
            np.zeros(outputs, np.float32)]


def _gradients(params: list[Floats], inputs: Floats, labels: npt.NDArray[np.integer],
               decay: float, smoothing: float = 0.0) -> list[Floats]:
    w1, b1, w2, b2 = params
    pre = inputs @ w1 + b1
    hidden = np.maximum(pre, 0.0)
    probabilities = np.exp(log_softmax(hidden @ w2 + b2))
    delta = probabilities - smoothing / probabilities.shape[1]
    delta[np.arange(len(labels)), labels] -= 1.0 - smoothing
    delta /= len(labels)
    grad_w2 = hidden.T @ delta + decay * w2
    back = (delta @ w2.T) * (pre > 0)
    grad_w1 = inputs.T @ back + decay * w1
    return [grad_w1.astype(np.float32), back.sum(axis=0).astype(np.float32),
            grad_w2.astype(np.float32), delta.sum(axis=0).astype(np.float32)]


def _adam(params: list[Floats], grads: list[Floats], moments: list[tuple[Floats, Floats]],
          step: int, rate: float) -> None:
    beta1, beta2 = 0.9, 0.999
    for param, grad, (first, second) in zip(params, grads, moments, strict=True):
        first *= beta1
        first += (1 - beta1) * grad
        second *= beta2
        second += (1 - beta2) * grad * grad
        corrected = rate * np.sqrt(1 - beta2**step) / (1 - beta1**step)
        param -= (corrected * first / (np.sqrt(second) + 1e-8)).astype(np.float32)
