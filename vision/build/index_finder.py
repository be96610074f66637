"""Train the learned index-corner finder: `python -m vision.build.index_finder` (needs PyTorch).

    python -m vision.build.index_finder [--out FILE] [--hold-out DECK] [--epochs N]
        [--seed S] [--threads N]

The net (`vision.locate.indices`) learns from the index boxes of `shared/cards-train`'s
`cardcounter` source (CC BY 4.0, the only licensed source whose boxes enclose index
corners): phone A's standard deck, phone B's black-and-gold plastic deck, webcam frames of
7-20 cards on a table and hand-held webcam shots. `--hold-out DECK` leaves one of those
decks out (`vision.build.real_sources.deck_of` names them), so it can be measured on
photos it never saw (`bench/vision.py --section index-finder`).

Every step draws crops of 256 x 256 pixels from the training photos, each at a random scale
(0.45-1.6), turned a quarter turn at random and by up to 12 degrees, then altered in
contrast, brightness and gamma, blurred, noised and JPEG-compressed at random; the target is
a Gaussian peak at each box's centre every fourth pixel (the focal loss of CenterNet) and
the box's log width and height there. The whole build depends only on `--seed`, the data
and the options; PyTorch and onnx are build tools (the optional extra `nets`).
"""

from __future__ import annotations

import argparse
import io
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.build.learned import require_torch
from vision.build.real_sources import load_source
from vision.errors import VisionError
from vision.locate.indices import (
    ALIGN,
    DEFAULT_PATH,
    SIZE_UNIT,
    STRIDE,
    IndexFinder,
    grey_input,
    save_index_finder,
)

SOURCE = "cardcounter"
"""The licensed source whose boxes are index corners."""
CROP = 256
"""Side of a training crop, input pixels."""


@dataclass(frozen=True, slots=True)
class FinderOptions:
    """Training settings of the index finder.

    Attributes:
        steps: Optimiser steps.
        batch: Crops per step.
        rate: Peak AdamW learning rate (one cycle).
        decay: Weight decay.
        seed: Seed of the weights, the crops and the alterations.
        threads: Threads PyTorch trains with.
        threshold: Score at which the shipped finder answers a box.
        longest: Longer side frames are reduced to before the net reads them.
        stem: How the net reaches stride 4: `strided` (two strided 3x3 convolutions, 12 and
            16 channels) or `patch` (one 4x4 convolution at stride 4, 16 channels: fewer
            operations at full resolution).
    """

    steps: int = 2000
    batch: int = 24
    rate: float = 4e-3
    decay: float = 1e-4
    seed: int = 0
    threads: int = 2
    threshold: float = 0.3
    longest: int = 800
    stem: str = "strided"


@dataclass(frozen=True, slots=True)
class Photo:
    """A training photo: grey pixels and its index boxes (n x 4: x0, y0, x1, y1)."""

    name: str
    deck: str
    grey: npt.NDArray[np.uint8]
    boxes: npt.NDArray[np.float32]


def training_photos(hold_out: str = "", root: Path | None = None) -> list[Photo]:
    """The `cardcounter` photos with their index boxes, leaving out the deck `hold_out`.

    Raises:
        VisionError: `hold_out` names no deck of the source, or an image is unreadable.
    """
    images = load_source(SOURCE, root)
    decks = sorted({image.deck for image in images})
    if hold_out and hold_out not in decks:
        raise VisionError(f"--hold-out {hold_out!r}: no such deck of {SOURCE} "
                          f"(decks: {', '.join(decks)})")
    photos = []
    for image in images:
        if image.deck == hold_out:
            continue
        grey = cv2.imread(str(image.path), cv2.IMREAD_GRAYSCALE)
        if grey is None:
            raise VisionError(f"{image.path}: not an image OpenCV can read")
        boxes = np.array([box.xyxy for box in image.boxes if box.kind == "index"
                          and box.xyxy is not None], np.float32).reshape(-1, 4)
        photos.append(Photo(image.path.name, image.deck, grey, boxes))
    return photos


def training_crop(photo: Photo, rng: np.random.Generator
                  ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """One altered crop of `photo` (CROP x CROP, the net's input scale) and its boxes."""
    scale = float(np.exp(rng.uniform(np.log(0.45), np.log(1.6))))
    angle = 90.0 * int(rng.integers(4)) + float(rng.uniform(-12, 12))
    height, width = photo.grey.shape
    if len(photo.boxes) and rng.random() < 0.8:
        x0, y0, x1, y1 = photo.boxes[rng.integers(len(photo.boxes))]
        centre = (float(x0 + x1) / 2, float(y0 + y1) / 2)
    else:
        centre = (float(rng.uniform(0, width)), float(rng.uniform(0, height)))
    matrix = cv2.getRotationMatrix2D(centre, angle, scale)
    shift = rng.uniform(-0.35, 0.35, 2) * CROP
    matrix[:, 2] += np.array([CROP / 2, CROP / 2]) - np.array(centre) + shift
    crop = cv2.warpAffine(photo.grey, matrix, (CROP, CROP), flags=cv2.INTER_AREA
                          if scale < 1 else cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    boxes = _moved(photo.boxes, matrix)
    return _altered(crop, rng), boxes


def _moved(boxes: npt.NDArray[np.float32], matrix: npt.NDArray[np.float64]
           ) -> npt.NDArray[np.float32]:
    """Axis-aligned boxes after an affine move: the bounds of each box's moved corners."""
    if not len(boxes):
        return boxes
    x0, y0, x1, y1 = boxes.T
    corners = np.stack([np.stack([x0, y0], 1), np.stack([x1, y0], 1),
                        np.stack([x1, y1], 1), np.stack([x0, y1], 1)], 1)
    moved = corners @ matrix[:, :2].T + matrix[:, 2]
    return np.concatenate([moved.min(axis=1), moved.max(axis=1)], axis=1).astype(np.float32)


def _altered(crop: npt.NDArray[np.uint8], rng: np.random.Generator) -> npt.NDArray[np.float32]:
    """The crop through random contrast, brightness, gamma, blur, noise and JPEG."""
    pixels = crop.astype(np.float32) / 255.0
    pixels = np.clip((pixels - 0.5) * rng.uniform(0.55, 1.4) + 0.5 + rng.uniform(-0.2, 0.2),
                     0.0, 1.0) ** float(np.exp(rng.uniform(-0.5, 0.5)))
    image = (pixels * 255).astype(np.uint8)
    if rng.random() < 0.3:
        image = cv2.GaussianBlur(image, (0, 0), float(rng.uniform(0.4, 1.4)))
    if rng.random() < 0.3:
        noise = rng.normal(0, rng.uniform(2, 10), image.shape)
        image = np.clip(image + noise, 0, 255).astype(np.uint8)
    if rng.random() < 0.3:
        quality = int(rng.integers(30, 90))
        image = cv2.imdecode(cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY,
                                                          quality])[1], cv2.IMREAD_GRAYSCALE)
    return grey_input(image, CROP)[0]


def targets(boxes: npt.NDArray[np.float32], side: int
            ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """The training targets of the boxes in a crop of `side` pixels.

    The score target (side/4 square, 1 at each centre), the size target (2 x ...) and the
    mask of the cells whose size counts.
    """
    cells = side // STRIDE
    heat = np.zeros((cells, cells), np.float32)
    size = np.zeros((2, cells, cells), np.float32)
    mask = np.zeros((cells, cells), np.float32)
    grid_y, grid_x = np.mgrid[0:cells, 0:cells].astype(np.float32) + 0.5
    for x0, y0, x1, y1 in boxes:
        width, height = x1 - x0, y1 - y0
        cx, cy = (x0 + x1) / 2 / STRIDE, (y0 + y1) / 2 / STRIDE
        if not (0 <= cx < cells and 0 <= cy < cells) or min(width, height) < 3:
            continue
        sigma = max(0.6, 0.18 * min(width, height) / STRIDE)
        peak = np.exp(-((grid_x - cx) ** 2 + (grid_y - cy) ** 2) / (2 * sigma ** 2))
        heat = np.maximum(heat, peak)
        row, column = int(cy), int(cx)
        heat[row, column] = 1.0
        size[:, row, column] = np.log(np.array([width, height]) / SIZE_UNIT)
        mask[row, column] = 1.0
    return heat, size, mask


def finder_net(torch: Any, stem: str = "strided") -> Any:
    """The finder's net, untrained.

    A stem to stride 4 (`FinderOptions.stem`), strides 8 and 16 (depthwise-separable), the
    coarse stages added back into the stride-4 map, then a score and a size head.
    """
    nn = torch.nn

    def full(inputs: int, outputs: int, stride: int) -> Any:
        return nn.Sequential(nn.Conv2d(inputs, outputs, 3, stride, 1, bias=False),
                             nn.BatchNorm2d(outputs), nn.ReLU())

    def separable(channels: int) -> Any:
        return nn.Sequential(nn.Conv2d(channels, channels, 3, 1, 1, groups=channels,
                                       bias=False),
                             nn.Conv2d(channels, channels, 1, bias=False),
                             nn.BatchNorm2d(channels), nn.ReLU())

    module: Any = nn.Module

    class FinderNet(module):
        def __init__(self) -> None:
            super().__init__()
            self.stride4 = (nn.Sequential(full(1, 12, 2), full(12, 16, 2), separable(16))
                            if stem == "strided" else
                            nn.Sequential(nn.Conv2d(1, 16, 4, 4, bias=False),
                                          nn.BatchNorm2d(16), nn.ReLU(), separable(16),
                                          separable(16)))
            self.stride8 = nn.Sequential(full(16, 32, 2), separable(32), separable(32))
            self.stride16 = nn.Sequential(full(32, 64, 2), separable(64), separable(64))
            self.lateral16 = nn.Conv2d(64, 32, 1)
            self.merge8 = nn.Sequential(separable(32), nn.Conv2d(32, 16, 1))
            self.merge4 = separable(16)
            self.up = nn.Upsample(scale_factor=2, mode="nearest")
            self.heat = nn.Conv2d(16, 1, 1)
            self.size = nn.Conv2d(16, 2, 1)
            self.heat.bias.data.fill_(-4.0)

        def forward(self, grey: Any) -> tuple[Any, Any]:
            four = self.stride4(grey)
            eight = self.stride8(four)
            sixteen = self.stride16(eight)
            eight = self.merge8(eight + self.up(self.lateral16(sixteen)))
            four = self.merge4(four + self.up(eight))
            return self.heat(four), self.size(four)

    return FinderNet()


def focal_loss(torch: Any, logits: Any, target: Any) -> Any:
    """CenterNet's penalty-reduced focal loss, per centre."""
    probability = torch.sigmoid(logits).clamp(1e-4, 1 - 1e-4)
    positive = target.eq(1).float()
    positive_loss = -(torch.log(probability) * (1 - probability) ** 2 * positive).sum()
    negative_loss = -(torch.log(1 - probability) * probability ** 2 * (1 - target) ** 4
                      * (1 - positive)).sum()
    return (positive_loss + negative_loss) / positive.sum().clamp(min=1.0)


def train_finder(photos: Sequence[Photo], options: FinderOptions, progress: bool = False
                 ) -> bytes:
    """Train the net on crops of `photos`; the net as ONNX bytes."""
    if not photos:
        raise VisionError("no training photos")
    torch = require_torch("training the index finder")
    torch.manual_seed(options.seed)
    torch.set_num_threads(options.threads)
    rng = np.random.default_rng(options.seed)
    net = finder_net(torch, options.stem)
    optimiser = torch.optim.AdamW(net.parameters(), lr=options.rate, weight_decay=options.decay)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, options.rate,
                                                   total_steps=options.steps)
    weights = np.array([len(photo.boxes) + 2.0 for photo in photos])
    weights /= weights.sum()
    started, running = time.perf_counter(), 0.0
    net.train()
    for step in range(options.steps):
        crops, heats, sizes, masks = [], [], [], []
        for index in rng.choice(len(photos), options.batch, p=weights):
            crop, boxes = training_crop(photos[index], rng)
            heat, size, mask = targets(boxes, CROP)
            crops.append(crop)
            heats.append(heat)
            sizes.append(size)
            masks.append(mask)
        grey = torch.from_numpy(np.stack(crops)[:, None])
        heat_logits, size_out = net(grey)
        heat_target = torch.from_numpy(np.stack(heats)[:, None])
        mask = torch.from_numpy(np.stack(masks)[:, None])
        size_loss = ((size_out - torch.from_numpy(np.stack(sizes))).abs() * mask).sum() / (
            mask.sum().clamp(min=1.0))
        loss = focal_loss(torch, heat_logits, heat_target) + size_loss
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        schedule.step()
        running = 0.98 * running + 0.02 * loss.item() if step else loss.item()
        if progress and (step + 1) % 100 == 0:
            sys.stderr.write(f"step {step + 1}/{options.steps}: loss {running:.3f} "
                             f"({time.perf_counter() - started:.0f} s)\n")
    return _onnx(torch, net.eval())


def _onnx(torch: Any, net: Any) -> bytes:
    """The net as ONNX bytes: input `grey`, outputs `heat` and `size`, any multiple of ALIGN."""
    buffer = io.BytesIO()
    axes = {2: "h", 3: "w"}
    torch.onnx.export(net, (torch.zeros(1, 1, 4 * ALIGN, 5 * ALIGN),), buffer,
                      input_names=["grey"], output_names=["heat", "size"], opset_version=13,
                      dynamo=False, dynamic_axes={"grey": axes, "heat": axes, "size": axes})
    return buffer.getvalue()


def fold_path(folder: Path, deck: str) -> Path:
    """Where `--folds` writes the finder trained without `deck`."""
    slug = "".join(c if c.isalnum() else "-" for c in deck.lower()).strip("-")
    return folder / f"without-{slug}.npz"


def main(argv: Sequence[str] | None = None) -> int:
    """Train the finder on the licensed index boxes and write its file."""
    parser = argparse.ArgumentParser(prog="python -m vision.build.index_finder",
                                     description="Train the learned index-corner finder.")
    defaults = FinderOptions()
    parser.add_argument("--out", default=str(DEFAULT_PATH), help="output .npz file")
    parser.add_argument("--hold-out", default="", metavar="DECK",
                        help=f"leave this deck of {SOURCE} out of training")
    parser.add_argument("--folds", default="", metavar="DIR",
                        help=f"train one finder without each deck of {SOURCE}, into DIR")
    parser.add_argument("--steps", type=int, default=defaults.steps, help="optimiser steps")
    parser.add_argument("--seed", type=int, default=defaults.seed, help="seed of everything")
    parser.add_argument("--threads", type=int, default=defaults.threads,
                        help="threads PyTorch trains with")
    parser.add_argument("--stem", choices=("strided", "patch"), default=defaults.stem,
                        help="how the net reaches stride 4 (FinderOptions.stem)")
    args = parser.parse_args(argv)
    if args.steps < 1:
        parser.error(f"--steps {args.steps} must be at least 1")
    options = FinderOptions(steps=args.steps, seed=args.seed, threads=args.threads,
                            stem=args.stem)
    if args.folds and not Path(args.folds).is_dir():
        parser.error(f"--folds {args.folds}: no such folder")
    try:
        runs = [(args.hold_out, Path(args.out))]
        if args.folds:
            decks = dict.fromkeys(photo.deck for photo in training_photos())
            runs = [(deck, fold_path(Path(args.folds), deck)) for deck in decks]
        for hold_out, out in runs:
            _build(hold_out, out, options)
    except VisionError as error:
        sys.stderr.write(f"{error}\n")
        return 2
    return 0


def _build(hold_out: str, out: Path, options: FinderOptions) -> None:
    """Train one finder without the deck `hold_out` (none: every deck) and write it."""
    started = time.perf_counter()
    photos = training_photos(hold_out)
    onnx = train_finder(photos, options, progress=True)
    info = {"source": SOURCE, "licence": "CC BY 4.0", "held_out": hold_out,
            "photos": len(photos), "boxes": int(sum(len(p.boxes) for p in photos)),
            "options": asdict(options),
            "build_seconds": round(time.perf_counter() - started, 1)}
    save_index_finder(IndexFinder(onnx, options.threshold, options.longest, info), out)
    sys.stdout.write(f"wrote {out}: {len(photos)} photos, {info['boxes']} boxes, "
                     f"{info['build_seconds']} s\n")


if __name__ == "__main__":
    sys.exit(main())
