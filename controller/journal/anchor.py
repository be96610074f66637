"""The anchor: the journal's record count and head hash, in a second file beside it.

`journal.anchor` holds two slots of `SLOT_SIZE` bytes. Each slot is one line of canonical
JSON padded with spaces to `SLOT_SIZE - 1` bytes and a newline:

    {"after":[N,"<head>"],"before":[M,"<head>"],"gen":G,"key":"<key id>",
     "mac":"<HMAC-SHA256>","state":"pending"|"done","v":1}

`gen` counts the writes (slot `gen % 2` holds generation `gen`); `before`/`after` are the
journal's (records, head hash) around one commit; `mac` is the journal key's HMAC of the
other fields, so nobody without the key can write a slot that verifies.

Every commit writes its slot twice: `pending` (before -> after) with fdatasync ahead of the
database commit, then `done` (after, after) once the commit is on storage. `done` is not
flushed on its own (the next commit's `pending` flush, or closing, carries it): a power cut
that loses it leaves the `pending` slot, whose `after` the committed journal is, so the
commit's wait for storage is one anchor flush and the database's, not two and the database's.
On opening, with T the journal's actual (records, head), the newest readable slot must say:
`done` -> T is its `after`; `pending` -> T is its `before` (a power cut before the commit
reached storage: nothing of it was acted on) or its `after` (a cut after it). When only one
slot is readable, the other was being written at a cut and T must be the readable slot's
`after`. So a deleted tail, a truncated or replaced file and a lost WAL disagree with the
anchor, and a power cut between the two files never does.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from controller.journal.errors import JournalError
from controller.journal.keys import JournalKey
from controller.journal.statedir import sync_directory

_LOG = logging.getLogger(__name__)
ANCHOR_NAME: Final = "journal.anchor"
SLOT_SIZE: Final = 512
_VERSION: Final = 1


@dataclass(frozen=True, slots=True)
class Tip:
    """The end of the chain: how many records, and the last one's hash."""

    records: int
    head: str

    def short(self) -> str:
        """`N records, head <16 hex>` for verdict lines."""
        return f"{self.records} records, head {self.head[:16]}"


@dataclass(frozen=True, slots=True)
class AnchorSlot:
    """One readable slot of the anchor."""

    gen: int
    key_id: str
    before: Tip
    after: Tip
    done: bool

    def payload(self) -> dict[str, Any]:
        """The fields the MAC covers."""
        return {"v": _VERSION, "gen": self.gen, "key": self.key_id,
                "before": [self.before.records, self.before.head],
                "after": [self.after.records, self.after.head],
                "state": "done" if self.done else "pending"}

    def encode(self, key: JournalKey) -> bytes:
        """The slot's bytes under `key`."""
        body = self.payload()
        body["mac"] = key.mac("anchor|" + _canonical(body))
        text = _canonical(body)
        if len(text) >= SLOT_SIZE:
            raise JournalError(f"anchor slot too long ({len(text)} bytes)")
        return (text.ljust(SLOT_SIZE - 1) + "\n").encode()


def decode_slot(raw: bytes, key: JournalKey) -> AnchorSlot | None:
    """The slot in `raw`; None when it is not one written under `key`.

    Such a slot is torn, damaged, forged, or another key's.
    """
    if len(raw) != SLOT_SIZE or not raw.endswith(b"\n"):
        return None
    try:
        body = json.loads(raw[:-1].decode("ascii").rstrip(" "))
        mac = body.pop("mac")
        if not isinstance(mac, str) or key.mac("anchor|" + _canonical(body)) != mac:
            return None
        slot = AnchorSlot(body["gen"], body["key"], Tip(*body["before"]), Tip(*body["after"]),
                          body["state"] == "done")
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
    # Byte for byte what `encode` writes: no other spelling of the same fields is a slot.
    return slot if slot.payload() == body and slot.encode(key) == raw else None


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def anchor_problem(slots: list[AnchorSlot | None], tail: Tip, key: JournalKey) -> tuple[str, str]:
    """Judge the journal's actual end `tail` against the anchor's slots.

    Returns:
        (problem, note): the problem is "" when the journal agrees with its anchor; the note
        says how (in step, or which power cut it recovered from).
    """
    readable = [s for s in slots if s is not None]
    if not readable:
        return "anchor damaged: no copy of it is readable under this table's key", ""
    if any(s.key_id != key.key_id for s in readable):
        return "anchor written under another key (another table's or run's files)", ""
    newest = max(readable, key=lambda s: s.gen)
    if len(readable) == 1:
        return _judge_alone(newest, tail)
    older = min(readable, key=lambda s: s.gen)
    if older.gen + 1 != newest.gen:
        return "anchor copies do not follow each other (one was replaced)", ""
    if tail == newest.after:
        return "", f"anchor in step: {tail.short()}"
    if not newest.done and tail == newest.before:
        return "", (f"anchor one commit ahead: records {tail.records + 1}-"
                    f"{newest.after.records} never reached storage (a power cut during the "
                    f"commit; nothing of them was acted on); journal {tail.short()}")
    return _mismatch(newest.after, tail), ""


def _judge_alone(slot: AnchorSlot, tail: Tip) -> tuple[str, str]:
    if tail == slot.after:
        return "", f"anchor in step: {tail.short()} (by its one readable copy)"
    return _mismatch(slot.after, tail), ""


def _mismatch(anchored: Tip, tail: Tip) -> str:
    if tail.records < anchored.records:
        return (f"journal holds {tail.records} records but its anchor records "
                f"{anchored.records}: records deleted at the tail, the file truncated or "
                "replaced, or its WAL lost")
    if tail.records > anchored.records:
        return (f"journal holds {tail.records} records but its anchor records only "
                f"{anchored.records}: records added behind the anchor, or the file replaced")
    return (f"journal's last record {tail.records} has head {tail.head[:16]} but its anchor "
            f"records {anchored.head[:16]}: the file was replaced or its tail rewritten")


class Anchor:
    """The anchor file of a journal opened for writing.

    Args:
        path: `journal.anchor` in the state directory.
        key: The journal key.
        durable: fdatasync every slot (always, except throwaway journals).
    """

    def __init__(self, path: Path, key: JournalKey, *, durable: bool = True) -> None:
        self.path = path
        self._key = key
        self._durable = durable
        self._fd = -1
        self._gen = 0
        self._tip = Tip(0, "")

    @staticmethod
    def read(path: Path, key: JournalKey) -> list[AnchorSlot | None] | None:
        """Both slots of the anchor at `path` (None for an unreadable one); None if no file.

        Raises:
            JournalError: the file exists but cannot be read.
        """
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise JournalError(f"anchor {path}: cannot read: {exc.strerror}") from None
        return [decode_slot(raw[i * SLOT_SIZE:(i + 1) * SLOT_SIZE], key) for i in (0, 1)]

    def create(self, genesis: Tip) -> None:
        """Make the anchor of a new, empty journal (both slots `done` at `genesis`)."""
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
            try:  # `open` opens it again for writing, once the journal has been checked
                os.fchmod(fd, 0o600)
                for gen in (0, 1):
                    slot = AnchorSlot(gen, self._key.key_id, genesis, genesis, True)
                    os.pwrite(fd, slot.encode(self._key), gen * SLOT_SIZE)
                os.fsync(fd)
            finally:
                os.close(fd)
            sync_directory(self.path.parent)
        except OSError as exc:
            raise JournalError(f"anchor {self.path}: cannot create: {exc.strerror}") from None
        self._gen, self._tip = 1, genesis

    def open(self, slots: list[AnchorSlot | None], tail: Tip) -> None:
        """Open the existing anchor for writing, continuing from the checked `tail`."""
        try:
            self._fd = os.open(self.path, os.O_RDWR)
            os.fchmod(self._fd, 0o600)
        except OSError as exc:
            raise JournalError(f"anchor {self.path}: cannot open: {exc.strerror}") from None
        self._gen = max(s.gen for s in slots if s is not None)
        self._tip = tail

    def pending(self, after: Tip) -> None:
        """Announce a commit that will take the journal from its tip to `after`."""
        self._write(AnchorSlot(self._gen + 1, self._key.key_id, self._tip, after, False))

    def done(self, after: Tip) -> None:
        """Record that the announced commit is on storage (not flushed: see the module)."""
        self._write(AnchorSlot(self._gen + 1, self._key.key_id, after, after, True),
                    flush=False)
        self._tip = after

    def failed(self) -> None:
        """The announced commit was refused: record the unchanged tip as `done` again.

        Raises:
            JournalError: the slot cannot be written (the pending slot still allows the tip).
        """
        self._write(AnchorSlot(self._gen + 1, self._key.key_id, self._tip, self._tip, True))

    def _write(self, slot: AnchorSlot, *, flush: bool = True) -> None:
        try:
            os.pwrite(self._fd, slot.encode(self._key), (slot.gen % 2) * SLOT_SIZE)
            if self._durable and flush:
                os.fdatasync(self._fd)
        except OSError as exc:
            raise JournalError(f"anchor {self.path}: write failed: {exc.strerror}") from None
        self._gen = slot.gen

    def close(self) -> None:
        """Flush the last `done` slot and close the file (idempotent)."""
        if self._fd >= 0:
            if self._durable:
                try:
                    os.fdatasync(self._fd)
                except OSError as exc:  # the pending slot still allows the journal's tip
                    _LOG.warning("anchor %s: final flush failed: %s", self.path, exc.strerror)
            os.close(self._fd)
            self._fd = -1
