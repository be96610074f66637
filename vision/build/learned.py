"""Train the learned glyph nets: `python -m vision.build.learned` (needs PyTorch and onnx).

A small convolutional net per part (rank: 13 classes, suit: 4) reads a glyph's ink map
stretched to `vision.learned.RANK_MAP` or `SUIT_MAP`. It is trained on the corners of the
generic build's synthetic cards (`vision.build.learned_data`: the same seeds, the same
trained typeface families, so the held-out families stay unseen), each ink map moved,
scaled, turned, thickened or thinned, faded and blurred a little at random on every pass.
The trained net is exported to ONNX and read back through OpenCV's DNN module
(`vision.learned.ConvGlyphClassifier`); the independently seeded validation cards then set
its softmax temperature, its novelty limit (three times the 99th percentile of validation
glyphs' distance to the nearest training embedding, as the perceptrons' is set) and the
unsure threshold (`vision.build.generic.choose_threshold`: the lowest at or above 0.95 that
keeps at most 0.1% of the validation cards' answers wrong).

PyTorch and onnx are build tools only (`pip install torch onnx`); reading with the nets
needs OpenCV and NumPy.
"""

from __future__ import annotations

import argparse
import importlib
import io
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from vision.build.generic import (
    Drawing,
    GenericBuildOptions,
    choose_threshold,
    fit_scaled_temperature,
)
from vision.build.learned_data import GlyphSet, synthetic_glyphs
from vision.build.learned_reader import learned_profile
from vision.cards import RANKS, SUITS
from vision.enroll import Sample
from vision.errors import VisionError
from vision.learned import (
    RANK_MAP,
    SUIT_MAP,
    ConvGlyphClassifier,
    LearnedGlyphs,
    load_learned,
    save_learned,
)
from vision.recognize import CornerFeatures

DEFAULT_OUT = Path(__file__).resolve().parent / "learned_glyphs.npz"


@dataclass(frozen=True, slots=True)
class NetOptions:
    """Training settings of one glyph net.

    Attributes:
        channels: Channels of the three convolution stages.
        embedding: Units of the layer before the output (the novelty space).
        epochs: Passes over the training glyphs.
        batch: Mini-batch size.
        rate: Adam learning rate (cosine-decayed to zero).
        decay: Weight decay.
        smoothing: Label smoothing.
        augment: Apply the random alterations of `_augmented` while training.
        seed: Seed of the initial weights, the batch order and the alterations.
        references: Training embeddings kept for the novelty measure.
        threads: Threads PyTorch trains with.
    """

    channels: tuple[int, int, int] = (16, 32, 48)
    embedding: int = 64
    epochs: int = 20
    batch: int = 128
    rate: float = 3e-3
    decay: float = 1e-4
    smoothing: float = 0.05
    augment: bool = True
    seed: int = 0
    references: int = 1000
    threads: int = 2


def build_learned(train: GlyphSet, validation: GlyphSet, options: NetOptions | None = None,
                  progress: bool = False, suit: ConvGlyphClassifier | None = None
                  ) -> LearnedGlyphs:
    """Train, export and tune the rank and suit nets (or only the rank net, given `suit`).

    The unsure threshold is always chosen anew, for the pair, on `validation`.
    """
    options = options or NetOptions()
    started = time.perf_counter()
    rank = _fitted("rank", train, validation, options, progress)
    suit = suit or _fitted("suit", train, validation, options, progress)
    provisional = LearnedGlyphs(rank, suit, 0.95, {})
    unsure_below, figures = choose_threshold(learned_profile(provisional),
                                             validation_samples(validation),
                                             GenericBuildOptions())
    info = {"train_corners": len(train), "validation_corners": len(validation),
            "net": asdict(options), "build_seconds": round(time.perf_counter() - started, 1)
            } | figures
    return LearnedGlyphs(rank, suit, unsure_below, info)


def validation_samples(glyphs: GlyphSet) -> list[Sample]:
    """The set's corners as samples whose features are the flattened maps (one photo a card)."""
    return [Sample(str(code), int(card), int(card) % 4,
                   CornerFeatures(rank.ravel(), suit.ravel(), float(redness)), True)
            for code, card, rank, suit, redness in zip(
                glyphs.codes, glyphs.cards, glyphs.ranks, glyphs.suits, glyphs.redness,
                strict=True)]


def _fitted(part: str, train: GlyphSet, validation: GlyphSet, options: NetOptions,
            progress: bool) -> ConvGlyphClassifier:
    classes, size = (RANKS, RANK_MAP) if part == "rank" else (SUITS, SUIT_MAP)
    maps = train.ranks if part == "rank" else train.suits
    onnx = train_net(maps, train.labels(part), len(classes), options, progress)
    keep = np.sort(np.random.default_rng(options.seed).choice(
        len(maps), min(options.references, len(maps)), replace=False))
    probe = ConvGlyphClassifier(classes, onnx, size, 1.0, np.zeros((1, options.embedding),
                                                                   np.float32), 1.0)
    reference = probe.outputs(maps[keep].reshape(len(keep), -1))[1]
    held = (validation.ranks if part == "rank" else validation.suits).reshape(len(validation), -1)
    logits, _ = probe.outputs(held)
    temperature = fit_scaled_temperature(logits, validation.labels(part))
    unlimited = ConvGlyphClassifier(classes, onnx, size, temperature, reference, 1.0)
    limit = float(3.0 * np.quantile(unlimited.novelty(held), 0.99))
    return ConvGlyphClassifier(classes, onnx, size, temperature, reference, limit)


def train_net(maps: npt.NDArray[np.float32], labels: npt.NDArray[np.int64], classes: int,
              options: NetOptions, progress: bool = False) -> bytes:
    """Train one net on ink maps (n x height x width) and return it as ONNX bytes."""
    torch = require_torch()
    torch.manual_seed(options.seed)
    torch.set_num_threads(options.threads)
    net = _net(torch, maps.shape[1:], classes, options)
    inputs = torch.from_numpy(np.ascontiguousarray(maps[:, None]))
    targets = torch.from_numpy(labels)
    optimiser = torch.optim.AdamW(net.parameters(), lr=options.rate, weight_decay=options.decay)
    steps = options.epochs * ((len(maps) + options.batch - 1) // options.batch)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, options.rate, total_steps=steps)
    loss_of = torch.nn.CrossEntropyLoss(label_smoothing=options.smoothing)
    generator = torch.Generator().manual_seed(options.seed)
    for epoch in range(options.epochs):
        net.train()
        total = 0.0
        for batch in torch.randperm(len(maps), generator=generator).split(options.batch):
            images = inputs[batch]
            if options.augment:
                images = _augmented(torch, images, generator)
            loss = loss_of(net(images)[0], targets[batch])
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += loss.item() * len(batch)
        if progress:
            sys.stderr.write(f"epoch {epoch + 1}/{options.epochs}: loss "
                             f"{total / len(maps):.4f}\n")
    return _onnx(torch, net.eval(), maps.shape[1:])


def require_torch(purpose: str = "training the learned glyph nets") -> Any:
    """PyTorch, imported only when a build trains; without it one `VisionError` line.

    Raises:
        VisionError: PyTorch is not installed ("<purpose> needs PyTorch ...").
    """
    try:
        return importlib.import_module("torch")
    except ImportError as error:
        raise VisionError(f"{purpose} needs PyTorch (pip install torch onnx)") from error


def _net(torch: Any, shape: Sequence[int], classes: int, options: NetOptions) -> Any:
    """Three 3x3 convolution stages (batch-normalised, ReLU, 2x2 max-pooled), two dense layers."""
    nn = torch.nn
    first, second, third = options.channels
    height, width = shape[0] // 8, shape[1] // 8

    def stage(inputs: int, outputs: int) -> list[Any]:
        return [nn.Conv2d(inputs, outputs, 3, padding=1, bias=False), nn.BatchNorm2d(outputs),
                nn.ReLU(), nn.MaxPool2d(2)]

    module: Any = nn.Module

    class GlyphNet(module):
        def __init__(self) -> None:
            super().__init__()
            self.features = nn.Sequential(*stage(1, first), *stage(first, second),
                                          *stage(second, third), nn.Flatten(),
                                          nn.Linear(third * height * width, options.embedding),
                                          nn.ReLU())
            self.out = nn.Linear(options.embedding, classes)

        def forward(self, images: Any) -> tuple[Any, Any]:
            embedding = self.features(images)
            return self.out(embedding), embedding

    return GlyphNet()


def _augmented(torch: Any, images: Any, generator: Any) -> Any:
    """The maps moved, scaled, turned, thickened or thinned, faded and blurred at random.

    Each alteration stays small: the glyph's box was found by the reader, so only its
    errors (a box a pixel or two off, a stroke a little heavier or fainter than drawn) are
    imitated, never a different glyph.
    """
    functional = torch.nn.functional
    count = len(images)

    def uniform(low: float, high: float, *shape: int) -> Any:
        return low + (high - low) * torch.rand(count, *shape, generator=generator)

    angle = uniform(-0.08, 0.08)
    scale = uniform(0.9, 1.1, 2)
    theta = torch.zeros(count, 2, 3)
    theta[:, 0, 0] = torch.cos(angle) / scale[:, 0]
    theta[:, 0, 1] = -torch.sin(angle) / scale[:, 0]
    theta[:, 1, 0] = torch.sin(angle) / scale[:, 1]
    theta[:, 1, 1] = torch.cos(angle) / scale[:, 1]
    theta[:, :, 2] = uniform(-0.08, 0.08, 2)
    grid = functional.affine_grid(theta, list(images.shape), align_corners=False)
    images = functional.grid_sample(images, grid, align_corners=False, padding_mode="zeros")
    thicker = functional.max_pool2d(images, 3, 1, 1)
    thinner = -functional.max_pool2d(-images, 3, 1, 1)
    choice = torch.rand(count, 1, 1, 1, generator=generator)
    mix = uniform(0.2, 0.6, 1, 1, 1)
    images = torch.where(choice < 0.15, (1 - mix) * images + mix * thicker,
                         torch.where(choice < 0.3, (1 - mix) * images + mix * thinner, images))
    blurred = functional.avg_pool2d(images, 3, 1, 1, count_include_pad=False)
    images = torch.where(torch.rand(count, 1, 1, 1, generator=generator) < 0.2, blurred, images)
    faded = images * uniform(0.6, 1.0, 1, 1, 1)
    return torch.where(torch.rand(count, 1, 1, 1, generator=generator) < 0.3, faded, images)


def _onnx(torch: Any, net: Any, shape: Sequence[int]) -> bytes:
    """The net as ONNX bytes: input `glyph`, outputs `logits` and `embedding`, any batch."""
    buffer = io.BytesIO()
    batch = {0: "n"}
    torch.onnx.export(net, (torch.zeros(2, 1, *shape),), buffer, input_names=["glyph"],
                      output_names=["logits", "embedding"], opset_version=13, dynamo=False,
                      dynamic_axes={"glyph": batch, "logits": batch, "embedding": batch})
    return buffer.getvalue()


def _glyphs(cache: Path | None, kind: str, count: int, seed: int, drawing: Drawing,
            jobs: int) -> GlyphSet:
    """The corners of `count` cards of `seed`, read from the cache folder when it has them."""
    path = (cache / f"{kind}-{seed}-{count}-table{drawing.table_share:g}.npz"
            if cache is not None else None)
    if path is not None and path.is_file():
        return GlyphSet.load(path)
    glyphs = synthetic_glyphs(count, seed, drawing=drawing, jobs=jobs)
    if path is not None:
        glyphs.save(path)
    return glyphs


def main(argv: Sequence[str] | None = None) -> int:
    """Train the nets on the generic build's synthetic cards and write the model file."""
    parser = argparse.ArgumentParser(prog="python -m vision.build.learned",
                                     description="Train the learned glyph nets.")
    defaults, generic = NetOptions(), GenericBuildOptions()
    parser.add_argument("--out", default=str(DEFAULT_OUT), help="output .npz file")
    parser.add_argument("--cards", type=int, default=generic.cards)
    parser.add_argument("--validation-cards", type=int, default=generic.validation_cards)
    parser.add_argument("--seed", type=int, default=generic.seed)
    parser.add_argument("--jobs", type=int, default=1, help="processes drawing the cards")
    parser.add_argument("--epochs", type=int, default=defaults.epochs)
    parser.add_argument("--no-augment", action="store_true")
    parser.add_argument("--table-share", type=float, default=0.0,
                        help="share of the cards drawn small on a table "
                             "(vision.build.generic.Drawing)")
    parser.add_argument("--keep-suit", default="",
                        help="train the rank net only; take the suit net from this model file")
    parser.add_argument("--glyph-cache", default="",
                        help="folder keeping the drawn corners between runs (build data)")
    args = parser.parse_args(argv)
    cache = Path(args.glyph_cache) if args.glyph_cache else None
    if cache is not None and not cache.is_dir():
        parser.error(f"--glyph-cache {cache}: no such folder")
    if not 0.0 <= args.table_share <= 1.0:
        parser.error(f"--table-share {args.table_share} must lie between 0 and 1")
    drawing = Drawing(table_share=args.table_share)
    train = _glyphs(cache, "train", args.cards, args.seed, drawing, args.jobs)
    validation = _glyphs(cache, "validation", args.validation_cards, args.seed + 1, drawing,
                         args.jobs)
    options = NetOptions(epochs=args.epochs, augment=not args.no_augment)
    try:
        kept = load_learned(Path(args.keep_suit)).suit if args.keep_suit else None
        learned = build_learned(train, validation, options, progress=True, suit=kept)
        learned = LearnedGlyphs(learned.rank, learned.suit, learned.unsure_below,
                                dict(learned.info) | {"drawing": asdict(drawing),
                                                      "seed": args.seed,
                                                      "suit_from": args.keep_suit and
                                                      Path(args.keep_suit).name})
    except VisionError as error:
        sys.stderr.write(f"{error}\n")
        return 2
    save_learned(learned, Path(args.out))
    sys.stdout.write(f"wrote {args.out}: unsure below {learned.unsure_below:.3f}, "
                     f"{dict(learned.info)}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
