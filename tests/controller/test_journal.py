import hashlib
import hmac
import json
import sqlite3
from pathlib import Path

import pytest

from controller.cli import journal_command, meter_command
from controller.journal import audit
from controller.journal.store import GENESIS, JournalError, JournalStore, chain_hash
from controller.procedure.core.effects import Journal
from controller.procedure.shared import meter_books


def make_store(tmp_path: Path) -> JournalStore:
    return JournalStore(tmp_path, clock=lambda: 1.5, wall=lambda: "2026-01-01T00:00:00+00:00")


def test_records_are_hash_chained_and_survive_reopening(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    store.commit([Journal("a:one", {"x": 1}), Journal("a:two", {"y": [1, 2]})], {"k": 1})
    store.commit([Journal("a:three")], None)
    store.close()
    store = make_store(tmp_path)
    entries = list(store.entries())
    assert [e.seq for e in entries] == [1, 2, 3]
    assert entries[0].prev == GENESIS
    assert entries[1].prev == entries[0].hash
    assert entries[1].hash == chain_hash(store.key, entries[0].hash, entries[1].hashed_part())
    # The hash is HMAC-SHA256 under the table's key, computed here independently.
    message = (entries[0].hash + json.dumps(entries[1].hashed_part(), sort_keys=True,
                                             separators=(",", ":"))).encode()
    assert entries[1].hash == hmac.new(store.key.secret, message, hashlib.sha256).hexdigest()
    assert store.load_critical() == {"k": 1}
    assert store.verify_chain().ok
    store.close()


def test_update_and_delete_are_refused(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    store.commit([Journal("a:one", {"x": 1})], None)
    store.close()
    db = sqlite3.connect(tmp_path / "journal.sqlite3")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        db.execute("UPDATE journal SET data = '{}' WHERE seq = 1")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        db.execute("DELETE FROM journal")
    db.close()


def tamper(tmp_path: Path, sql: str) -> None:
    db = sqlite3.connect(tmp_path / "journal.sqlite3")
    db.execute("DROP TRIGGER journal_no_update")
    db.execute("DROP TRIGGER journal_no_delete")
    db.execute(sql)
    db.commit()
    db.close()


def seeded(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    meters, init = meter_books.start(meter_books.MeterParams(reset=100_000, increment=100))
    store.commit([init], {"meters": meters.to_json()})
    meters, recs = meter_books.contribute(meters, 1, [1, 2, 3])
    store.commit(recs, {"meters": meters.to_json()})
    meters, rec, _ = meter_books.hit(meters, 1, 3, meter_books.HitKind.TENTH)
    store.commit([rec], {"meters": meters.to_json()})
    store.close()


def test_verify_passes_then_names_the_first_tampered_record(tmp_path: Path, capsys) -> None:
    seeded(tmp_path)
    assert journal_command.main(["verify", "--state-dir", str(tmp_path)]) == 0
    assert "meters reconcile" in capsys.readouterr().out
    tamper(tmp_path, "UPDATE journal SET data = '{\"round\":1}' WHERE seq = 3")
    assert journal_command.main(["verify", "--state-dir", str(tmp_path)]) == 3
    err = capsys.readouterr().err
    assert "record 3" in err


def test_verify_names_a_removed_record(tmp_path: Path, capsys) -> None:
    seeded(tmp_path)
    tamper(tmp_path, "DELETE FROM journal WHERE seq = 2")
    assert journal_command.main(["verify", "--state-dir", str(tmp_path)]) == 3
    assert "expected sequence 2" in capsys.readouterr().err


def test_verify_catches_meters_that_do_not_reconcile(tmp_path: Path) -> None:
    seeded(tmp_path)
    store = make_store(tmp_path)
    critical = store.load_critical()
    assert critical is not None
    critical["meters"]["amount"] += 1
    store.commit([Journal("test:noop")], critical)
    store.close()
    report = audit.verify_state_dir(tmp_path)
    assert not report.ok
    assert "meter amount" in report.lines[-1]


def test_corrupt_critical_copy_falls_back_then_fails(tmp_path: Path) -> None:
    seeded(tmp_path)
    db = sqlite3.connect(tmp_path / "journal.sqlite3")
    db.execute("UPDATE critical SET body = '{}' WHERE copy = 0")
    db.commit()
    store = make_store(tmp_path)
    assert store.load_critical() is not None
    assert not store.critical_copies_agree()
    db.execute("UPDATE critical SET body = '{}' WHERE copy = 1")
    db.commit()
    db.close()
    with pytest.raises(JournalError, match="corrupt"):
        store.load_critical()
    store.close()


def test_export_and_meter_cli(tmp_path: Path, capsys) -> None:
    seeded(tmp_path)
    assert journal_command.main(["export", "--jsonl", "--state-dir", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 5
    assert meter_command.main(["show", "--json", "--state-dir", str(tmp_path)]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["meter"] == 100_300 - 10_030
    assert shown["hits"] == 1
    assert shown["cumulative_paid"] == 10_030
    assert shown["progressive_in"] == 3
    assert meter_command.main(["history", "--state-dir", str(tmp_path)]) == 0
    assert "10%" in capsys.readouterr().out


def test_missing_journal_is_a_clear_error(tmp_path: Path, capsys) -> None:
    assert journal_command.main(["verify", "--state-dir", str(tmp_path / "none")]) == 1
    assert "no journal" in capsys.readouterr().err
