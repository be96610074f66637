"""Scoring readings against the truth: right, answered, confidently wrong.

Used by the tests and `bench/vision.py` for synthetic scenes (where each card's outline is
known) and for labelled photos (one card each).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Final

import cv2
import numpy as np
import numpy.typing as npt

from vision.build.composite import SURFACES
from vision.build.synth import (
    BACK,
    BACKGROUNDS,
    CardStyle,
    Effects,
    Placement,
    Scene,
    card_quad,
    compose,
    index_right,
    lay_card,
    photograph,
    random_card_style,
    random_effects,
    render_card,
    scatter,
)
from vision.build.typefaces import TRAINING_FAMILIES
from vision.cards import RANKS, SUITS
from vision.errors import SceneError
from vision.recognize import CardReading


@dataclass(slots=True)
class Tally:
    """Counts over many cards.

    Attributes:
        cards: Face-up cards that should have been read.
        found: Of those, cards the finder located.
        answered: Cards given an answer (`card` not None).
        right: Answers that were right.
        wrong: Answers that were wrong ("confidently wrong").
        phantoms: Answers where no face-up card lies (a back, the table).
        unsure: Cards not answered, by why: a reading's `reason`, or `NOT_FOUND`.
    """

    cards: int = 0
    found: int = 0
    answered: int = 0
    right: int = 0
    wrong: int = 0
    phantoms: int = 0
    unsure: dict[str, int] = field(default_factory=dict)

    def add_photo(self, readings: Sequence[CardReading], code: str) -> None:
        """Score a photo showing exactly one card, `code`."""
        self.cards += 1
        self.found += bool(readings)
        answers = [r.card for r in readings if r.card is not None]
        if answers:
            self.answered += 1
            self.right += answers[0] == code
            self.wrong += answers[0] != code
        else:
            self._unsure(readings[0].reason if readings else NOT_FOUND)
        self.phantoms += max(0, len(answers) - 1)

    def _unsure(self, reason: str) -> None:
        self.unsure[reason] = self.unsure.get(reason, 0) + 1

    def add_scene(self, readings: Sequence[CardReading], scene: Scene) -> None:
        """Score a synthetic scene: each reading is matched to the card it lies on."""
        matched: set[int] = set()
        for reading in readings:
            index = _card_under(reading, scene)
            if index is None or scene.codes[index] == BACK:
                self.phantoms += reading.card is not None
                continue
            matched.add(index)
            if reading.card is not None:
                self.answered += 1
                self.right += reading.card == scene.codes[index]
                self.wrong += reading.card != scene.codes[index]
            else:
                self._unsure(reading.reason)
        face_up = [i for i, code in enumerate(scene.codes) if code != BACK]
        self.cards += len(face_up)
        self.found += len(matched & set(face_up))
        for _ in set(face_up) - matched:
            self._unsure(NOT_FOUND)

    def __add__(self, other: Tally) -> Tally:
        unsure = dict(self.unsure)
        for reason, count in other.unsure.items():
            unsure[reason] = unsure.get(reason, 0) + count
        return Tally(self.cards + other.cards, self.found + other.found,
                     self.answered + other.answered, self.right + other.right,
                     self.wrong + other.wrong, self.phantoms + other.phantoms, unsure)

    def unsure_summary(self) -> str:
        """The unsure cards by reason, most frequent first, as shares of the cards."""
        cards = max(self.cards, 1)
        ordered = sorted(self.unsure.items(), key=lambda item: (-item[1], item[0]))
        return "; ".join(f"{reason} {count} ({count / cards:.1%})"
                         for reason, count in ordered) or "none"

    def rates(self) -> dict[str, float]:
        """Right, answered and wrong as shares of the cards; wrong also as a share of answers."""
        cards = max(self.cards, 1)
        return {"right": self.right / cards, "answered": self.answered / cards,
                "wrong": self.wrong / cards,
                "wrong_of_answered": self.wrong / max(self.answered, 1)}

    def summary(self) -> str:
        """One line for people."""
        rates = self.rates()
        return (f"{self.cards} cards: right {rates['right']:.1%}, answered "
                f"{rates['answered']:.1%}, confidently wrong {self.wrong} "
                f"({rates['wrong']:.2%}), found {self.found}, phantom answers {self.phantoms}")


NOT_FOUND: Final = "not found"
"""`Tally.unsure`'s reason for a card the finder did not locate (or located nowhere near)."""


def _card_under(reading: CardReading, scene: Scene) -> int | None:
    quad = np.array(reading.quad, np.float32)
    best, best_overlap = None, 0.5
    for index, truth in enumerate(scene.quads):
        overlap = iou(quad, truth)
        if overlap > best_overlap:
            best, best_overlap = index, overlap
    return best


def iou(first: npt.NDArray[np.floating], second: npt.NDArray[np.floating]) -> float:
    """Intersection over union of two convex quadrilaterals (0 when both are empty)."""
    first, second = first.astype(np.float32), second.astype(np.float32)
    inter, _ = cv2.intersectConvexConvex(first, second)
    union = cv2.contourArea(first) + cv2.contourArea(second) - inter
    return float(inter) / union if union > 0 else 0.0


STRESSES = ("rotation", "scale", "lighting", "blur", "glare", "perspective", "several",
            "overlap", "low-res")
"""Kinds of synthetic stress scene (see `stress_scene`)."""
SINGLE_CARDS: Final = ("rotation", "scale", "lighting", "blur", "glare", "perspective",
                       "low-res", "several")
"""The stresses whose cards lie apart (every kind but "overlap")."""


def stress_scene(kind: str, number: int, style: CardStyle | None = None,
                 size: tuple[int, int] = (800, 600),
                 families: tuple[str, ...] = TRAINING_FAMILIES) -> Scene:
    """One synthetic scene stressing the recogniser in one way, deterministic in `number`.

    Kinds: "rotation" (any angle), "scale" (cards 70 to 330 pixels wide), "lighting" (uneven,
    tinted, washed-out, dim or bright light), "blur" (focus, noise and JPEG), "glare" (bright
    spots), "perspective" (strongly oblique camera), "several" (3 to 6 cards, typical
    imperfections), "overlap" (a blackjack hand as dealt: 2 to 5 cards, each offset down and
    to the right over the one before, so only its top-left index shows) and "low-res" (a
    sensor of a third to a half the frame's resolution, heavy JPEG).
    A random deck style with ranks from `families` (`vision.build.typefaces`; pass
    `HELD_OUT_FAMILIES` for typefaces the generic profile never saw) is drawn unless `style`
    is given.

    Raises:
        SceneError: Unknown kind.
    """
    if kind not in STRESSES:
        raise SceneError(f"unknown stress {kind!r}; choose one of {', '.join(STRESSES)}")
    rng = np.random.default_rng([STRESSES.index(kind), number])
    style = style or random_card_style(rng, families)
    codes = [RANKS[int(rng.integers(13))] + SUITS[int(rng.integers(4))] for _ in range(6)]
    background = BACKGROUNDS[int(rng.integers(len(BACKGROUNDS)))]
    placements, effects = _STRESS[kind](codes, size, rng, style)
    return compose(placements, size, style, background, effects, int(rng.integers(1 << 30)))


_Built = tuple[list[Placement], Effects]


def _centre(size: tuple[int, int]) -> tuple[float, float]:
    return size[0] / 2, size[1] / 2


_STEADY: Final = Effects(blur=0.6, noise=2.0, jpeg_quality=85)
"""A decent camera: the stresses of one kind add nothing else."""


def _alone(code: str, size: tuple[int, int], rng: np.random.Generator, width: float,
           tilt: float) -> list[Placement]:
    """One card in the middle of the frame, turned at random."""
    return [Placement(code, _centre(size), width, float(rng.uniform(0, 360)), tilt)]


def _rotation(codes: list[str], size: tuple[int, int], rng: np.random.Generator,
              style: CardStyle) -> _Built:
    return _alone(codes[0], size, rng, 220, 0.02), _STEADY


def _scale(codes: list[str], size: tuple[int, int], rng: np.random.Generator,
           style: CardStyle) -> _Built:
    return _alone(codes[0], size, rng, float(rng.uniform(70, 330)), 0.02), _STEADY


def _lighting(codes: list[str], size: tuple[int, int], rng: np.random.Generator,
              style: CardStyle) -> _Built:
    effects = Effects(light_gradient=float(rng.uniform(0.2, 0.55)),
                      colour_cast=float(rng.uniform(0.1, 0.25)),
                      saturation=float(rng.uniform(0.45, 1.0)), blur=0.6, noise=3.0,
                      jpeg_quality=80, exposure=float(rng.uniform(0.55, 1.3)))
    return _alone(codes[0], size, rng, 200, 0.03), effects


def _blur(codes: list[str], size: tuple[int, int], rng: np.random.Generator,
          style: CardStyle) -> _Built:
    effects = Effects(blur=float(rng.uniform(0.8, 2.2)), noise=float(rng.uniform(3, 8)),
                      jpeg_quality=int(rng.integers(50, 80)))
    return _alone(codes[0], size, rng, 200, 0.03), effects


def _glare(codes: list[str], size: tuple[int, int], rng: np.random.Generator,
           style: CardStyle) -> _Built:
    effects = Effects(glare=int(rng.integers(1, 3)), glare_strength=float(rng.uniform(50, 130)),
                      blur=0.6, noise=2.0, jpeg_quality=85)
    return _alone(codes[0], size, rng, 200, 0.03), effects


def _perspective(codes: list[str], size: tuple[int, int], rng: np.random.Generator,
                 style: CardStyle) -> _Built:
    return [Placement(codes[0], _centre(size), 200, float(rng.uniform(0, 360)),
                      float(rng.uniform(0.12, 0.22)), int(rng.integers(1 << 20)))], _STEADY


def _several(codes: list[str], size: tuple[int, int], rng: np.random.Generator,
             style: CardStyle) -> _Built:
    count = int(rng.integers(3, 7))
    return scatter(codes[:count], size, rng, (0.18, 0.3)), random_effects(rng, 0.7)


def _overlap(codes: list[str], size: tuple[int, int], rng: np.random.Generator,
             style: CardStyle) -> _Built:
    """A blackjack hand: each card dealt down and right of the one before, its index showing."""
    width = float(rng.uniform(100, 170))
    count = int(rng.integers(2, 6))
    angle = float(rng.uniform(-25, 25))
    across = max(0.2, index_right(style) + 0.05)
    step = np.array([rng.uniform(across, across + 0.15), rng.uniform(0.15, 0.3)]) * width
    theta = np.radians(angle)
    turn = np.array([[np.cos(theta), np.sin(theta)], [-np.sin(theta), np.cos(theta)]])
    offsets = [turn @ (step * k) for k in range(count)]
    middle = np.mean(offsets, axis=0)
    centre = np.array(_centre(size)) + rng.uniform(-40, 40, 2)
    placements = [Placement(codes[k], (float(centre[0] + o[0] - middle[0]),
                                       float(centre[1] + o[1] - middle[1])),
                            width, angle + float(rng.uniform(-2.5, 2.5)),
                            float(rng.uniform(0.0, 0.06)), int(rng.integers(1 << 20)))
                  for k, o in enumerate(offsets)]
    return placements, random_effects(rng, 0.5)


def _low_res(codes: list[str], size: tuple[int, int], rng: np.random.Generator,
            style: CardStyle) -> _Built:
    effects = Effects(blur=float(rng.uniform(0.4, 1.0)), noise=float(rng.uniform(2, 5)),
                      jpeg_quality=int(rng.integers(40, 75)),
                      downscale=float(rng.uniform(2.0, 3.0)))
    return _alone(codes[0], size, rng, float(rng.uniform(150, 260)), 0.03), effects


_STRESS: Final[dict[str, Callable[[list[str], tuple[int, int], np.random.Generator,
                                   CardStyle], _Built]]] = {
    "rotation": _rotation, "scale": _scale, "lighting": _lighting, "blur": _blur,
    "glare": _glare, "perspective": _perspective, "several": _several, "overlap": _overlap,
    "low-res": _low_res,
}


PHONE_SURFACES: Final = ("wood-grain", "dark-cloth")
"""Tables under the card in phone photos (`vision.build.composite.SURFACES`)."""
PHONE_LIGHTS: Final = ("tungsten", "daylight")
"""White balance of phone photos: warm tungsten left uncorrected, or cool daylight."""
_PHONE_SEED: Final = 1009
"""Seeds phone scenes apart from every `STRESSES` kind's."""


@dataclass(frozen=True, slots=True)
class PhoneScene:
    """A phone photo of one card and how it was taken.

    Attributes:
        scene: The frame and the truth about it.
        surface: One of `PHONE_SURFACES`.
        light: One of `PHONE_LIGHTS`.
        share: The card's share of the frame's area.
    """

    scene: Scene
    surface: str
    light: str
    share: float


def phone_scene(number: int, style: CardStyle | None = None,
                families: tuple[str, ...] = TRAINING_FAMILIES) -> PhoneScene:
    """One card as a phone photographs it, deterministic in `number`.

    The frame is 4:3, 2000 to 4000 pixels on its long side, portrait or landscape, given to
    the reader as taken. The card fills 15% to 60% of it (less when a turned card would not
    fit), roughly square to the frame (turned up to 20 degrees either way, either way up),
    seen through a hand-held camera's perspective, on wood grain or nearly black cloth, under
    the soft shadow of the phone and hand, in warm tungsten or cool daylight white balance,
    through the phone's noise reduction, strong sharpening and JPEG. A random deck style with
    ranks from `families` is drawn unless `style` is given.
    """
    rng = np.random.default_rng([_PHONE_SEED, number])
    style = style or random_card_style(rng, families)
    code = RANKS[int(rng.integers(13))] + SUITS[int(rng.integers(4))]
    long_side = int(rng.integers(500, 1001)) * 4
    portrait = bool(rng.random() < 0.5)
    size = (long_side * 3 // 4, long_side) if portrait else (long_side, long_side * 3 // 4)
    surface = PHONE_SURFACES[int(rng.integers(len(PHONE_SURFACES)))]
    light = PHONE_LIGHTS[int(rng.integers(len(PHONE_LIGHTS)))]
    placement = _phone_placement(code, size, style.aspect, rng)
    canvas = SURFACES[surface](size, rng).astype(np.float32)
    card = render_card(code, style, round(placement.width), placement.seed)
    quad = lay_card(canvas, card.image, card.alpha, placement, float(rng.uniform(0.2, 0.5)))
    _hand_shadow(canvas, quad, rng)
    frame = photograph(canvas, _phone_effects(light, rng), rng)
    share = cv2.contourArea(quad) / (size[0] * size[1])
    return PhoneScene(Scene(frame, [code], [quad], [card], style), surface, light, share)


def _phone_placement(code: str, size: tuple[int, int], aspect: float,
                     rng: np.random.Generator) -> Placement:
    """The card square to the frame's long side, shrunk until it lies 3% inside the frame."""
    width, height = size
    share = float(rng.uniform(0.15, 0.6))
    card_width = float(np.sqrt(share * width * height / aspect))
    angle = (0.0 if height > width else 90.0) + float(rng.uniform(-20, 20))
    angle += 180.0 * int(rng.integers(2))
    offset = rng.uniform(-0.08, 0.08, 2) * np.array(size)
    placement = Placement(code, (width / 2 + float(offset[0]), height / 2 + float(offset[1])),
                          card_width, angle, float(rng.uniform(0.04, 0.15)),
                          int(rng.integers(1 << 20)))
    margin = 0.03 * min(size)
    while True:
        quad = card_quad(placement, aspect)
        if (quad.min() >= margin and quad[:, 0].max() <= width - margin
                and quad[:, 1].max() <= height - margin):
            return placement
        placement = Placement(code, (width / 2, height / 2), placement.width * 0.95,
                              angle, placement.tilt, placement.seed)


def _hand_shadow(canvas: npt.NDArray[np.float32], quad: npt.NDArray[np.float32],
                 rng: np.random.Generator) -> None:
    """Darken `canvas` in place under a soft blob reaching over part of the card.

    The blob comes from a side of the frame: the phone and the hand holding it, lit from
    behind.
    """
    height, width = canvas.shape[:2]
    small = (max(8, width // 8), max(8, height // 8))
    blob = np.zeros((small[1], small[0]), np.float32)
    centre = quad.mean(axis=0) / 8 + rng.uniform(-0.6, 0.6, 2) * np.array(small)
    axes = (int(rng.uniform(0.25, 0.5) * small[0]), int(rng.uniform(0.25, 0.5) * small[1]))
    cv2.ellipse(blob, (int(centre[0]), int(centre[1])), axes, float(rng.uniform(0, 180)),
                0, 360, 1.0, -1)
    blob = cv2.GaussianBlur(blob, (0, 0), 0.08 * max(small))
    shade = 1.0 - float(rng.uniform(0.15, 0.45)) * cv2.resize(blob, (width, height))
    canvas *= shade[..., None]


def _phone_effects(light: str, rng: np.random.Generator) -> Effects:
    if light == "tungsten":
        balance = (float(rng.uniform(0.55, 0.8)), float(rng.uniform(0.85, 0.95)),
                   float(rng.uniform(1.05, 1.15)))
    else:
        balance = (float(rng.uniform(1.05, 1.2)), 1.0, float(rng.uniform(0.8, 0.92)))
    return Effects(light_gradient=float(rng.uniform(0.1, 0.3)), blur=float(rng.uniform(0.8, 2.0)),
                   noise=float(rng.uniform(2, 6)), jpeg_quality=int(rng.integers(75, 93)),
                   exposure=float(rng.uniform(0.8, 1.15)), white_balance=balance,
                   denoise=float(rng.uniform(0.6, 1.4)), sharpen=float(rng.uniform(0.6, 1.5)))


def phone_copy(photo: npt.NDArray[np.uint8], number: int) -> tuple[npt.NDArray[np.uint8], str]:
    """A photo as a phone would have taken it, deterministic in `number`.

    Enlarged (cubic) to 3000 to 4000 pixels on its long side, then through a phone's white
    balance (`PHONE_LIGHTS`), noise, noise reduction, sharpening and JPEG. Returns the frame
    and its light.
    """
    rng = np.random.default_rng([_PHONE_SEED + 1, number])
    light = PHONE_LIGHTS[int(rng.integers(len(PHONE_LIGHTS)))]
    scale = float(rng.uniform(3000, 4000)) / max(photo.shape[:2])
    canvas = cv2.resize(photo, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
    effects = replace(_phone_effects(light, rng), light_gradient=0.0, blur=0.0)
    return photograph(canvas.astype(np.float32), effects, rng), light
