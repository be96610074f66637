"""The controller's books, message by message (pure: no broker)."""

from __future__ import annotations

import pytest

from controller.floor import ledger
from controller.floor.protocol import FloorProtocolError, MessageId, decode, message_id_of
from controller.rules.meter import ProgressiveSettings

BOOK, _ = ledger.open_book(ProgressiveSettings(reset=10_000, increment=100))


def _up(seq: int, **fields: object) -> tuple[dict[str, object], MessageId]:
    data = {"type": "contribution", "table": "T1", "boot": "b", "seq": seq, "round": 1,
            "seat": 1} | fields
    return data, MessageId("T1", "b", seq)


def test_a_repeat_changes_nothing_and_is_answered_again() -> None:
    first = ledger.receive(BOOK, *_up(1))
    again = ledger.receive(first.book, *_up(1))
    assert again.records == ()
    assert again.book == first.book
    assert again.answer == {"type": "ack", "boot": "b", "seq": 1, "repeat": True,
                            "meter": 10_100}


def test_a_message_past_a_gap_is_not_applied() -> None:
    outcome = ledger.receive(BOOK, *_up(3))
    assert outcome.book == BOOK
    assert outcome.records == ()
    assert outcome.answer == {"type": "gap", "boot": "b", "seq": 3, "expected": 1}


def test_a_bad_hit_kind_is_rejected_journalled_and_uses_its_seq() -> None:
    outcome = ledger.receive(BOOK, *_up(1, type="hit", kind="50%"))
    assert outcome.answer["type"] == "reject"
    assert [r.kind for r in outcome.records] == ["floor:rejected"]
    assert outcome.book.applied == {"T1/b": 1}
    assert outcome.book.meters == BOOK.meters


def test_a_full_hit_stays_pending_until_its_paid_notice() -> None:
    hit = ledger.receive(BOOK, *_up(1, type="hit", kind="100%", seat=3))
    assert hit.answer["paid"] == 10_000
    assert hit.book.meters.amount == 10_000
    assert hit.book.meter_message("g")["pending"] == [{"table": "T1", "seq": 1,
                                                       "amount": 10_000}]
    repeat = ledger.receive(hit.book, *_up(1, type="hit", kind="100%", seat=3))
    assert repeat.answer["paid"] == 10_000  # the same award on every repeat
    paid = ledger.receive(hit.book, {"type": "paid", "table": "T1", "boot": "b", "seq": 2,
                                     "hit": 1}, MessageId("T1", "b", 2))
    assert paid.book.meter_message("g")["pending"] == []


@pytest.mark.parametrize(("payload", "problem"), [
    (b"\xff", "payload is not UTF-8 JSON"),
    (b"[1]", "payload: expected a JSON object, got list"),
    (b'{"table": "T2", "boot": "b", "seq": 1}', "table: 'T2' on the topic of table T1"),
    (b'{"table": "T1", "boot": "", "seq": 1}', "boot: expected 1-64 printable characters"),
    (b'{"table": "T1", "boot": "b", "seq": true}', "seq: expected a whole number >= 1"),
])
def test_an_unaddressed_message_is_named_in_one_line(payload: bytes, problem: str) -> None:
    with pytest.raises(FloorProtocolError, match="^" + problem.replace("(", r"\(")):
        message_id_of(decode(payload), "T1")


def _stream(book: ledger.FloorBook, boot: str, *messages: dict[str, object]
            ) -> list[ledger.BookChange]:
    """Apply `messages` as boot `boot`'s seqs 1, 2, ... of table T1."""
    changes = []
    for seq, fields in enumerate(messages, start=1):
        change = ledger.receive(book, {"table": "T1", "boot": boot, "seq": seq} | fields,
                                MessageId("T1", boot, seq))
        changes.append(change)
        book = change.book
    return changes


def _contribution(round_no: int, seat: int) -> dict[str, object]:
    return {"type": "contribution", "round": round_no, "seat": seat}


def test_a_void_gives_back_exactly_its_rounds_contributions() -> None:
    *_, void = _stream(BOOK, "b", _contribution(1, 1), _contribution(2, 1), _contribution(2, 3),
                       {"type": "void", "round": 2})
    assert void.book.meters.amount == 10_100  # round 1's stays
    assert void.book.meters.progressive_in == 1
    assert void.answer | {"meter": 0} == {"type": "ack", "boot": "b", "seq": 4, "repeat": False,
                                          "meter": 0, "returned": 200, "wagers": 2}
    [record] = void.records
    assert record.kind == "meter:void"
    assert (record.data["table"], record.data["seq"], record.data["seats"]) == ("T1", 4, [1, 3])


def test_a_contribution_of_a_void_round_from_an_earlier_boot_is_refused() -> None:
    # After a power cut the new boot's void may be applied before the old boot's resends.
    [void] = _stream(BOOK, "new", {"type": "void", "round": 5})
    assert [r.kind for r in void.records] == ["floor:void"]
    assert void.answer["returned"] == 0
    late = _stream(void.book, "old", _contribution(5, 2), _contribution(6, 2))
    assert late[0].answer["type"] == "reject"
    assert late[0].answer["reason"] == "round 5: void, its contributions given back"
    assert [r.kind for r in late[0].records] == ["floor:rejected"]
    assert late[-1].book.meters.amount == 10_100  # round 6 is not void
    assert late[-1].book.meters.progressive_in == 1


def test_a_hit_of_a_void_round_is_rejected_and_moves_no_meter() -> None:
    *_, void = _stream(BOOK, "new", _contribution(5, 1), {"type": "void", "round": 5})
    late = _stream(void.book, "old", {"type": "hit", "round": 5, "seat": 1, "kind": "100%"},
                   {"type": "hit", "round": 6, "seat": 1, "kind": "10%"})
    assert late[0].answer["type"] == "reject"
    assert late[0].answer["reason"] == ("round 5: void, its wagers returned: no meter hit is "
                                        "paid for it")
    assert [r.kind for r in late[0].records] == ["floor:rejected"]
    assert late[0].book.meters == void.book.meters
    assert late[0].book.awards == ()
    assert late[-1].answer["paid"] == 1_000  # round 6 is not void: a tenth of the meter


def test_a_rejected_message_repeated_is_rejected_again_across_a_restart() -> None:
    # The table's power went before it journalled the reject: it resends the hit as it was.
    *_, void = _stream(BOOK, "new", _contribution(5, 1), {"type": "void", "round": 5})
    [hit] = _stream(void.book, "old", {"type": "hit", "round": 5, "seat": 1, "kind": "100%"})
    book = ledger.FloorBook.from_json(hit.book.to_json())  # the controller restarted
    again = ledger.receive(book, {"type": "hit", "table": "T1", "boot": "old", "seq": 1,
                                  "round": 5, "seat": 1, "kind": "100%"},
                           MessageId("T1", "old", 1))
    assert again.answer == {"type": "reject", "repeat": True, "boot": "old", "seq": 1,
                            "reason": hit.answer["reason"]}
    assert again.records == ()
    assert again.book == book


def test_the_books_keep_the_newest_rejections_only() -> None:
    changes = _stream(BOOK, "b", *[{"type": "hit", "round": 1, "seat": 1, "kind": "50%"}
                                   for _ in range(ledger.REJECTIONS_KEPT + 1)])
    kept = changes[-1].book.rejections
    assert len(kept) == ledger.REJECTIONS_KEPT
    assert "T1/b/1" not in kept
    assert f"T1/b/{ledger.REJECTIONS_KEPT + 1}" in kept


def test_a_second_void_of_a_round_gives_nothing_back_twice() -> None:
    *_, second = _stream(BOOK, "b", _contribution(1, 1), {"type": "void", "round": 1},
                         {"type": "void", "round": 1})
    assert second.answer["type"] == "reject"
    assert second.book.meters.amount == 10_000


def test_the_books_keep_each_tables_newest_rounds_across_a_restart() -> None:
    rounds = [_contribution(n, 1) for n in range(1, ledger.ROUNDS_KEPT + 2)]
    *_, last = _stream(BOOK, "b", *rounds)
    book = ledger.FloorBook.from_json(last.book.to_json())
    assert book == last.book
    assert sorted(book.rounds["T1"]) == list(range(2, ledger.ROUNDS_KEPT + 2))
    [void] = _stream(book, "c", {"type": "void", "round": ledger.ROUNDS_KEPT + 1})
    assert void.answer["returned"] == 100


def test_a_voids_repeat_says_again_what_it_gave_back() -> None:
    # The first answer may be lost with the table's power: the repeat is what it journals.
    *_, void = _stream(BOOK, "b", _contribution(1, 1), {"type": "void", "round": 1})
    repeat = ledger.receive(void.book, {"type": "void", "table": "T1", "boot": "b", "seq": 2,
                                        "round": 1}, MessageId("T1", "b", 2))
    assert repeat.records == ()
    assert (repeat.answer["repeat"], repeat.answer["returned"], repeat.answer["wagers"]) == (
        True, 100, 1)
