"""Where the controller keeps its state: the journal database, its anchor, nothing else.

The directory is mode 0700 and its files 0600, set by the code itself whatever the umask
(outside systemd too): the journal holds every card, the hole card included.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Final

from controller.journal.errors import JournalError

STATE_DIR_ENV: Final = "SHOECTL_STATE_DIR"
DEFAULT_STATE_DIR: Final = Path("/var/lib/shoectl")
"""systemd's StateDirectory= for the service; `--state-dir` or the environment override it."""


def add_state_dir_option(parser: argparse.ArgumentParser) -> None:
    """Add `--state-dir DIR` to a command's parser."""
    parser.add_argument(
        "--state-dir", type=Path, default=None,
        help=f"directory holding the journal (default: ${STATE_DIR_ENV} or {DEFAULT_STATE_DIR})",
    )


def resolve(state_dir: Path | None) -> Path:
    """The state directory to use: the option, else the environment, else the default."""
    if state_dir is not None:
        return state_dir
    return Path(os.environ.get(STATE_DIR_ENV, str(DEFAULT_STATE_DIR)))


def prepare(state_dir: Path) -> None:
    """Create `state_dir` if missing and make it mode 0700, whatever the umask.

    Raises:
        JournalError: it cannot be created, restricted or written (naming it and why).
    """
    try:
        _make_durably(state_dir)
        if not state_dir.is_dir():
            raise JournalError(f"state directory {state_dir}: not a directory")
        os.chmod(state_dir, 0o700)
    except OSError as exc:
        raise JournalError(f"state directory {state_dir}: {exc.strerror}") from None
    if not os.access(state_dir, os.W_OK | os.X_OK):
        raise JournalError(f"state directory {state_dir}: not writable by this user")


def _make_durably(directory: Path) -> None:
    """Make `directory` and its missing parents, each flushed to storage in its parent."""
    if directory.exists() or directory.is_symlink():
        return
    _make_durably(directory.parent)
    try:
        directory.mkdir(mode=0o700)
    except FileExistsError:
        return
    sync_directory(directory.parent)


def sync_directory(directory: Path) -> None:
    """Flush a directory to storage, so that a file just made or removed in it survives."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def create_private_file(path: Path) -> None:
    """Make `path` exist with mode 0600 (an existing file is restricted to 0600).

    Raises:
        JournalError: it cannot be created or restricted.
    """
    try:
        new = not path.exists()
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        try:
            os.fchmod(fd, 0o600)
        finally:
            os.close(fd)
        if new:
            sync_directory(path.parent)
    except OSError as exc:
        raise JournalError(f"journal file {path}: {exc.strerror}") from None


def restrict_files(state_dir: Path, names: Iterable[str]) -> None:
    """Set mode 0600 on those of `names` that exist in `state_dir` (SQLite's -wal and -shm).

    Raises:
        JournalError: one exists and cannot be restricted.
    """
    for name in names:
        try:
            os.chmod(state_dir / name, 0o600)
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise JournalError(f"journal file {state_dir / name}: {exc.strerror}") from None
