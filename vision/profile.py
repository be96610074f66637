"""Deck profiles: what the recogniser knows about one deck's printing, saved as one `.npz` file.

A profile holds the index layout, a rank and a suit classifier, the red/black ink model and
the confidence below which a reading is reported as unsure. The file is a NumPy `.npz`
archive (no pickled objects) with a JSON header under the key `meta`.

A classifier is nearest neighbours (enrolled decks), a perceptron ensemble, or (version 2)
two opinions: a perceptron ensemble and a learned net (ONNX bytes, run by OpenCV's DNN
module) read each glyph together (`vision.classify.TwoOpinions`), their arrays under
`rank/first/...` and `rank/second/...`, and the rule by which the pair answers a card
(`PairRule`, under `pair` in the header; absent, the pair's mean). Version 1 files, which hold
no two opinions, read as they always did.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt

from vision.cards import RANKS, SUITS
from vision.classify import GlyphClassifier, NearestNeighbours, Perceptron, TwoOpinions
from vision.errors import ProfileError
from vision.features import RANK_BOX, SUIT_BOX, feature_length
from vision.index import IndexLayout
from vision.learned import RANK_MAP, SUIT_MAP, ConvGlyphClassifier

FORMAT: Final = "shoectl-deck-profile"
VERSION: Final = 2
"""The newest version: 2 added the two-opinions classifier (`TwoOpinions`). A profile without
one is written as version 1, which builds before version 2 read too."""
READABLE_VERSIONS: Final = (1, 2)
GENERIC_PROFILE: Final = "generic_profile.npz"
"""File name of the generic profile shipped in the package (package data, like `py.typed`)."""


@dataclass(frozen=True, slots=True)
class ColourModel:
    """Red versus black ink from a glyph's redness (see `vision.index.Glyph`).

    Attributes:
        red_above: Redness at which red and black are equally likely.
        softness: Redness change that moves the odds by a factor of e.
    """

    red_above: float = 0.2
    softness: float = 0.04

    def log_red_black(self, redness: float) -> tuple[float, float]:
        """Log-probabilities that ink of this redness is red, and that it is black."""
        z = (redness - self.red_above) / self.softness
        log_red = -float(np.logaddexp(0.0, -z))
        log_black = -float(np.logaddexp(0.0, z))
        return log_red, log_black


PAIR_RULES: Final = ("mean", "either", "either-card")


@dataclass(frozen=True, slots=True)
class PairRule:
    """How a profile reading each glyph with two opinions (`TwoOpinions`) answers a card.

    Attributes:
        rule: "mean": the card is read from the renormalised geometric mean of the two
            classifiers' probabilities, and answered when both name it on every corner and
            the mean reaches the profile's threshold. "either": the card is answered when both
            name it on every corner and at least one of them, read alone through every check,
            answers it at its own threshold (`unsure_below`). "either-card": as "either", but
            only the two classifiers' cards (each one's corners combined) must be the same,
            not every corner's.
        unsure_below: Under "either" and "either-card", each classifier's own unsure
            threshold (the first's, the second's), as its own build chose it; empty under
            "mean".
    """

    rule: str = "mean"
    unsure_below: tuple[float, ...] = ()

    def __post_init__(self) -> None:
        if self.rule not in PAIR_RULES:
            raise ValueError(f"pair rule {self.rule!r} is not one of {', '.join(PAIR_RULES)}")
        wanted = 0 if self.rule == "mean" else 2
        if len(self.unsure_below) != wanted:
            raise ValueError(f"pair rule {self.rule!r} takes {wanted} thresholds, "
                             f"got {len(self.unsure_below)}")
        for value in self.unsure_below:
            _threshold(value, "pair unsure_below")


@dataclass(frozen=True)
class DeckProfile:
    """Everything the recogniser needs to read one deck (or, generically, most decks).

    Attributes:
        name: A label for people ("casino deck, table 4").
        kind: "enrolled" (learned from photos of one deck) or "generic".
        layout: Where the deck prints its index.
        rank: The rank classifier (classes "A23456789TJQK").
        suit: The suit classifier (classes "SHDC").
        colour: The red/black ink model.
        unsure_below: Readings less confident than this are reported as unsure.
        one_corner_below: A card one of whose two corners has glyphs unlike the profile's
            while the other corner names the same card is answered by that other corner
            alone when it is at least this confident (`vision.recognize.lone_corner`); None
            never answers such a card. Enrolment sets it from its held-out readings.
        pair: How a profile whose classifiers are `TwoOpinions` answers a card (`PairRule`);
            the mean for every other profile.
        info: Provenance and the figures measured when the profile was made.
    """

    name: str
    kind: str
    layout: IndexLayout
    rank: GlyphClassifier
    suit: GlyphClassifier
    colour: ColourModel = ColourModel()
    unsure_below: float = 0.9
    info: Mapping[str, Any] = field(default_factory=dict)
    one_corner_below: float | None = None
    pair: PairRule = PairRule()


def save_profile(profile: DeckProfile, path: Path) -> None:
    """Write `profile` to `path` (a `.npz` file; parent folders must exist)."""
    two = isinstance(profile.rank, TwoOpinions) or isinstance(profile.suit, TwoOpinions)
    meta = {
        "format": FORMAT, "version": VERSION if two else 1, "name": profile.name,
        "kind": profile.kind,
        "layout": asdict(profile.layout), "colour": asdict(profile.colour),
        "unsure_below": profile.unsure_below, "info": dict(profile.info),
    }
    if profile.one_corner_below is not None:  # absent: never answered by one corner
        meta["one_corner_below"] = profile.one_corner_below
    if profile.pair != PairRule():  # absent: the mean, as files before the rule read
        if not (isinstance(profile.rank, TwoOpinions) and isinstance(profile.suit, TwoOpinions)):
            raise ProfileError(f"{profile.name!r}: a pair rule needs two opinions of both "
                               "the rank and the suit")
        meta["pair"] = {"rule": profile.pair.rule,
                        "unsure_below": list(profile.pair.unsure_below)}
    arrays: dict[str, npt.NDArray[Any]] = {}
    for key, classifier in (("rank", profile.rank), ("suit", profile.suit)):
        meta[key] = _classifier_meta(classifier)
        arrays |= {f"{key}/{name}": array for name, array in _classifier_arrays(classifier)}
    arrays["meta"] = np.frombuffer(json.dumps(meta, sort_keys=True).encode(), np.uint8)
    with path.open("wb") as handle:
        np.savez_compressed(handle, allow_pickle=False, **arrays)


def _classifier_meta(classifier: GlyphClassifier) -> dict[str, Any]:
    if isinstance(classifier, TwoOpinions):
        return {"type": "two-opinions", "classes": classifier.classes,
                "temperature": classifier.temperature,
                "first": _classifier_meta(classifier.first),
                "second": _classifier_meta(classifier.second)}
    if isinstance(classifier, ConvGlyphClassifier):
        return {"type": "net", "classes": classifier.classes, "size": list(classifier.size),
                "temperature": classifier.temperature,
                "novelty_distance": classifier.novelty_distance}
    if isinstance(classifier, NearestNeighbours):
        kind = "nearest"
    elif isinstance(classifier, Perceptron):
        kind = "perceptron"
    else:
        raise ProfileError(f"cannot save a {type(classifier).__name__} classifier")
    return {"type": kind, "classes": classifier.classes, "temperature": classifier.temperature,
            "novelty_distance": classifier.novelty_distance}


def _classifier_arrays(classifier: GlyphClassifier) -> list[tuple[str, npt.NDArray[Any]]]:
    if isinstance(classifier, TwoOpinions):
        return ([(f"first/{name}", array) for name, array in
                 _classifier_arrays(classifier.first)] +
                [(f"second/{name}", array) for name, array in
                 _classifier_arrays(classifier.second)])
    if isinstance(classifier, ConvGlyphClassifier):
        return [("onnx", np.frombuffer(classifier.onnx, np.uint8)),
                ("reference", classifier.reference.astype(np.float16))]
    if isinstance(classifier, NearestNeighbours):
        return [("samples", classifier.samples.astype(np.float16)),
                ("labels", classifier.labels)]
    if not isinstance(classifier, Perceptron):
        raise ProfileError(f"cannot save a {type(classifier).__name__} classifier")
    w1, b1, w2, b2 = classifier.weights
    return [("mean", classifier.mean), ("scale", classifier.scale),
            ("w1", w1.astype(np.float16)), ("b1", b1), ("w2", w2), ("b2", b2),
            ("reference", classifier.reference.astype(np.float16))]


def load_profile(path: Path) -> DeckProfile:
    """Read a profile written by `save_profile`.

    Raises:
        ProfileError: The file is missing, not a profile, or inconsistent; the message names
            the file and what is wrong.
    """
    try:
        with path.open("rb") as handle, np.load(handle, allow_pickle=False) as archive:
            arrays = {name: archive[name] for name in archive.files}
    except FileNotFoundError:
        raise ProfileError(f"{path}: no such profile file") from None
    except (OSError, ValueError, zipfile.BadZipFile) as error:
        raise ProfileError(f"{path}: not a deck profile ({error})") from None
    meta = _read_meta(path, arrays)
    try:
        return _build(meta, arrays)
    except (KeyError, TypeError, ValueError, cv2.error) as error:
        raise ProfileError(f"{path}: incomplete or inconsistent profile ({error!r})") from None


def _read_meta(path: Path, arrays: Mapping[str, npt.NDArray[Any]]) -> dict[str, Any]:
    if "meta" not in arrays:
        raise ProfileError(f"{path}: not a deck profile (no 'meta' entry)")
    try:
        meta = json.loads(arrays["meta"].tobytes().decode())
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ProfileError(f"{path}: unreadable profile header ({error})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ProfileError(f"{path}: not a deck profile (format is not {FORMAT!r})")
    if meta.get("version") not in READABLE_VERSIONS:
        raise ProfileError(f"{path}: profile version {meta.get('version')!r} is not supported "
                           f"(this build reads versions 1 and {VERSION}); enrol the deck "
                           "again")
    return meta


def _build(meta: dict[str, Any], arrays: Mapping[str, npt.NDArray[Any]]) -> DeckProfile:
    two = meta["version"] >= 2
    rank = _load_classifier("rank", meta["rank"], arrays, (feature_length(RANK_BOX), RANK_MAP),
                            two)
    suit = _load_classifier("suit", meta["suit"], arrays, (feature_length(SUIT_BOX), SUIT_MAP),
                            two)
    if rank.classes != RANKS or suit.classes != SUITS:
        raise ValueError("classifier classes are not the 13 ranks and 4 suits")
    return DeckProfile(
        name=str(meta["name"]), kind=str(meta["kind"]), layout=IndexLayout(**meta["layout"]),
        rank=rank, suit=suit, colour=ColourModel(**meta["colour"]),
        unsure_below=_threshold(meta["unsure_below"]), info=dict(meta["info"]),
        one_corner_below=_optional_threshold(meta.get("one_corner_below")),
        pair=_pair_rule(meta.get("pair"),
                        isinstance(rank, TwoOpinions) and isinstance(suit, TwoOpinions)),
    )


def _pair_rule(meta: object, two_opinions: bool) -> PairRule:
    """The header's `pair` entry (absent: the mean), only on a profile of two opinions."""
    if meta is None:
        return PairRule()
    if not two_opinions:
        raise ValueError("a pair rule on a profile without two opinions")
    if not isinstance(meta, dict) or not isinstance(meta.get("unsure_below", []), list):
        raise ValueError(f"pair {meta!r} is not a rule and a list of thresholds")
    return PairRule(str(meta["rule"]), tuple(meta.get("unsure_below", [])))


def _threshold(value: object, key: str = "unsure_below") -> float:
    """An unsure threshold, a probability above zero (NaN would answer every reading)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{key} {value!r} is not a number")
    threshold = float(value)
    if not 0.0 < threshold <= 1.0:
        raise ValueError(f"{key} {value!r} is not a probability above 0")
    return threshold


def _optional_threshold(value: object) -> float | None:
    """`one_corner_below`: a threshold as `_threshold` wants, or None.

    Absent or null, the profile (one written before the key existed) never answers by one
    corner.
    """
    return None if value is None else _threshold(value, "one_corner_below")


def _load_classifier(key: str, meta: dict[str, Any], arrays: Mapping[str, npt.NDArray[Any]],
                     inputs: tuple[int, tuple[int, int]], two_opinions: bool = False
                     ) -> GlyphClassifier:
    """The classifier under `key`; `inputs` are its glyph's HOG length and map size.

    Two opinions are read only from a version 2 file (`two_opinions`): the first must read
    HOG features, the second the stretched maps.
    """
    length, size = inputs

    def array(name: str) -> npt.NDArray[np.float32]:
        return np.asarray(arrays[f"{key}/{name}"], np.float32)

    if meta["type"] == "two-opinions" and two_opinions:
        first = _load_classifier(f"{key}/first", meta["first"], arrays, inputs)
        second = _load_net(f"{key}/second", meta["second"], arrays, size)
        return TwoOpinions(first, second, length, meta["temperature"])
    if meta["type"] == "nearest":
        samples = array("samples")
        if samples.ndim != 2 or samples.shape[1] != length:
            raise ValueError(f"{key} samples have shape {samples.shape}, expected (n, {length})")
        return NearestNeighbours(meta["classes"], samples, arrays[f"{key}/labels"],
                                 meta["temperature"], meta["novelty_distance"])
    if meta["type"] == "perceptron":
        if array("mean").shape != (length,):
            raise ValueError(f"{key} input size is {array('mean').shape}, expected ({length},)")
        weights = (array("w1"), array("b1"), array("w2"), array("b2"))
        return Perceptron(meta["classes"], array("mean"), array("scale"), weights,
                          meta["temperature"], array("reference"), meta["novelty_distance"])
    raise ValueError(f"unknown {key} classifier type {meta['type']!r}")


def _load_net(key: str, meta: dict[str, Any], arrays: Mapping[str, npt.NDArray[Any]],
              size: tuple[int, int]) -> ConvGlyphClassifier:
    """The learned net under `key`, reading maps of `size` (width, height)."""
    if meta["type"] != "net":
        raise ValueError(f"{key} is a {meta['type']!r} classifier, not a net")
    if tuple(meta["size"]) != size:
        raise ValueError(f"{key} reads {meta['size']} maps, expected {list(size)}")
    return ConvGlyphClassifier(meta["classes"], arrays[f"{key}/onnx"].tobytes(), size,
                               meta["temperature"],
                               np.asarray(arrays[f"{key}/reference"], np.float32),
                               meta["novelty_distance"])


def generic_profile_path() -> Path:
    """Where the generic profile shipped with the package lies."""
    return Path(str(resources.files("vision") / GENERIC_PROFILE))


def load_generic_profile() -> DeckProfile:
    """Load the generic profile (built by `vision.build.real_build`) shipped with the package."""
    return load_profile(generic_profile_path())
