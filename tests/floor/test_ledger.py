"""The controller's books, message by message (pure: no broker)."""

from __future__ import annotations

import pytest

from controller.floor import ledger
from controller.floor.protocol import FloorProtocolError, MessageId, decode, message_id_of
from controller.rules.meter import ProgressiveSettings

BOOK, _ = ledger.open_book(ProgressiveSettings(reset=10_000, increment=100))
POLICY = ledger.Policy(frozenset({"T1", "T2"}))
DAY = "2026-12-06"
HIT_7D = {"type": "hit", "round": 1, "seat": 1, "kind": "100%", "cards": ["7D", "7D", "7D"]}


def _receive(book: ledger.FloorBook, data: dict[str, object], address: MessageId,
             day: str = DAY, policy: ledger.Policy = POLICY) -> ledger.BookChange:
    return ledger.receive(book, data, address, policy, day)


def _up(seq: int, **fields: object) -> tuple[dict[str, object], MessageId]:
    data = {"type": "contribution", "table": "T1", "boot": "b", "seq": seq, "round": 1,
            "seat": 1} | fields
    return data, MessageId("T1", "b", seq)


def _booted(boot: str = "b", table: str = "T1",
            book: ledger.FloorBook = BOOK) -> ledger.FloorBook:
    """The books once `table` announced `boot` (its seq 1)."""
    change = _receive(book, {"type": "boot", "table": table, "boot": boot, "seq": 1},
                      MessageId(table, boot, 1))
    assert change.answer["type"] == "ack", change.answer
    return change.book


def test_a_repeat_changes_nothing_and_is_answered_again() -> None:
    first = _receive(_booted(), *_up(2))
    again = _receive(first.book, *_up(2))
    assert again.records == ()
    assert again.book == first.book
    assert again.answer == {"type": "ack", "boot": "b", "seq": 2, "repeat": True,
                            "meter": 10_100}


def test_a_message_past_a_gap_is_not_applied() -> None:
    outcome = _receive(BOOK, *_up(3))
    assert outcome.book == BOOK
    assert outcome.records == ()
    assert outcome.answer == {"type": "gap", "boot": "b", "seq": 3, "expected": 1}


def test_a_bad_hit_kind_is_rejected_journalled_and_uses_its_seq() -> None:
    outcome = _receive(_booted(), *_up(2, type="hit", kind="50%"))
    assert outcome.answer["type"] == "reject"
    assert [r.kind for r in outcome.records] == ["floor:rejected"]
    assert outcome.book.applied == {"T1/b": 2}
    assert outcome.book.meters == BOOK.meters


def test_a_full_hit_stays_pending_until_its_paid_notice() -> None:
    played = _receive(_booted(), *_up(2, seat=3)).book
    hit = _receive(played, *_up(3, **HIT_7D | {"seat": 3}))
    assert hit.answer["paid"] == 10_100
    assert hit.book.meters.amount == 10_000
    assert hit.book.meter_message("g")["pending"] == [{"table": "T1", "seq": 3,
                                                       "amount": 10_100}]
    repeat = _receive(hit.book, *_up(3, **HIT_7D | {"seat": 3}))
    assert repeat.answer["paid"] == 10_100  # the same award on every repeat
    paid = _receive(hit.book, {"type": "paid", "table": "T1", "boot": "b", "seq": 4,
                               "hit": 3}, MessageId("T1", "b", 4))
    assert paid.book.meter_message("g")["pending"] == []


def test_a_table_not_of_the_group_is_refused_and_nothing_is_applied() -> None:
    outcome = _receive(BOOK, {"type": "boot", "table": "T9", "boot": "b", "seq": 1},
                       MessageId("T9", "b", 1))
    assert outcome.answer == {"type": "refused", "boot": "b", "seq": 1, "reason":
                              "table T9: not one of this controller's tables ([link] tables)"}
    assert outcome.refused == "unknown_table"
    assert [r.kind for r in outcome.records] == ["floor:refused"]
    assert outcome.book == BOOK


def test_a_boot_not_announced_is_refused_without_using_its_seq() -> None:
    outcome = _receive(BOOK, *_up(1))
    assert (outcome.answer["type"], outcome.refused) == ("refused", "boot_not_announced")
    assert outcome.book == BOOK  # seq 1 is still the boot's to announce
    assert _receive(_booted(), *_up(2)).book.meters.progressive_in == 1


def test_a_table_announces_at_most_max_boots_per_day() -> None:
    book = BOOK
    for n in range(ledger.MAX_BOOTS_PER_DAY):
        book = _booted(f"b{n}", book=book)
    extra = _receive(book, {"type": "boot", "table": "T1", "boot": "extra", "seq": 1},
                     MessageId("T1", "extra", 1))
    assert extra.refused == "too_many_boots"
    assert extra.answer["reason"] == ("table T1: 10 boots on 2026-12-06 already, at most 10 a "
                                      "day ([link] max_boots_per_day)")
    assert extra.book == book
    other = _receive(book, {"type": "boot", "table": "T2", "boot": "x", "seq": 1},
                     MessageId("T2", "x", 1))
    assert other.answer["type"] == "ack"  # each table its own count
    tomorrow = _receive(book, {"type": "boot", "table": "T1", "boot": "extra", "seq": 1},
                        MessageId("T1", "extra", 1), day="2026-12-07")
    assert tomorrow.answer["type"] == "ack"
    assert [r.data["boots_today"] for r in tomorrow.records] == [1]
    again = ledger.FloorBook.from_json(book.to_json())  # the count survives a restart
    assert _receive(again, extra.answer | {"type": "boot", "table": "T1"},
                    MessageId("T1", "extra", 1)).refused == "too_many_boots"


def test_a_contribution_is_applied_once_per_round_and_seat_whatever_the_boot() -> None:
    first = ledger.receive(_booted("a"), {"type": "contribution", "table": "T1", "boot": "a",
                                          "seq": 2, "round": 4, "seat": 2},
                           MessageId("T1", "a", 2), POLICY, DAY)
    book = _booted("c", book=first.book)
    again = _receive(book, {"type": "contribution", "table": "T1", "boot": "c", "seq": 2,
                            "round": 4, "seat": 2}, MessageId("T1", "c", 2))
    assert again.answer["reason"] == "round 4 seat 2: contributed already"
    assert again.book.meters == first.book.meters


@pytest.mark.parametrize(("hit", "reason"), [
    ({"seat": 9}, "round 1 seat 9: this table contributed no Blazing 7's wager there: no meter "
                  "hit is paid for it"),
    ({"round": 2}, "round 2 seat 1: this table contributed no Blazing 7's wager there: no "
                   "meter hit is paid for it"),
    ({"cards": ["7H", "7H", "7H"]}, "cards 7H 7H 7H: the Blazing 7's line is three_suited_7s, "
                                    "not a 100% meter hit"),
    ({"kind": "10%"}, "cards 7D 7D 7D: the Blazing 7's line is three_7d, not a 10% meter hit"),
    ({"cards": ["7C", "7S", "7S"]}, "cards 7C 7S 7S: the Blazing 7's line is "
                                    "three_same_colour_7s, not a 100% meter hit"),
    ({"cards": ["7D", "7D"]}, "cards: expected the seat's first two cards and the dealer's up "
                              "card"),
    ({"cards": ["7D", "7D", "1X"]}, "cards: expected the seat's first two cards"),
])
def test_a_hit_is_paid_only_for_a_played_wager_whose_cards_make_it(
        hit: dict[str, object], reason: str) -> None:
    played = _receive(_booted(), *_up(2)).book
    outcome = _receive(played, *_up(3, **HIT_7D | hit))
    assert outcome.answer["type"] == "reject"
    assert str(outcome.answer["reason"]).startswith(reason)
    assert outcome.book.meters == played.meters
    assert outcome.book.awards == ()


def test_a_hit_is_paid_once_whatever_the_boot() -> None:
    played = _receive(_booted(), *_up(2)).book
    paid = _receive(played, *_up(3, **HIT_7D))
    assert paid.answer["paid"] == 10_100
    [record] = paid.records
    assert record.data["cards"] == ["7D", "7D", "7D"]
    book = ledger.FloorBook.from_json(_booted("z", book=paid.book).to_json())
    again = _receive(book, {**HIT_7D, "table": "T1", "boot": "z", "seq": 2},
                     MessageId("T1", "z", 2))
    assert again.answer["reason"] == "round 1 seat 1: its meter hit was paid already"
    assert again.book.meters == paid.book.meters


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
    """Announce boot `boot` of table T1 (seq 1), then apply `messages` as its seqs 2, 3, ..."""
    book = _booted(boot, book=book)
    changes = []
    for seq, fields in enumerate(messages, start=2):
        change = _receive(book, {"table": "T1", "boot": boot, "seq": seq} | fields,
                          MessageId("T1", boot, seq))
        changes.append(change)
        book = change.book
    return changes


def _contribution(round_no: int, seat: int) -> dict[str, object]:
    return {"type": "contribution", "round": round_no, "seat": seat}


def _hit(round_no: int, kind: str = "100%") -> dict[str, object]:
    cards = ["7D", "7D", "7D"] if kind == "100%" else ["7H", "7H", "7H"]
    return {"type": "hit", "round": round_no, "seat": 1, "kind": kind, "cards": cards}


def test_a_void_gives_back_exactly_its_rounds_contributions() -> None:
    *_, void = _stream(BOOK, "b", _contribution(1, 1), _contribution(2, 1), _contribution(2, 3),
                       {"type": "void", "round": 2})
    assert void.book.meters.amount == 10_100  # round 1's stays
    assert void.book.meters.progressive_in == 1
    assert void.answer | {"meter": 0} == {"type": "ack", "boot": "b", "seq": 5, "repeat": False,
                                          "meter": 0, "returned": 200, "wagers": 2}
    [record] = void.records
    assert record.kind == "meter:void"
    assert (record.data["table"], record.data["seq"], record.data["seats"]) == ("T1", 5, [1, 3])


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
    *_, void = _stream(BOOK, "new", _contribution(5, 1), _contribution(6, 1),
                       {"type": "void", "round": 5})
    late = _stream(void.book, "old", _hit(5), _hit(6, "10%"))
    assert late[0].answer["type"] == "reject"
    assert late[0].answer["reason"] == ("round 5: void, its wagers returned: no meter hit is "
                                        "paid for it")
    assert [r.kind for r in late[0].records] == ["floor:rejected"]
    assert late[0].book.meters == void.book.meters
    assert late[0].book.awards == ()
    assert late[-1].answer["paid"] == 1_010  # round 6 is not void: a tenth of the meter


def test_a_rejected_message_repeated_is_rejected_again_across_a_restart() -> None:
    # The table's power went before it journalled the reject: it resends the hit as it was.
    *_, void = _stream(BOOK, "new", _contribution(5, 1), {"type": "void", "round": 5})
    [hit] = _stream(void.book, "old", _hit(5))
    book = ledger.FloorBook.from_json(hit.book.to_json())  # the controller restarted
    again = _receive(book, {"table": "T1", "boot": "old", "seq": 2} | _hit(5),
                     MessageId("T1", "old", 2))
    assert again.answer == {"type": "reject", "repeat": True, "boot": "old", "seq": 2,
                            "reason": hit.answer["reason"]}
    assert again.records == ()
    assert again.book == book


def test_the_books_keep_the_newest_rejections_only() -> None:
    changes = _stream(BOOK, "b", *[{"type": "hit", "round": 1, "seat": 1, "kind": "50%"}
                                   for _ in range(ledger.REJECTIONS_KEPT + 1)])
    kept = changes[-1].book.rejections
    assert len(kept) == ledger.REJECTIONS_KEPT
    assert "T1/b/2" not in kept
    assert f"T1/b/{ledger.REJECTIONS_KEPT + 2}" in kept


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
    repeat = _receive(void.book, {"type": "void", "table": "T1", "boot": "b", "seq": 3,
                                  "round": 1}, MessageId("T1", "b", 3))
    assert repeat.records == ()
    assert (repeat.answer["repeat"], repeat.answer["returned"], repeat.answer["wagers"]) == (
        True, 100, 1)
