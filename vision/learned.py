"""A learned glyph classifier: a small convolutional net run by OpenCV's DNN module.

The net reads a glyph's ink map stretched to a fixed box (`glyph_maps`), not the HOG
features the perceptrons read, and gives two outputs: class scores (`logits`) and the
activations before the last layer (`embedding`), in which novelty is measured as the
perceptrons measure it in their hidden layer. A profile may read each glyph with both, the
perceptrons and a net (`vision.classify.TwoOpinions`); `vision.recognize.map_features`
describes corners for the nets alone. The net is trained at build time
(`vision.build.learned`, PyTorch) and exported to ONNX; reading needs only OpenCV and NumPy.

A model file (`save_learned` / `load_learned`) is one `.npz` (no pickled objects): a JSON
header under `meta` and, per part ("rank", "suit"), the ONNX bytes and the reference
embeddings.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt

from vision.classify import Floats, log_softmax
from vision.errors import ProfileError
from vision.index import CornerIndex

RANK_MAP: Final = (24, 36)
"""Width and height a rank glyph's ink map is stretched to for the net."""
SUIT_MAP: Final = (24, 24)
"""Width and height a suit glyph's ink map is stretched to for the net."""
FORMAT: Final = "shoectl-learned-glyphs"
VERSION: Final = 1


def glyph_maps(corners: Sequence[CornerIndex]
               ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """The corners' rank and suit ink maps, stretched (corners x height x width each)."""
    return (_stretched([c.rank.ink for c in corners], RANK_MAP),
            _stretched([c.suit.ink for c in corners], SUIT_MAP))


def _stretched(inks: Sequence[npt.NDArray[np.float32]], box: tuple[int, int]
               ) -> npt.NDArray[np.float32]:
    if not inks:
        return np.zeros((0, box[1], box[0]), np.float32)
    return np.stack([cv2.resize(np.ascontiguousarray(ink, np.float32), box,
                                interpolation=cv2.INTER_AREA) for ink in inks])


class ConvGlyphClassifier:
    """A glyph classifier whose scores come from an ONNX net (`vision.classify.GlyphClassifier`).

    Args:
        classes: Class letters, in the net's output order.
        onnx: The net, as ONNX bytes: input `glyph` (n x 1 x height x width), outputs
            `logits` (n x classes) and `embedding` (n x d).
        size: (width, height) of the maps the net reads.
        temperature: Softmax temperature applied to the logits.
        reference: Embeddings of training glyphs, for the novelty measure.
        novelty_distance: A glyph whose embedding is further than this from every reference
            embedding is novel.
    """

    def __init__(self, classes: str, onnx: bytes, size: tuple[int, int], temperature: float,
                 reference: Floats, novelty_distance: float) -> None:
        self._classes = classes
        self.onnx = bytes(onnx)
        self.size = (int(size[0]), int(size[1]))
        self.temperature = float(temperature)
        self.reference = np.ascontiguousarray(reference, np.float32)
        self.novelty_distance = float(novelty_distance)
        self._reference_norms = (self.reference * self.reference).sum(axis=1)
        self._net = cv2.dnn.readNetFromONNX(np.frombuffer(self.onnx, np.uint8))
        self._lock = threading.Lock()  # a cv2.dnn.Net runs one forward pass at a time

    @property
    def classes(self) -> str:
        """The class letters, in score order."""
        return self._classes

    def outputs(self, features: Floats) -> tuple[Floats, Floats]:
        """The net's logits (n x classes) and embeddings (n x d) for flattened maps (n x h*w)."""
        width, height = self.size
        blob = np.ascontiguousarray(np.asarray(features, np.float32).reshape(
            -1, 1, height, width))
        if len(blob) == 0:
            return (np.zeros((0, len(self._classes)), np.float32),
                    np.zeros((0, self.reference.shape[1]), np.float32))
        with self._lock:
            self._net.setInput(blob, "glyph")
            logits, embedding = self._net.forward(["logits", "embedding"])
        return (np.asarray(logits, np.float32).reshape(len(blob), -1),
                np.asarray(embedding, np.float32).reshape(len(blob), -1))

    def log_probabilities(self, features: Floats) -> Floats:
        """Log-probabilities (n x classes)."""
        return self.assess(features)[0]

    def novelty(self, features: Floats) -> Floats:
        """Distance in embedding space to the nearest reference embedding, over the limit."""
        return self.assess(features)[1]

    def assess(self, features: Floats) -> tuple[Floats, Floats]:
        """Log-probabilities and novelty from one forward pass."""
        logits, embedding = self.outputs(features)
        return log_softmax(logits / self.temperature), self._novelty(embedding)

    def _novelty(self, embedding: Floats) -> Floats:
        squared = ((embedding * embedding).sum(axis=1)[:, None] + self._reference_norms[None, :]
                   - 2.0 * embedding @ self.reference.T)
        nearest = np.sqrt(np.maximum(squared.min(axis=1), 0.0)) if len(embedding) else (
            np.zeros(0, np.float32))
        return (nearest / self.novelty_distance).astype(np.float32)


@dataclass(frozen=True, slots=True)
class LearnedGlyphs:
    """A rank and a suit net with the unsure threshold tuned for them.

    Attributes:
        rank: The rank classifier (classes "A23456789TJQK").
        suit: The suit classifier (classes "SHDC").
        unsure_below: Readings less confident than this are unsure.
        info: Provenance and the figures measured when the nets were built.
    """

    rank: ConvGlyphClassifier
    suit: ConvGlyphClassifier
    unsure_below: float
    info: Mapping[str, Any]


def save_learned(learned: LearnedGlyphs, path: Path) -> None:
    """Write the nets and their tuning to `path` (an `.npz` file)."""
    meta: dict[str, Any] = {"format": FORMAT, "version": VERSION,
                            "unsure_below": learned.unsure_below, "info": dict(learned.info)}
    arrays: dict[str, npt.NDArray[Any]] = {}
    for key, net in (("rank", learned.rank), ("suit", learned.suit)):
        meta[key] = {"classes": net.classes, "size": list(net.size),
                     "temperature": net.temperature, "novelty_distance": net.novelty_distance}
        arrays[f"{key}/onnx"] = np.frombuffer(net.onnx, np.uint8)
        arrays[f"{key}/reference"] = net.reference.astype(np.float16)
    arrays["meta"] = np.frombuffer(json.dumps(meta, sort_keys=True).encode(), np.uint8)
    with path.open("wb") as handle:
        np.savez_compressed(handle, allow_pickle=False, **arrays)


def load_learned(path: Path) -> LearnedGlyphs:
    """Read nets written by `save_learned`.

    Raises:
        ProfileError: The file is missing, unreadable, of another format or version, or its
            nets do not load.
    """
    try:
        with np.load(path, allow_pickle=False) as arrays:
            meta = json.loads(bytes(arrays["meta"]).decode())
            if meta.get("format") != FORMAT or meta.get("version") != VERSION:
                raise ProfileError(f"{path}: not a version {VERSION} learned glyph model")
            nets = [_net(meta[key], arrays, key) for key in ("rank", "suit")]
    except ProfileError:
        raise
    except (OSError, KeyError, ValueError, TypeError, cv2.error) as error:
        raise ProfileError(f"{path}: cannot read the learned glyph model ({error})") from error
    return LearnedGlyphs(nets[0], nets[1], float(meta["unsure_below"]), meta.get("info", {}))


def _net(meta: dict[str, Any], arrays: Mapping[str, npt.NDArray[Any]], key: str
         ) -> ConvGlyphClassifier:
    width, height = meta["size"]
    return ConvGlyphClassifier(str(meta["classes"]), arrays[f"{key}/onnx"].tobytes(),
                               (int(width), int(height)), float(meta["temperature"]),
                               arrays[f"{key}/reference"].astype(np.float32),
                               float(meta["novelty_distance"]))
