"""Reading time of this tree's card reader against another tree's, frame by frame in turn.

    .venv/bin/python bench/vision_ab.py OTHER_TREE [--reads N] [--frames N]

On a machine busy with other work, two benchmark runs made one after the other see
different loads, and their figures differ by more than a speed change. Here two worker
processes, one importing `vision` from this tree and one from OTHER_TREE (a checkout of
another commit, e.g. `git worktree add /tmp/before HEAD~3`), read the same frames in
strict turn: frame 1 by one, then by the other, then frame 2, so both see the same load.
Each frame is read `--reads` times (5 by default) and its least thread CPU time kept (the
read least disturbed). The frames: the 640x480 dev photos (every fourth), and 640x480
composite boards of five and exposed hands of fold 4's cut-outs (`--frames` of each, 30 by
default, the surfaces in turn), read with the generic profile and with the profile enrolled
without fold 4 (enrolled once, by this tree, and given to both workers).

Printed per kind of frame and profile: the p50 and p95 over frames of the least thread CPU
time, in ms, for each tree, and this tree's p50 over the other's. Exit status 2 when the
dev photos are not found beside the repository (`shared/cards-dev`).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEV = ROOT / ".." / "shared" / "cards-dev"
KINDS = ("single", "board", "hands")

_WORKER = r"""
import os, sys, time
sys.path.insert(0, sys.argv[1])
import cv2
cv2.setNumThreads(1)
from pathlib import Path
import numpy as np
from vision import Recognizer, load_generic_profile
from vision.profile import load_profile
frames = dict(np.load(sys.argv[2]))
readers = {"generic": Recognizer(load_generic_profile()),
           "enrolled": Recognizer(load_profile(Path(sys.argv[3])))}
reads = int(sys.argv[4])
print("ready", flush=True)
for line in sys.stdin:
    profile, key = line.split()
    frame, reader = frames[key], readers[profile]
    least = float("inf")
    for _ in range(reads):
        started = time.thread_time()
        reader.recognize(frame)
        least = min(least, time.thread_time() - started)
    print(f"{least * 1000:.4f}", flush=True)
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("other", type=Path, help="the other tree (its `vision` is compared)")
    parser.add_argument("--reads", type=int, default=5, help="reads of each frame")
    parser.add_argument("--frames", type=int, default=30, help="composite frames of each kind")
    args = parser.parse_args()
    for variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[variable] = "1"  # before numpy loads its BLAS, here and in the workers
    if not (DEV / "labels.csv").is_file():
        print(f"dev photos not found at {DEV.resolve()}", file=sys.stderr)
        return 2
    if not (args.other / "vision" / "__init__.py").is_file():
        print(f"no vision package in {args.other}", file=sys.stderr)
        return 1
    sys.path.insert(0, str(ROOT))
    with tempfile.TemporaryDirectory() as folder:
        frames_file, profile_file = Path(folder) / "frames.npz", Path(folder) / "profile.npz"
        keys = _write_frames(frames_file, profile_file, args.frames)
        trees = {"this": ROOT, "other": args.other.resolve()}
        workers = {name: _start(tree, frames_file, profile_file, args.reads)
                   for name, tree in trees.items()}
        try:
            times = _read_in_turn(workers, keys)
        finally:
            for worker in workers.values():
                worker.stdin.close()  # type: ignore[union-attr]
                worker.wait()
    _report(times)
    return 0


def _write_frames(frames_file: Path, profile_file: Path, count: int) -> dict[str, list[str]]:
    """Save the frames and the enrolled profile for the workers; the frames' keys by kind."""
    import cv2
    import numpy as np

    from vision.build.composite import SURFACES, CompositeOptions, composite, cut_outs
    from vision.dataset import read_image, read_labels
    from vision.enroll import EnrolOptions, enroll
    from vision.profile import save_profile

    photos = [(item.path.name, read_image(item.path), item.code,
               int(item.path.stem.rsplit("_", 1)[-1])) for item in read_labels(DEV)]
    profile, _ = enroll([(name, image, code) for name, image, code, fold in photos if fold != 4],
                        "dev without fold 4", EnrolOptions())
    save_profile(profile, profile_file)
    frames = {f"single{number}": cv2.resize(image, (640, 480), interpolation=cv2.INTER_AREA)
              for number, (_, image, _, _) in enumerate(photos[::4])}
    cards, _ = cut_outs([(name, image, code) for name, image, code, fold in photos if fold == 4])
    for layout, kind in (("board", "board"), ("hands", "hands")):
        for number in range(count):
            surface = list(SURFACES)[number % len(SURFACES)]
            frames[f"{kind}{number}"] = composite(cards, layout, number, CompositeOptions(
                surface=surface)).frame
    np.savez(frames_file, **frames)
    return {kind: [key for key in frames if key.rstrip("0123456789") == kind] for kind in KINDS}


def _start(tree: Path, frames_file: Path, profile_file: Path, reads: int
           ) -> subprocess.Popen[str]:
    worker = subprocess.Popen([sys.executable, "-c", _WORKER, str(tree), str(frames_file),
                               str(profile_file), str(reads)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, cwd=tree)
    if worker.stdout is None or worker.stdout.readline().strip() != "ready":
        raise SystemExit(f"the worker for {tree} did not start")
    return worker


def _read_in_turn(workers: dict[str, subprocess.Popen[str]], keys: dict[str, list[str]]
                  ) -> dict[tuple[str, str, str], list[float]]:
    """Each frame read by each worker in turn; least CPU ms by (tree, kind, profile)."""
    times: dict[tuple[str, str, str], list[float]] = {}
    for kind in KINDS:
        for profile in ("generic", "enrolled"):
            for number, key in enumerate(keys[kind]):
                order = list(workers) if number % 2 == 0 else list(workers)[::-1]
                for name in order:
                    worker = workers[name]
                    worker.stdin.write(f"{profile} {key}\n")  # type: ignore[union-attr]
                    worker.stdin.flush()  # type: ignore[union-attr]
                    answer = worker.stdout.readline()  # type: ignore[union-attr]
                    if not answer:
                        raise SystemExit(f"the {name} tree's worker stopped at frame {key}")
                    times.setdefault((name, kind, profile), []).append(float(answer))
    return times


def _report(times: dict[tuple[str, str, str], list[float]]) -> None:
    print(f"   {'frames':<8} {'profile':<9} {'this p50':>9} {'p95':>7} {'other p50':>10} "
          f"{'p95':>7} {'ratio':>6}")
    for kind in KINDS:
        for profile in ("generic", "enrolled"):
            this, other = times[("this", kind, profile)], times[("other", kind, profile)]
            ratio = _percentile(this, 0.5) / _percentile(other, 0.5)
            print(f"   {kind:<8} {profile:<9} {_percentile(this, 0.5):9.2f} "
                  f"{_percentile(this, 0.95):7.2f} {_percentile(other, 0.5):10.2f} "
                  f"{_percentile(other, 0.95):7.2f} {ratio:6.2f}")


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


if __name__ == "__main__":
    raise SystemExit(main())
