"""Every board reconciled before it leaves failsafe, and faults that stop only what they must.

The real shoe and sign drivers against their byte-level emulators over real ptys
(PROTOCOL.md sections 9, 10 and 12): the shoe's state read back at every connection, a shoe
board restarted mid-shoe, lost event counts named for what they are, a set-up request that
goes unanswered after a reconnect (retried, never a fault), the sign's update numbers in
the order its amounts were decided, and the shoe's bounded, loud list of records awaiting
`handled`.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from drivers.board import LinkOptions, link_timing, table_catalogue
from drivers.config import parse_device
from drivers.emulated.shoe import ShoeEmulator
from drivers.emulated.shoe_model import CUT_CARD, ShoeContents
from drivers.emulated.sign import SignEmulator
from drivers.events import (
    CardDrawn,
    DeviceFault,
    LinkDown,
    LinkUp,
    ShoeFault,
    ShoeFaultKind,
    ShoeLoaded,
)
from drivers.interfaces import ShoeState
from drivers.shoe import POSTED_LIMIT, BridgeShoe
from drivers.sign import BridgeSign
from firmware_bridge import PairingKey
from firmware_bridge.codec import Message

from .conftest import FAST, Recorder

KEY = PairingKey.generate()
WAIT = 20.0  # an upper bound for a loaded machine, never a speed the tests rely on


def link(path: str, timeout_ms: int = 750) -> LinkOptions:
    return LinkOptions(path, table_catalogue(), link_timing(timeout_ms, FAST), pairing=KEY)


@pytest.fixture
def board(tmp_path: Path) -> Iterator[ShoeEmulator]:
    with ShoeEmulator(ShoeContents.scripted(["AS", "KH", "7D", "2C", "9S", "QD"]),
                      link_dir=tmp_path, pairing=KEY, timing=FAST) as emulator:
        yield emulator


def test_the_shoe_is_read_back_before_it_leaves_failsafe_and_an_open_lid_is_reported(
    board: ShoeEmulator,
) -> None:
    asked_in_failsafe: list[bool] = []
    answer = board._answer_state  # the emulator's own answer, observed

    def observed(message: Message) -> None:
        asked_in_failsafe.append(board.failsafe)
        answer(message)

    board.endpoint.on("get_shoe_state", observed)
    board.open_lid()  # the lid is open before this host connects (a host restart)
    sink = Recorder()
    shoe = BridgeShoe("shoe", link(board.path), sink, emulated=True)
    shoe.start()
    try:
        assert asked_in_failsafe == [True]  # get_shoe_state, then failsafe released
        faults = sink.wait_for(ShoeFault, timeout=WAIT)
        assert (faults[0].kind, faults[0].active) == (ShoeFaultKind.LID_OPEN, True)
        assert "get_shoe_state" in faults[0].detail
        order = [type(e).__name__ for e in sink.events]
        assert order.index("ShoeFault") < order.index("LinkUp")  # before the link is up
        board.close_lid()
        assert board.wait_until(lambda: any(not f.active for f in sink.of(ShoeFault)), WAIT)
        assert sink.of(ShoeFault)[-1].active is False  # the lid as it is now: closed
    finally:
        shoe.close()


def test_a_shoe_board_restarted_mid_shoe_holds_the_table_and_its_cards_number_on(
    board: ShoeEmulator,
) -> None:
    sink = Recorder()
    shoe = BridgeShoe("shoe", link(board.path), sink, emulated=True)
    shoe.start()
    try:
        board.load()
        sink.wait_for(ShoeLoaded, timeout=WAIT)
        for _ in range(3):
            board.draw()
        sink.wait_for(CardDrawn, 3, timeout=WAIT)
        board.restart()  # a power cut: the board's card numbers start at 1 again
        (restart,) = [f for f in sink.wait_for(ShoeFault, timeout=WAIT)
                      if f.kind is ShoeFaultKind.RESTARTED]
        board.draw()
        cards = sink.wait_for(CardDrawn, 4, timeout=WAIT)
    finally:
        shoe.close()
    assert (restart.count, restart.active) == (3, True)
    assert "cards taken while it was off were not read" in restart.detail
    assert [card.count for card in cards] == [1, 2, 3, 4]  # not 1 again: never a "repeat"
    assert [card.code for card in cards] == ["AS", "KH", "7D", "2C"]


def test_lost_counts_are_named_as_counts_and_the_message_that_showed_them(
    tmp_path: Path,
) -> None:
    with ShoeEmulator(ShoeContents.scripted(["AS", "KH", "7D", "2C", "9S", "QD", "3H"]),
                      link_dir=tmp_path, pairing=KEY, timing=FAST, event_capacity=4) as small:
        sink = Recorder()
        shoe = BridgeShoe("shoe", link(small.path), sink, emulated=True)
        shoe.start()
        try:
            small.load()
            sink.wait_for(ShoeLoaded, timeout=WAIT)
            # shoe_loaded's acknowledgement must reach the board first: else count 1 still
            # takes a place in its queue of 4 (a busy machine delays the ack)
            assert small.wait_until(lambda: small.stats().events_pending == 0, timeout=WAIT)
            small.unplug()  # the board keeps its power; its queue fills and overflows
            for _ in range(5):
                small.draw()  # counts 2..11; 2..5 are kept, 6..11 dropped
            small.replug()
            sink.wait_for(CardDrawn, 2, timeout=WAIT)
            small.draw()  # count 12 shows the gap
            (fault,) = sink.wait_for(DeviceFault, timeout=WAIT)
        finally:
            shoe.close()
    assert fault.reason == ("board events 6..11 were lost before it reported them (its event "
                            "queue overflowed); the next event, 12, is a card_read")


def test_an_unanswered_set_up_request_after_a_reconnect_is_retried_and_never_a_fault(
    tmp_path: Path,
) -> None:
    with SignEmulator(link_dir=tmp_path, pairing=KEY, timing=FAST) as board:
        sink = Recorder()
        config = parse_device("sign", {"kind": "emulated"}, allow_emulated=True)
        sign = BridgeSign(config, link(board.path), sink)  # type: ignore[arg-type]
        sign.start()
        try:
            sign.show_amount(1_000_00)
            answer = board._on_get_sign_state
            mute = threading.Event()
            board.endpoint.on("get_sign_state",
                              lambda message: None if mute.is_set() else answer(message))
            mute.set()  # the sign stops answering its state request ...
            sessions = board.stats().link.sessions
            board.unplug()
            board.replug()  # ... just when the link comes back
            assert board.wait_until(lambda: board.stats().link.sessions >= sessions + 3, WAIT)
            assert board.failsafe  # never released while not reconciled
            mute.clear()
            ups = sink.wait_for(LinkUp, 2, timeout=WAIT)
        finally:
            sign.close()
    assert len(ups) == 2
    assert sink.of(LinkDown)
    assert sink.of(DeviceFault) == []  # the table is never put in fault for it
    assert board.display() == ("fault", 1_000_00, "LINK DOWN")  # closed: failsafe again


def test_a_stale_amount_never_gets_a_newer_update_number_than_a_fresh_one(
    tmp_path: Path,
) -> None:
    """The reconciliation's amount and update number are decided under one lock.

    The controller shows a new amount just as the reconciliation has read the sign's
    state: the one shown last must be the new amount, whichever thread wins.
    """
    with SignEmulator(link_dir=tmp_path, pairing=KEY, timing=FAST) as board:
        config = parse_device("sign", {"kind": "emulated"}, allow_emulated=True)
        sign = BridgeSign(config, link(board.path), Recorder())  # type: ignore[arg-type]
        sign.start()
        try:
            sign.show_amount(500_00)
            assert board.wait_until(lambda: board.display() == ("amount", 500_00, ""), WAIT)
            racing: list[threading.Thread] = []
            take = sign._next_update

            def next_update() -> int:  # the controller comes in at the worst moment
                if not racing:
                    racing.append(threading.Thread(target=sign.show_amount, args=(600_00,)))
                    racing[0].start()
                    racing[0].join(0.5)
                return take()

            sign._next_update = next_update  # type: ignore[method-assign]
            board.power_cycle()  # the sign forgets: the reconciliation must show the amount
            board.unplug()
            board.replug()
            assert board.wait_until(lambda: bool(racing) and not racing[0].is_alive(), WAIT)
            assert board.wait_until(lambda: board.display() == ("amount", 600_00, ""), WAIT)
        finally:
            sign.close()
    shown = [amount for _, mode, amount, _ in board.log if mode == "amount"]
    assert shown[-1] == 600_00


def test_records_awaiting_handled_are_bounded_and_the_limit_is_a_fault(
    board: ShoeEmulator,
) -> None:
    sink = Recorder()
    shoe = BridgeShoe("shoe", link(board.path), sink, emulated=True, ack_when_handled=True)
    on_read, on_out = shoe._board._handlers["card_read"], shoe._board._handlers["card_out"]
    for number in range(1, POSTED_LIMIT + 11):  # the controller never says "handled"
        on_read(Message("card_read", {"count": 2 * number - 1, "card_no": number,
                                      "code": "AS", "quality": 99}))
        on_out(Message("card_out", {"count": 2 * number, "card_no": number, "tick_ms": 0}))
    assert len(sink.of(CardDrawn)) == POSTED_LIMIT + 10  # every record is still posted
    (fault,) = sink.of(DeviceFault)  # once, when the limit was reached
    assert f"{POSTED_LIMIT} records await being declared handled" in fault.reason
    shoe.close()


def test_handling_the_restart_acknowledges_nothing_of_the_new_boot(board: ShoeEmulator) -> None:
    sink = Recorder()
    shoe = BridgeShoe("shoe", link(board.path), sink, emulated=True, ack_when_handled=True)
    shoe.start()
    try:
        board.load()
        (loaded,) = sink.wait_for(ShoeLoaded, timeout=WAIT)
        shoe.handled(loaded)
        for _ in range(3):
            board.draw()
        for card in sink.wait_for(CardDrawn, 3, timeout=WAIT):
            shoe.handled(card)
        assert board.wait_until(lambda: board.stats().events_pending == 0, WAIT)
        board.restart()
        (restart,) = [f for f in sink.wait_for(ShoeFault, timeout=WAIT)
                      if f.kind is ShoeFaultKind.RESTARTED]
        board.draw()  # the new boot's card 1: received, not yet handled
        sink.wait_for(CardDrawn, 4, timeout=WAIT)
        shoe.handled(restart)  # the controller journals the restart ...
        board.wait_until(lambda: False, 0.7)  # (longer than the board's repeat interval)
        # ... which must not acknowledge the card it has not handled yet
        assert board.stats().events_pending == 2  # its card_read and card_out
    finally:
        shoe.close()


def test_a_cut_card_last_in_the_shoe_comes_before_shoe_empty(tmp_path: Path) -> None:
    sink = Recorder()
    contents = ShoeContents(["AS", "KH", CUT_CARD])
    with ShoeEmulator(contents, link_dir=tmp_path, pairing=KEY, timing=FAST) as board:
        shoe = BridgeShoe("shoe", link(board.path), sink, emulated=True)
        shoe.start()
        try:
            for _ in range(3):
                board.draw()
            faults = sink.wait_for(ShoeFault, 2, timeout=WAIT)
        finally:
            shoe.close()
    assert [(f.kind, f.count) for f in faults] == [
        (ShoeFaultKind.CUT_CARD, 2), (ShoeFaultKind.SHOE_EMPTY, 2)]


def test_shoe_state_after_a_power_cycle_counts_from_power_up(board: ShoeEmulator) -> None:
    sink = Recorder()
    shoe = BridgeShoe("shoe", link(board.path), sink, emulated=True)
    shoe.start()
    try:
        board.load()
        sink.wait_for(ShoeLoaded, timeout=WAIT)
        for _ in range(3):
            board.draw()
        sink.wait_for(CardDrawn, 3, timeout=WAIT)
        assert shoe.query_state().cards_out == 3
        board.restart()
        sink.wait_for(LinkUp, 2, timeout=WAIT)
        assert shoe.query_state() == ShoeState(cards_out=0, lid_open=False, jammed=False,
                                               empty=False)
        board.draw()
        sink.wait_for(CardDrawn, 4, timeout=WAIT)
        assert shoe.query_state().cards_out == 1  # since power-up, not the shoe's 4
    finally:
        shoe.close()
