"""Card recognition: latency and accuracy, enrolled and generic, on real and synthetic frames.

    .venv/bin/python bench/vision.py [--section NAME ...] [--threads N] [--scenes N] [--first N]
        [--reads N]

Sections (all by default):

* `latency`: per-image time of `Recognizer.recognize` at 800x600 (the dev photos as taken)
  and 640x480 (the same photos resized beforehand), p50 and p95 by the wall clock and as the
  reading thread's CPU time (the figure to trust on a machine busy with other work), and
  `least`, the p50 over frames of each frame's least CPU time of its `--reads` reads (2 by
  default; the read least disturbed by other work, for comparing two versions of the reader
  on a busy machine), next to the time of a plain JPEG decode plus resize of the same image;
  640x480 composite frames of fold 4's cut-outs (`vision.build.composite`, ten of each
  layout on each surface): a board of five and two to four exposed hands. Enrolled (fold 4
  held out) and generic profiles; and the generic profile on 800x600 synthetic frames of
  dealt hands (2 to 5 cards).
* `enrolled`: leave-one-photo-out over the dev photos: enrol on three of each card's four
  photos, read the fourth, for each of the four folds; enrolment time per fold, and each
  fold's own cross-validation figures (held-out table and glare copies, the one-corner
  threshold and the held-out answers given by one corner).
* `generic`: the generic profile (never trained on any real photo) over all 208 dev photos.
* `stress-real`: the held-out dev photos of each fold, turned, shrunk, relit, blurred, glared
  and seen obliquely, read with that fold's enrolled profile.
* `stress-synthetic`: the generic profile on synthetic scenes of new decks drawn in the
  typeface families it was trained on (fresh decks, trained designs), per stress of
  `vision.build.evaluate.SINGLE_CARDS`.
* `held-out-styles`: the same stresses on decks whose ranks are printed in the typeface
  families kept out of training (`vision.build.typefaces.HELD_OUT_FAMILIES`: designs the generic
  profile never saw), per stress and per family.
* `held-out-original`: the same on the four families held out since the first builds
  (`vision.build.typefaces.ORIGINAL_HELD_OUT`), whose scenes are the same as theirs, for
  figures comparable across builds.
* `held-out-untuned`: the same on the held-out families that neither train nor calibrate
  the generic profile (`vision.build.typefaces.UNTUNED_FAMILIES`; the pair's threshold is set
  on `CALIBRATION_FAMILIES`): designs nothing in its build saw.
* `composite`: frames of several real cards: the held-out dev photos of each fold cut out by
  the finder (`vision.build.composite`) and laid, turned and seen obliquely, on dark cloth,
  green felt and wood grain, as a hold'em board of five and as two to four exposed two-card
  hands, 640x480; read with that fold's enrolled profile and with the generic profile. Right,
  unsure (found but not answered, or not found) and wrong per layout and surface, the unsure
  by reason per layout, and the time
  per frame (p50 / p95), by the wall clock and as the reading thread's CPU time (the latter
  is the figure to trust on a machine busy with other work).
* `overlap`: blackjack hands as dealt (2 to 5 cards, each down and right of the one before,
  only its top-left index showing): cards found, read right, read wrong; trained and
  held-out typefaces.

* `by-source`: the real photos and scans of `shared/cards-train` (`vision.build.real_sources`),
  read with the generic profile source by source and deck by deck: right, wrong and unsure
  of the labelled cards, answers where no labelled card lies, and the time per image; then
  `--scenes` 640x480 composites of each layout (a board of five, two to four exposed hands)
  laid from each single-card source's cards. The shipped pair learnt glyphs from the
  licensed sources: `--pair-folds DIR` reads each of them with the pair learnt without it
  (`python -m vision.build.real_build --folds DIR`), leaving one source out at a time.

* `index-finder`: the cards of `shared/cards-train` found by the outline finder and by the
  learned index-corner finder (`vision.locate.indices`), source by source and deck by deck,
  the index boxes found, boxes found on no labelled card, and the index finder's time per
  image. `--folds DIR` measures each `cardcounter` deck with a finder trained without it.

* `phone`: one card as a phone photographs it (`vision.build.evaluate.phone_scene`: 2000 to
  4000 pixels, portrait or landscape, the card filling 15% to 60% of the frame, hand-held
  perspective, wood grain or nearly black cloth, the hand's shadow, tungsten or daylight white
  balance, noise reduction, sharpening, JPEG), read with the generic profile, in the trained
  and the held-out typeface families: per surface, per light and in all, the unsure cards
  by reason, and the time per frame (p50 / p95). Then the dev photos enlarged and processed
  as a phone would (`vision.build.evaluate.phone_copy`).

Synthetic scenes are numbered; `--first` picks another range of them (other decks, other
frames), for figures on scenes no decision was made by.

Accuracy columns: right (share of cards read correctly), answered (share given an answer),
wrong (answers that were wrong: "confidently wrong"). Timing is single-threaded by default
(`--threads`), as on a Pi whose other cores serve the table. The dev photos are read from
`shared/cards-dev` beside the repository; without them the real-photo sections say so and
are left out.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # numpy is imported only after the thread count is set
    import numpy as np

    from vision.build.evaluate import Tally
    from vision.profile import DeckProfile

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # runnable without installing

DEV = Path(__file__).resolve().parents[1] / ".." / "shared" / "cards-dev"
SECTIONS = ("latency", "enrolled", "generic", "stress-real", "stress-synthetic",
            "held-out-styles", "held-out-original", "held-out-untuned", "composite", "overlap",
            "phone", "by-source", "index-finder")


@dataclass
class Options:
    threads: int
    scenes: int
    augment: int
    first: int = 0
    reads: int = 2
    folds: str = ""
    pair_folds: str = ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--section", nargs="*", choices=SECTIONS, default=list(SECTIONS))
    parser.add_argument("--threads", type=int, default=1, help="OpenCV/BLAS threads")
    parser.add_argument("--scenes", type=int, default=60, help="synthetic scenes per stress")
    parser.add_argument("--augment", type=int, default=6, help="enrolment copies per photo")
    parser.add_argument("--first", type=int, default=0,
                        help="number of the first synthetic scene (another range, other scenes)")
    parser.add_argument("--reads", type=int, default=2,
                        help="latency: times each frame is read (its least CPU time is kept too)")
    parser.add_argument("--folds", default="",
                        help="index-finder: folder of finders each trained without one deck "
                             "(python -m vision.build.index_finder --folds DIR)")
    parser.add_argument("--pair-folds", default="",
                        help="by-source: folder of generic pairs each learnt without one "
                             "source (python -m vision.build.real_build --folds DIR)")
    args = parser.parse_args()
    for variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[variable] = str(args.threads)  # before numpy loads its BLAS
    import cv2

    cv2.setNumThreads(args.threads)
    options = Options(args.threads, args.scenes, args.augment, args.first, max(1, args.reads),
                      args.folds, args.pair_folds)
    bench = Bench(options)
    for name in args.section:
        print(f"\n== {name}")
        SECTION_FUNCTIONS[name](bench)
    return 0


class Bench:
    """Loads the dev photos once and enrols each fold once, for every section."""

    def __init__(self, options: Options) -> None:
        self.options = options
        self._photos: list[tuple[str, bytes, np.ndarray, str, int]] | None = None
        self._profiles: dict[int, DeckProfile] = {}

    @property
    def have_dev(self) -> bool:
        return (DEV / "labels.csv").is_file()

    def photos(self) -> list[tuple[str, bytes, np.ndarray, str, int]]:
        """(name, JPEG bytes, decoded image, code, fold) of every dev photo."""
        if self._photos is None:
            from vision.dataset import read_image, read_labels

            self._photos = [(item.path.name, item.path.read_bytes(), read_image(item.path),
                             item.code, int(item.path.stem.rsplit("_", 1)[-1]))
                            for item in read_labels(DEV)]
        return self._photos

    def enrolled(self, fold: int) -> DeckProfile:
        """The profile enrolled on every dev photo outside `fold` (1-4)."""
        if fold not in self._profiles:
            from vision.enroll import EnrolOptions, enroll

            train = [(name, image, code) for name, _, image, code, f in self.photos()
                     if f != fold]
            started = time.perf_counter()
            profile, report = enroll(train, f"dev without fold {fold}",
                                     EnrolOptions(augment=self.options.augment))
            seconds = time.perf_counter() - started
            print(f"   (enrolled fold {fold}: {len(train)} photos, {report.samples} samples, "
                  f"{seconds:.1f} s, unsure below {report.unsure_below:.3f}; its own held-out "
                  f"table copies: {report.table_right} right, {report.table_wrong} wrong of "
                  f"{report.table_held_out}; glare copies: {report.glare_right} right, "
                  f"{report.glare_wrong} wrong of {report.glare_held_out}; one corner "
                  f"{_threshold_text(report.one_corner_below)}: {report.one_corner_right} "
                  f"right, {report.one_corner_wrong} wrong)")
            self._profiles[fold] = profile
        return self._profiles[fold]


def _threshold_text(threshold: float | None) -> str:
    return "never" if threshold is None else f"from {threshold:.3f}"


def _needs_dev(section: Callable[[Bench], None]) -> Callable[[Bench], None]:
    """A section on the dev photos: without them it says so and is left out."""
    def run(bench: Bench) -> None:
        if bench.have_dev:
            section(bench)
        else:
            print(f"   dev photos not found at {DEV.resolve()}; section left out")
    return run


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


@_needs_dev
def latency(bench: Bench) -> None:
    import cv2
    import numpy as np

    from vision import Recognizer, load_generic_profile

    recognizers = {"enrolled": Recognizer(bench.enrolled(4)),
                   "generic": Recognizer(load_generic_profile())}
    photos = bench.photos()
    reads = bench.options.reads
    print(f"   {'size':>8} {'what':<34} {'p50 ms':>8} {'p95 ms':>8} {'CPU p50':>8} "
          f"{'CPU p95':>8} {'least':>8}")
    for size in ((800, 600), (640, 480)):
        frames = [image if image.shape[1] == size[0] else
                  cv2.resize(image, size, interpolation=cv2.INTER_AREA)
                  for _, _, image, _, _ in photos]
        decode = [_timed(lambda b=data, s=size: cv2.resize(
                      cv2.imdecode(np.frombuffer(b, np.uint8), cv2.IMREAD_COLOR), s,
                      interpolation=cv2.INTER_AREA)) for _, data, _, _, _ in photos]
        _row(size, "JPEG decode" + (" + resize" if size[0] != 800 else ""), decode)
        for name, recognizer in recognizers.items():
            _row(size, f"recognize, {name}", *_time(recognizer.recognize, frames, reads))
    for layout, frames in _composite_frames(bench).items():
        for name, recognizer in recognizers.items():
            _row((640, 480), f"recognize, {name}, {layout}",
                 *_time(recognizer.recognize, frames, reads))
    from vision.build.evaluate import stress_scene

    hands = [stress_scene("overlap", number).frame for number in range(40)]
    _row((800, 600), "recognize, generic, dealt hands",
         *_time(recognizers["generic"].recognize, hands, reads))


def _composite_frames(bench: Bench) -> dict[str, list[np.ndarray]]:
    """Ten 640x480 frames of each composite layout on each surface, of fold 4's cut-outs."""
    from vision.build.composite import SURFACES, CompositeOptions, composite, cut_outs

    cards, _ = cut_outs([(name, image, code) for name, _, image, code, fold in bench.photos()
                         if fold == 4])
    return {label: [composite(cards, layout, number, CompositeOptions(surface=surface)).frame
                    for surface in SURFACES for number in range(10)]
            for layout, label in (("board", "board of five"), ("hands", "exposed hands"))}


def _timed(work: Callable[[], object]) -> float:
    started = time.perf_counter()
    work()
    return (time.perf_counter() - started) * 1000


def _time(work: Callable[[np.ndarray], object], frames: list[np.ndarray], reads: int
          ) -> tuple[list[float], list[float], list[float]]:
    """Milliseconds by the wall clock and of the thread's CPU time, each frame read `reads`
    times; and each frame's least CPU time (the read least disturbed by other work)."""
    for frame in frames[:5]:
        work(frame)  # warm up
    wall, cpu, least = [], [], []
    for frame in frames:
        own = []
        for _ in range(reads):
            started, thread = time.perf_counter(), time.thread_time()
            work(frame)
            own.append((time.thread_time() - thread) * 1000)
            wall.append((time.perf_counter() - started) * 1000)
        cpu += own
        least.append(min(own))
    return wall, cpu, least


def _row(size: tuple[int, int], what: str, times: list[float],
         cpu: list[float] | None = None, least: list[float] | None = None) -> None:
    if times:
        line = (f"   {size[0]}x{size[1]:<4} {what:<34} {percentile(times, 0.5):8.2f} "
                f"{percentile(times, 0.95):8.2f}")
        if cpu and least:
            line += (f" {percentile(cpu, 0.5):8.2f} {percentile(cpu, 0.95):8.2f}"
                     f" {percentile(least, 0.5):8.2f}")
        print(line)


@_needs_dev
def enrolled(bench: Bench) -> None:
    from vision import Recognizer
    from vision.build.evaluate import Tally

    total = Tally()
    for fold in (1, 2, 3, 4):
        recognizer = Recognizer(bench.enrolled(fold))
        tally = Tally()
        for _, _, image, code, f in bench.photos():
            if f == fold:
                tally.add_photo(recognizer.recognize(image), code)
        print(f"   fold {fold} held out: {tally.summary()}")
        total = total + tally
    print(f"   all folds: {total.summary()}")


@_needs_dev
def generic(bench: Bench) -> None:
    from vision import Recognizer, load_generic_profile
    from vision.build.evaluate import Tally

    recognizer = Recognizer(load_generic_profile())
    tally = Tally()
    for _, _, image, code, _ in bench.photos():
        tally.add_photo(recognizer.recognize(image), code)
    print(f"   generic profile, dev deck (never trained on): {tally.summary()}")
    print(f"   unsure: {tally.unsure_summary()}")


@_needs_dev
def stress_real(bench: Bench) -> None:
    import numpy as np

    from vision import Recognizer
    from vision.build.evaluate import Tally

    for name, change in REAL_STRESSES.items():
        total = Tally()
        for fold in (1, 2, 3, 4):
            recognizer = Recognizer(bench.enrolled(fold))
            rng = np.random.default_rng(fold)
            for _, _, image, code, f in bench.photos():
                if f == fold:
                    total.add_photo(recognizer.recognize(change(image, rng)), code)
        print(f"   {name:<12} {total.summary()}")


def _turn(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    import cv2
    import numpy as np

    height, width = image.shape[:2]
    angle = float(rng.uniform(0, 360))
    matrix = cv2.getRotationMatrix2D((width / 2, height / 2), angle, 1.0)
    background = np.median(image.reshape(-1, 3), axis=0)
    return cv2.warpAffine(image, matrix, (width, height), borderMode=cv2.BORDER_CONSTANT,
                          borderValue=tuple(float(v) for v in background))


def _shrink(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    import cv2

    scale = float(rng.uniform(0.35, 0.6))
    height, width = image.shape[:2]
    small = cv2.resize(image, (round(width * scale), round(height * scale)),
                       interpolation=cv2.INTER_AREA)
    canvas = cv2.resize(image, (width, height))
    canvas[:] = small.reshape(-1, 3).mean(axis=0)
    canvas[:small.shape[0], :small.shape[1]] = small
    return canvas


def _relight(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    import numpy as np

    width = image.shape[1]
    ramp = np.linspace(1.0, float(rng.uniform(0.5, 0.8)), width)[None, :, None]
    cast = rng.uniform(0.8, 1.2, 3)
    gamma = float(rng.uniform(0.7, 1.4))
    out = 255.0 * (image / 255.0) ** gamma * ramp * cast
    return np.clip(out, 0, 255).astype(np.uint8)


def _blur(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    import cv2
    import numpy as np

    sigma = float(rng.uniform(1.0, 2.0))
    out = cv2.GaussianBlur(image, (0, 0), sigma).astype(np.float32)
    out += rng.normal(0, 4, out.shape)
    return np.clip(out, 0, 255).astype(np.uint8)


def _glare(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    import numpy as np

    height, width = image.shape[:2]
    cx, cy = rng.uniform(0, width), rng.uniform(0, height)
    radius = float(rng.uniform(60, 160))
    ys, xs = np.ogrid[0:height, 0:width]
    spot = 110 * np.exp(-((xs - cx) ** 2 + (ys - cy) ** 2) / (2 * radius**2))
    return np.clip(image + spot[..., None], 0, 255).astype(np.uint8)


def _oblique(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    import cv2
    import numpy as np

    height, width = image.shape[:2]
    source = np.float32([[0, 0], [width, 0], [width, height], [0, height]])
    squeeze = float(rng.uniform(0.1, 0.2)) * width
    target = np.float32([[squeeze, 0], [width - squeeze, 0], [width, height], [0, height]])
    matrix = cv2.getPerspectiveTransform(source, target)
    return cv2.warpPerspective(image, matrix, (width, height), borderMode=cv2.BORDER_REPLICATE)


REAL_STRESSES: dict[str, Callable[[np.ndarray, np.random.Generator], np.ndarray]] = {
    "as taken": lambda image, rng: image, "turned": _turn, "shrunk": _shrink,
    "relit": _relight, "blurred": _blur, "glare": _glare, "oblique": _oblique,
}


def stress_synthetic(bench: Bench) -> None:
    from vision.build.typefaces import TRAINING_FAMILIES

    _stresses(bench, TRAINING_FAMILIES, "trained typefaces")


def held_out_styles(bench: Bench) -> None:
    from vision.build.typefaces import HELD_OUT_FAMILIES

    _stresses_by_family(bench, HELD_OUT_FAMILIES, "held-out typefaces")


def held_out_original(bench: Bench) -> None:
    from vision.build.typefaces import ORIGINAL_HELD_OUT

    _stresses_by_family(bench, ORIGINAL_HELD_OUT, "first held-out typefaces")


def held_out_untuned(bench: Bench) -> None:
    from vision.build.typefaces import UNTUNED_FAMILIES

    _stresses_by_family(bench, UNTUNED_FAMILIES, "untuned held-out typefaces")


def _stresses_by_family(bench: Bench, families: tuple[str, ...], label: str) -> None:
    """`_stresses`, then its tallies family by family."""
    for family, tally in sorted(_stresses(bench, families, label).items()):
        print(f"   {'family ' + family:<24} {tally.summary()}")


def _stresses(bench: Bench, families: tuple[str, ...], label: str) -> dict[str, Tally]:
    """Each single-card stress on decks of `families`; returns the tallies by family."""
    from vision import Recognizer, load_generic_profile
    from vision.build.evaluate import SINGLE_CARDS, Tally, stress_scene
    from vision.build.typefaces import STROKE, face_named

    recognizer = Recognizer(load_generic_profile())
    total, by_family = Tally(), {}
    for kind in SINGLE_CARDS:
        tally = Tally()
        for number in _scene_numbers(bench):
            scene = stress_scene(kind, number, families=families)
            scored = Tally()
            scored.add_scene(recognizer.recognize(scene.frame), scene)
            face = scene.style.glyphs.typeface if scene.style else ""
            family = face_named(face).family if face else STROKE
            by_family[family] = by_family.get(family, Tally()) + scored
            tally = tally + scored
        print(f"   {kind:<24} {tally.summary()}")
        total = total + tally
    print(f"   {'all, ' + label:<24} {total.summary()}")
    print(f"   {'unsure, ' + label:<24} {total.unsure_summary()}")
    return by_family


def _scene_numbers(bench: Bench) -> range:
    return range(bench.options.first, bench.options.first + bench.options.scenes)


@_needs_dev
def composite(bench: Bench) -> None:
    from vision import Recognizer, load_generic_profile
    from vision.build.composite import LAYOUTS, SURFACES, CompositeOptions, cut_outs
    from vision.build.composite import composite as compose_frame
    from vision.build.evaluate import Tally

    generic = Recognizer(load_generic_profile())
    tallies: dict[tuple[str, str, str], Tally] = {}
    times: dict[tuple[str, str], list[float]] = {}
    for fold in (1, 2, 3, 4):
        held_out = [(name, image, code) for name, _, image, code, f in bench.photos()
                    if f == fold]
        cards, problems = cut_outs(held_out)
        print(f"   fold {fold}: {len(cards)} cut-outs, {len(problems)} photos refused")
        readers = {"enrolled": Recognizer(bench.enrolled(fold)), "generic": generic}
        for layout in LAYOUTS:
            for surface in SURFACES:
                for number in _scene_numbers(bench):
                    scene = compose_frame(cards, layout, number, CompositeOptions(
                        surface=surface))
                    for name, reader in readers.items():
                        started, cpu = time.perf_counter(), time.thread_time()
                        readings = reader.recognize(scene.frame)
                        times.setdefault((name, layout), []).append(
                            (time.perf_counter() - started) * 1000)
                        times.setdefault((name, layout + " cpu"), []).append(
                            (time.thread_time() - cpu) * 1000)
                        tally = tallies.setdefault((name, layout, surface), Tally())
                        tally.add_scene(readings, scene)
    print(f"   {'profile':<9} {'layout':<6} {'surface':<11} {'cards':>6} {'right':>7} "
          f"{'unsure':>7} {'wrong':>6} {'found':>6}")
    for name in ("enrolled", "generic"):
        for layout in LAYOUTS:
            total = Tally()
            for surface in SURFACES:
                tally = tallies[(name, layout, surface)]
                _composite_row(name, layout, surface, tally)
                total = total + tally
            _composite_row(name, layout, "all", total)
            print(f"   {'':<9} {layout:<6} unsure: {total.unsure_summary()}")
    for (name, layout), values in times.items():
        clock = "thread CPU" if layout.endswith(" cpu") else "wall clock"
        print(f"   640x480  {name + ', ' + layout.removesuffix(' cpu'):<18} {clock:<10} "
              f"{percentile(values, 0.5):8.2f} {percentile(values, 0.95):8.2f} ms a frame "
              "(p50, p95)")


def _composite_row(profile: str, layout: str, surface: str, tally: Tally) -> None:
    cards = max(tally.cards, 1)
    print(f"   {profile:<9} {layout:<6} {surface:<11} {tally.cards:6d} "
          f"{tally.right / cards:7.1%} {(tally.cards - tally.answered) / cards:7.1%} "
          f"{tally.wrong:6d} {tally.found:6d}")


def overlap(bench: Bench) -> None:
    from vision import Recognizer, load_generic_profile
    from vision.build.evaluate import Tally, stress_scene
    from vision.build.typefaces import HELD_OUT_FAMILIES, TRAINING_FAMILIES

    recognizer = Recognizer(load_generic_profile())
    for label, families in (("trained typefaces", TRAINING_FAMILIES),
                            ("held-out typefaces", HELD_OUT_FAMILIES)):
        tally = Tally()
        for number in _scene_numbers(bench):
            scene = stress_scene("overlap", number, families=families)
            tally.add_scene(recognizer.recognize(scene.frame), scene)
        print(f"   hands, {label:<20} {tally.summary()}")


def phone(bench: Bench) -> None:
    from vision import Recognizer, load_generic_profile
    from vision.build.evaluate import Tally, phone_scene
    from vision.build.typefaces import HELD_OUT_FAMILIES, TRAINING_FAMILIES

    recognizer = Recognizer(load_generic_profile())
    for label, families in (("trained typefaces", TRAINING_FAMILIES),
                            ("held-out typefaces", HELD_OUT_FAMILIES)):
        groups: dict[str, Tally] = {}
        times: list[float] = []
        for number in _scene_numbers(bench):
            taken = phone_scene(number, families=families)
            started = time.thread_time()
            readings = recognizer.recognize(taken.scene.frame)
            times.append((time.thread_time() - started) * 1000)
            scored = Tally()
            scored.add_scene(readings, taken.scene)
            for group in (taken.surface, taken.light, "all"):
                groups[group] = groups.get(group, Tally()) + scored
        for group, tally in groups.items():
            print(f"   {label + ', ' + group:<30} {tally.summary()}")
        print(f"   {'unsure, ' + label:<30} {groups['all'].unsure_summary()}")
        print(f"   {'time a frame, ' + label:<30} {percentile(times, 0.5):.1f} / "
              f"{percentile(times, 0.95):.1f} ms thread CPU (p50 / p95)")
    _phone_dev(bench)


@_needs_dev
def _phone_dev(bench: Bench) -> None:
    from vision import Recognizer, load_generic_profile
    from vision.build.evaluate import Tally, phone_copy

    recognizer = Recognizer(load_generic_profile())
    groups: dict[str, Tally] = {}
    for number, (_, _, image, code, _) in enumerate(bench.photos()):
        frame, light = phone_copy(image, number)
        scored = Tally()
        scored.add_photo(recognizer.recognize(frame), code)
        for group in (light, "all"):
            groups[group] = groups.get(group, Tally()) + scored
    for group, tally in groups.items():
        print(f"   {'dev photos as a phone, ' + group:<30} {tally.summary()}")
    print(f"   {'unsure, dev photos as a phone':<30} {groups['all'].unsure_summary()}")


def by_source(bench: Bench) -> None:
    """The real photos of `shared/cards-train`, source by source and deck by deck.

    The shipped generic pair learnt glyphs from the licensed sources' corners
    (`vision.build.real_build`); with `--pair-folds DIR` each of those sources is read by the
    pair learnt without it (`python -m vision.build.real_build --folds DIR`), so every
    figure is of a source the reading model never saw. Without it, a source the shipped pair
    learnt from is read by it and marked "trained on it". The measure-only sources taught
    nothing (`vision.build.real_sources`: what right, wrong, unsure and elsewhere count).
    """
    from vision import Recognizer, load_generic_profile
    from vision.build import real_sources
    from vision.build.real_build import fold_name
    from vision.profile import load_profile

    present = list(real_sources.sources_present())
    if not present:
        print(f"   cards-train not found at {real_sources.data_root()}; section left out")
        return
    shipped = load_generic_profile()
    learnt = {entry["source"] for entry in shipped.info.get("real", {}).get("sets", [])}
    folds = Path(bench.options.pair_folds) if bench.options.pair_folds else None
    for source in present:
        licence = "licensed" if source in real_sources.LICENSED else "measure only"
        profile, held = shipped, "held out" if source not in learnt else "trained on it"
        if folds is not None and (folds / fold_name(source)).is_file():
            profile, held = load_profile(folds / fold_name(source)), "held out"
        recognizer = Recognizer(profile)
        total = real_sources.SourceTally()
        decks = real_sources.evaluate(recognizer.recognize, real_sources.load_source(source))
        for deck, tally in decks.items():
            total.add(tally)
            print(f"   {source + ' (' + licence + ')':<36} {deck:<38} {held:<13} "
                  f"{tally.line()}")
        if len(decks) > 1:
            print(f"   {source + ' (' + licence + ')':<36} {'all':<38} {held:<13} "
                  f"{total.line()}")
    recognizer = Recognizer(shipped)
    for source in (s for s in real_sources.COMPOSITE_SOURCES if s in present):
        cards = real_sources.cut_outs_of(real_sources.load_source(source))
        tallies = real_sources.composite_tallies(recognizer.recognize, cards,
                                                 bench.options.scenes)
        for layout, tally in tallies.items():
            print(f"   {source + ', composite ' + layout:<36} {bench.options.scenes} frames: "
                  f"{tally.summary()}")


def index_finder(bench: Bench) -> None:
    """Cards found by the outline finder and by the learned index finder, deck by deck.

    The shipped index finder learnt from every deck of `cardcounter`; with `--folds DIR`
    each `cardcounter` deck is measured with the finder trained without it (DIR holds one
    file per deck, as `python -m vision.build.index_finder --folds DIR` writes them). The
    other sources taught it nothing (`vision.build.finder_figures`: what each column counts).
    """
    from vision.build import real_sources
    from vision.build.finder_figures import FinderTally, measure_finders
    from vision.build.index_finder import SOURCE, fold_path
    from vision.locate.indices import load_index_finder

    present = list(real_sources.sources_present())
    if not present:
        print(f"   cards-train not found at {real_sources.data_root()}; section left out")
        return
    shipped = load_index_finder()
    for source in present:
        images = real_sources.load_source(source)
        decks: dict[str, FinderTally] = {}
        for deck in dict.fromkeys(image.deck for image in images):
            finder, held = shipped, "trained on it"
            if source == SOURCE and bench.options.folds:
                finder = load_index_finder(fold_path(Path(bench.options.folds), deck))
                held = "held out"
            elif source != SOURCE:
                held = "held out"
            tally = measure_finders(finder, [i for i in images if i.deck == deck])[deck]
            decks[deck] = tally
            print(f"   {source:<21} {deck:<38} {held:<14} {tally.line()}")
        if len(decks) > 1:
            total = FinderTally()
            for tally in decks.values():
                total.add(tally)
            print(f"   {source:<21} {'all':<38} {'':<14} {total.line()}")


SECTION_FUNCTIONS: dict[str, Callable[[Bench], None]] = {
    "latency": latency, "enrolled": enrolled, "generic": generic, "stress-real": stress_real,
    "stress-synthetic": stress_synthetic, "held-out-styles": held_out_styles,
    "held-out-original": held_out_original,
    "held-out-untuned": held_out_untuned,
    "composite": composite, "overlap": overlap, "phone": phone, "by-source": by_source,
    "index-finder": index_finder,
}

if __name__ == "__main__":
    sys.exit(main())
