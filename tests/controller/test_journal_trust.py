"""The journal against a writer without the table's key, damaged files, and power cuts.

Every attack of the trust report is caught by `shoectl journal verify` (exit 3) and by the
start-up check, and neither changes a byte of the evidence; 300 random single-byte flips of
the database, its WAL and the anchor each give a verdict (never a traceback), and a flip
called intact changed nothing that is read back; a power cut between the anchor and the
database commit is no false alarm, while the same states made on purpose with one commit
more removed are refused. Files are private whatever the umask; a full disk and an
unwritable state directory are one line naming the file.
"""

from __future__ import annotations

import contextlib
import io
import os
import random
import shutil
import sqlite3
import stat
import subprocess
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.cli import journal_command, meter_command
from controller.journal import audit, keys
from controller.journal.anchor import ANCHOR_NAME, SLOT_SIZE, Anchor
from controller.journal.store import JournalError, JournalStore, JournalTrustError
from controller.procedure.core.effects import Journal
from tests.support import journal_attacks as attacks


@pytest.fixture(scope="module")
def journals(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A simulated table's journal (`base`), another run's (`other`), a killed writer's."""
    work = tmp_path_factory.mktemp("journals")
    attacks.simulated_journal(work / "base", rounds=3, seed=5)
    attacks.simulated_journal(work / "other", rounds=3, seed=6)
    attacks.killed_journal(work / "killed", commits=200)
    return work


def copy_journal(journals: Path, name: str, target: Path) -> Path:
    shutil.copytree(journals / name, target)
    shutil.copy2(journals / f"{name}{keys.KEY_SUFFIX}", target.with_name(target.name
                                                                         + keys.KEY_SUFFIX))
    return target


def cli(main, argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("name", list(attacks.ATTACKS))
def test_every_attack_of_the_report_is_caught_and_checking_changes_no_byte(
        journals: Path, tmp_path: Path, name: str) -> None:
    source = "killed" if name in attacks.NEEDS_KILLED else "base"
    state = copy_journal(journals, source, tmp_path / "state")
    assert cli(journal_command.main, ["verify", "--state-dir", str(state)])[0] == 0
    attacks.ATTACKS[name](state, journals / "other")
    before = attacks.file_digests(state)
    code, _out, err = cli(journal_command.main, ["verify", "--state-dir", str(state)])
    assert code == journal_command.EXIT_INTEGRITY, err
    assert len(err.strip().splitlines()) == 1
    assert attacks.VERDICTS[name] in err
    assert "Traceback" not in err
    with pytest.raises(JournalTrustError) as refused:
        JournalStore(state, clock=time.monotonic)
    assert str(refused.value) == err.strip()  # the service and verify say the same
    assert attacks.file_digests(state) == before  # neither wrote a byte: it is the evidence


def test_a_forged_meter_correction_is_never_shown(journals: Path, tmp_path: Path) -> None:
    state = copy_journal(journals, "base", tmp_path / "state")
    attacks.forge_meter_correction(state, journals / "other")
    code, out, err = cli(meter_command.main, ["show", "--state-dir", str(state)])
    assert code == 3
    assert out == ""
    assert "does not verify: chain broken at record" in err


def test_truncation_is_named_and_verify_writes_no_schema(journals: Path, tmp_path: Path) -> None:
    state = copy_journal(journals, "base", tmp_path / "state")
    records = audit.verify_state_dir(state).records
    attacks.truncate_to_zero(state, journals / "other")
    report = audit.verify_state_dir(state)
    assert not report.ok
    assert f"journal holds 0 records but its anchor records {records}" in report.lines[-1]
    assert (state / "journal.sqlite3").stat().st_size == 0
    assert sorted(p.name for p in state.iterdir()) == ["journal.anchor", "journal.sqlite3"]


def test_a_lost_wal_is_named(journals: Path, tmp_path: Path) -> None:
    state = copy_journal(journals, "killed", tmp_path / "state")
    attacks.delete_wal_after_kill(state, journals / "other")
    report = audit.verify_state_dir(state)
    assert "but its anchor records 200" in report.lines[-1]
    assert "WAL lost" in report.lines[-1]


def test_export_prints_the_evidence_of_a_journal_that_does_not_verify_and_exits_3(
        journals: Path, tmp_path: Path) -> None:
    state = copy_journal(journals, "base", tmp_path / "state")
    attacks.rewrite_a_wager(state, journals / "other")
    code, out, err = cli(journal_command.main, ["export", "--jsonl", "--state-dir", str(state)])
    assert code == 3
    assert len(out.splitlines()) == audit.verify_state_dir(journals / "base").records
    assert "does not verify: chain broken at record" in err


FLIPS = (("base", "journal.sqlite3", 150), ("killed", "journal.sqlite3-wal", 100),
         ("base", ANCHOR_NAME, 25), ("killed", ANCHOR_NAME, 25))


def test_300_single_byte_flips_each_give_a_verdict_and_intact_means_unchanged(
        journals: Path, tmp_path: Path) -> None:
    rng = random.Random(7)
    outcomes: dict[str, Counter[str]] = {f"{s}/{n}": Counter() for s, n, _ in FLIPS}
    for source, name, count in FLIPS:
        _, exported, _ = cli(journal_command.main, ["export", "--jsonl", "--state-dir",
                                                    str(journals / source)])
        _, meters, _ = cli(meter_command.main, ["show", "--json", "--state-dir",
                                                str(journals / source)])
        for flip in range(count):
            state = copy_journal(journals, source, tmp_path / f"{source}-{flip}")
            size = (state / name).stat().st_size
            offset, mask = rng.randrange(size), rng.randrange(1, 256)
            attacks.flip_byte(state / name, offset, mask)
            code, _out, err = cli(journal_command.main, ["verify", "--state-dir", str(state)])
            where = f"{source}/{name} byte {offset} ^ {mask:#04x}"
            assert code in (0, 3), (where, err)
            outcome = outcomes[f"{source}/{name}"]
            if code == 3:
                assert err.strip(), where
                assert "Traceback" not in err, where
                try:  # the service refuses it, or starts on the intact copy of two
                    store = JournalStore(state, clock=time.monotonic)
                except JournalError:
                    outcome["refused at start"] += 1
                else:
                    assert store.verdict.degraded, where
                    outcome["started on the intact copy"] += 1
                    store.close()
            else:
                outcome["intact"] += 1
                assert cli(journal_command.main, ["export", "--jsonl", "--state-dir",
                                                  str(state)])[1] == exported, where
                assert cli(meter_command.main, ["show", "--json", "--state-dir",
                                                str(state)])[1] == meters, where
            shutil.rmtree(state)
    # Only the database file has bytes nothing reads (free space in its pages); a flip of the
    # write-ahead log is always refused, one of the anchor's two copies always survives.
    assert outcomes["killed/journal.sqlite3-wal"] == Counter({"refused at start": 100}), outcomes
    for anchor in (f"base/{ANCHOR_NAME}", f"killed/{ANCHOR_NAME}"):
        assert outcomes[anchor] == Counter({"started on the intact copy": 25}), outcomes
    database = outcomes["base/journal.sqlite3"]
    assert database["refused at start"] > database["intact"], outcomes


def _store(state: Path) -> JournalStore:
    return JournalStore(state, clock=time.monotonic)


def _commits(state: Path, n: int) -> list[int]:
    store = _store(state)
    seqs = [store.commit([Journal("card:dealt", {"n": i}), Journal("x:y", {"n": i})], {"n": i})
            for i in range(n)]
    store.close()
    return seqs


def _delete_tail(state: Path, after: int) -> None:
    db = sqlite3.connect(state / "journal.sqlite3")
    db.execute("DROP TRIGGER journal_no_delete")
    db.execute("DELETE FROM journal WHERE seq > ?", (after,))
    db.commit()
    db.close()


@contextlib.contextmanager
def cut_after(point: str) -> Iterator[None]:
    """A power cut right after the commit's `point`: what follows it never happens."""
    class Cut(BaseException):
        pass

    real_pending, real_done = Anchor.pending, Anchor.done

    def pending(self: Anchor, after) -> None:
        real_pending(self, after)
        if point == "pending":
            raise Cut

    def done(self: Anchor, after) -> None:
        if point == "commit":
            raise Cut
        real_done(self, after)

    Anchor.pending, Anchor.done = pending, done  # type: ignore[method-assign]
    try:
        yield
    except Cut:
        pass
    finally:
        Anchor.pending, Anchor.done = real_pending, real_done  # type: ignore[method-assign]


@pytest.mark.parametrize(("point", "records"), [("pending", 6), ("commit", 8)])
def test_a_power_cut_between_the_anchor_and_the_commit_is_no_false_alarm(
        tmp_path: Path, point: str, records: int) -> None:
    _commits(tmp_path / "s", 3)
    store = _store(tmp_path / "s")
    with cut_after(point):
        store.commit([Journal("card:dealt", {"n": 9}), Journal("x:y", {})], {"n": 9})
    store._db.close()  # the power is gone: nothing more reaches the files
    reopened = _store(tmp_path / "s")
    assert reopened.records == records
    assert reopened.verdict.ok
    reopened.commit([Journal("after:restart")], None)
    reopened.close()
    assert audit.verify_state_dir(tmp_path / "s").ok


def test_a_torn_anchor_slot_is_survived_at_start_and_reported_by_verify(tmp_path: Path) -> None:
    _commits(tmp_path / "s", 3)
    anchor = tmp_path / "s" / ANCHOR_NAME
    raw = bytearray(anchor.read_bytes())
    newest = 0 if b'"state":"done"' in raw[:SLOT_SIZE] else 1
    raw[newest * SLOT_SIZE + 40: newest * SLOT_SIZE + 90] = b"\0" * 50  # torn mid-write
    anchor.write_bytes(bytes(raw))
    report = audit.verify_state_dir(tmp_path / "s")
    assert not report.ok
    assert "one of its two copies is unreadable" in report.lines[-1]
    store = _store(tmp_path / "s")  # the service starts on the intact copy
    store.commit([Journal("after:restart")], None)  # and rewrites the torn one
    store.close()
    assert audit.verify_state_dir(tmp_path / "s").ok


@pytest.mark.parametrize("state_of_the_anchor", ["done", "pending", "newest torn"])
def test_removing_the_last_commit_is_refused_whatever_the_anchor_says(
        tmp_path: Path, state_of_the_anchor: str) -> None:
    seqs = _commits(tmp_path / "s", 4)
    if state_of_the_anchor == "pending":  # a cut after the announcement of a fifth commit
        store = _store(tmp_path / "s")
        with cut_after("pending"):
            store.commit([Journal("card:dealt", {"n": 9})], None)
        store._db.close()
    anchor = tmp_path / "s" / ANCHOR_NAME
    if state_of_the_anchor == "newest torn":
        raw = bytearray(anchor.read_bytes())
        newest = 0 if b'"gen":9' in raw[:SLOT_SIZE] else 1
        raw[newest * SLOT_SIZE + 5] ^= 0xFF
        anchor.write_bytes(bytes(raw))
    _delete_tail(tmp_path / "s", seqs[-2])  # the last stored commit removed
    with pytest.raises(JournalTrustError, match=f"journal holds {seqs[-2]} records"):
        _store(tmp_path / "s")


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_files_are_private_whatever_the_umask(tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        loose = tmp_path / "loose"
        loose.mkdir(mode=0o777)
        store = _store(loose)
        store.commit([Journal("card:hole_revealed", {"card": "AS"})], {"n": 1})
        assert _mode(loose) == 0o700
        for name in ("journal.sqlite3", "journal.sqlite3-wal", "journal.sqlite3-shm",
                     ANCHOR_NAME):
            assert _mode(loose / name) == 0o600, name
        assert _mode(tmp_path / f"loose{keys.KEY_SUFFIX}") == 0o400
        store.close()
    finally:
        os.umask(old)


def test_a_key_that_others_can_read_is_refused(tmp_path: Path) -> None:
    _commits(tmp_path / "s", 1)
    key = tmp_path / f"s{keys.KEY_SUFFIX}"
    key.chmod(0o644)
    with pytest.raises(JournalTrustError, match="mode 0644 lets others read it"):
        _store(tmp_path / "s")
    code, _out, err = cli(journal_command.main, ["verify", "--state-dir", str(tmp_path / "s")])
    assert code == journal_command.EXIT_CANNOT_CHECK
    assert f"journal key {key}: mode 0644" in err


def test_a_missing_key_never_makes_a_new_one_for_an_existing_journal(tmp_path: Path) -> None:
    _commits(tmp_path / "s", 1)
    (tmp_path / f"s{keys.KEY_SUFFIX}").unlink()
    with pytest.raises(JournalTrustError, match="missing"):
        _store(tmp_path / "s")
    assert not (tmp_path / f"s{keys.KEY_SUFFIX}").exists()


def test_a_journal_checked_under_another_key_is_refused(tmp_path: Path) -> None:
    _commits(tmp_path / "s", 2)
    other = keys.create_key(tmp_path / "other.key")
    report = audit.verify_state_dir(tmp_path / "s", other)
    assert not report.ok
    assert report.lines[-1].startswith("chain broken at record 1: ")
    assert report.lines[-1].endswith("(changed, forged, or written under another key)")


@contextlib.contextmanager
def small_filesystem(path: Path, size: str, *options: str) -> Iterator[Path]:
    path.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", ",".join((f"size={size}", *options)), "tmpfs",
                    str(path)], check=True)
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=True)


def test_a_full_disk_is_one_line_naming_the_journal_and_nothing_is_kept(tmp_path: Path) -> None:
    with small_filesystem(tmp_path / "disk", "160k") as disk:
        store = JournalStore(disk / "state", clock=time.monotonic,
                             key=keys.create_key(tmp_path / "table.key"))
        kept, message = 0, ""
        for n in range(10_000):
            try:
                kept = store.commit([Journal("card:dealt", {"n": n, "pad": "x" * 500})],
                                    {"n": n})
            except JournalError as exc:
                message = str(exc)
                break
        assert message == (f"journal {disk / 'state' / 'journal.sqlite3'}: write failed: "
                           "database or disk is full")
        store.close()
        reopened = JournalStore(disk / "state", clock=time.monotonic,
                                key=keys.load_key(tmp_path / "table.key"))
        assert reopened.records == kept  # the refused commit left nothing behind
        reopened.close()


def test_an_unwritable_state_directory_is_one_line_naming_it(tmp_path: Path) -> None:
    with small_filesystem(tmp_path / "ro", "64k", "ro") as read_only:
        with pytest.raises(JournalError) as refused:
            _store(read_only / "state")
        assert str(refused.value) == f"state directory {read_only / 'state'}: Read-only file system"


def open_files_in(folder: Path) -> list[str]:
    """The files under `folder` this process holds open."""
    held = []
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):
            target = os.readlink(f"/proc/self/fd/{fd}")
            if target.startswith(str(folder)):
                held.append(target)
    return held


def test_a_closed_journal_holds_no_file_open(tmp_path: Path) -> None:
    for opening in ("new", "existing"):
        store = JournalStore(tmp_path / "state", clock=time.monotonic)
        store.commit([Journal("card:dealt", {"opening": opening})], {"n": 1})
        store.close()
        assert open_files_in(tmp_path) == [], opening  # a long run opens many journals
