"""The attacks on the audit journal that a writer without the table's key can make.

Each attack changes the files of a real journal (made by `shoectl simulate`, or left behind
by a killed process) the way the customer's report did it: with the sqlite3 module, the
triggers dropped, the chain recomputed by the old rule (SHA-256 of the previous hash and
the record) or under a guessed key, the critical state rewritten to match. `ATTACKS` names
them; `bench/journal.py` reruns them with their figures and the tests assert each is caught.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import shutil
import signal
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

from controller.journal.chain import canonical

REPO = Path(__file__).resolve().parents[2]
DB = "journal.sqlite3"


def simulated_journal(state_dir: Path, rounds: int = 6, seed: int = 5) -> None:
    """A real table's journal: `shoectl simulate --in-process` deals `rounds` rounds."""
    done = subprocess.run(
        [sys.executable, "-m", "controller", "simulate", "--in-process", "--rounds", str(rounds),
         "--seed", str(seed), "--state-dir", str(state_dir), "--json"],
        cwd=REPO, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-2000:]


_KILLED_WRITER = textwrap.dedent("""
    import os, signal, sys, time
    from pathlib import Path
    from controller.journal.store import JournalStore
    from controller.procedure.core.effects import Journal
    store = JournalStore(Path(sys.argv[1]), clock=time.monotonic)
    for n in range(int(sys.argv[2])):
        store.commit([Journal("card:dealt", {"card": "AS", "n": n})], {"n": n})
    os.kill(os.getpid(), signal.SIGKILL)
""")


def killed_journal(state_dir: Path, commits: int = 200) -> None:
    """A journal whose writer was SIGKILLed: its last commits are in the WAL only."""
    done = subprocess.run([sys.executable, "-c", _KILLED_WRITER, str(state_dir), str(commits)],
                          cwd=REPO, capture_output=True, text=True, check=False)
    assert done.returncode == -signal.SIGKILL, done.stderr[-2000:]
    assert (state_dir / (DB + "-wal")).stat().st_size > 0


def _sha256_chain(_key: bytes, prev: str, record: dict[str, object]) -> str:
    """The old, unkeyed rule: what anyone can compute."""
    return hashlib.sha256((prev + canonical(record)).encode()).hexdigest()


def _guessed_key_chain(key: bytes, prev: str, record: dict[str, object]) -> str:
    import hmac

    return hmac.new(key, (prev + canonical(record)).encode(), hashlib.sha256).hexdigest()


Chain = Callable[[bytes, str, dict[str, object]], str]


def _open(state_dir: Path) -> sqlite3.Connection:
    db = sqlite3.connect(state_dir / DB, isolation_level=None)
    db.execute("DROP TRIGGER IF EXISTS journal_no_update")
    db.execute("DROP TRIGGER IF EXISTS journal_no_delete")
    return db


def _rechain(db: sqlite3.Connection, chain: Chain, key: bytes, start: int = 1) -> str:
    """Recompute every hash from record `start` on; return the new head."""
    rows = db.execute("SELECT seq, wall, mono, kind, data, prev FROM journal ORDER BY seq")
    prev = "0" * 64
    head = prev
    for seq, wall, mono, kind, data, old_prev in rows.fetchall():
        if seq < start:
            prev = db.execute("SELECT hash FROM journal WHERE seq = ?", (seq,)).fetchone()[0]
            continue
        record = {"seq": seq, "wall": wall, "mono": mono, "kind": kind, "data": json.loads(data)}
        head = chain(key, prev if seq > 1 else old_prev, record)
        db.execute("UPDATE journal SET prev = ?, hash = ? WHERE seq = ?", (prev, head, seq))
        prev = head
    return head


def _rewrite_critical(db: sqlite3.Connection, change: Callable[[dict], None], key: bytes) -> None:
    body = db.execute("SELECT body FROM critical WHERE copy = 0").fetchone()[0]
    state = json.loads(body)
    change(state)
    body = canonical(state)
    last = db.execute("SELECT max(seq), hash FROM journal").fetchone()
    import hmac

    checksum = hmac.new(key, f"critical|{last[0]}|{last[1]}|{body}".encode(),
                        hashlib.sha256).hexdigest()
    db.execute("UPDATE critical SET seq = ?, body = ?, checksum = ?", (last[0], body, checksum))


def truncate_to_zero(state_dir: Path, _other: Path) -> None:
    """The database file truncated to 0 bytes."""
    (state_dir / DB).write_bytes(b"")


def delete_last_three(state_dir: Path, _other: Path) -> None:
    """The last 3 records deleted (the triggers dropped first)."""
    db = _open(state_dir)
    db.execute("DELETE FROM journal WHERE seq > (SELECT max(seq) - 3 FROM journal)")
    db.close()


def append_forged_row(state_dir: Path, _other: Path) -> None:
    """A forged record appended, its hash recomputed by the old SHA-256 rule."""
    db = _open(state_dir)
    seq, head = db.execute("SELECT seq, hash FROM journal ORDER BY seq DESC LIMIT 1").fetchone()
    record = {"seq": seq + 1, "wall": "2026-01-01T00:00:00+00:00", "mono": 1.0,
              "kind": "card:dealt", "data": {"card": "AS", "to": "seat1"}}
    digest = _sha256_chain(b"", head, record)
    db.execute("INSERT INTO journal VALUES (?, ?, ?, ?, ?, ?, ?)",
               (seq + 1, record["wall"], 1.0, "card:dealt", canonical(record["data"]), head,
                digest))
    db.close()


def rewrite_a_card(state_dir: Path, _other: Path) -> None:
    """A dealt card rewritten and the whole chain recomputed under a guessed key."""
    db = _open(state_dir)
    seq, data = db.execute("SELECT seq, data FROM journal WHERE kind = 'card:dealt' "
                           "ORDER BY seq LIMIT 1").fetchone()
    card = json.loads(data)
    card["card"] = "KH" if card.get("card") != "KH" else "QH"
    db.execute("UPDATE journal SET data = ? WHERE seq = ?", (canonical(card), seq))
    key = secrets.token_bytes(32)
    _rechain(db, _guessed_key_chain, key, start=seq)
    _rewrite_critical(db, lambda _state: None, key)
    db.close()


def rewrite_a_wager(state_dir: Path, _other: Path) -> None:
    """A wager's amount rewritten and the chain recomputed by the old SHA-256 rule."""
    db = _open(state_dir)
    seq, data = db.execute("SELECT seq, data FROM journal WHERE kind = 'bet:wager' "
                           "ORDER BY seq LIMIT 1").fetchone()
    wager = json.loads(data)
    wager["cents"] = 100_000_00
    db.execute("UPDATE journal SET data = ? WHERE seq = ?", (canonical(wager), seq))
    _rechain(db, _sha256_chain, b"", start=seq)
    db.close()


def forge_meter_correction(state_dir: Path, _other: Path) -> None:
    """A forged `meter:correction` to 60,250.00 appended and the critical state rewritten."""
    db = _open(state_dir)
    seq, head = db.execute("SELECT seq, hash FROM journal ORDER BY seq DESC LIMIT 1").fetchone()
    body = json.loads(db.execute("SELECT body FROM critical WHERE copy = 0").fetchone()[0])
    old = body["meters"]["amount"]
    data = {"who": "pit:boss", "old": old, "new": 6_025_000, "reason": "correction"}
    record = {"seq": seq + 1, "wall": "2026-01-01T00:00:00+00:00", "mono": 1.0,
              "kind": "meter:correction", "data": data}
    key = secrets.token_bytes(32)
    digest = _guessed_key_chain(key, head, record)
    db.execute("INSERT INTO journal VALUES (?, ?, ?, ?, ?, ?, ?)",
               (seq + 1, record["wall"], 1.0, "meter:correction", canonical(data), head, digest))
    _rewrite_critical(db, lambda state: state["meters"].__setitem__("amount", 6_025_000), key)
    db.close()


def rewrite_critical_state(state_dir: Path, _other: Path) -> None:
    """The stored meters raised by 500.00 in both copies, the old SHA-256 checksum redone."""
    db = _open(state_dir)
    body = json.loads(db.execute("SELECT body FROM critical WHERE copy = 0").fetchone()[0])
    body["meters"]["amount"] += 50_000
    text = canonical(body)
    db.execute("UPDATE critical SET body = ?, checksum = ?",
               (text, hashlib.sha256(text.encode()).hexdigest()))
    db.close()


def replace_with_another_run(state_dir: Path, other: Path) -> None:
    """The database replaced by another run's valid journal (another table's key)."""
    shutil.copyfile(other / DB, state_dir / DB)
    for suffix in ("-wal", "-shm"):
        (state_dir / (DB + suffix)).unlink(missing_ok=True)


def replace_files_with_another_run(state_dir: Path, other: Path) -> None:
    """The database and its anchor both replaced by another run's valid pair."""
    replace_with_another_run(state_dir, other)
    shutil.copyfile(other / "journal.anchor", state_dir / "journal.anchor")


def delete_wal_after_kill(state_dir: Path, _other: Path) -> None:
    """The `-wal` file deleted after the writer was killed (its commits lost with it)."""
    (state_dir / (DB + "-wal")).unlink()
    (state_dir / (DB + "-shm")).unlink(missing_ok=True)


ATTACKS: dict[str, Callable[[Path, Path], None]] = {
    "truncate to 0 bytes": truncate_to_zero,
    "delete the last 3 records": delete_last_three,
    "append a forged row (SHA-256 recomputed)": append_forged_row,
    "rewrite a card, rechain under a guessed key": rewrite_a_card,
    "rewrite a wager, rechain by the old rule": rewrite_a_wager,
    "forge a meter:correction to 60,250.00 + critical state": forge_meter_correction,
    "rewrite the stored meters alone": rewrite_critical_state,
    "replace the database by another run's": replace_with_another_run,
    "replace database and anchor by another run's": replace_files_with_another_run,
    "delete the -wal after a kill": delete_wal_after_kill,
}
"""Each attack: (state directory of the journal attacked, state directory of another run)."""

NEEDS_KILLED = frozenset({"delete the -wal after a kill"})

VERDICTS: dict[str, str] = {
    "truncate to 0 bytes": "journal holds 0 records but its anchor records",
    "delete the last 3 records": "but its anchor records",
    "append a forged row (SHA-256 recomputed)": "content does not match its keyed hash",
    "rewrite a card, rechain under a guessed key": "content does not match its keyed hash",
    "rewrite a wager, rechain by the old rule": "content does not match its keyed hash",
    "forge a meter:correction to 60,250.00 + critical state":
        "content does not match its keyed hash",
    "rewrite the stored meters alone": "critical state corrupt in every copy",
    "replace the database by another run's": "chain broken at record 1:",
    "replace database and anchor by another run's": "chain broken at record 1:",
    "delete the -wal after a kill": "journal holds 0 records but its anchor records 200",
}
"""What the verdict must say for each attack: the layer that catches it."""


def file_digests(state_dir: Path) -> dict[str, str]:
    """SHA-256 of every file in `state_dir` (to show a check changed none of them)."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(state_dir.iterdir())
            if p.is_file()}


def flip_byte(path: Path, offset: int, mask: int) -> None:
    """XOR one byte of `path` with `mask` (1-255), in place."""
    fd = os.open(path, os.O_RDWR)
    try:
        old = os.pread(fd, 1, offset)
        os.pwrite(fd, bytes([old[0] ^ mask]), offset)
    finally:
        os.close(fd)
