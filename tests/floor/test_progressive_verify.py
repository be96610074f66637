"""`shoectl progressive show|verify` on controller journals written through the real store.

A journal whose meter replays cleanly but which applied one (table, boot, seq) twice must not
verify; books and journal that disagree on the last applied seq must not verify either.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

from controller.floor import ledger
from controller.floor.protocol import MessageId
from controller.journal.store import JournalStore
from controller.rules.meter import ProgressiveSettings

PARAMS = ProgressiveSettings(reset=500_000, increment=100)


POLICY = ledger.Policy(frozenset({"T1"}))


def _message(seq: int) -> tuple[dict[str, object], MessageId, ledger.Policy, str]:
    """The boot's announcement (seq 1), then a contribution of round 1 at seat `seq`."""
    data = ({"type": "boot"} if seq == 1 else
            {"type": "contribution", "round": 1, "seat": seq})
    return (data | {"table": "T1", "boot": "b1", "seq": seq}, MessageId("T1", "b1", seq),
            POLICY, "2026-12-06")


def _journal(state_dir: Path, *, apply_twice: bool = False, forget_books: bool = False) -> None:
    store = JournalStore(state_dir, clock=lambda: 0.0, durable=False)
    book, record = ledger.open_book(PARAMS)
    store.commit([record], book.to_json())
    for seq in (1, 2, 3):
        outcome = ledger.receive(book, *_message(seq))
        store.commit(outcome.records, outcome.book.to_json())
        book = outcome.book
    if apply_twice:  # a controller that forgot what it applied
        outcome = ledger.receive(replace(book, applied={"T1/b1": 2}), *_message(3))
        store.commit(outcome.records, outcome.book.to_json())
    if forget_books:
        store.commit([], replace(book, applied={}).to_json())
    store.close()


def _shoectl(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "controller", "progressive", *args],
                          capture_output=True, text=True, check=False, timeout=120)


def test_show_gives_exactly_the_four_figures(tmp_path: Path) -> None:
    _journal(tmp_path / "c")
    done = _shoectl("show", "--state-dir", str(tmp_path / "c"), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"meter": 500_200, "hits": 0, "cumulative_paid": 0,
                                       "progressive_in": 2}


def test_verify_passes_an_intact_journal(tmp_path: Path) -> None:
    _journal(tmp_path / "c")
    done = _shoectl("verify", "--state-dir", str(tmp_path / "c"))
    assert done.returncode == 0, done.stdout
    assert done.stdout.splitlines()[-1] == "3 table messages applied, each exactly once"


def test_verify_refuses_a_message_applied_twice(tmp_path: Path) -> None:
    _journal(tmp_path / "c", apply_twice=True)
    done = _shoectl("verify", "--state-dir", str(tmp_path / "c"))
    assert done.returncode == 3
    assert done.stdout.splitlines()[-1] == "table stream T1/b1: seq 3 applied twice"


def test_verify_refuses_books_that_forgot_what_was_applied(tmp_path: Path) -> None:
    _journal(tmp_path / "c", forget_books=True)
    done = _shoectl("verify", "--state-dir", str(tmp_path / "c"))
    assert done.returncode == 3
    assert "last applied seqs {} differ from the journal's {'T1/b1': 3}" in done.stdout


def test_verify_of_a_missing_journal_is_one_line(tmp_path: Path) -> None:
    done = _shoectl("verify", "--state-dir", str(tmp_path / "none"))
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1
    assert done.stderr.startswith("shoectl progressive: ")
