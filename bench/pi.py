"""Figures that carry from one processor to another: the table's work as multiples of plain work.

Absolute times under emulation (the arm64 check runs the Pi's binaries under qemu-user) or on
a shared machine mean little; a ratio to a plain workload measured in the same run, on the
same core, carries over: multiply it by the plain workload's time on a real Pi (a JPEG decode,
a SQLite commit on its SD card) to estimate the Pi's own figure.

* vision: the generic profile reading one 800x600 dev photo (`Recognizer.recognize`), per
  frame, against a plain JPEG decode of the same file plus a resize to 640x480 (OpenCV);
* card -> lamp: the hole card's frames written by the shoe emulator until the blackjack lamp
  frame leaves for the layout board (real drivers over ptys, the durable journal committed
  first; `bench/controller.py`'s peek path), against a bare durable SQLite commit (WAL,
  synchronous=FULL, one row) in the same folder.

Each figure is the median of its samples. `--json` prints one object (what `make pi-check`
reads, from the arm64 root and from the host).

    python bench/pi.py [--photos DIR] [--frames N] [--cards N] [--json]

DIR defaults to `../shared/cards-dev` beside the repository (`$SHOECTL_CARDS_DEV` overrides).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import resource
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
# bench/controller.py is named like the package: keep this folder off the import path, and
# use the installed project when there is one (the arm64 root's venv), else the checkout.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
if importlib.util.find_spec("controller") is None:
    sys.path.insert(0, str(ROOT))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

DEFAULT_PHOTOS = Path(os.environ.get("SHOECTL_CARDS_DEV", ROOT.parent / "shared" / "cards-dev"))


def _median_ms(values: list[float]) -> float:
    return round(statistics.median(values) * 1e3, 3)


def _photos(folder: Path, count: int) -> list[Path]:
    images = sorted((folder / "images").glob("*.jpg"))
    if not images:
        sys.exit(f"bench/pi.py: no dev photos in {folder / 'images'} (give --photos DIR)")
    step = max(1, len(images) // count)
    return images[::step][:count]


def decode_resize_s(data: bytes) -> float:
    """One plain JPEG decode and resize to 640x480."""
    start = time.perf_counter()
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    cv2.resize(image, (640, 480), interpolation=cv2.INTER_AREA)
    return time.perf_counter() - start


def vision_figures(photos: list[Path]) -> dict[str, float]:
    """Per-frame recognition and the plain decode + resize, both on the same photos."""
    from vision import Recognizer, load_generic_profile

    recognizer = Recognizer(load_generic_profile())
    blobs = [path.read_bytes() for path in photos]
    recognizer.recognize(cv2.imdecode(np.frombuffer(blobs[0], np.uint8), cv2.IMREAD_COLOR))
    plain = [decode_resize_s(blob) for blob in blobs for _ in range(3)]
    frames = []
    for blob in blobs:
        image = cv2.imdecode(np.frombuffer(blob, np.uint8), cv2.IMREAD_COLOR)
        start = time.perf_counter()
        recognizer.recognize(image)
        frames.append(time.perf_counter() - start)
    return {"frames": len(frames), "vision_frame_ms": _median_ms(frames),
            "jpeg_decode_resize_ms": _median_ms(plain)}


def sqlite_commit_s(folder: Path, samples: int) -> list[float]:
    """Bare durable SQLite commits (WAL, synchronous=FULL), one row each."""
    db = sqlite3.connect(folder / "plain.sqlite", isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
        db.execute("CREATE TABLE t (n INTEGER PRIMARY KEY, body TEXT)")
        times = []
        for n in range(samples):
            start = time.perf_counter()
            db.execute("BEGIN")
            db.execute("INSERT INTO t (n, body) VALUES (?, ?)", (n, "x" * 200))
            db.execute("COMMIT")
            times.append(time.perf_counter() - start)
        return times
    finally:
        db.close()


def _bench_controller():  # a module loaded by its path
    spec = importlib.util.spec_from_file_location("bench_controller", HERE / "controller.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def lamp_figures(cards: int) -> dict[str, float]:
    """Card -> lamp over ptys (durable journal) and the bare commit, in the same folder."""
    bench = _bench_controller()
    bench.SAMPLES = cards
    with tempfile.TemporaryDirectory(prefix="bench-pi-") as tmp:
        app = bench.peek_app(Path(tmp) / "peek")
        try:
            lamp = bench.peek_latencies(app)
        finally:
            app.devices.close()
        commits = sqlite_commit_s(Path(tmp), max(cards, 50))
    return {"cards": len(lamp), "card_to_lamp_ms": _median_ms(lamp),
            "sqlite_commit_ms": _median_ms(commits)}


def figures(photos: Path, frames: int, cards: int) -> dict[str, object]:
    """Every figure and its ratio, with the machine it was measured on."""
    vision = vision_figures(_photos(photos, frames))
    lamp = lamp_figures(cards)
    return {
        "machine": platform.machine(), **vision, **lamp,
        "vision_per_decode": round(vision["vision_frame_ms"] / vision["jpeg_decode_resize_ms"], 1),
        "lamp_per_commit": round(lamp["card_to_lamp_ms"] / lamp["sqlite_commit_ms"], 2),
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=Path, default=DEFAULT_PHOTOS)
    parser.add_argument("--frames", type=int, default=20, help="dev photos read (default 20)")
    parser.add_argument("--cards", type=int, default=50, help="hole cards timed (default 50)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = figures(args.photos, args.frames, args.cards)
    if args.json:
        print(json.dumps(result))
        return
    print(f"{result['machine']}: vision {result['vision_frame_ms']} ms a frame = "
          f"{result['vision_per_decode']} x a JPEG decode + resize "
          f"({result['jpeg_decode_resize_ms']} ms; {result['frames']} dev photos)")
    print(f"{result['machine']}: card -> lamp {result['card_to_lamp_ms']} ms = "
          f"{result['lamp_per_commit']} x a durable SQLite commit "
          f"({result['sqlite_commit_ms']} ms; {result['cards']} hole cards)")
    print(f"peak RSS {result['peak_rss_mib']} MiB")


if __name__ == "__main__":
    main()
