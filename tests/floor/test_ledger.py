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
