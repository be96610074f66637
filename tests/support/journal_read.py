"""What a table's journal holds, read as a tester reads it: from a private copy, verified."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from controller.journal.store import open_existing


def journal_records(state_dir: Path, kinds: Sequence[str] = ()
                    ) -> list[tuple[str, dict[str, Any]]]:
    """Every (kind, data) of the journal in `state_dir`, oldest first (only `kinds`, if given).

    The journal must verify (its chain and its key); its own files are never opened for
    writing, so a stopped table's journal is read exactly as the table left it.
    """
    with open_existing(state_dir) as store:
        return [(entry.kind, entry.data) for entry in store.entries(kinds)]


def journal_kinds(state_dir: Path) -> list[str]:
    """The kind of every record of the journal in `state_dir`, oldest first."""
    return [kind for kind, _ in journal_records(state_dir)]
