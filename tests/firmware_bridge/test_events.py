"""Counted events at both ends: numbering, keeping, repeating, de-duplicating, gaps."""

from hypothesis import given
from hypothesis import strategies as st

from firmware_bridge.events import CountedEventReceiver, CountedEventSender, CountVerdict
from tests.support.clock import FakeClock


def test_receiver_delivers_new_counts_once_and_acknowledges_cumulatively() -> None:
    receiver = CountedEventReceiver()
    first = receiver.accept(41)  # a host with no history takes whatever comes first
    assert (first.verdict, first.ack, first.deliver) == (CountVerdict.NEW, 41, True)
    assert receiver.accept(42).verdict is CountVerdict.NEW
    repeat = receiver.accept(41)
    assert (repeat.verdict, repeat.ack, repeat.deliver) == (CountVerdict.DUPLICATE, 42, False)


def test_receiver_reports_a_gap_and_still_delivers() -> None:
    receiver = CountedEventReceiver(last_count=5, boot_id=1)
    receipt = receiver.accept(9)
    assert (receipt.verdict, receipt.missed, receipt.deliver) == (CountVerdict.GAP, (6, 8), True)
    assert receiver.last_count == 9


def test_a_baseline_from_the_journal_suppresses_events_already_handled() -> None:
    receiver = CountedEventReceiver(last_count=10, boot_id=7)
    assert receiver.on_identity(7) is False
    assert receiver.accept(10).verdict is CountVerdict.DUPLICATE
    assert receiver.accept(11).verdict is CountVerdict.NEW


def test_a_new_boot_id_restarts_counting_at_one() -> None:
    receiver = CountedEventReceiver(last_count=10, boot_id=7)
    assert receiver.on_identity(8) is True
    assert receiver.accept(1).verdict is CountVerdict.NEW
    assert receiver.boot_id == 8


@given(st.lists(st.integers(1, 50), max_size=200))
def test_receiver_never_delivers_a_count_twice(counts: list[int]) -> None:
    receiver = CountedEventReceiver(last_count=0, boot_id=1)
    delivered = [count for count in counts if receiver.accept(count).deliver]
    assert delivered == sorted(set(delivered))


def send_due(sender: CountedEventSender, delivered: int, tickets: list[int]) -> list[bytes]:
    """Hand the due events to a pretend link that numbers messages in `tickets`' order."""
    due = sender.due(delivered)
    for item in due:
        sender.sent(item, len(tickets))
        tickets.append(item.count)
    return [item.payload for item in due]


def test_sender_numbers_from_one_and_keeps_until_acknowledged() -> None:
    clock = FakeClock()
    sender = CountedEventSender(clock, capacity=8, repeat_interval=0.5)
    tickets: list[int] = []
    for _ in range(3):
        count = sender.next_count()
        sender.add(count, bytes([count]))
    assert send_due(sender, 0, tickets) == [b"\x01", b"\x02", b"\x03"]
    assert send_due(sender, 0, tickets) == []
    sender.acknowledge(2)
    assert sender.pending == 1
    assert send_due(sender, 3, tickets) == []  # the link delivered it just now
    clock.advance(0.5)
    assert send_due(sender, 3, tickets) == [b"\x03"]
    sender.resend_all()
    assert send_due(sender, 3, tickets) == [b"\x03"]


def test_a_copy_the_link_has_not_delivered_is_never_repeated() -> None:
    clock = FakeClock()
    sender = CountedEventSender(clock, repeat_interval=0.5)
    tickets: list[int] = []
    sender.add(sender.next_count(), b"\x01")
    assert send_due(sender, 0, tickets) == [b"\x01"]
    clock.advance(5.0)  # the link is retransmitting it: no second copy joins the queue
    assert send_due(sender, 0, tickets) == []
    assert send_due(sender, 1, tickets) == []  # delivered now: the interval starts here
    clock.advance(0.49)
    assert send_due(sender, 1, tickets) == []
    clock.advance(0.01)
    assert send_due(sender, 1, tickets) == [b"\x01"]
    assert tickets == [1, 1]


def test_sender_drops_new_events_when_full_but_spends_their_counts() -> None:
    sender = CountedEventSender(FakeClock(), capacity=2)
    kept = [sender.add(sender.next_count(), b"e") for _ in range(4)]
    assert kept == [True, True, False, False]
    assert (sender.dropped, sender.pending, sender.next_count()) == (2, 2, 5)


def test_identify_again_resends_what_arrived_but_never_doubles_a_copy_on_its_way() -> None:
    clock = FakeClock()
    sender = CountedEventSender(clock, repeat_interval=0.5)
    tickets: list[int] = []
    for payload in (b"\x01", b"\x02"):
        sender.add(sender.next_count(), payload)
    assert send_due(sender, 0, tickets) == [b"\x01", b"\x02"]  # link messages 0 and 1
    # The first copy was delivered (delivered=1), the second is still in the window: the
    # host asks `identify` again.
    sender.resend_all(delivered=1)
    assert send_due(sender, 1, tickets) == [b"\x01"]  # at once, whatever the timer
    sender.resend_all()  # a new session: the old one's queue was discarded
    assert send_due(sender, 0, tickets) == [b"\x01", b"\x02"]
