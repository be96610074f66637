"""What the floor's pit view shows: every table, every linked meter, every journal's state.

Fed by the floor process from the broker (each table's retained public state, its status
topics' last wills, each group's retained meter and controller status) and from the store
(what it holds of each table's journal; the hits, read from the shipped `floor:confirmed`
records whose answer paid an amount; one from a row at or after a conflict in the table's
copy is marked `disputed`) and each group's controller's alarms (tables refused). Public: a
table's state is what it shows anyway (no card of a round in play); of the journals only
counts, heads and verdicts, never rows; and each table's figures of the UTC day of its
newest row (`controller.analysis.shift`: rounds, rounds per hour, seconds per round, shuffle
and fault time, hold, rounds by hour), read from its stored rows.
Thread-safe: paho's thread and the writer update it, the web server reads `snapshot`.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from controller.analysis.shift import DayFigures
from controller.floor.floor_store import TableCopy
from controller.floor.journal_protocol import JOURNAL_PREFIX, PIT_PREFIX, table_state_topic
from controller.floor.protocol import PREFIX
from controller.journal.chain import Entry

HITS_SHOWN: Final = 25


VIEW_TOPICS: Final = (table_state_topic("+"), f"{JOURNAL_PREFIX}/+/status", f"{PREFIX}/+/meter",
                      f"{PREFIX}/+/controller/status", f"{PREFIX}/+/table/+/status",
                      f"{PREFIX}/+/alarms")
"""What the floor process subscribes to for the view, besides the journal rows."""


@dataclass
class _Table:
    state: dict[str, Any] = field(default_factory=dict)
    shipping: str = "unknown"
    group: str = ""
    link: str = "unknown"
    copy: TableCopy | None = None
    today: DayFigures = field(default_factory=DayFigures)


@dataclass
class _Group:
    meter: dict[str, Any] = field(default_factory=dict)
    controller: str = "unknown"
    alarms: list[dict[str, Any]] = field(default_factory=list)
    hits: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=HITS_SHOWN))


class FloorView:
    """The pit view's model of the floor."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tables: dict[str, _Table] = {}
        self._groups: dict[str, _Group] = {}

    def _table(self, name: str) -> _Table:
        return self._tables.setdefault(name, _Table())

    def heard(self, topic: str, data: dict[str, Any]) -> None:
        """A retained state, status or meter message arrived (others are ignored)."""
        parts = topic.split("/")
        with self._lock:
            if topic.startswith(PIT_PREFIX + "/") and len(parts) == 4:
                self._table(parts[2]).state = data
            elif topic.startswith(JOURNAL_PREFIX + "/") and parts[-1] == "status":
                self._table(parts[2]).shipping = str(data.get("state", "unknown"))
            elif topic.startswith(PREFIX + "/") and len(parts) >= 4:
                self._group_message(parts[2], parts[3:], data)

    def _group_message(self, group: str, rest: list[str], data: dict[str, Any]) -> None:
        if rest == ["meter"]:
            self._groups.setdefault(group, _Group()).meter = data
        elif rest == ["alarms"] and isinstance(data.get("alarms"), list):
            self._groups.setdefault(group, _Group()).alarms = [
                a for a in data["alarms"] if isinstance(a, dict)]
        elif rest == ["controller", "status"]:
            self._groups.setdefault(group, _Group()).controller = str(data.get("state"))
        elif len(rest) == 3 and rest[0] == "table" and rest[2] == "status":
            table = self._table(rest[1])
            table.group, table.link = group, str(data.get("state", "unknown"))

    def stored(self, copy: TableCopy, new: Sequence[Entry] = ()) -> None:
        """The floor now holds `copy` of a table; `new` are the rows this batch added."""
        with self._lock:
            table = self._table(copy.table)
            table.copy = copy
            table.today.read(new)
            for entry in new:
                hit = _hit_of(copy.table, entry)
                if hit is not None:
                    self._groups.setdefault(table.group or "?", _Group()).hits.appendleft(hit)

    def read_stored(self, table: str, entries: Iterable[Entry]) -> Iterator[Entry]:
        """At start: the rows the store already holds, for today's figures (each passed on)."""
        for entry in entries:
            with self._lock:
                self._table(table).today.read((entry,))
            yield entry

    def snapshot(self) -> dict[str, Any]:
        """The view as JSON (docs/floor-protocol.md "The floor's pit view")."""
        with self._lock:
            return {"tables": [_table_json(name, t) for name, t in sorted(self._tables.items())],
                    "groups": [{"group": name, "controller": g.controller,
                                "meter": g.meter.get("amount"),
                                "pending": g.meter.get("pending") or [],
                                "hits_count": g.meter.get("hits"),
                                "alarms": list(g.alarms),
                                "hits": [self._disputed(h) for h in g.hits]}
                               for name, g in sorted(self._groups.items())]}

    def _disputed(self, hit: dict[str, Any]) -> dict[str, Any]:
        """A hit from a row at or after its table's first conflict is marked disputed."""
        table = self._tables.get(str(hit["table"]))
        conflict = table.copy.conflict_seq if table and table.copy else 0
        return hit | {"disputed": bool(conflict) and int(hit["seq"]) >= conflict}


def _hit_of(table: str, entry: Entry) -> dict[str, Any] | None:
    """A paid hit, from the table's journalled confirmation of it (None: not one)."""
    answer = entry.data.get("answer") if entry.kind == "floor:confirmed" else None
    if not isinstance(answer, dict) or not isinstance(answer.get("paid"), int):
        return None
    return {"table": table, "paid": answer["paid"], "wall": entry.wall, "seq": entry.seq}


def _journal_json(copy: TableCopy | None) -> dict[str, Any]:
    if copy is None:
        return {"records": 0, "head": "", "announced": 0, "agreement": "nothing shipped"}
    if copy.conflict_seq:
        agreement = f"conflict at seq {copy.conflict_seq}: two versions kept"
    elif copy.refused_seq:
        agreement = f"disagrees at seq {copy.refused_seq}"
    elif copy.anchor.records > copy.tip.records:
        agreement = f"behind: {copy.anchor.records - copy.tip.records} records to come"
    else:
        agreement = "agrees"
    return {"records": copy.tip.records, "head": copy.tip.head[:16],
            "announced": copy.anchor.records, "agreement": agreement,
            "refused": copy.refused_reason, "conflict": copy.conflict_reason}


def _table_json(name: str, table: _Table) -> dict[str, Any]:
    state = table.state
    return {"table": name, "game": state.get("game"), "phase": state.get("phase"),
            "round": state.get("round"), "faults": state.get("faults", []),
            "group": table.group, "link": table.link,
            # a linked table ships over its link's connection, whose last will is the link's
            "shipping": "offline" if table.link == "offline" else table.shipping,
            "journal": _journal_json(table.copy), "today": table.today.figures()}

