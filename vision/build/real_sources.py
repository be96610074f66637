"""The real photographs of `shared/cards-train`, source by source and deck by deck.

`shared/cards-train` (its `SOURCE.md`) holds real photos and scans of many decks, one label
row per labelled card box. This module reads them (never copies them) and measures a reader
on them the way a table sees cards, one deck at a time, so a change can be judged by how it
generalises to decks it was not built from:

* `cardcounter` (CC BY 4.0): photos with boxed *index corners*: phone A's standard deck,
  phone B's black-and-gold plastic deck, webcam frames of 7-20 cards on a table, and
  hand-held webcam shots of one card;
* `pokercards` (CC BY 4.0): phone photos of 4-5 cards of one four-index deck on tables and
  cloth, boxed as *whole cards*;
* `designs` (no licence): single cards of a few hundred designs, tight 224x224 crops;
* `templates/vedant` (no licence): cut-outs of one deck; `templates/fourcorner` (MIT):
  black-and-white scans of a four-index deck. (`templates/wsop` holds corner crops only: no
  whole card to find, so it is not read here.)

A labelled card is **right** when a reading found where it lies names it, **wrong** when a
reading found there names another card (a confident wrong answer: the one that matters), and
**unsure** otherwise (found but not answered, or not found). Readings that name a card where
no labelled card lies are counted apart (`elsewhere`): most are cards the labels leave out
(backs, corners cut by the frame), some are misreadings. Single cards (`designs`, the
templates) are laid on dark cloth with a margin first, as a camera over the felt sees them.

Boards of five and exposed hands are laid, as `vision.build.composite` lays the dev photos'
cut-outs, from the cards the finder cuts out of each single-card source (`COMPOSITE_SOURCES`),
and scored as its synthetic scenes are (`vision.build.evaluate.Tally`).

Only the licensed sources may teach a shipped model (`LICENSED`); every source may measure.
"""

from __future__ import annotations

import csv
import os
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Final

import cv2
import numpy as np
import numpy.typing as npt

from vision.recognize import CardReading

if TYPE_CHECKING:
    from vision.build.composite import CutOut
    from vision.build.evaluate import Tally as EvaluateTally

ROOT_ENV: Final = "SHOECTL_CARDS_TRAIN"
DEFAULT_ROOT: Final = Path(__file__).resolve().parents[2] / ".." / "shared" / "cards-train"
SOURCES: Final = ("cardcounter", "pokercards", "designs", "templates/vedant",
                  "templates/fourcorner")
"""The sources read here, in the order reports list them."""
LICENSED: Final = frozenset({"cardcounter", "pokercards", "templates/fourcorner"})
"""CC BY 4.0 (cardcounter, pokercards) and MIT (fourcorner): what a shipped model may learn
from, with the attributions of SOURCE.md. The others measure only."""
MARGIN: Final = 48
"""Pixels of dark cloth around a single card (designs, templates) before it is read."""
CLOTH: Final = (38, 52, 30)
"""The cloth's BGR colour: a dark green felt."""

Reader = Callable[[npt.NDArray[np.uint8]], list[CardReading]]
"""Reads one BGR frame: what `vision.Recognizer.recognize` does."""


def data_root() -> Path:
    """Where `cards-train` is: `$SHOECTL_CARDS_TRAIN`, else `shared/` beside the repository."""
    return Path(os.environ.get(ROOT_ENV, str(DEFAULT_ROOT))).resolve()


@dataclass(frozen=True)
class LabelledBox:
    """A labelled box: its card, its kind (`index`, `card`, `none`) and its pixels."""

    card: str
    kind: str
    xyxy: tuple[int, int, int, int] | None

    def holds(self, x: float, y: float, grow: float = 0.0) -> bool:
        """True when (x, y) lies in the box, grown by `grow` of its size on every side."""
        if self.xyxy is None:
            return True
        x0, y0, x1, y1 = self.xyxy
        dx, dy = (x1 - x0) * grow, (y1 - y0) * grow
        return x0 - dx <= x <= x1 + dx and y0 - dy <= y <= y1 + dy

    @property
    def centre(self) -> tuple[float, float]:
        """The box's centre (the image's for `none`)."""
        assert self.xyxy is not None
        x0, y0, x1, y1 = self.xyxy
        return (x0 + x1) / 2, (y0 + y1) / 2


@dataclass(frozen=True)
class SourceImage:
    """One image of a source, the deck it shows and its labelled boxes."""

    source: str
    deck: str
    path: Path
    boxes: tuple[LabelledBox, ...]

    @property
    def cards(self) -> dict[str, list[LabelledBox]]:
        """The labelled cards of the image, each with its boxes (an index box per corner)."""
        found: dict[str, list[LabelledBox]] = defaultdict(list)
        for box in self.boxes:
            found[box.card].append(box)
        return dict(found)


def deck_of(source: str, filename: str) -> str:
    """The deck (or kind of shot) an image shows, told apart by its file name."""
    name = Path(filename).name
    if source == "cardcounter":
        if name.startswith("IMG_2022"):
            return "phone A, standard deck"
        if name.startswith(("IMG_77", "IMG_78")):
            return "phone B, black-and-gold plastic deck"
        if name.startswith("WIN_"):
            return "webcam, 7-20 cards on a table"
        return "webcam, one card hand-held"
    return {"pokercards": "phone, four-index deck on tables", "designs": "many designs",
            "templates/vedant": "cut-out deck", "templates/fourcorner": "four-index scans"
            }.get(source, source)


def load_source(source: str, root: Path | None = None) -> list[SourceImage]:
    """Every labelled image of `source`, in file order.

    Raises:
        FileNotFoundError: The source's `labels.csv` is not there (naming it).
    """
    folder = (root or data_root()) / source
    labels = folder / "labels.csv"
    if not labels.is_file():
        raise FileNotFoundError(f"{labels}: no labels (is shared/cards-train beside the "
                                f"repository, or ${ROOT_ENV} set?)")
    rows: dict[str, list[LabelledBox]] = defaultdict(list)
    with labels.open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            xyxy = None if row["box"] == "none" else (
                int(row["x_min"]), int(row["y_min"]), int(row["x_max"]), int(row["y_max"]))
            rows[row["filename"]].append(LabelledBox(row["rank"] + row["suit"], row["box"], xyxy))
    return [SourceImage(source, deck_of(source, name), folder / name, tuple(boxes))
            for name, boxes in rows.items()]


def read_image(image: SourceImage) -> npt.NDArray[np.uint8]:
    """The image as the camera would give it (BGR); single cards on dark cloth with a margin.

    Raises:
        ValueError: The file cannot be decoded (naming it).
    """
    pixels = cv2.imread(str(image.path), cv2.IMREAD_UNCHANGED)
    if pixels is None:
        raise ValueError(f"{image.path}: not an image OpenCV can read")
    if pixels.ndim == 2:
        pixels = cv2.cvtColor(pixels, cv2.COLOR_GRAY2BGR)
    if pixels.shape[2] == 4:  # a cut-out: its transparent outside becomes the cloth
        alpha = pixels[:, :, 3:4].astype(np.float32) / 255
        cloth = np.full_like(pixels[:, :, :3], CLOTH)
        pixels = (pixels[:, :, :3] * alpha + cloth * (1 - alpha)).astype(np.uint8)
    if all(box.kind == "none" for box in image.boxes):
        pixels = cv2.copyMakeBorder(pixels, MARGIN, MARGIN, MARGIN, MARGIN,
                                    cv2.BORDER_CONSTANT, value=CLOTH)
    return np.ascontiguousarray(pixels)


@dataclass
class SourceTally:
    """Labelled cards right, wrong and unsure; answers where no labelled card lies."""

    right: int = 0
    wrong: int = 0
    unsure: int = 0
    elsewhere: int = 0
    images: int = 0
    seconds: float = 0.0
    wrong_cards: list[str] = field(default_factory=list)

    @property
    def cards(self) -> int:
        """Labelled cards read."""
        return self.right + self.wrong + self.unsure

    def add(self, other: SourceTally) -> None:
        """Add another tally's counts to this one."""
        self.right += other.right
        self.wrong += other.wrong
        self.unsure += other.unsure
        self.elsewhere += other.elsewhere
        self.images += other.images
        self.seconds += other.seconds
        self.wrong_cards += other.wrong_cards

    def line(self) -> str:
        """`right 93.1%  wrong 0  unsure 6.9%  (n cards, m images)` and the extras."""
        n = max(self.cards, 1)
        text = (f"right {100 * self.right / n:5.1f}%  wrong {self.wrong:3d}  unsure "
                f"{100 * self.unsure / n:5.1f}%  of {self.cards:4d} cards ({self.images} images)"
                f"  elsewhere {self.elsewhere}  {1000 * self.seconds / max(self.images, 1):.0f}"
                " ms/image")
        if self.wrong_cards:
            text += "  wrong: " + ", ".join(self.wrong_cards[:6])
        return text


def _centre(reading: CardReading) -> tuple[float, float]:
    if reading.index_box is not None:
        x, y, w, h = reading.index_box
        return x + w / 2, y + h / 2
    xs, ys = zip(*reading.quad, strict=True)
    return sum(xs) / len(xs), sum(ys) / len(ys)


def _contains(quad: Sequence[tuple[float, float]], point: tuple[float, float]) -> bool:
    contour = np.array(quad, dtype=np.float32).reshape(-1, 1, 2)
    return cv2.pointPolygonTest(contour, point, False) >= 0


def _where(image: SourceImage, reading: CardReading, offset: float) -> str | None:
    """The labelled card a reading was found on (None: on no labelled card)."""
    cards = image.cards
    if len(cards) == 1 and next(iter(cards.values()))[0].kind == "none":
        return next(iter(cards))
    x, y = _centre(reading)
    x, y = x - offset, y - offset
    quad = [(qx - offset, qy - offset) for qx, qy in reading.quad]
    best: tuple[float, str] | None = None
    for card, boxes in cards.items():
        for box in boxes:
            inside = (box.holds(x, y, 0.25) if box.kind == "index"
                      else box.holds(x, y) or _contains(quad, box.centre))
            if box.kind == "index" and not inside:
                inside = _contains(quad, box.centre)
            if inside:
                cx, cy = box.centre
                distance = (cx - x) ** 2 + (cy - y) ** 2
                if best is None or distance < best[0]:
                    best = (distance, card)
    return None if best is None else best[1]


def judge(image: SourceImage, readings: Iterable[CardReading], offset: float = 0.0) -> SourceTally:
    """Each labelled card of `image` right, wrong or unsure by the readings found on it."""
    tally = SourceTally(images=1)
    found: dict[str, list[CardReading]] = defaultdict(list)
    for reading in readings:
        where = _where(image, reading, offset)
        if where is None:
            tally.elsewhere += reading.card is not None
        else:
            found[where].append(reading)
    for card in image.cards:
        answers = {r.card for r in found.get(card, []) if r.card is not None}
        if card in answers:
            tally.right += 1
        elif answers:
            tally.wrong += 1
            tally.wrong_cards.append(f"{card}->{'/'.join(sorted(answers))}")
        else:
            tally.unsure += 1
    return tally


def evaluate(read: Reader, images: Sequence[SourceImage]) -> dict[str, SourceTally]:
    """Read every image; the tallies by deck, in the order the decks first appear."""
    by_deck: dict[str, SourceTally] = {}
    for image in images:
        frame = read_image(image)
        offset = MARGIN if all(box.kind == "none" for box in image.boxes) else 0.0
        started = time.perf_counter()
        readings = read(frame)
        tally = judge(image, readings, offset)
        tally.seconds = time.perf_counter() - started
        by_deck.setdefault(image.deck, SourceTally()).add(tally)
    return by_deck


def sources_present(root: Path | None = None) -> Iterator[str]:
    """The sources whose labels are there."""
    base = root or data_root()
    return (source for source in SOURCES if (base / source / "labels.csv").is_file())


COMPOSITE_SOURCES: Final = ("designs", "templates/vedant", "templates/fourcorner")
"""The sources whose images each hold one whole card, which the finder can cut out for
composites (the others' boxes are axis-aligned around turned, overlapping cards)."""


def cut_outs_of(images: Sequence[SourceImage]) -> list[CutOut]:
    """Each single-card image's card, cut out as `vision.build.composite` cuts a photo's.

    These images are the card itself: a scan or a web crop fills the frame, a cut-out's
    alpha channel marks it. So the card is the image (within the alpha's bounds), not what
    the finder makes of it, and no card is lost to the finder before the composite is read.
    """
    from vision.build.composite import CUT_WIDTH, CutOut
    from vision.build.synth import rounded_alpha

    found = []
    for image in images:
        if len(image.cards) != 1:
            continue
        pixels = cv2.imread(str(image.path), cv2.IMREAD_UNCHANGED)
        if pixels is None:
            raise ValueError(f"{image.path}: not an image OpenCV can read")
        if pixels.ndim == 2:
            pixels = cv2.cvtColor(pixels, cv2.COLOR_GRAY2BGR)
        if pixels.shape[2] == 4:
            rows, columns = np.nonzero(pixels[:, :, 3] > 127)
            pixels = pixels[rows.min():rows.max() + 1, columns.min():columns.max() + 1, :3]
        height = round(CUT_WIDTH * pixels.shape[0] / pixels.shape[1])
        card = cv2.resize(np.ascontiguousarray(pixels), (CUT_WIDTH, height),
                          interpolation=cv2.INTER_AREA)
        found.append(CutOut(next(iter(image.cards)), card, rounded_alpha(CUT_WIDTH, height),
                            str(image.path)))
    return found


def composite_tallies(read: Reader, cards: Sequence[CutOut], scenes: int
                      ) -> dict[str, EvaluateTally]:
    """The tallies by layout of `scenes` composites of each layout, laid and read.

    A board of five, two to four exposed hands, laid from `cards` on drawn tables.
    """
    from vision.build.composite import LAYOUTS, composite
    from vision.build.evaluate import Tally as SceneTally

    found: dict[str, SceneTally] = {}
    for layout in LAYOUTS:
        tally = found[layout] = SceneTally()
        for number in range(scenes):
            scene = composite(cards, layout, number)
            tally.add_scene(read(scene.frame), scene)
    return found
