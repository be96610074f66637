"""`shoectl vision`: enrol a deck from labelled photos, or read the cards in image files.

    shoectl vision enroll DIR --out PROFILE [--name NAME] [--augment N] [--seed N]
    shoectl vision read [--profile PROFILE] IMAGE... [--json]

`read --json` prints one JSON object per image and line: {"file": ..., "cards": [{"card":
"QH", "confidence": 0.98, "box": [x, y, w, h], "corners": [[x, y], ...]}]}, with "card":
null (and a "reason") for a card it is unsure of, and {"file": ..., "error": ...} for an
image it cannot read. Exit status: 0 when every image was read, 1 when any could not be (or
enrolment failed), 2 for a usage error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from vision.dataset import read_image, read_labels
from vision.enroll import EnrolOptions, EnrolReport, enroll
from vision.errors import VisionError
from vision.profile import DeckProfile, load_generic_profile, load_profile, save_profile
from vision.recognize import CardReading, Recognizer


def main(argv: list[str]) -> int:
    """Run `shoectl vision ...` and return the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "enroll":
            return _enroll(args)
        return _read(args)
    except VisionError as error:
        sys.stderr.write(f"shoectl vision: {error}\n")
        return 1


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="shoectl vision",
                                     description="Card recognition from camera images.")
    commands = parser.add_subparsers(dest="command", required=True)
    enrol = commands.add_parser("enroll", help="learn a deck profile from labelled photos",
                                description="Learn a deck profile from DIR/labels.csv "
                                "(columns filename, rank, suit; other columns ignored).")
    enrol.add_argument("folder", metavar="DIR", type=Path)
    enrol.add_argument("--out", required=True, type=Path, metavar="PROFILE",
                       help="profile file to write (.npz)")
    enrol.add_argument("--name", help="profile name (default: the folder's name)")
    enrol.add_argument("--augment", type=int, default=EnrolOptions().augment,
                       help="altered copies read per photo (default %(default)s)")
    enrol.add_argument("--seed", type=int, default=0)
    read = commands.add_parser("read", help="read the cards in image files")
    read.add_argument("images", metavar="IMAGE", nargs="+", type=Path)
    read.add_argument("--profile", type=Path,
                      help="deck profile (default: the generic profile for unseen decks)")
    read.add_argument("--json", action="store_true", help="one JSON object per image")
    return parser


def _enroll(args: argparse.Namespace) -> int:
    if args.augment < 0:
        raise VisionError(f"--augment must be 0 or more, got {args.augment}")
    if not args.out.parent.is_dir():
        raise VisionError(f"{args.out}: folder {args.out.parent} does not exist")
    labels = read_labels(args.folder)
    photos = [(f"{item.path} (labels.csv line {item.line})", read_image(item.path), item.code)
              for item in labels]

    def progress(done: int, total: int) -> None:
        if done % 20 == 0 or done == total:
            sys.stderr.write(f"read {done}/{total} photos\n")

    name = args.name or args.folder.resolve().name
    profile, report = enroll(photos, name, EnrolOptions(augment=args.augment, seed=args.seed),
                             progress)
    for problem in report.problems:
        sys.stderr.write(f"skipped {problem}\n")
    _write_atomically(profile, args.out)
    sys.stdout.write(_summary(report, args.out) + "\n")
    return 0


def _summary(report: EnrolReport, out: Path) -> str:
    return (f"enrolled {report.photos - len(report.problems)} of {report.photos} photos "
            f"({report.samples} corner samples) in {report.seconds:.1f} s; held-out photos: "
            f"{report.right} right, {report.answered} answered, {report.wrong} wrong of "
            f"{report.held_out}; unsure below {report.unsure_below:.3f}; "
            f"{_one_corner(report)}; wrote {out}")


def _one_corner(report: EnrolReport) -> str:
    if report.one_corner_below is None:
        return "never answers by one corner"
    return (f"answers by one corner from {report.one_corner_below:.3f} "
            f"({report.one_corner_right} held-out answers so, {report.one_corner_wrong} wrong)")


def _write_atomically(profile: DeckProfile, out: Path) -> None:
    """Write beside `out`, then rename: a reader never sees half a profile."""
    temporary = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    try:
        save_profile(profile, temporary)
        os.replace(temporary, out)
    except OSError as error:
        temporary.unlink(missing_ok=True)
        raise VisionError(f"{out}: cannot write ({error.strerror or error})") from None


def _read(args: argparse.Namespace) -> int:
    profile = load_profile(args.profile) if args.profile else load_generic_profile()
    recognizer = Recognizer(profile)
    status = 0
    for path in args.images:
        try:
            readings = recognizer.recognize(read_image(path))
        except VisionError as error:
            status = 1
            sys.stderr.write(f"shoectl vision: {error}\n")
            if args.json:
                sys.stdout.write(json.dumps({"file": str(path), "error": str(error)}) + "\n")
            continue
        sys.stdout.write(_format(path, readings, as_json=args.json) + "\n")
        sys.stdout.flush()
    return status


def _format(path: Path, readings: list[CardReading], *, as_json: bool) -> str:
    if as_json:
        return json.dumps({"file": str(path), "cards": [r.as_dict() for r in readings]})
    if not readings:
        return f"{path}: no card found"
    shown = [f"{r.card} ({r.confidence:.3f})" if r.card else f"unsure ({r.reason})"
             for r in readings]
    return f"{path}: " + ", ".join(shown)
