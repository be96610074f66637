"""Every reading of a fixed set of frames, written out so two versions of the reader compare.

    .venv/bin/python bench/vision_readings.py OUT.jsonl [--compare OLD.jsonl] [--threads N]

A change meant to make reading faster must leave every answer the same. This script reads:

* the 208 dev photos at 800x600 (as taken) and resized to 640x480, with the generic profile
  and with the profile enrolled on every photo outside fold 4;
* composite frames of the held-out fold-4 cut-outs (`vision.build.composite`): each layout
  on each surface, three frames each, with both profiles;
* synthetic scenes with the generic profile: four of each single-card stress and twelve
  overlapping hands in the trained typeface families, two of each stress and four hands in
  the held-out families, and four phone photos.

Each line of OUT is one frame as JSON: `{"item": NAME, "readings": [...]}`, each reading
`[card, guess, reason, confidence, quad]` with the confidence rounded to 1e-6 and the quad's
corners to 0.01 pixel; the first line is `{"item": "profile", "digest": SHA-256}` of the
enrolled profile's arrays. `--compare OLD` then lists every frame whose readings differ,
saying whether only a confidence or a corner moved or a card, guess or reason changed; the
exit status is 1 when any card, guess or reason changed (or a frame is missing), 2 when the
dev photos are not found beside the repository (`shared/cards-dev`).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

    from vision import Recognizer

ROOT = Path(__file__).resolve().parents[1]
DEV = ROOT / ".." / "shared" / "cards-dev"
SIZES = ((800, 600), (640, 480))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="file the readings are written to (JSON lines)")
    parser.add_argument("--compare", type=Path, help="readings written earlier to compare with")
    parser.add_argument("--threads", type=int, default=1, help="OpenCV/BLAS threads")
    args = parser.parse_args()
    for variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[variable] = str(args.threads)  # before numpy loads its BLAS
    sys.path.insert(0, str(ROOT))  # the package, not this folder's vision.py
    import cv2

    cv2.setNumThreads(args.threads)
    if not (DEV / "labels.csv").is_file():
        print(f"dev photos not found at {DEV.resolve()}", file=sys.stderr)
        return 2
    with args.out.open("w", encoding="utf-8") as out:
        for item in _items():
            out.write(json.dumps(item) + "\n")
    print(f"wrote {args.out}")
    return _compare(args.compare, args.out) if args.compare else 0


def _items() -> Iterator[dict[str, Any]]:
    import cv2

    from vision import Recognizer, load_generic_profile
    from vision.dataset import read_image, read_labels
    from vision.enroll import EnrolOptions, enroll

    photos = [(item.path.name, read_image(item.path), item.code,
               int(item.path.stem.rsplit("_", 1)[-1])) for item in read_labels(DEV)]
    profile, _ = enroll([(name, image, code) for name, image, code, fold in photos if fold != 4],
                        "dev without fold 4", EnrolOptions())
    yield {"item": "profile", "digest": _digest(profile)}
    readers = {"generic": Recognizer(load_generic_profile()), "enrolled": Recognizer(profile)}
    for size in SIZES:
        for name, image, _, _ in photos:
            frame = image if image.shape[1] == size[0] else cv2.resize(
                image, size, interpolation=cv2.INTER_AREA)
            for profile_name, reader in readers.items():
                yield _item(f"{size[0]}x{size[1]} {name} {profile_name}", reader, frame)
    yield from _composites(readers, [(n, i, c) for n, i, c, fold in photos if fold == 4])
    yield from _synthetic(readers["generic"])


def _composites(readers: dict[str, Recognizer], held_out: list[tuple[str, np.ndarray, str]]
                ) -> Iterator[dict[str, Any]]:
    from vision.build.composite import LAYOUTS, SURFACES, CompositeOptions, composite, cut_outs

    cards, _ = cut_outs(held_out)
    for layout in LAYOUTS:
        for surface in SURFACES:
            for number in range(3):
                frame = composite(cards, layout, number, CompositeOptions(surface=surface)).frame
                for profile_name, reader in readers.items():
                    yield _item(f"composite {layout} {surface} {number} {profile_name}",
                                reader, frame)


def _synthetic(reader: Recognizer) -> Iterator[dict[str, Any]]:
    from vision.build.evaluate import SINGLE_CARDS, phone_scene, stress_scene
    from vision.build.typefaces import HELD_OUT_FAMILIES, TRAINING_FAMILIES

    for label, families, singles, hands in (("trained", TRAINING_FAMILIES, 4, 12),
                                            ("held-out", HELD_OUT_FAMILIES, 2, 4)):
        for kind in SINGLE_CARDS:
            for number in range(singles):
                frame = stress_scene(kind, number, families=families).frame
                yield _item(f"stress {kind} {label} {number}", reader, frame)
        for number in range(hands):
            frame = stress_scene("overlap", number, families=families).frame
            yield _item(f"stress overlap {label} {number}", reader, frame)
    for number in range(4):
        yield _item(f"phone {number}", reader, phone_scene(number).scene.frame)


def _item(name: str, reader: Recognizer, frame: np.ndarray) -> dict[str, Any]:
    readings = [[r.card, r.guess, r.reason, round(r.confidence, 6),
                 [[round(x, 2), round(y, 2)] for x, y in r.quad]]
                for r in reader.recognize(frame)]
    return {"item": name, "readings": readings}


def _digest(profile: object) -> str:
    """SHA-256 of the enrolled profile's classifiers' arrays and figures and its threshold."""
    import numpy as np

    digest = hashlib.sha256()
    for classifier in (profile.rank, profile.suit):  # type: ignore[attr-defined]
        for value in vars(classifier).values():
            if isinstance(value, np.ndarray):
                digest.update(np.ascontiguousarray(value).tobytes())
            elif isinstance(value, float):
                digest.update(repr(value).encode())
    digest.update(repr(profile.unsure_below).encode())  # type: ignore[attr-defined]
    return digest.hexdigest()


def _compare(old_path: Path, new_path: Path) -> int:
    old = {item["item"]: item for item in map(json.loads, old_path.open(encoding="utf-8"))}
    new = [json.loads(line) for line in new_path.open(encoding="utf-8")]
    changed = moved = 0
    for item in new:
        before = old.pop(item["item"], None)
        if before == item:
            continue
        verdict = _difference(before, item)
        changed += verdict == "changed"
        moved += verdict == "moved"
        print(f"{verdict}: {item['item']}\n   was {before}\n   now {item}")
    for name in old:
        changed += 1
        print(f"changed: {name} is missing")
    print(f"{len(new)} frames: {changed} with a card, guess or reason changed, {moved} with "
          "only a confidence or a corner moved")
    return 1 if changed else 0


def _difference(before: dict[str, Any] | None, after: dict[str, Any]) -> str:
    """"changed" when a card, guess or reason (or the profile) differs, else "moved"."""
    if before is None or "readings" not in after:
        return "changed"
    old, new = before["readings"], after["readings"]
    if len(old) != len(new) or any(a[:3] != b[:3] for a, b in zip(old, new, strict=True)):
        return "changed"
    return "moved"


if __name__ == "__main__":
    sys.exit(main())
