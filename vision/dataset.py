"""Labelled photo folders (`labels.csv` plus images) and image files, for enrolment and tests.

`labels.csv` needs at least the columns `filename` (relative to the folder), `rank`
(A 2-9 T J Q K; "10" is accepted) and `suit` (S H D C); other columns are ignored.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from vision.cards import normalise_rank, normalise_suit
from vision.errors import DatasetError

LABELS = "labels.csv"
REQUIRED_COLUMNS = ("filename", "rank", "suit")


@dataclass(frozen=True, slots=True)
class LabelledImage:
    """One line of `labels.csv`.

    Attributes:
        path: The image file.
        code: The card it shows ("QH").
        line: Its line number in `labels.csv` (the header is line 1).
    """

    path: Path
    code: str
    line: int


def read_labels(folder: Path) -> list[LabelledImage]:
    """Read and check `folder/labels.csv`.

    Raises:
        DatasetError: The file is missing or empty, a column is missing, or a line names a
            card or file that does not exist (the message gives the file and line).
    """
    labels = folder / LABELS
    if not labels.is_file():
        raise DatasetError(f"{labels}: missing; a labelled folder needs {LABELS} with the "
                           f"columns {', '.join(REQUIRED_COLUMNS)}")
    try:
        with labels.open(newline="", encoding="utf-8-sig") as handle:
            rows = list(csv.DictReader(handle))
            header = rows[0].keys() if rows else []
    except (UnicodeDecodeError, csv.Error) as error:
        raise DatasetError(f"{labels}: not a readable CSV file ({error})") from None
    missing = [c for c in REQUIRED_COLUMNS if c not in header]
    if not rows:
        raise DatasetError(f"{labels}: lists no images")
    if missing:
        raise DatasetError(f"{labels}: line 1: missing column(s) {', '.join(missing)}")
    seen: dict[str, int] = {}
    return [_parse_row(labels, folder, number, row, seen)
            for number, row in enumerate(rows, start=2)]


def _parse_row(labels: Path, folder: Path, line: int, row: dict[str, str | None],
               seen: dict[str, int]) -> LabelledImage:
    where = f"{labels}: line {line}"
    filename = (row.get("filename") or "").strip()
    rank = normalise_rank(row.get("rank") or "")
    suit = normalise_suit(row.get("suit") or "")
    if not filename:
        raise DatasetError(f"{where}: empty filename")
    if rank is None:
        raise DatasetError(f"{where}: rank {row.get('rank')!r} is not a card rank "
                           "(A 2-9 T J Q K)")
    if suit is None:
        raise DatasetError(f"{where}: suit {row.get('suit')!r} is not a card suit (S H D C)")
    if filename in seen:
        raise DatasetError(f"{where}: {filename} is already listed on line {seen[filename]}")
    seen[filename] = line
    path = folder / filename
    if not path.is_file():
        raise DatasetError(f"{where}: {filename}: no such file in {folder}")
    return LabelledImage(path, rank + suit, line)


def read_image(path: Path) -> npt.NDArray[np.uint8]:
    """Read an image file as a BGR array.

    Raises:
        DatasetError: The file cannot be read or is not an image (the message names it).
    """
    try:
        data = np.fromfile(path, np.uint8)
    except OSError as error:
        raise DatasetError(f"{path}: cannot read ({error.strerror or error})") from None
    image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if image is None:
        raise DatasetError(f"{path}: not a readable image (JPEG, PNG, BMP, ...)")
    return np.asarray(image, np.uint8)
