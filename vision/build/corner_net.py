"""A net that reads a whole index corner at any turn, learnt from real corners (measured only).

    python -m vision.build.corner_net [--hold-out SOURCE] [--steps N] [--seed S]

The glyph classifiers of the generic profile learnt only synthetic glyphs, cut out by the
outline finder and the corner reader. This net reads what the learned index finder
(`vision.locate.indices`) finds: the corner's box, grown by a sixth, at 48 x 48 pixels in
colour, the card at any turn; it names the rank and the suit. Its corners come from the
licensed photos of tables (`TRAINING`):

* `cardcounter`: every labelled index box (each names its card);
* `pokercards`: the finder's boxes that lie in exactly one labelled card box (the card's
  name), not where two cards' boxes overlap;
* and, measured only, the single cards of `designs`, `templates/vedant` and
  `templates/fourcorner`: the finder's four best boxes on each card (on a scanned card's
  ornaments and print it finds more than its corners).

`--hold-out SOURCE` trains without that source and prints its corners' figures: right,
wrong and unsure at each confidence, corner by corner and card by card (a card's corners
combined by their mean log-probabilities). The measurement-only sources (`designs`,
`templates/vedant`) are read by every run. Nothing is written: the net is not read by the
recogniser.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.build.learned import require_torch
from vision.build.real_sources import MARGIN, SOURCES, load_source, read_image
from vision.cards import RANKS, SUITS
from vision.errors import VisionError
from vision.locate.indices import IndexBox, IndexFinder, load_index_finder

SIDE = 48
"""Side of a corner's crop, pixels."""
GROW = 1 / 6
"""The box is grown by this share of its size on every side."""
TRAINING = ("cardcounter", "pokercards")
"""The licensed sources the net learns from (CC BY 4.0)."""
SINGLE_BEST = 4
"""Boxes kept on a single card: its index corners, at most."""


@dataclass(frozen=True, slots=True)
class Corners:
    """Corner crops (n x SIDE x SIDE x 3), their card names and the card each belongs to."""

    crops: npt.NDArray[np.uint8]
    codes: list[str]
    cards: list[str]


def crop_of(frame: npt.NDArray[np.uint8], x0: float, y0: float, x1: float, y1: float,
            side: int = SIDE, grow: float = GROW) -> npt.NDArray[np.uint8]:
    """The box grown by `grow`, squared about its centre, at `side` pixels."""
    half = max(x1 - x0, y1 - y0) * (0.5 + grow)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    scale = side / (2 * half)
    matrix = np.array([[scale, 0, side / 2 - scale * cx], [0, scale, side / 2 - scale * cy]])
    return cv2.warpAffine(frame, matrix, (side, side), flags=cv2.INTER_AREA,
                          borderMode=cv2.BORDER_REPLICATE)


def corners_of(source: str, finder: IndexFinder) -> Corners:
    """Every labelled corner of `source` as the net reads it.

    Where the labels box whole cards, `finder` boxes the corners.
    """
    crops, codes, cards = [], [], []
    for number, image in enumerate(load_source(source)):
        frame = read_image(image)
        index_boxes = [b for b in image.boxes if b.kind == "index" and b.xyxy is not None]
        if index_boxes and source == "cardcounter":
            for box in index_boxes:
                assert box.xyxy is not None
                crops.append(crop_of(frame, *box.xyxy))
                codes.append(box.card)
                cards.append(f"{source}:{number}:{box.card}")
            continue
        single = all(box.kind == "none" for box in image.boxes)
        found_boxes = finder.find(frame)
        if single:
            found_boxes = found_boxes[:SINGLE_BEST]
        for found in found_boxes:
            card = _card_at(image.boxes, found, single, frame.shape)
            if card is None:
                continue
            crops.append(crop_of(frame, found.x, found.y, found.x + found.width,
                                 found.y + found.height))
            codes.append(card)
            cards.append(f"{source}:{number}:{card}")
    return Corners(np.array(crops, np.uint8).reshape(-1, SIDE, SIDE, 3), codes, cards)


def _card_at(boxes: Sequence[Any], found: IndexBox, single: bool,
             shape: tuple[int, ...]) -> str | None:
    """The one labelled card a found box lies on, None for none or several."""
    x, y = found.centre
    if single:
        inside = MARGIN <= x < shape[1] - MARGIN and MARGIN <= y < shape[0] - MARGIN
        return boxes[0].card if inside else None
    holding = {box.card for box in boxes if box.holds(x, y, 0.25 if box.kind == "index" else 0)}
    return next(iter(holding)) if len(holding) == 1 else None


def synthetic_corners(count: int, seed: int) -> Corners:
    """`count` index corners of synthetic cards, boxed as the labels box a real one.

    Random decks in the trained typeface families (`vision.build.synth`), each card turned
    at random on a plain table; its top-left or bottom-right index.
    """
    from vision.build.synth import random_card_style, render_card

    rng = np.random.default_rng(seed)
    crops, codes, cards = [], [], []
    for number in range(count):
        code = RANKS[rng.integers(13)] + SUITS[rng.integers(4)]
        rendered = render_card(code, random_card_style(rng), int(rng.integers(120, 320)),
                               seed=number)
        height, width = rendered.image.shape[:2]
        x0, y0 = (min(rendered.rank_box[0], rendered.suit_box[0]) * width,
                  min(rendered.rank_box[1], rendered.suit_box[1]) * height)
        x1, y1 = (max(rendered.rank_box[2], rendered.suit_box[2]) * width,
                  max(rendered.rank_box[3], rendered.suit_box[3]) * height)
        box = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
        if rng.random() < 0.5:  # the bottom-right index: the card turned half round
            box = np.array([width, height]) - box
        side = int(np.hypot(width, height)) + 8
        table = np.empty((side, side, 3), np.uint8)
        table[:] = rng.integers(0, 256, 3)
        turn = cv2.getRotationMatrix2D((width / 2, height / 2), float(rng.uniform(0, 360)), 1)
        turn[:, 2] += (side - width) / 2, (side - height) / 2
        card = cv2.warpAffine(rendered.image, turn, (side, side), flags=cv2.INTER_AREA)
        alpha = cv2.warpAffine(rendered.alpha, turn, (side, side))[:, :, None]
        frame = (card * alpha + table * (1 - alpha)).astype(np.uint8)
        moved = box @ turn[:, :2].T + turn[:, 2]
        crops.append(crop_of(frame, *moved.min(axis=0), *moved.max(axis=0)))
        codes.append(code)
        cards.append(f"synthetic:{number}:{code}")
    return Corners(np.array(crops, np.uint8).reshape(-1, SIDE, SIDE, 3), codes, cards)


def corner_net(torch: Any) -> Any:
    """Four 3x3 stages (32, 48, 64, 96 channels), global pooling, a rank and a suit head."""
    nn = torch.nn

    def stage(inputs: int, outputs: int) -> list[Any]:
        return [nn.Conv2d(inputs, outputs, 3, padding=1, bias=False), nn.BatchNorm2d(outputs),
                nn.ReLU(), nn.Conv2d(outputs, outputs, 3, padding=1, bias=False),
                nn.BatchNorm2d(outputs), nn.ReLU()]

    module: Any = nn.Module

    class CornerNet(module):
        def __init__(self) -> None:
            super().__init__()
            self.features = nn.Sequential(*stage(3, 32), nn.MaxPool2d(2), *stage(32, 48),
                                          nn.MaxPool2d(2), *stage(48, 64), nn.MaxPool2d(2),
                                          *stage(64, 96), nn.AdaptiveAvgPool2d(1),
                                          nn.Flatten(), nn.Dropout(0.2))
            self.rank = nn.Linear(96, len(RANKS))
            self.suit = nn.Linear(96, len(SUITS))

        def forward(self, crops: Any) -> tuple[Any, Any]:
            features = self.features(crops)
            return self.rank(features), self.suit(features)

    return CornerNet()


def _batch(corners: Corners, picks: npt.NDArray[np.int64], rng: np.random.Generator
           ) -> npt.NDArray[np.float32]:
    """The picked crops turned at random, scaled, moved, relit, blurred and compressed."""
    out = np.empty((len(picks), 3, SIDE, SIDE), np.float32)
    for row, pick in enumerate(picks):
        crop = corners.crops[pick]
        matrix = cv2.getRotationMatrix2D((SIDE / 2, SIDE / 2), float(rng.uniform(0, 360)),
                                         float(rng.uniform(0.85, 1.15)))
        matrix[:, 2] += rng.uniform(-3, 3, 2)
        crop = cv2.warpAffine(crop, matrix, (SIDE, SIDE), borderMode=cv2.BORDER_REPLICATE)
        pixels = crop.astype(np.float32)
        pixels = (pixels - 128) * rng.uniform(0.6, 1.3) + 128 + rng.uniform(-30, 30)
        pixels *= rng.uniform(0.85, 1.15, 3)  # white balance
        crop = np.clip(pixels, 0, 255).astype(np.uint8)
        if rng.random() < 0.3:
            crop = cv2.GaussianBlur(crop, (0, 0), float(rng.uniform(0.3, 1.2)))
        if rng.random() < 0.3:
            quality = int(rng.integers(35, 90))
            crop = cv2.imdecode(cv2.imencode(".jpg", crop, [cv2.IMWRITE_JPEG_QUALITY,
                                                            quality])[1], cv2.IMREAD_COLOR)
        out[row] = crop.transpose(2, 0, 1).astype(np.float32) / 64.0 - 2.0
    return out


def train(corners: Corners, steps: int, seed: int) -> Any:
    """The net trained on `corners` (PyTorch module, in evaluation mode)."""
    torch = require_torch("training the corner net")
    torch.manual_seed(seed)
    torch.set_num_threads(2)
    rng = np.random.default_rng(seed)
    net = corner_net(torch)
    ranks = torch.tensor([RANKS.index(code[0]) for code in corners.codes])
    suits = torch.tensor([SUITS.index(code[1]) for code in corners.codes])
    optimiser = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, 3e-3, total_steps=steps)
    loss_of = torch.nn.CrossEntropyLoss()
    started, running = time.perf_counter(), 0.0
    net.train()
    for step in range(steps):
        picks = rng.integers(len(corners.codes), size=64)
        rank_logits, suit_logits = net(torch.from_numpy(_batch(corners, picks, rng)))
        index = torch.from_numpy(picks)
        loss = loss_of(rank_logits, ranks[index]) + loss_of(suit_logits, suits[index])
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        schedule.step()
        running = 0.98 * running + 0.02 * loss.item() if step else loss.item()
        if (step + 1) % 200 == 0:
            sys.stderr.write(f"step {step + 1}/{steps}: loss {running:.3f} "
                             f"({time.perf_counter() - started:.0f} s)\n")
    return net.eval()


def read(net: Any, corners: Corners) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """Log-probabilities of the ranks and the suits of each corner (upright crops)."""
    torch = require_torch("reading corners with the corner net")
    blob = corners.crops.transpose(0, 3, 1, 2).astype(np.float32) / 64.0 - 2.0
    with torch.no_grad():
        rank, suit = net(torch.from_numpy(blob))
    return (torch.log_softmax(rank, 1).numpy(), torch.log_softmax(suit, 1).numpy())


def figures(corners: Corners, rank_lp: npt.NDArray[np.float32],
            suit_lp: npt.NDArray[np.float32]) -> list[str]:
    """Right / wrong / unsure at each confidence, corner by corner and card by card."""
    lines = []
    by_card: dict[str, list[int]] = defaultdict(list)
    for row, card in enumerate(corners.cards):
        by_card[card].append(row)
    card_rows = list(by_card.values())
    card_rank = np.array([rank_lp[rows].mean(axis=0) for rows in card_rows]).reshape(-1, 13)
    card_suit = np.array([suit_lp[rows].mean(axis=0) for rows in card_rows]).reshape(-1, 4)
    card_codes = [corners.codes[rows[0]] for rows in card_rows]
    for what, ranks, suits, codes in (("corners", rank_lp, suit_lp, corners.codes),
                                      ("cards", card_rank, card_suit, card_codes)):
        guess = [RANKS[r] + SUITS[s] for r, s in zip(ranks.argmax(1), suits.argmax(1),
                                                      strict=True)]
        confidence = np.exp(ranks.max(1) + suits.max(1))
        right = np.array([g == c for g, c in zip(guess, codes, strict=True)])
        for threshold in (0.0, 0.5, 0.9, 0.99):
            answered = confidence >= threshold
            lines.append(f"{what:8} n={len(codes):5d} at {threshold:4.2f}: right "
                         f"{100 * (right & answered).mean():5.1f}%  wrong "
                         f"{int((~right & answered).sum()):4d}  unsure "
                         f"{100 * (~answered).mean():5.1f}%")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    """Train without one licensed source and measure it and the measurement-only ones."""
    parser = argparse.ArgumentParser(prog="python -m vision.build.corner_net",
                                     description="Train and measure the corner net.")
    parser.add_argument("--hold-out", default="", choices=["", *TRAINING])
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--synthetic", type=int, default=0,
                        help="synthetic corners learnt beside the real ones")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    finder = load_index_finder()
    sets = {source: corners_of(source, finder) for source in SOURCES}
    for source, found in sets.items():
        sys.stderr.write(f"{source}: {len(found.codes)} corners of {len(set(found.cards))} "
                         "cards\n")
    taught = [sets[s] for s in TRAINING if s != args.hold_out]
    if args.synthetic:
        taught.append(synthetic_corners(args.synthetic, args.seed))
    joined = Corners(np.concatenate([c.crops for c in taught]),
                     [code for c in taught for code in c.codes],
                     [card for c in taught for card in c.cards])
    try:
        net = train(joined, args.steps, args.seed)
    except VisionError as error:
        sys.stderr.write(f"{error}\n")
        return 2
    measured = [s for s in SOURCES if s not in TRAINING or s == args.hold_out]
    for source in measured:
        for line in figures(sets[source], *read(net, sets[source])):
            sys.stdout.write(f"{source:21} {line}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
