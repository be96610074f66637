"""A private copy of a journal's files, so that reading it never changes a byte of them.

SQLite, even opened read-only, creates and writes the `-shm` index of a WAL database, and a
journal opened for writing may checkpoint its WAL. `shoectl journal verify|export` and
`shoectl meter` therefore copy the database, its WAL and the anchor into a private
directory (mode 0700, in RAM under /dev/shm where it exists) and read the copy; the copy is
removed on leaving. The files are read until two passes see the same sizes and times, so a
copy taken while the service writes is consistent.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final

from controller.journal.anchor import ANCHOR_NAME
from controller.journal.chain import DB_NAME
from controller.journal.errors import JournalError

WAL_NAME: Final = DB_NAME + "-wal"
_FILES: Final = (DB_NAME, WAL_NAME, ANCHOR_NAME)
_ATTEMPTS: Final = 50
_RAM: Final = Path("/dev/shm")


def journal_present(state_dir: Path) -> bool:
    """True when `state_dir` holds a journal database or its anchor (a journal was started)."""
    return (state_dir / DB_NAME).exists() or (state_dir / ANCHOR_NAME).exists()


@contextmanager
def private_copy(state_dir: Path) -> Iterator[Path]:
    """A directory holding copies of the journal files that exist in `state_dir`.

    Raises:
        JournalError: there is no journal in `state_dir`, a file cannot be read, or the files
            kept changing while being copied.
    """
    if not journal_present(state_dir):
        raise JournalError(f"no journal in {state_dir} ({DB_NAME} and {ANCHOR_NAME} not found)")
    base = _RAM if _RAM.is_dir() and os.access(_RAM, os.W_OK) else None
    copy = Path(tempfile.mkdtemp(prefix="shoectl-read-", dir=base))
    try:
        _copy_stable(state_dir, copy)
        yield copy
    finally:
        shutil.rmtree(copy, ignore_errors=True)


def _copy_stable(state_dir: Path, copy: Path) -> None:
    for _ in range(_ATTEMPTS):
        before = _stamps(state_dir)
        for name in _FILES:
            _copy_one(state_dir / name, copy / name)
        if _stamps(state_dir) == before:
            return
    raise JournalError(f"journal in {state_dir}: its files kept changing while being read "
                       "(the service is writing); try again")


def _copy_one(source: Path, target: Path) -> None:
    try:
        data = source.read_bytes()
    except FileNotFoundError:
        target.unlink(missing_ok=True)
        return
    except OSError as exc:
        raise JournalError(f"journal file {source}: cannot read: {exc.strerror} (the journal "
                           "is readable by the service user and root only)") from None
    try:
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as out:
            out.write(data)
    except OSError as exc:
        raise JournalError(f"private copy {target}: cannot write: {exc.strerror}") from None


def _stamps(state_dir: Path) -> list[tuple[int, int, int] | None]:
    stamps: list[tuple[int, int, int] | None] = []
    for name in _FILES:
        try:
            st = os.stat(state_dir / name)
        except FileNotFoundError:
            stamps.append(None)
            continue
        except OSError as exc:
            raise JournalError(f"journal file {state_dir / name}: cannot read: "
                               f"{exc.strerror}") from None
        stamps.append((st.st_ino, st.st_size, st.st_mtime_ns))
    return stamps
