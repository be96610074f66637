"""The linked meter's books at the progressive controller: what each table message does.

Pure: `receive` takes the books and one message and returns the new books, the journal
records that prove the change (the table's meter records, with `table`, `boot` and `seq`
added) and the answer for the table. The caller commits records and books in one
transaction, then answers: so a message is applied exactly once (docs/floor-protocol.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from controller.floor.protocol import FloorProtocolError, MessageId, UpMessage, parse_up
from controller.procedure import meter_books
from controller.procedure.effects import Journal

KIND_PAID = "floor:paid"
KIND_REJECTED = "floor:rejected"
FLOOR_KINDS = (*meter_books.METER_KINDS, KIND_PAID, KIND_REJECTED)
"""Every record kind the controller's journal holds."""


def stream_of(address: MessageId) -> str:
    """The key of a (table, boot) stream in the books."""
    return f"{address.table}/{address.boot}"


@dataclass(frozen=True, slots=True)
class Award:
    """A hit's award, kept until the table's paid notice (a 100% one shows as PENDING)."""

    table: str
    boot: str
    seq: int
    kind: str
    amount: int

    @property
    def key(self) -> str:
        """The hit's (table, boot, seq) as one text."""
        return f"{self.table}/{self.boot}/{self.seq}"


@dataclass(frozen=True, slots=True)
class FloorBook:
    """The linked meter and what the controller has applied.

    Attributes:
        meters: The group's meters (the table's books: amount, hits, progressive_in...).
        applied: The last applied seq of each `table/boot` stream.
        awards: Hits whose paid notice has not arrived, in the order received.
        version: Rises with every change of what signs show.
    """

    meters: meter_books.Meters
    applied: dict[str, int] = field(default_factory=dict)
    awards: tuple[Award, ...] = ()
    version: int = 0

    def to_json(self) -> dict[str, Any]:
        """The critical state: the meters as a table keeps them, and the floor's books."""
        return {"meters": self.meters.to_json(),
                "floor": {"applied": dict(self.applied), "version": self.version,
                          "awards": [_award_json(a) for a in self.awards]}}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FloorBook:
        """Rebuild the books from `to_json` output."""
        floor = data["floor"]
        return cls(meter_books.Meters.from_json(data["meters"]),
                   {str(k): int(v) for k, v in floor["applied"].items()},
                   tuple(Award(**a) for a in floor["awards"]), int(floor["version"]))

    def pending(self) -> list[dict[str, Any]]:
        """The 100% hits not yet confirmed paid, as the meter topic shows them."""
        return [{"table": a.table, "seq": a.seq, "amount": a.amount}
                for a in self.awards if a.kind == meter_books.HitKind.FULL.value]

    def meter_message(self, group: str) -> dict[str, Any]:
        """The retained `meter` topic's payload."""
        return {"group": group, "amount": self.meters.amount, "version": self.version,
                "hits": self.meters.hits, "progressive_in": self.meters.progressive_in,
                "pending": self.pending()}


def _award_json(award: Award) -> dict[str, Any]:
    return {"table": award.table, "boot": award.boot, "seq": award.seq, "kind": award.kind,
            "amount": award.amount}


@dataclass(frozen=True, slots=True)
class BookChange:
    """What one message did: the new books, the records to commit, the answer to send."""

    book: FloorBook
    records: tuple[Journal, ...]
    answer: dict[str, Any]


def open_book(params: meter_books.MeterParams) -> tuple[FloorBook, Journal]:
    """A new linked meter at its reset amount, with its `meter:init` record."""
    meters, record = meter_books.start(params)
    return FloorBook(meters), record


def receive(book: FloorBook, data: dict[str, Any], address: MessageId) -> BookChange:
    """Apply one table message whose address is already checked (see module docstring)."""
    stream = stream_of(address)
    last = book.applied.get(stream, 0)
    head = {"boot": address.boot, "seq": address.seq}
    if address.seq <= last:
        return BookChange(book, (), _repeat(book, address, head))
    if address.seq > last + 1:
        return BookChange(book, (), head | {"type": "gap", "expected": last + 1})
    book = replace(book, applied={**book.applied, stream: address.seq})
    try:
        message = parse_up(data, address)
        return _apply(book, message, head)
    except (FloorProtocolError, meter_books.MeterError) as exc:
        record = Journal(KIND_REJECTED, {**_where(address), "reason": str(exc)})
        return BookChange(book, (record,), head | {"type": "reject", "reason": str(exc)})


def _where(address: MessageId) -> dict[str, Any]:
    return {"table": address.table, "boot": address.boot, "seq": address.seq}


def _repeat(book: FloorBook, address: MessageId, head: dict[str, Any]) -> dict[str, Any]:
    answer = head | {"type": "ack", "repeat": True, "meter": book.meters.amount}
    for award in book.awards:
        if (award.table, award.boot, award.seq) == (address.table, address.boot, address.seq):
            answer["paid"] = award.amount
    return answer


def _apply(book: FloorBook, message: UpMessage, head: dict[str, Any]) -> BookChange:
    where = _where(message.address)
    if message.kind == "contribution":
        meters, records = meter_books.contribute(book.meters, message.round, [message.seat])
        record = Journal(records[0].kind, {**records[0].data, **where})
        book = replace(book, meters=meters, version=book.version + 1)
        return BookChange(book, (record,), _ack(book, head))
    if message.kind == "hit":
        return _hit(book, message, head)
    return _paid(book, message, head)


def _ack(book: FloorBook, head: dict[str, Any]) -> dict[str, Any]:
    return head | {"type": "ack", "repeat": False, "meter": book.meters.amount}


def _hit(book: FloorBook, message: UpMessage, head: dict[str, Any]) -> BookChange:
    kind = meter_books.HitKind(message.hit_kind)
    meters, record, paid = meter_books.hit(book.meters, message.round, message.seat, kind)
    address = message.address
    award = Award(address.table, address.boot, address.seq, kind.value, paid)
    book = replace(book, meters=meters, awards=(*book.awards, award), version=book.version + 1)
    record = Journal(record.kind, {**record.data, **_where(address)})
    return BookChange(book, (record,), _ack(book, head) | {"paid": paid})


def _paid(book: FloorBook, message: UpMessage, head: dict[str, Any]) -> BookChange:
    address = message.address
    key = f"{address.table}/{message.hit_boot}/{message.hit}"
    award = next((a for a in book.awards if a.key == key), None)
    if award is None:
        raise FloorProtocolError(f"hit: no unconfirmed hit {message.hit} of boot "
                                 f"{message.hit_boot}")
    book = replace(book, awards=tuple(a for a in book.awards if a is not award),
                   version=book.version + 1)
    record = Journal(KIND_PAID, {**_where(address), "hit": message.hit,
                                 "hit_boot": message.hit_boot, "amount": award.amount})
    return BookChange(book, (record,), _ack(book, head))
