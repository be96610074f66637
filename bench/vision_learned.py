"""The generic profile's losses, and its two opinions against each opinion alone.

    .venv/bin/python bench/vision_learned.py [--section NAME ...] [--model FILE]
        [--profile FILE] [--scenes N] [--first N] [--glyphs FILE] [--learned-only]

The generic profile (`--profile`, the shipped one by default) reads each glyph with two
opinions, the perceptrons and the learned nets (`vision.classify.TwoOpinions`); the
sections measure it against each opinion alone, at the unsure threshold each one's own build
chose (`vision.build.learned_combined.one_opinion`). Given a profile of perceptrons only,
they measure it against the nets of `--model`.

Sections:

* `diagnose`: why the generic profile leaves cards unsure on the composites (20 frames of
  each layout on each surface for each fold by default, `--scenes`) and on the dev photos: the
  unsure cards by reason and by card width (pixels), with how often the best guess named the
  right rank and the right suit, and the same cards read from their true outlines (what is
  left when the finder's outline is not to blame); `--learned-only` diagnoses the nets,
  `--perceptrons-only` the perceptrons alone.
* `glyphs`: both classifiers on the corners of a saved glyph set (`--glyphs`, written by
  `vision.build.learned --save-glyphs`), glyph by glyph: top-1 accuracy of rank and suit.
* `compare`: the perceptrons alone, the nets alone and the two opinions read the same frames
  (with the synthetic validation decks' figures each build recorded): the dev photos as
  taken, the composites and the held-out typeface stresses (`vision.build.evaluate.
  SINGLE_CARDS`, scenes `--held-out-first` on, 100 of each by default); `--learned-only`
  reads with the nets only.
* `speed`: milliseconds per batch of 10 rank and 10 suit maps through `cv2.dnn`, and of the
  same batch through the perceptrons (their features included), one thread.

Dev photos are read from `shared/cards-dev` beside the repository.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # runnable without installing

import cv2
import numpy as np

from vision import Recognizer, load_profile
from vision.build.composite import LAYOUTS, SURFACES, CompositeOptions, cut_outs
from vision.build.composite import composite as compose_frame
from vision.build.evaluate import SINGLE_CARDS, Tally, iou, stress_scene
from vision.build.learned_combined import one_opinion
from vision.build.learned_reader import LearnedRecognizer
from vision.build.synth import Scene
from vision.build.typefaces import HELD_OUT_FAMILIES
from vision.classify import TwoOpinions
from vision.dataset import read_image, read_labels
from vision.profile import DeckProfile, generic_profile_path
from vision.recognize import CardReading

DEV = Path(__file__).resolve().parents[1] / ".." / "shared" / "cards-dev"
MODEL = Path(__file__).resolve().parents[1] / "vision" / "build" / "learned_glyphs.npz"
SECTIONS = ("diagnose", "glyphs", "compare", "speed")


def dev_photos() -> list[tuple[str, np.ndarray, str, int]]:
    """(name, image, code, fold) of every dev photo."""
    return [(item.path.name, read_image(item.path), item.code,
             int(item.path.stem.rsplit("_", 1)[-1])) for item in read_labels(DEV)]


def card_width(quad: np.ndarray) -> float:
    """The shorter side of a card's outline, in pixels."""
    sides = np.linalg.norm(np.roll(quad, -1, axis=0) - quad, axis=1)
    return float(min(sides[0] + sides[2], sides[1] + sides[3]) / 2)


def _matched(readings: list[CardReading], truth: np.ndarray) -> CardReading | None:
    best, best_overlap = None, 0.5
    for reading in readings:
        overlap = iou(np.array(reading.quad, np.float32), truth)
        if overlap > best_overlap:
            best, best_overlap = reading, overlap
    return best


class Losses:
    """Unsure cards by reason and width, with what their best guesses named."""

    def __init__(self) -> None:
        self.cards = 0
        self.right = 0
        self.wrong = 0
        self.reasons: Counter[str] = Counter()
        self.widths: Counter[str] = Counter()
        self.rank_guessed = 0
        self.suit_guessed = 0
        self.by_reason_rank: Counter[str] = Counter()
        self.cards_unsure: Counter[str] = Counter()

    def add(self, reading: CardReading | None, code: str, width: float) -> None:
        """Count one card (`reading` None when it was not found)."""
        self.cards += 1
        if reading is not None and reading.card is not None:
            self.right += reading.card == code
            self.wrong += reading.card != code
            return
        reason = reading.reason if reading is not None else "not found"
        self.reasons[reason] += 1
        self.cards_unsure["rank " + code[0]] += 1
        self.cards_unsure["suit " + code[1]] += 1
        self.widths[f"{int(width // 10) * 10}-{int(width // 10) * 10 + 10} px"] += 1
        guess = reading.guess if reading is not None else None
        if guess:
            self.rank_guessed += guess[0] == code[0]
            self.suit_guessed += guess[1] == code[1]
            self.by_reason_rank[reason + (", rank right" if guess[0] == code[0]
                                          else ", rank wrong")] += 1
            self.by_reason_rank[reason + (", suit right" if guess[1] == code[1]
                                          else ", suit wrong")] += 1

    def lines(self, label: str) -> list[str]:
        """A summary for people."""
        unsure = sum(self.reasons.values())
        return [f"   {label}: {self.cards} cards, {self.right} right, {self.wrong} wrong, "
                f"{unsure} unsure",
                "      by reason: " + ", ".join(f"{r} {n}" for r, n in
                                               self.reasons.most_common()),
                "      by width: " + ", ".join(f"{w} {n}" for w, n in
                                              sorted(self.widths.items())),
                "      unsure by card: " + ", ".join(f"{k} {n}" for k, n in
                                                  self.cards_unsure.most_common()),
                f"      best guess of the unsure: rank right {self.rank_guessed}, suit right "
                f"{self.suit_guessed}",
                "      " + ", ".join(f"{k} {n}" for k, n in sorted(self.by_reason_rank.items()))]


def readers_of(args: argparse.Namespace) -> dict[str, Recognizer]:
    """The readers measured: each opinion alone and the pair, or the profile and the nets."""
    profile = load_profile(Path(args.profile))
    if not _two_opinions(profile):
        return {"shipped": Recognizer(profile), "learned": LearnedRecognizer.of(Path(args.model))}
    return {"perceptrons": Recognizer(one_opinion(profile, "perceptrons")),
            "nets": LearnedRecognizer(one_opinion(profile, "nets")),
            "two opinions": Recognizer(profile)}


def _two_opinions(profile: DeckProfile) -> bool:
    return isinstance(profile.rank, TwoOpinions) and isinstance(profile.suit, TwoOpinions)


def _chosen(args: argparse.Namespace) -> dict[str, Recognizer]:
    """The readers `--learned-only` and `--perceptrons-only` leave."""
    readers = readers_of(args)
    if args.learned_only:
        return {name: r for name, r in readers.items() if name in ("learned", "nets")}
    if args.perceptrons_only:
        return {name: r for name, r in readers.items() if name in ("shipped", "perceptrons")}
    return readers


def diagnose(args: argparse.Namespace) -> None:
    """Tally the generic profile's unsure cards on the composites and the dev photos."""
    readers = _chosen(args)
    reader = readers.get("two opinions") or next(iter(readers.values()))
    photos = dev_photos()
    found, true_outline = Losses(), Losses()
    for _, scene in _composite_scenes(args, photos):
        readings = reader.recognize(scene.frame)
        for code, quad in zip(scene.codes, scene.quads, strict=True):
            width = card_width(quad)
            found.add(_matched(readings, quad), code, width)
            true_outline.add(reader.read_card(scene.frame, quad), code, width)
    dev = Losses()
    for _, image, code, _ in photos:
        readings = reader.recognize(image)
        dev.add(readings[0] if readings else None, code,
                card_width(np.array(readings[0].quad)) if readings else 0.0)
    for label, losses in (("composites, as found", found),
                          ("composites, read from the true outlines", true_outline),
                          ("dev photos", dev)):
        print("\n".join(losses.lines(label)))


def compare(args: argparse.Namespace) -> None:
    """Each reader on the same frames."""
    readers = _chosen(args)
    for name, reader in readers.items():
        info = reader.profile.info
        print(f"   {name:<12} validation decks {info.get('validation_read', 0):.0f} cards: "
              f"{info.get('validation_right', 0):.2%} right, "
              f"{info.get('validation_wrong', 0) * info.get('validation_read', 0):.0f} wrong "
              f"(unsure below {reader.unsure_below:.3f}{_rule_of(reader.profile)})")
    photos = dev_photos()
    for name, reader in readers.items():
        tally = Tally()
        for _, image, code, _ in photos:
            tally.add_photo(reader.recognize(image), code)
        print(f"   {name:<12} dev photos       {tally.summary()}; {tally.right} right")
        print(f"   {name:<12}                  unsure: {tally.unsure_summary()}")
    _compare_composites(args, readers, photos)
    _compare_held_out(args, readers)


def _rule_of(profile: DeckProfile) -> str:
    """The pair's rule and thresholds when it answers by a rule other than the mean."""
    rule = profile.pair
    if rule.rule == "mean":
        return ""
    return f", rule {rule.rule} at " + " and ".join(f"{t:.3f}" for t in rule.unsure_below)


def _compare_composites(args: argparse.Namespace, readers: dict[str, Recognizer],
                        photos: list[tuple[str, np.ndarray, str, int]]) -> None:
    tallies = {(name, layout): Tally() for name in readers for layout in LAYOUTS}
    for layout, scene in _composite_scenes(args, photos):
        for name, reader in readers.items():
            tallies[(name, layout)].add_scene(reader.recognize(scene.frame), scene)
    for (name, layout), tally in tallies.items():
        print(f"   {name:<12} composite {layout:<6} {tally.summary()}; {tally.right} right")
        print(f"   {name:<12}                  unsure: {tally.unsure_summary()}")


def _composite_scenes(args: argparse.Namespace, photos: list[tuple[str, np.ndarray, str, int]]
                      ) -> Iterator[tuple[str, Scene]]:
    """(layout, scene) of every composite: each fold's cut-outs, layout, surface and number."""
    for fold in (1, 2, 3, 4):
        cards, _ = cut_outs([(n, image, code) for n, image, code, f in photos if f == fold])
        for layout in LAYOUTS:
            for surface in SURFACES:
                for number in range(args.first, args.first + args.scenes):
                    yield layout, compose_frame(cards, layout, number,
                                                CompositeOptions(surface=surface))


def _compare_held_out(args: argparse.Namespace, readers: dict[str, Recognizer]) -> None:
    tallies = {name: Tally() for name in readers}
    for kind in SINGLE_CARDS:
        for number in range(args.held_out_first, args.held_out_first + args.held_out_scenes):
            scene = stress_scene(kind, number, families=HELD_OUT_FAMILIES)
            for name, reader in readers.items():
                tallies[name].add_scene(reader.recognize(scene.frame), scene)
    for name, tally in tallies.items():
        print(f"   {name:<12} held-out styles  {tally.summary()}; {tally.right} right")
        print(f"   {name:<12}                  unsure: {tally.unsure_summary()}")


def glyphs(args: argparse.Namespace) -> None:
    """Top-1 accuracy of both classifiers on a saved glyph set's corners."""
    from vision.build.learned_data import GlyphSet

    data = GlyphSet.load(Path(args.glyphs))
    shipped, learned = _opinions(args)
    for part in ("rank", "suit"):
        truth = data.labels(part)
        features = data.rank_features if part == "rank" else data.suit_features
        maps = (data.ranks if part == "rank" else data.suits).reshape(len(data), -1)
        old = getattr(shipped, part).log_probabilities(features).argmax(axis=1)
        new = getattr(learned, part).log_probabilities(maps).argmax(axis=1)
        print(f"   {part}: {len(data)} glyphs, perceptrons {np.mean(old == truth):.2%}, "
              f"net {np.mean(new == truth):.2%}")


def _opinions(args: argparse.Namespace) -> tuple[DeckProfile, DeckProfile]:
    """The profiles of the perceptrons alone and of the nets alone."""
    readers = readers_of(args)
    if "nets" in readers:
        return readers["perceptrons"].profile, readers["nets"].profile
    return readers["shipped"].profile, readers["learned"].profile


def speed(args: argparse.Namespace) -> None:
    """Milliseconds per batch of 10 glyph pairs, net against perceptrons."""
    from vision.features import RANK_BOX, SUIT_BOX, glyphs_features

    cv2.setNumThreads(1)
    rng = np.random.default_rng(0)
    shipped, learned = _opinions(args)
    rank_maps = rng.random((10, 36, 24), dtype=np.float32)
    suit_maps = rng.random((10, 24, 24), dtype=np.float32)

    def net() -> None:
        learned.rank.assess(rank_maps.reshape(10, -1))
        learned.suit.assess(suit_maps.reshape(10, -1))

    def perceptrons() -> None:
        shipped.rank.assess(glyphs_features(list(rank_maps), RANK_BOX))
        shipped.suit.assess(glyphs_features(list(suit_maps), SUIT_BOX))

    for name, work in (("net (cv2.dnn)", net), ("perceptrons", perceptrons)):
        times = []
        for _ in range(200):
            started = time.thread_time()
            work()
            times.append((time.thread_time() - started) * 1000)
        print(f"   {name:<14} 10 glyph pairs: p50 {np.percentile(times, 50):.2f} ms, "
              f"p95 {np.percentile(times, 95):.2f} ms (thread CPU)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--section", nargs="*", choices=SECTIONS, default=["compare"])
    parser.add_argument("--model", default=str(MODEL),
                        help="learned nets, measured when --profile has perceptrons only")
    parser.add_argument("--profile", default=str(generic_profile_path()),
                        help="the generic profile measured (the shipped one by default)")
    parser.add_argument("--glyphs", default="")
    parser.add_argument("--scenes", type=int, default=20)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--held-out-scenes", type=int, default=100)
    parser.add_argument("--held-out-first", type=int, default=1000)
    parser.add_argument("--learned-only", action="store_true",
                        help="compare: read with the learned nets only; diagnose: "
                             "diagnose the learned nets")
    parser.add_argument("--perceptrons-only", action="store_true",
                        help="as --learned-only, for the perceptrons alone")
    args = parser.parse_args()
    if not (DEV / "labels.csv").is_file() and set(args.section) & {"diagnose", "compare"}:
        print(f"dev photos not found at {DEV.resolve()}", file=sys.stderr)
        return 2
    for name in args.section:
        print(f"== {name}")
        {"diagnose": diagnose, "glyphs": glyphs, "compare": compare, "speed": speed}[name](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
