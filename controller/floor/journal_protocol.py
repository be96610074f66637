"""Journal shipping's topics and messages (docs/floor-protocol.md "Journals on the floor").

A table publishes its journal rows, exactly as journalled, with the chain head its anchor
holds; the floor store answers with what it holds of that table. Pure values: parsing never
raises anything but `FloorProtocolError`, whose text names what is wrong.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Any, Final

from controller.floor.protocol import FloorProtocolError, check_name
from controller.journal.anchor import Tip
from controller.journal.chain import Entry

JOURNAL_PREFIX: Final = "shoectl/journal"
PIT_PREFIX: Final = "shoectl/pit"
_HASH: Final = re.compile(r"[0-9a-f]{64}")


def table_state_topic(table: str) -> str:
    """A table's retained public state for the floor's pit view (`+` for every table)."""
    return f"{PIT_PREFIX}/{table}/state"


def records_topic(table: str) -> str:
    """A table's journal rows to the floor (`+` for every table)."""
    return f"{JOURNAL_PREFIX}/{table}/records"


def stored_topic(table: str) -> str:
    """The floor's retained account of what it holds of a table's journal."""
    return f"{JOURNAL_PREFIX}/{table}/stored"


def table_of_records_topic(topic: str) -> str:
    """The table named by a `shoectl/journal/TABLE/records` topic."""
    parts = topic.split("/")
    if len(parts) != 4 or "/".join(parts[:2]) != JOURNAL_PREFIX or parts[3] != "records":
        raise FloorProtocolError(f"topic {topic!r}: not a journal records topic")
    return check_name("table", parts[2])


@dataclass(frozen=True, slots=True)
class RecordsMessage:
    """A batch of a table's journal rows, in seq order, and its anchor's head.

    Attributes:
        table: The table's name.
        anchor: (records, head) as the table's anchor held them when the batch was read.
        records: Consecutive journal rows (may be empty: the anchor alone).
    """

    table: str
    anchor: Tip
    records: tuple[Entry, ...]

    def to_json(self) -> dict[str, Any]:
        """The message as the protocol's JSON object."""
        return {"type": "records", "table": self.table,
                "anchor": {"records": self.anchor.records, "head": self.anchor.head},
                "records": [e.as_json() for e in self.records]}


@dataclass(frozen=True, slots=True)
class StoredMessage:
    """What the floor holds of one table's journal (retained on `stored_topic`).

    Attributes:
        table: The table's name.
        records: How many records the floor holds (seq 1 to `records`, no gap).
        head: The hash of the last one (64 zeros for none).
        gap: The last batch began after `records + 1`: resend from `records + 1`.
        refused_seq: The first seq the floor refused (0: none); nothing after it is stored.
            A floor of this version never refuses (it keeps every version); older ones did.
        reason: Why it was refused.
        conflict_seq: The first seq the floor holds in two versions (0: none).
        conflict_reason: What differed.
    """

    table: str
    records: int
    head: str
    gap: bool = False
    refused_seq: int = 0
    reason: str = ""
    conflict_seq: int = 0
    conflict_reason: str = ""

    def to_json(self) -> dict[str, Any]:
        """The message as the protocol's JSON object."""
        data: dict[str, Any] = {"type": "stored", "table": self.table,
                                "records": self.records, "head": self.head}
        if self.gap:
            data["gap"] = True
        if self.refused_seq:
            data["refused"] = {"seq": self.refused_seq, "reason": self.reason}
        if self.conflict_seq:
            data["conflict"] = {"seq": self.conflict_seq, "reason": self.conflict_reason}
        return data


def _whole(data: dict[str, Any], key: str, minimum: int) -> int:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise FloorProtocolError(f"{key}: expected a whole number >= {minimum}, got {value!r}")
    return value


def _hash(data: dict[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not _HASH.fullmatch(value):
        raise FloorProtocolError(f"{key}: expected 64 lower-case hex digits, got {value!r}")
    return value


def _text(data: dict[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str):
        raise FloorProtocolError(f"{key}: expected text, got {value!r}")
    return value


def entry_of_json(data: object) -> Entry:
    """One journal row of a `records` message."""
    if not isinstance(data, dict):
        raise FloorProtocolError(f"record: expected a JSON object, got {type(data).__name__}")
    seq = _whole(data, "seq", 1)
    try:
        mono = data["mono"]
        if isinstance(mono, bool) or not isinstance(mono, int | float):
            raise TypeError
        payload = data["data"]
        if not isinstance(payload, dict):
            raise TypeError
    except (KeyError, TypeError):
        raise FloorProtocolError(f"record {seq}: mono must be a number and data an object"
                                 ) from None
    return Entry(seq, _text(data, "wall"), float(mono), _text(data, "kind"), payload,
                 _hash(data, "prev"), _hash(data, "hash"))


def parse_records(data: dict[str, Any], table: str) -> RecordsMessage:
    """The `records` message received on `table`'s topic."""
    if data.get("type") != "records":
        raise FloorProtocolError(f"type: expected \"records\", got {data.get('type')!r}")
    if data.get("table") != table:
        raise FloorProtocolError(f"table: {data.get('table')!r} on the topic of table {table}")
    anchor = data.get("anchor")
    if not isinstance(anchor, dict):
        raise FloorProtocolError("anchor: expected {\"records\": N, \"head\": HASH}")
    rows = data.get("records")
    if not isinstance(rows, list):
        raise FloorProtocolError("records: expected a list of journal rows")
    found = tuple(entry_of_json(row) for row in rows)
    for before, after in itertools.pairwise(found):
        if after.seq != before.seq + 1:
            raise FloorProtocolError(f"records: seq {after.seq} follows {before.seq}")
    return RecordsMessage(table, Tip(_whole(anchor, "records", 0), _hash(anchor, "head")),
                          found)


def parse_stored(data: dict[str, Any]) -> StoredMessage:
    """The floor's `stored` message."""
    if data.get("type") != "stored":
        raise FloorProtocolError(f"type: expected \"stored\", got {data.get('type')!r}")
    refused = data.get("refused") or {}
    conflict = data.get("conflict") or {}
    if not isinstance(refused, dict) or not isinstance(conflict, dict):
        raise FloorProtocolError("refused, conflict: expected {\"seq\": N, \"reason\": TEXT}")
    return StoredMessage(check_name("table", _text(data, "table")), _whole(data, "records", 0),
                         _hash(data, "head"), data.get("gap") is True,
                         _whole(refused, "seq", 1) if refused else 0,
                         str(refused.get("reason", "")),
                         _whole(conflict, "seq", 1) if conflict else 0,
                         str(conflict.get("reason", "")))
