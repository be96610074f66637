"""The floor store on both backends (SQLite and a real PostgreSQL), with the same tests.

Rows are a real table journal's (keyed chain, real hashes); the store takes a table's rows
in sequence only, ignores repeats, says where a gap begins, keeps a row that disagrees with
its copy beside it (and goes on), and sends the table back when a row links to nothing.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.floor.floor_store import FloorStore, FloorStoreError, StoreUrl, open_store
from controller.floor.floor_verify import first_disagreement, verify_copy
from controller.journal.anchor import Tip
from controller.journal.chain import Entry
from controller.journal.store import JournalStore
from controller.procedure.core.effects import Journal


def journal_rows(state_dir: Path, count: int) -> list[Entry]:
    store = JournalStore(state_dir, clock=lambda: 1.5, durable=False)
    for n in range(count):
        store.commit([Journal("test:row", {"n": n, "hole": "Ks", "note": "é"})], None)
    rows = list(store.entries())
    store.close()
    return rows


def tip(rows: list[Entry]) -> Tip:
    return Tip(rows[-1].seq, rows[-1].hash)


@pytest.fixture
def store(store_url: str, tmp_path: Path) -> Iterator[FloorStore]:
    opened = open_store(store_url, tmp_path)
    yield opened
    opened.close()


def test_rows_in_sequence_are_kept_as_journalled(store: FloorStore, tmp_path: Path) -> None:
    rows = journal_rows(tmp_path / "T1", 30)
    held, gap = store.apply("T1", rows[:10], tip(rows[:10]))
    assert (held.tip, gap) == (tip(rows[:10]), False)
    held, gap = store.apply("T1", rows[10:], tip(rows))
    assert held.tip == tip(rows)
    assert list(store.entries("T1")) == rows  # every field, the float and the accent exact
    assert store.tables() == ["T1"]
    assert verify_copy(store.copy("T1"), rows).ok


def test_a_repeat_is_ignored_and_an_overlap_adds_only_what_is_new(
        store: FloorStore, tmp_path: Path) -> None:
    rows = journal_rows(tmp_path / "T1", 12)
    store.apply("T1", rows[:8], tip(rows[:8]))
    held, _ = store.apply("T1", rows[:8], tip(rows[:8]))  # redelivered by the broker
    assert (held.tip.records, held.refused_seq) == (8, 0)
    held, _ = store.apply("T1", rows[5:], tip(rows))  # resent from before the floor's tip
    assert (held.tip.records, held.refused_seq) == (12, 0)
    assert list(store.entries("T1")) == rows


def test_a_batch_beyond_the_next_seq_is_a_gap_and_nothing_of_it_is_kept(
        store: FloorStore, tmp_path: Path) -> None:
    rows = journal_rows(tmp_path / "T1", 10)
    store.apply("T1", rows[:3], tip(rows[:3]))
    held, gap = store.apply("T1", rows[5:], tip(rows))
    assert gap
    assert held.message(gap=gap).to_json()["records"] == 3  # resend from seq 4
    assert held.anchor == tip(rows)  # the head the table announced is kept
    assert [e.seq for e in store.entries("T1")] == [1, 2, 3]


def test_a_differing_row_is_kept_beside_the_copy_and_the_rest_goes_on(
        store: FloorStore, tmp_path: Path) -> None:
    rows = journal_rows(tmp_path / "T1", 6)
    store.apply("T1", rows[:4], tip(rows[:4]))
    changed = dataclasses.replace(rows[2], data={**rows[2].data, "n": 99})
    held, gap = store.apply("T1", [changed, rows[3], rows[4]], tip(rows))
    assert (held.conflict_seq, gap) == (3, False)
    assert held.conflict_reason.startswith("record 3 arrived in two versions")
    assert held.tip == tip(rows[:5])  # the rest of the table's rows go on being stored
    again = dataclasses.replace(rows[2], data={**rows[2].data, "n": 98})  # the same hash
    held, _ = store.apply("T1", [again, rows[3], rows[4], rows[5]], tip(rows))
    assert (held.tip, held.conflict_seq) == (tip(rows), 3)
    assert list(store.entries("T1")) == rows  # the copy is never changed ...
    assert store.other_versions("T1") == sorted([changed, again], key=lambda e: e.data["n"])
    assert held.message().to_json()["conflict"]["seq"] == 3  # ... and both others are kept
    verdict = verify_copy(store.copy("T1"), list(store.entries("T1")))
    assert not verdict.ok
    assert "two versions of seq 3 kept" in verdict.lines[-1]


def test_a_row_that_does_not_link_sends_the_table_back_until_it_does(
        store: FloorStore, tmp_path: Path) -> None:
    rows = journal_rows(tmp_path / "T1", 4)
    other = journal_rows(tmp_path / "T1-other-card", 4)  # another journal, another key
    store.apply("T1", rows[:2], tip(rows[:2]))
    held, gap = store.apply("T1", other[2:], tip(other))
    assert gap
    assert held.message(gap=gap).to_json()["records"] == 0  # resend from seq 1
    assert held.conflict_seq == 0  # nothing is decided on a row that links to nothing
    held, gap = store.apply("T1", other, tip(other))
    assert not gap
    assert held.conflict_seq == 1
    assert held.message().to_json()["records"] == 4  # the chain being shipped: all of it
    assert list(store.entries("T1")) == rows[:2]
    assert store.other_versions("T1") == other


def test_an_anchor_head_unlike_the_floors_hash_sends_the_table_back(
        store: FloorStore, tmp_path: Path) -> None:
    rows = journal_rows(tmp_path / "T1", 5)
    other = journal_rows(tmp_path / "T1-rewritten", 4)
    store.apply("T1", rows, tip(rows))
    held, gap = store.apply("T1", [], tip(other))  # a rewritten journal says where it is
    assert gap
    assert held.message(gap=gap).to_json()["records"] == 0  # its rows are asked for
    assert list(store.entries("T1")) == rows


def test_tables_are_kept_apart(store: FloorStore, tmp_path: Path) -> None:
    one, two = journal_rows(tmp_path / "T1", 3), journal_rows(tmp_path / "T2", 5)
    store.apply("T1", one, tip(one))
    store.apply("T2", two, tip(two))
    assert list(store.entries("T1")) == one
    assert list(store.entries("T2")) == two
    assert store.copy("T3").tip.records == 0


def test_the_first_disagreement_is_named(tmp_path: Path) -> None:
    rows = journal_rows(tmp_path / "T1", 5)
    assert first_disagreement(rows, rows) == ""
    assert first_disagreement(rows[:3], rows).startswith(
        "seq 4: on the floor, missing from the local journal (the local journal ends at seq 3")
    assert first_disagreement([*rows[:2], *rows[3:]], rows).startswith(
        "seq 3: on the floor, missing from the local journal (removed")
    assert first_disagreement(rows, rows[:4]).startswith("seq 5: in the local journal, not on")
    changed = dataclasses.replace(rows[3], data={"n": -1})
    assert first_disagreement([*rows[:3], changed, rows[4]], rows).startswith(
        "seq 4: the local record (test:row) differs")
    resealed = [dataclasses.replace(e, hash="f" * 64) for e in rows]
    assert first_disagreement(resealed, rows).startswith("seq 1: same content, another hash")


@pytest.mark.parametrize(("url", "says"), [
    ("mysql://floor/db", "expected postgresql://... or sqlite:PATH"),
    ("sqlite:", "sqlite: needs a file name"),
    ("postgresql://floor/db?nonsense=1", "not a PostgreSQL URI"),
    ("", "expected postgresql://"),
])
def test_a_bad_store_url_is_one_line(url: str, says: str, tmp_path: Path) -> None:
    with pytest.raises(FloorStoreError) as caught:
        StoreUrl.parse(url, tmp_path)
    assert says in str(caught.value)
    assert "\n" not in str(caught.value)


def test_an_unreachable_server_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(FloorStoreError) as caught:
        open_store(f"postgresql://shoectl@/floor?host={tmp_path}", tmp_path)
    text = str(caught.value)
    assert text.startswith("floor store postgresql: ")
    assert "cannot open" in text
    assert "\n" not in text


def test_an_sqlite_store_is_the_floors_alone(tmp_path: Path) -> None:
    store = open_store("sqlite:floor/journals.sqlite3", tmp_path)
    rows = journal_rows(tmp_path / "T1", 2)
    store.apply("T1", rows, tip(rows))
    for name in ("journals.sqlite3", "journals.sqlite3-wal"):
        assert (tmp_path / "floor" / name).stat().st_mode & 0o777 == 0o600
    store.close()


def test_an_sqlite_store_that_cannot_be_made_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "taken").write_text("a file, not a directory")
    with pytest.raises(FloorStoreError) as caught:
        open_store("sqlite:taken/floor.sqlite3", tmp_path)
    assert str(caught.value).startswith(f"floor store sqlite:{tmp_path / 'taken'}/floor.sqlite3: "
                                        "cannot open: ")
    assert "\n" not in str(caught.value)
