"""Frame in, cards out: find each card, read its index corners, decide or say unsure.

A reading is answered only when every check agrees; otherwise `card` is None and `reason`
says why, so the caller can take another frame. A wrong card stops a table, an unsure one
only costs a frame.

Checks, in order: an index was found in at least one corner; the glyphs resemble the
profile's training glyphs (novelty); a profile reading each glyph with two classifiers
(`vision.classify.TwoOpinions`) has both name the same rank and suit on
every corner; both corners, when both were read, name the same card;
the ink colour matches the suit's colour; the combined probability reaches the profile's
`unsure_below`. Under the pair rule "either" (`vision.profile.PairRule`) the last three
checks are each classifier's alone, at its own threshold: the card is answered when both
name it on every corner and at least one of them passes them.

A card partly covered by others (an overlapping hand) may show only one of
its index corners: it is answered by a corner that passes every check on its own while the
other corner does not. An enrolled profile may also answer a whole card by one corner when
the other's glyphs are unlike the profile's but name the same card (`lone_corner`), at a
threshold its enrolment found never answers its held-out photos wrong.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from vision.cards import RED_SUITS
from vision.classify import TwoOpinions, dissent_of
from vision.edges import rolled
from vision.errors import ImageError
from vision.features import RANK_BOX, SUIT_BOX, glyph_features, glyphs_features
from vision.index import CornerIndex, read_corners
from vision.learned import glyph_maps
from vision.locate import LocateParams, Quad, locate_cards, long_over_short
from vision.profile import DeckProfile

NO_INDEX = "no index found"
NOVEL = "glyphs unlike the profile's"
DISSENT = "classifiers disagree"
DISAGREE = "corners disagree"
COLOUR = "ink colour contradicts the suit"
LOW_CONFIDENCE = "low confidence"
AMBIGUOUS_ASPECT = 1.25
"""Below this long-to-short side ratio a card's outline does not show which way is up."""
_COLOUR_DOUBT = float(np.log(0.05))


@dataclass(frozen=True, slots=True)
class CardReading:
    """One card found in a frame.

    Attributes:
        card: The card code ("QH"), or None when unsure.
        confidence: Estimated probability that `guess` is right (0 when nothing was read).
        guess: The most likely card even when unsure (None when no index was found). Only
            `card` is an answer; `guess` is evidence for records and diagnosis.
        quad: The card's corners in frame pixels (top-left, top-right, bottom-right,
            bottom-left of the upright card, or of the card turned half a turn).
        index_box: Bounding box (x, y, width, height) in frame pixels of the index read, or
            None when none was found.
        reason: Why the reading is unsure; empty when answered.
    """

    card: str | None
    confidence: float
    guess: str | None
    quad: tuple[tuple[float, float], ...]
    index_box: tuple[int, int, int, int] | None
    reason: str = ""

    @property
    def rank(self) -> str | None:
        """The rank letter of an answered reading."""
        return self.card[0] if self.card else None

    @property
    def suit(self) -> str | None:
        """The suit letter of an answered reading."""
        return self.card[1] if self.card else None

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: card, confidence, box, corners (and reason when unsure)."""
        out: dict[str, Any] = {"card": self.card, "confidence": round(self.confidence, 4),
                               "box": list(self.index_box) if self.index_box else None,
                               "corners": [[round(x, 1), round(y, 1)] for x, y in self.quad]}
        if self.reason:
            out["reason"] = self.reason
        return out


@dataclass(frozen=True, slots=True)
class CornerFeatures:
    """What the classifiers see of one index corner.

    Attributes:
        rank: Feature vector of the rank glyph.
        suit: Feature vector of the suit glyph.
        redness: Redness of the index's ink, the suit weighted three to one over the rank
            (its thin strokes lose colour to blur and JPEG's halved colour resolution).
    """

    rank: npt.NDArray[np.float32]
    suit: npt.NDArray[np.float32]
    redness: float

    @classmethod
    def of(cls, corner: CornerIndex) -> CornerFeatures:
        """Describe a corner found by `vision.index.read_corner`."""
        return cls(glyph_features(corner.rank.ink, RANK_BOX),
                   glyph_features(corner.suit.ink, SUIT_BOX), _index_redness(corner))

    @classmethod
    def of_all(cls, corners: Sequence[CornerIndex]) -> list[CornerFeatures]:
        """`of` for many corners, the glyphs of each kind described in one call."""
        ranks = glyphs_features([corner.rank.ink for corner in corners], RANK_BOX)
        suits = glyphs_features([corner.suit.ink for corner in corners], SUIT_BOX)
        return [cls(rank, suit, _index_redness(corner))
                for rank, suit, corner in zip(ranks, suits, corners, strict=True)]


def _index_redness(corner: CornerIndex) -> float:
    """The corner's redness, its suit weighted three to one over its rank."""
    return (corner.rank.redness + 3.0 * corner.suit.redness) / 4


def map_features(corners: Sequence[CornerIndex]) -> list[CornerFeatures]:
    """What a learned classifier sees of each corner: its glyphs' stretched maps, flattened.

    The counterpart of `CornerFeatures.of_all` for classifiers that are
    `vision.learned.ConvGlyphClassifier`s.
    """
    ranks, suits = glyph_maps(corners)
    return [CornerFeatures(rank.ravel(), suit.ravel(), _index_redness(corner))
            for rank, suit, corner in zip(ranks, suits, corners, strict=True)]


def describe_corners(profile: DeckProfile, corners: Sequence[CornerIndex]
                     ) -> list[CornerFeatures]:
    """Every corner's features as the profile's classifiers read them.

    The glyphs' HOG features; for a profile reading each glyph with two opinions
    (`vision.classify.TwoOpinions`: the perceptrons and the learned nets) the HOG features
    followed by the stretched ink maps.
    """
    described = CornerFeatures.of_all(corners)
    if not isinstance(profile.rank, TwoOpinions) and not isinstance(profile.suit, TwoOpinions):
        return described
    maps = map_features(corners)
    return [CornerFeatures(_joined(hog.rank, image.rank, profile.rank),
                           _joined(hog.suit, image.suit, profile.suit), hog.redness)
            for hog, image in zip(described, maps, strict=True)]


def _joined(hog: npt.NDArray[np.float32], image: npt.NDArray[np.float32],
            classifier: object) -> npt.NDArray[np.float32]:
    """A glyph's HOG features, followed by its map where `classifier` reads both."""
    if not isinstance(classifier, TwoOpinions):
        return hog
    return np.concatenate([hog, image]).astype(np.float32)


@dataclass(frozen=True, slots=True)
class CardVerdict:
    """The verdict on one card's corners.

    Attributes:
        guess: The most likely card.
        confidence: Its estimated probability.
        reason: Why it is not an answer (see the module's checks); empty when answered.
    """

    guess: str
    confidence: float
    reason: str


class Recognizer:
    """Reads the cards in frames with one deck profile.

    Holds no per-frame state: one instance may serve any number of frames, one at a time or
    from several threads.

    Args:
        profile: The deck profile (`vision.load_profile` or `vision.load_generic_profile`).
        locate: Card-finding tuning; None for the defaults.
        unsure_below: Overrides the profile's confidence threshold.
    """

    def __init__(self, profile: DeckProfile, locate: LocateParams | None = None,
                 unsure_below: float | None = None) -> None:
        self.profile = profile
        self.locate = locate or LocateParams()
        self.unsure_below = profile.unsure_below if unsure_below is None else unsure_below

    def recognize(self, frame: npt.NDArray[np.uint8]) -> list[CardReading]:
        """Find and read every card in a BGR frame, in reading order (top to bottom).

        Raises:
            ImageError: `frame` is not a non-empty uint8 image.
        """
        frame = check_frame(frame)
        cards = [self._corners(frame, card.quad, card.covered)
                 for card in locate_cards(frame, self.locate, self.profile.layout.card_aspect)]
        return sorted(self._readings(cards), key=_reading_order)

    def read_card(self, frame: npt.NDArray[np.uint8], quad: Quad) -> CardReading:
        """Read the card whose corners in `frame` are `quad` (ordered as `find_cards` does).

        A card seen so obliquely that it looks nearly square is read both ways up; two
        different answers make it unsure.
        """
        return self._readings([self._corners(frame, quad, covered=False)])[0]

    def read_covered(self, frame: npt.NDArray[np.uint8], quad: Quad) -> CardReading:
        """Read a card lying partly under others (`vision.locate.Located.covered`).

        One of its index corners may be hidden under another card, whose face then shows
        there instead: when the two corners do not make an answer together, a corner that
        is answered on its own, while the other is not, gives the answer.
        """
        return self._readings([self._corners(frame, quad, covered=True)])[0]

    def _corners(self, frame: npt.NDArray[np.uint8], quad: Quad, covered: bool) -> _CardCorners:
        """The index corners found on one card, both ways up when its outline is ambiguous."""
        quad = np.asarray(quad, np.float32)
        turns = (0,) if covered or long_over_short(quad) >= AMBIGUOUS_ASPECT else (0, 1)
        views = tuple([c for c in read_corners(frame, rolled(quad, turn),
                                               self.profile.layout) if c is not None]
                      for turn in turns)
        return _CardCorners(quad, covered, views)

    def _readings(self, cards: Sequence[_CardCorners]) -> list[CardReading]:
        """Read cards whose corners were found, classifying all their corners at once.

        One classifier call for every corner of a frame reads each classifier's matrices
        once, not once per card.
        """
        found = [corner for card in cards for view in card.views for corner in view]
        evidence = assess_corners(self.profile, self._described(found))
        readings, start = [], 0
        for card in cards:
            views = []
            for view in card.views:
                views.append((view, evidence.rows(start, start + len(view))))
                start += len(view)
            readings.append(self._covered(card.quad, *views[0]) if card.covered
                            else self._whole(card.quad, views))
        return readings

    def _described(self, corners: Sequence[CornerIndex]) -> list[CornerFeatures]:
        """The features of every corner of a frame, as the profile's classifiers read them."""
        return describe_corners(self.profile, corners)

    def _whole(self, quad: Quad, views: list[tuple[list[CornerIndex], CornerEvidence]]
               ) -> CardReading:
        """The reading of a card lying whole in view (`read_card`)."""
        reading = self._verdict(quad, *views[0])
        if len(views) == 1:
            return reading
        turned = self._verdict(rolled(quad, 1), *views[1])
        if reading.card and turned.card and reading.card != turned.card:
            return replace(reading, card=None, reason=DISAGREE)
        if turned.card and not reading.card:
            return replace(turned, quad=reading.quad)
        if reading.guess is None and turned.guess is not None:
            return replace(turned, quad=reading.quad)
        return reading

    def _covered(self, quad: Quad, corners: list[CornerIndex], evidence: CornerEvidence
                 ) -> CardReading:
        """The reading of a card lying partly under others (`read_covered`)."""
        reading = self._verdict(quad, corners, evidence)
        if reading.card is not None:
            return reading
        alone = [(corner, verdict_of(self.profile, evidence.rows(index, index + 1),
                                self.unsure_below))
                 for index, corner in enumerate(corners)]
        answered = [(corner, verdict) for corner, verdict in alone if not verdict.reason]
        if len(answered) != 1:
            return reading
        corner, verdict = answered[0]
        return CardReading(verdict.guess, verdict.confidence, verdict.guess, reading.quad,
                           _index_box([corner]))

    def _verdict(self, quad: Quad, found: list[CornerIndex], evidence: CornerEvidence
                 ) -> CardReading:
        quad_points = tuple((float(x), float(y)) for x, y in quad)
        if not found:
            return CardReading(None, 0.0, None, quad_points, None, NO_INDEX)
        verdict = verdict_of(self.profile, evidence, self.unsure_below)
        return CardReading(None if verdict.reason else verdict.guess, verdict.confidence,
                           verdict.guess, quad_points, _index_box(found), verdict.reason)


@dataclass(frozen=True, slots=True)
class _CardCorners:
    """One card's outline and the index corners found on it.

    `views` holds the corners read with the card upright from `quad[0]` and, for an
    outline too square to show which way is up, those read from `quad[1]`.
    """

    quad: Quad
    covered: bool
    views: tuple[list[CornerIndex], ...]


@dataclass(frozen=True, slots=True)
class CornerEvidence:
    """What the profile's classifiers say of some index corners, one row per corner.

    Attributes:
        rank: Log-probabilities of the ranks (corners x ranks).
        rank_novelty: Novelty of each corner's rank glyph (1 or more: unlike the profile's).
        suit: Log-probabilities of the suits from the glyph alone (corners x suits).
        suit_novelty: Novelty of each corner's suit glyph.
        colour: Log-probability of each suit's colour given the corner's ink (corners x
            suits).
        dissent: Per corner, whether a profile's two classifiers of a glyph name different
            classes for its rank or its suit (`vision.classify.TwoOpinions`); None where
            there is one classifier per glyph (never dissenting).
        alone: Under the pair rule "either", what each of the two classifiers says alone
            (the first's evidence, the second's); None otherwise.
    """

    rank: npt.NDArray[np.float32]
    rank_novelty: npt.NDArray[np.float32]
    suit: npt.NDArray[np.float32]
    suit_novelty: npt.NDArray[np.float32]
    colour: npt.NDArray[np.float32]
    dissent: npt.NDArray[np.bool_] | None = None
    alone: tuple[CornerEvidence, CornerEvidence] | None = None

    def rows(self, start: int, stop: int) -> CornerEvidence:
        """The evidence of corners `start` to `stop` (exclusive)."""
        alone = None if self.alone is None else (self.alone[0].rows(start, stop),
                                                 self.alone[1].rows(start, stop))
        return CornerEvidence(self.rank[start:stop], self.rank_novelty[start:stop],
                              self.suit[start:stop], self.suit_novelty[start:stop],
                              self.colour[start:stop],
                              None if self.dissent is None else self.dissent[start:stop],
                              alone)

    @property
    def dissenting(self) -> bool:
        """Whether two classifiers of a glyph name different classes on any corner."""
        return self.dissent is not None and bool(self.dissent.any())


def assess_corners(profile: DeckProfile, corners: Sequence[CornerFeatures]) -> CornerEvidence:
    """Classify any number of corners (of one card or of many) in one call per classifier."""
    if not corners:
        empty = np.zeros((0,), np.float32)
        return CornerEvidence(np.zeros((0, len(profile.rank.classes)), np.float32), empty,
                              np.zeros((0, len(profile.suit.classes)), np.float32), empty,
                              np.zeros((0, len(profile.suit.classes)), np.float32))
    ranks, suits = np.stack([c.rank for c in corners]), np.stack([c.suit for c in corners])
    colour = _colour_terms(profile, corners)
    if profile.pair.rule != "mean":
        return _each_assessed(profile, ranks, suits, colour)
    rank_lp, rank_novelty, rank_dissent = dissent_of(profile.rank, ranks)
    suit_lp, suit_novelty, suit_dissent = dissent_of(profile.suit, suits)
    return CornerEvidence(rank_lp, rank_novelty, suit_lp, suit_novelty, colour,
                          _either(rank_dissent, suit_dissent))


def _each_assessed(profile: DeckProfile, ranks: npt.NDArray[np.float32],
                   suits: npt.NDArray[np.float32], colour: npt.NDArray[np.float32]
                   ) -> CornerEvidence:
    """The pair's evidence with each classifier's own (`CornerEvidence.alone`), one pass each."""
    if not isinstance(profile.rank, TwoOpinions) or not isinstance(profile.suit, TwoOpinions):
        raise TypeError("the pair rule 'either' needs two opinions of both rank and suit")
    rank_each, suit_each = profile.rank.each(ranks), profile.suit.each(suits)
    rank_lp, rank_novelty, rank_dissent = profile.rank.together(*rank_each)
    suit_lp, suit_novelty, suit_dissent = profile.suit.together(*suit_each)
    alone = tuple(CornerEvidence(rank[0], rank[1], suit[0], suit[1], colour)
                  for rank, suit in zip(rank_each, suit_each, strict=True))
    return CornerEvidence(rank_lp, rank_novelty, suit_lp, suit_novelty, colour,
                          rank_dissent | suit_dissent, (alone[0], alone[1]))


def _either(rank: npt.NDArray[np.bool_] | None, suit: npt.NDArray[np.bool_] | None
            ) -> npt.NDArray[np.bool_] | None:
    """Corners on which the rank's or the suit's two classifiers dissent (None: no pairs)."""
    if rank is None or suit is None:
        return suit if rank is None else rank
    return rank | suit


def decide(profile: DeckProfile, corners: Sequence[CornerFeatures],
           unsure_below: float) -> CardVerdict:
    """Combine the corners of one card into a guess, its confidence and any doubt.

    Args:
        profile: The deck profile whose classifiers and colour model are used.
        corners: One or two corners of the card (at least one).
        unsure_below: Confidence below which the guess is not an answer.
    """
    return verdict_of(profile, assess_corners(profile, corners), unsure_below)


def verdict_of(profile: DeckProfile, evidence: CornerEvidence, unsure_below: float) -> CardVerdict:
    """Like `decide`, from the corners' evidence (`assess_corners`, at least one corner).

    When the corners together are unsure only because one corner's glyphs are unlike the
    profile's, and the profile allows it (`DeckProfile.one_corner_below`), the other corner
    answers alone (`lone_corner`) if it reaches that threshold (and `unsure_below`).
    """
    verdict = _joint_verdict(profile, evidence, unsure_below)
    if verdict.reason != NOVEL or profile.one_corner_below is None:
        return verdict
    lone = lone_corner(profile, evidence)
    if lone is None or lone.confidence < max(unsure_below, profile.one_corner_below):
        return verdict
    return lone


def lone_corner(profile: DeckProfile, evidence: CornerEvidence) -> CardVerdict | None:
    """The one corner of two that alone passes every check but confidence, or None.

    Given only when the other corner's glyphs are unlike the profile's yet name the same card.
    A corner warped from an outline a few pixels off, or washed by glare, can look unlike
    every enrolled glyph while the card's other corner reads clearly. A novel corner naming
    another card contradicts the reading and gives None; so do two novel corners, and two
    corners neither of which is novel (they then agree or disagree on their own).
    """
    if len(evidence.rank) != 2:
        return None
    alone = [_joint_verdict(profile, evidence.rows(row, row + 1), 0.0) for row in (0, 1)]
    novel = [verdict.reason == NOVEL for verdict in alone]
    if novel.count(True) != 1:
        return None
    answering, other = (alone[1], alone[0]) if novel[0] else (alone[0], alone[1])
    if answering.reason or other.guess != answering.guess:
        return None
    return answering


def _joint_verdict(profile: DeckProfile, evidence: CornerEvidence, unsure_below: float
                   ) -> CardVerdict:
    """The corners' evidence combined, every check applied to them together.

    Under the pair rule "either" (`CornerEvidence.alone` given), `_either_verdict`.
    """
    if evidence.alone is not None:
        return _either_verdict(profile, evidence, unsure_below)
    suit_lp = _suit_with_colour(evidence)
    rank_all, suit_all = _mean_log(evidence.rank), _mean_log(suit_lp)
    rank, suit = int(np.argmax(rank_all)), int(np.argmax(suit_all))
    guess = profile.rank.classes[rank] + profile.suit.classes[suit]
    confidence = float(np.exp(rank_all[rank] + suit_all[suit]))
    novelty = max(float(evidence.rank_novelty.max()), float(evidence.suit_novelty.max()))
    reason = _doubt(novelty, evidence.dissenting,
                    set(_corner_cards(profile, evidence.rank, suit_lp)) == {guess},
                    float(evidence.colour[:, suit].mean()), confidence, unsure_below)
    return CardVerdict(guess, confidence, reason)


def _either_verdict(profile: DeckProfile, evidence: CornerEvidence, unsure_below: float
                    ) -> CardVerdict:
    """The pair rules "either" and "either-card": both name the card, at least one is sure.

    Novelty is the pair's (either classifier's). Under "either" the two must name the same
    card on every corner (rank, and suit with the ink's colour), or the card is unsure by
    dissent; under "either-card" only their cards, each classifier's corners combined, must
    be the same. Each is read alone through the remaining checks (corners agree, colour,
    confidence) at its own threshold, or at `unsure_below` where that is stricter, and the
    more confident of those answering answers. When neither answers, the more confident
    one's verdict says why.
    """
    if evidence.alone is None:
        raise TypeError("the pair rule 'either' needs each classifier's own evidence")
    every_corner = profile.pair.rule == "either"
    novel = max(float(evidence.rank_novelty.max()), float(evidence.suit_novelty.max())) >= 1.0
    if novel or (every_corner and evidence.dissenting):
        return _joint_verdict(profile, replace(evidence, alone=None), 0.0)  # why, the pair's
    first, second = evidence.alone
    alone = [_joint_verdict(profile, own, max(threshold, unsure_below))
             for own, threshold in zip(evidence.alone, profile.pair.unsure_below, strict=True)]
    same = (_corner_cards(profile, first.rank, _suit_with_colour(first))
            == _corner_cards(profile, second.rank, _suit_with_colour(second))
            if every_corner else alone[0].guess == alone[1].guess)
    if not same:
        pair = _joint_verdict(profile, replace(evidence, alone=None), 0.0)
        return CardVerdict(pair.guess, pair.confidence, DISSENT)
    answered = [verdict for verdict in alone if not verdict.reason]
    return max(answered or alone, key=lambda verdict: verdict.confidence)


def _suit_with_colour(evidence: CornerEvidence) -> npt.NDArray[np.float32]:
    """Per corner, the suits' log-probabilities given both the glyph and the ink's colour."""
    suit_lp = evidence.suit + evidence.colour
    return np.asarray(suit_lp - np.logaddexp.reduce(suit_lp, axis=1, keepdims=True),
                      np.float32)


def _corner_cards(profile: DeckProfile, rank_lp: npt.NDArray[np.float32],
                  suit_lp: npt.NDArray[np.float32]) -> list[str]:
    """The card each corner names on its own (ranks, and suits given the colour, per row)."""
    return [profile.rank.classes[int(np.argmax(r))] + profile.suit.classes[int(np.argmax(s))]
            for r, s in zip(rank_lp, suit_lp, strict=True)]


def _doubt(novelty: float, dissent: bool, corners_agree: bool, colour: float,
           confidence: float, unsure_below: float) -> str:
    """The first check a reading fails, in the module's order, or "" if it passes them all."""
    if novelty >= 1.0:
        return NOVEL
    if dissent:
        return DISSENT
    if not corners_agree:
        return DISAGREE
    if colour < _COLOUR_DOUBT:
        return COLOUR
    if confidence < unsure_below:
        return LOW_CONFIDENCE
    return ""


def _colour_terms(profile: DeckProfile,
                  corners: Sequence[CornerFeatures]) -> npt.NDArray[np.float32]:
    """Per corner, the log-probability of each suit's colour given the ink's redness."""
    red_suits = np.array([s in RED_SUITS for s in profile.suit.classes])
    terms = []
    for corner in corners:
        log_red, log_black = profile.colour.log_red_black(corner.redness)
        terms.append(np.where(red_suits, log_red, log_black))
    return np.asarray(terms, np.float32)


def _mean_log(log_probabilities: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """Combine corners: the normalised geometric mean of their probabilities.

    Not their product: a card's two corners are the same print seen through the same lens,
    so their mistakes go together (on a real deck, taking them as independent evidence made
    several wrong answers confident).
    """
    mean = log_probabilities.mean(axis=0)
    return (mean - np.logaddexp.reduce(mean)).astype(np.float32)


def _index_box(corners: Sequence[CornerIndex]) -> tuple[int, int, int, int]:
    outline = corners[0].outline
    x0, y0 = np.floor(outline.min(axis=0))
    x1, y1 = np.ceil(outline.max(axis=0))
    return int(x0), int(y0), int(x1 - x0), int(y1 - y0)


def _reading_order(reading: CardReading) -> tuple[float, float]:
    xs = [x for x, _ in reading.quad]
    ys = [y for _, y in reading.quad]
    return round(sum(ys) / 4 / 20), sum(xs) / 4


def check_frame(frame: object) -> npt.NDArray[np.uint8]:
    """Return `frame` as a BGR uint8 image, or raise ImageError saying what is wrong with it.

    Single-channel frames are accepted and read as grey (colour checks then see no red).
    """
    if not isinstance(frame, np.ndarray):
        raise ImageError(f"frame must be a numpy array, got {type(frame).__name__}")
    if frame.dtype != np.uint8:
        raise ImageError(f"frame must be uint8, got {frame.dtype}")
    if frame.ndim == 2:
        frame = np.repeat(frame[:, :, None], 3, axis=2)
    if frame.ndim != 3 or frame.shape[2] != 3:
        raise ImageError(f"frame must be H x W x 3 (BGR) or H x W, got shape {frame.shape}")
    if frame.shape[0] < 32 or frame.shape[1] < 32:
        raise ImageError(f"frame of {frame.shape[1]}x{frame.shape[0]} pixels is too small")
    return frame
