"""Where the controller keeps its state: the journal database and nothing else."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Final

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
