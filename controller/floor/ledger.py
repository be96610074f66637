"""The linked meter's books at the progressive controller: what each table message does.

Pure: `receive` takes the books and one message and returns the new books, the journal
records that prove the change (the table's meter records, with `table`, `boot` and `seq`
added) and the answer for the table. The caller commits records and books in one
transaction, then answers: so a message is applied exactly once (docs/floor-protocol.md).

A table's void reverses what the books hold of that round's contributions (each table's
newest `ROUNDS_KEPT` rounds are kept), and a contribution of a round already void is
rejected, whichever of the table's boots sent it and in whatever order they arrive: a void
round never adds to the meter. A hit of a round the books hold as void is rejected too: a
void round's wagers were returned, so the meter pays no hit for it (the table's supervisor
settles such a hit by hand, outside the meter).

No table's word is taken (docs/floor-protocol.md "What the controller checks"): a message of a
table the controller does not know, or of a boot not announced, is refused and applies
nothing; a boot is announced by its first message (`boot`) and a table may start at most
`Policy.max_boots_per_day` boots a day; a contribution is applied once per (table, round,
seat); a hit is paid only for a seat of a round that table contributed for, once, and only
when the cards it reports make that meter line of the pay table.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Final

from controller.floor.protocol import FloorProtocolError, MessageId, UpMessage, parse_up
from controller.procedure.core.effects import Journal
from controller.procedure.shared import meter_books
from controller.rules.cards import Card, CardError
from controller.rules.money import MeterShare
from controller.rules.paytables import Blazing7sPays
from controller.rules.sidebets import blazing7s_line

KIND_PAID = "floor:paid"
KIND_REJECTED = "floor:rejected"
KIND_VOID = "floor:void"
"""A void of a round the books hold no contribution of (a `meter:void` when they do)."""
KIND_BOOT = "floor:boot"
"""A table's boot, announced and accepted (`table`, `boot`, `seq` 1, `day`, `boots_today`)."""
KIND_REFUSED = "floor:refused"
"""A message refused without using its seq: an unknown table, a boot not announced or one too
many (`table`, `boot`, `seq`, `reason`)."""
FLOOR_KINDS = (*meter_books.METER_KINDS, KIND_PAID, KIND_REJECTED, KIND_VOID, KIND_BOOT)
"""Every record kind that applies a table message (each (table, boot, seq) once)."""
MAX_BOOTS_PER_DAY: Final = 10
"""`[link] max_boots_per_day`'s default."""
"""Every record kind the controller's journal holds."""
ROUNDS_KEPT = 4
"""How many of a table's newest rounds the books keep the contributions of (for a void)."""
REJECTIONS_KEPT = 64
"""How many of the newest rejected messages the books keep the reason of (for a repeat)."""


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
class RoundTake:
    """What one table's round added to the meter, until it is void or ages out."""

    contributions: tuple[dict[str, Any], ...] = ()
    void: bool = False
    returned: int = 0
    wagers: int = 0
    hits: tuple[int, ...] = ()

    @property
    def seats(self) -> set[int]:
        """The seats that contributed."""
        return {int(c["seat"]) for c in self.contributions}

    def to_json(self) -> dict[str, Any]:
        """As the critical state keeps it."""
        return {"contributions": [dict(c) for c in self.contributions], "void": self.void,
                "returned": self.returned, "wagers": self.wagers, "hits": list(self.hits)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RoundTake:
        """Rebuild from `to_json` output."""
        return cls(tuple(data["contributions"]), bool(data["void"]),
                   int(data.get("returned", 0)), int(data.get("wagers", 0)),
                   tuple(int(s) for s in data.get("hits", ())))


@dataclass(frozen=True, slots=True)
class Policy:
    """What the controller accepts of its tables.

    Attributes:
        tables: The tables of the group (`[link] tables`); any other is refused.
        max_boots_per_day: How many boots a table may announce in one (UTC) day.
        pays: The Blazing 7's pay table the hits' cards are checked against (the seed's).
    """

    tables: frozenset[str]
    max_boots_per_day: int = MAX_BOOTS_PER_DAY
    pays: Blazing7sPays = Blazing7sPays()


TableRounds = dict[int, RoundTake]


@dataclass(frozen=True, slots=True)
class FloorBook:
    """The linked meter and what the controller has applied.

    Attributes:
        meters: The group's meters (the table's books: amount, hits, progressive_in...).
        applied: The last applied seq of each `table/boot` stream.
        awards: Hits whose paid notice has not arrived, in the order received.
        version: Rises with every change of what signs show.
        rounds: Each table's newest rounds: their contributions, and whether void.
        rejections: The reason of each of the newest `REJECTIONS_KEPT` rejected messages, by
            `table/boot/seq`: a repeat of one is rejected again, not acknowledged.
        boots: Each table's boots of the day: `{"day": "YYYY-MM-DD", "count": N}`.
    """

    meters: meter_books.Meters
    applied: dict[str, int] = field(default_factory=dict)
    awards: tuple[Award, ...] = ()
    version: int = 0
    rounds: dict[str, TableRounds] = field(default_factory=dict)
    rejections: dict[str, str] = field(default_factory=dict)
    boots: dict[str, dict[str, Any]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The critical state: the meters as a table keeps them, and the floor's books."""
        rounds = {table: {str(n): take.to_json() for n, take in kept.items()}
                  for table, kept in self.rounds.items()}
        return {"meters": self.meters.to_json(),
                "floor": {"applied": dict(self.applied), "version": self.version,
                          "awards": [_award_json(a) for a in self.awards], "rounds": rounds,
                          "rejections": dict(self.rejections),
                          "boots": {t: dict(b) for t, b in self.boots.items()}}}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FloorBook:
        """Rebuild the books from `to_json` output (older books hold no rounds, rejections)."""
        floor = data["floor"]
        rounds = {str(table): {int(n): RoundTake.from_json(t) for n, t in kept.items()}
                  for table, kept in floor.get("rounds", {}).items()}
        return cls(meter_books.Meters.from_json(data["meters"]),
                   {str(k): int(v) for k, v in floor["applied"].items()},
                   tuple(Award(**a) for a in floor["awards"]), int(floor["version"]), rounds,
                   {str(k): str(v) for k, v in floor.get("rejections", {}).items()},
                   {str(t): {"day": str(b["day"]), "count": int(b["count"])}
                    for t, b in floor.get("boots", {}).items()})

    def take(self, table: str, round_no: int) -> RoundTake | None:
        """What the books hold of a table's round (None: not among its kept rounds)."""
        return self.rounds.get(table, {}).get(round_no)

    def with_take(self, table: str, round_no: int, take: RoundTake) -> FloorBook:
        """The books with a table's round set to `take` (its oldest rounds age out)."""
        kept = {**self.rounds.get(table, {}), round_no: take}
        newest = dict(sorted(kept.items())[-ROUNDS_KEPT:])
        return replace(self, rounds={**self.rounds, table: newest})

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
    refused: str = ""
    """Which refusal ("" when none): `unknown_table`, `boot_not_announced` or
    `too_many_boots`; the floor view raises an alarm."""


def open_book(params: meter_books.MeterParams) -> tuple[FloorBook, Journal]:
    """A new linked meter at its reset amount, with its `meter:init` record."""
    meters, record = meter_books.start(params)
    return FloorBook(meters), record


def receive(book: FloorBook, data: dict[str, Any], address: MessageId, policy: Policy,
            day: str) -> BookChange:
    """Apply one table message whose address is already checked (see module docstring).

    `day` is the controller's UTC date (`YYYY-MM-DD`): the day a boot is counted in.
    """
    stream = stream_of(address)
    last = book.applied.get(stream, 0)
    head = {"boot": address.boot, "seq": address.seq}
    if address.table not in policy.tables:
        return _refused(book, address, head, "unknown_table",
                        f"table {address.table}: not one of this "
                        "controller's tables ([link] tables)")
    if address.seq <= last:
        return BookChange(book, (), _repeat(book, data, address, head))
    if address.seq > last + 1:
        return BookChange(book, (), head | {"type": "gap", "expected": last + 1})
    if last == 0:
        return _boot(book, data, address, head, policy, day)
    book = replace(book, applied={**book.applied, stream: address.seq})
    try:
        message = parse_up(data, address)
        if message.kind == "boot":
            raise FloorProtocolError(f"boot {address.boot}: announced already")
        return _apply(book, message, head, policy.pays)
    except (FloorProtocolError, meter_books.MeterError) as exc:
        record = Journal(KIND_REJECTED, {**_where(address), "reason": str(exc)})
        kept = {**book.rejections, _key(address): str(exc)}
        book = replace(book, rejections=dict(list(kept.items())[-REJECTIONS_KEPT:]))
        return BookChange(book, (record,), head | {"type": "reject", "reason": str(exc)})


def _refused(book: FloorBook, address: MessageId, head: dict[str, Any], why: str,
             reason: str) -> BookChange:
    """Nothing applied, no seq used: the answer and the record say why."""
    record = Journal(KIND_REFUSED, {**_where(address), "why": why, "reason": reason})
    return BookChange(book, (record,), head | {"type": "refused", "reason": reason}, why)


def _boot(book: FloorBook, data: dict[str, Any], address: MessageId, head: dict[str, Any],
          policy: Policy, day: str) -> BookChange:
    """A boot's first message: its announcement, counted against the table's day."""
    if data.get("type") != "boot":
        return _refused(book, address, head, "boot_not_announced",
                        f"boot {address.boot}: not announced (a boot's "
                        "first message is its `boot`)")
    held = book.boots.get(address.table, {})
    count = int(held.get("count", 0)) if held.get("day") == day else 0
    if count >= policy.max_boots_per_day:
        return _refused(book, address, head, "too_many_boots",
                        f"table {address.table}: {count} boots on {day} "
                        f"already, at most {policy.max_boots_per_day} a day "
                        "([link] max_boots_per_day)")
    book = replace(book, applied={**book.applied, stream_of(address): address.seq},
                   boots={**book.boots, address.table: {"day": day, "count": count + 1}})
    record = Journal(KIND_BOOT, {**_where(address), "day": day, "boots_today": count + 1})
    return BookChange(book, (record,), _ack(book, head))


def _key(address: MessageId) -> str:
    return f"{address.table}/{address.boot}/{address.seq}"


def _where(address: MessageId) -> dict[str, Any]:
    return {"table": address.table, "boot": address.boot, "seq": address.seq}


def _repeat(book: FloorBook, data: dict[str, Any], address: MessageId,
            head: dict[str, Any]) -> dict[str, Any]:
    """The answer again: with a hit's award while kept, with a void's give-back.

    A message rejected is rejected again, with its reason (while kept).
    """
    reason = book.rejections.get(_key(address))
    if reason is not None:
        return head | {"type": "reject", "repeat": True, "reason": reason}
    answer = head | {"type": "ack", "repeat": True, "meter": book.meters.amount}
    for award in book.awards:
        if (award.table, award.boot, award.seq) == (address.table, address.boot, address.seq):
            answer["paid"] = award.amount
    if data.get("type") == "void" and isinstance(data.get("round"), int):
        take = book.take(address.table, int(data["round"]))
        if take is not None and take.void:
            answer |= {"returned": take.returned, "wagers": take.wagers}
    return answer


def _apply(book: FloorBook, message: UpMessage, head: dict[str, Any],
           pays: Blazing7sPays) -> BookChange:
    if message.kind == "contribution":
        return _contribution(book, message, head)
    if message.kind == "hit":
        return _hit(book, message, head, pays)
    if message.kind == "void":
        return _void(book, message, head)
    return _paid(book, message, head)


def _contribution(book: FloorBook, message: UpMessage, head: dict[str, Any]) -> BookChange:
    table = message.address.table
    take = book.take(table, message.round) or RoundTake()
    if take.void:
        raise FloorProtocolError(f"round {message.round}: void, its contributions given back")
    if message.seat in take.seats:
        raise FloorProtocolError(f"round {message.round} seat {message.seat}: contributed "
                                 "already")
    meters, records = meter_books.contribute(book.meters, message.round, [message.seat])
    added = dict(records[0].data)
    record = Journal(records[0].kind, {**added, **_where(message.address)})
    book = replace(book, meters=meters, version=book.version + 1)
    book = book.with_take(table, message.round,
                          replace(take, contributions=(*take.contributions, added)))
    return BookChange(book, (record,), _ack(book, head))


def _void(book: FloorBook, message: UpMessage, head: dict[str, Any]) -> BookChange:
    """Give back what the books hold of the round; later contributions of it are refused."""
    table, where = message.address.table, _where(message.address)
    take = book.take(table, message.round) or RoundTake()
    if take.void:
        raise FloorProtocolError(f"round {message.round}: void already")
    meters, found = meter_books.void(book.meters, message.round, take.contributions)
    book = replace(book, meters=meters, version=book.version + (0 if found is None else 1))
    if found is None:
        record = Journal(KIND_VOID, {**where, "round": message.round, "returned": 0,
                                     "wagers": 0})
    else:
        record = Journal(found.kind, {**found.data, **where})
    returned, wagers = int(record.data["returned"]), int(record.data["wagers"])
    book = book.with_take(table, message.round,
                          RoundTake(void=True, returned=returned, wagers=wagers))
    return BookChange(book, (record,),
                      _ack(book, head) | {"returned": returned, "wagers": wagers})


def _ack(book: FloorBook, head: dict[str, Any]) -> dict[str, Any]:
    return head | {"type": "ack", "repeat": False, "meter": book.meters.amount}


def _hit(book: FloorBook, message: UpMessage, head: dict[str, Any],
         pays: Blazing7sPays) -> BookChange:
    take = book.take(message.address.table, message.round)
    if take is not None and take.void:
        raise FloorProtocolError(f"round {message.round}: void, its wagers returned: no meter "
                                 "hit is paid for it")
    where = f"round {message.round} seat {message.seat}"
    if take is None or message.seat not in take.seats:
        raise FloorProtocolError(f"{where}: this table contributed no Blazing 7's wager there: "
                                 "no meter hit is paid for it")
    if message.seat in take.hits:
        raise FloorProtocolError(f"{where}: its meter hit was paid already")
    kind = meter_books.HitKind(message.hit_kind)
    _check_cards(message, kind, pays)
    meters, record, paid = meter_books.hit(book.meters, message.round, message.seat, kind)
    address = message.address
    award = Award(address.table, address.boot, address.seq, kind.value, paid)
    book = replace(book, meters=meters, awards=(*book.awards, award), version=book.version + 1)
    book = book.with_take(address.table, message.round,
                          replace(take, hits=(*take.hits, message.seat)))
    record = Journal(record.kind, {**record.data, **_where(address),
                                   "cards": list(message.cards)})
    return BookChange(book, (record,), _ack(book, head) | {"paid": paid})


def _check_cards(message: UpMessage, kind: meter_books.HitKind, pays: Blazing7sPays) -> None:
    """The cards must make a line that the pay table pays with this meter share."""
    shown = " ".join(message.cards)
    try:
        first, second, up = (Card.parse(code) for code in message.cards)
    except CardError as exc:
        raise FloorProtocolError(f"cards {shown}: {exc}") from None
    line = blazing7s_line(first, second, up)
    pay = pays.pay(line) if line is not None else None
    if not isinstance(pay, MeterShare) or meter_books.kind_of(pay) is not kind:
        raise FloorProtocolError(f"cards {shown}: the Blazing 7's line is "
                                 f"{line.value if line else 'none'}, not a {kind.value} meter "
                                 "hit")


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
