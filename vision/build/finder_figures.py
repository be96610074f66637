"""How many of `shared/cards-train`'s labelled cards each finder finds, deck by deck.

The recogniser can read only a card it has found. On real photos of white decks on pale
tables most cards are never found (`vision.build.real_sources`: "not found" is most of the
unsure), so the finders are measured on their own, before any reading:

* the **outline finder** (`vision.locate.locate_cards`) finds a labelled card when one of
  its outlines holds the card's labelled box centre (an index box's, or a whole card's);
* the **index finder** (`vision.locate.indices`) finds a labelled card when one of its
  boxes' centres lies in one of the card's labelled index boxes (grown by a quarter of its
  size on every side), in its whole-card box (the box whose centre is nearest, where boxes
  overlap) or, for a single card on cloth, on the card.

Index recall is the share of labelled index boxes holding a found box's centre (each found
box counted for one labelled box); found boxes on no labelled card are counted apart
(`off card`, per image): most are real corners the labels leave out (backs, corners cut by
the frame), some are not corners at all. Boxes on labelled cards are counted per card
(`/card`): a standard deck shows two index corners, a four-index deck four; more are boxes on
a card's pips or print.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from vision.build.real_sources import MARGIN, LabelledBox, SourceImage, read_image
from vision.locate import locate_cards
from vision.locate.indices import IndexBox, IndexFinder


@dataclass
class FinderTally:
    """Cards found by each finder, index boxes found, boxes found on no card, time."""

    cards: int = 0
    outline_found: int = 0
    index_found: int = 0
    index_boxes: int = 0
    index_boxes_found: int = 0
    off_card: int = 0
    on_card: int = 0
    images: int = 0
    seconds: float = 0.0

    def add(self, other: FinderTally) -> None:
        """Add another tally's counts to this one."""
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def line(self) -> str:
        """`cards n  outline a%  index b%  index boxes c%  f/card  off card d/image  e ms`."""
        n = max(self.cards, 1)
        boxes = (f"{100 * self.index_boxes_found / self.index_boxes:5.1f}%"
                 if self.index_boxes else "    -")
        return (f"{self.cards:5d} cards  outline finder {100 * self.outline_found / n:5.1f}%"
                f"  index finder {100 * self.index_found / n:5.1f}%  index boxes {boxes}"
                f"  {self.on_card / n:4.1f}/card"
                f"  off card {self.off_card / max(self.images, 1):4.2f}/image"
                f"  {1000 * self.seconds / max(self.images, 1):4.0f} ms/image")


def _inside(box: LabelledBox, point: tuple[float, float], grow: float) -> bool:
    return box.holds(point[0], point[1], grow)


def _card_of(image: SourceImage, point: tuple[float, float], single: bool) -> str | None:
    """The labelled card a found box's centre lies on, None for none."""
    cards = image.cards
    if single:
        only = next(iter(cards))
        return only if point[0] >= 0 and point[1] >= 0 else None
    best: tuple[float, str] | None = None
    for card, boxes in cards.items():
        for box in boxes:
            if _inside(box, point, 0.25 if box.kind == "index" else 0.0):
                cx, cy = box.centre
                distance = (cx - point[0]) ** 2 + (cy - point[1]) ** 2
                if best is None or distance < best[0]:
                    best = (distance, card)
    return None if best is None else best[1]


def judge_finders(image: SourceImage, quads: Sequence[np.ndarray], found: Sequence[IndexBox],
                  offset: float, width: int, height: int) -> FinderTally:
    """One image's tally.

    `quads` come from the outline finder, `found` from the index finder, both in the frame
    as read (single cards framed by `offset` pixels of cloth).
    """
    single = all(box.kind == "none" for box in image.boxes)
    tally = FinderTally(images=1, cards=len(image.cards))
    centres = [(b.centre[0] - offset, b.centre[1] - offset) for b in found]
    if single:
        centres = [c if 0 <= c[0] < width and 0 <= c[1] < height else (-1.0, -1.0)
                   for c in centres]
    on = [_card_of(image, centre, single) for centre in centres]
    tally.off_card = sum(card is None for card in on)
    tally.on_card = len(on) - tally.off_card
    tally.index_found = len({card for card in on if card is not None})
    for boxes in image.cards.values():
        points = ([(width / 2, height / 2)] if single
                  else [box.centre for box in boxes])
        if any(cv2.pointPolygonTest(np.asarray(quad, np.float32).reshape(-1, 1, 2),
                                    (px + offset, py + offset), False) >= 0
               for quad in quads for px, py in points):
            tally.outline_found += 1
    index_boxes = [box for box in image.boxes if box.kind == "index"]
    tally.index_boxes = len(index_boxes)
    used: set[int] = set()
    for box in index_boxes:
        for number, centre in enumerate(centres):
            if number not in used and _inside(box, centre, 0.25):
                used.add(number)
                tally.index_boxes_found += 1
                break
    return tally


def measure_finders(finder: IndexFinder, images: Sequence[SourceImage]
                    ) -> dict[str, FinderTally]:
    """Both finders over `images`; the tallies by deck, in the order decks first appear."""
    by_deck: dict[str, FinderTally] = {}
    for image in images:
        frame = read_image(image)
        single = all(box.kind == "none" for box in image.boxes)
        offset = MARGIN if single else 0.0
        height, width = frame.shape[0] - 2 * int(offset), frame.shape[1] - 2 * int(offset)
        quads = [card.quad for card in locate_cards(frame)]
        started = time.perf_counter()
        found = finder.find(frame)
        seconds = time.perf_counter() - started
        tally = judge_finders(image, quads, found, offset, width, height)
        tally.seconds = seconds
        by_deck.setdefault(image.deck, FinderTally()).add(tally)
    return by_deck
