"""A shoe that acknowledges its board's events only once handled, byte for byte over a real pty.

The real driver, firmware_bridge and pyserial talk to the emulated shoe board. A host that
received a card but never declared it handled (the controller lost power before its journal
held the card) leaves the card with the board, which keeps running and repeats it to the
next host; once declared handled, it is never delivered again.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from drivers.board import LinkOptions, link_timing, table_catalogue
from drivers.emulated.shoe import ShoeEmulator
from drivers.emulated.shoe_model import ShoeContents
from drivers.events import CardDrawn, LinkUp, ShoeFault, ShoeFaultKind, ShoeLoaded
from drivers.shoe import BridgeShoe
from firmware_bridge import PairingKey

from .conftest import Recorder

WAIT = 5.0
REPEAT = 0.7  # longer than the board's 500 ms event repetition
KEY = PairingKey.generate()


HOSTS: list[BridgeShoe] = []


@pytest.fixture
def board(tmp_path: Path) -> Iterator[ShoeEmulator]:
    with ShoeEmulator(link_dir=tmp_path, pairing=KEY) as emulator:
        try:
            yield emulator
        finally:
            while HOSTS:
                HOSTS.pop().close()


def connect(board: ShoeEmulator, sink: Recorder, *, ack_when_handled: bool) -> BridgeShoe:
    """A new host's shoe driver on the (still running) board."""
    link = LinkOptions(board.path, table_catalogue(), link_timing(1000), pairing=KEY)
    shoe = BridgeShoe("shoe", link, sink, emulated=True, ack_when_handled=ack_when_handled)
    HOSTS.append(shoe)
    shoe.start()
    return shoe


def pending(board: ShoeEmulator) -> int:
    return board.stats().events_pending


def load(board: ShoeEmulator, shoe: BridgeShoe, sink: Recorder, codes: list[str]) -> None:
    board.load(ShoeContents.scripted(codes))
    (loaded,) = sink.wait_for(ShoeLoaded)
    shoe.handled(loaded)
    assert board.wait_until(lambda: pending(board) == 0, WAIT)


def test_a_card_never_declared_handled_is_delivered_again_to_the_next_host(
    board: ShoeEmulator,
) -> None:
    first = Recorder()
    shoe = connect(board, first, ack_when_handled=True)
    load(board, shoe, first, ["AS", "KH"])
    board.draw()
    (card,) = first.wait_for(CardDrawn)
    assert (card.count, card.code) == (1, "AS")
    # card_read and card_out reached the sink, but nothing declared the card handled.
    assert not board.wait_until(lambda: pending(board) < 2, REPEAT)
    shoe.close()  # the controller loses power; the shoe board runs on

    second = Recorder()
    shoe = connect(board, second, ack_when_handled=True)
    (again,) = second.wait_for(CardDrawn)
    assert (again.count, again.code) == (1, "AS")
    shoe.handled(again)
    assert board.wait_until(lambda: pending(board) == 0, WAIT)
    shoe.close()

    third = Recorder()
    shoe = connect(board, third, ack_when_handled=True)
    board.draw()
    (card,) = third.wait_for(CardDrawn)
    assert (card.count, card.code) == (2, "KH")  # card 1 was handled: never again
    assert not board.wait_until(lambda: len(third.of(CardDrawn)) > 1, REPEAT)
    shoe.close()


def test_acknowledged_on_receipt_a_card_is_never_repeated(board: ShoeEmulator) -> None:
    first = Recorder()
    shoe = connect(board, first, ack_when_handled=False)
    load(board, shoe, first, ["AS", "KH"])
    board.draw()
    first.wait_for(CardDrawn)
    assert board.wait_until(lambda: pending(board) == 0, WAIT)  # acknowledged already
    shoe.close()  # had the controller lost power now, card 1 would be lost to it

    second = Recorder()
    shoe = connect(board, second, ack_when_handled=False)
    board.draw()
    (card,) = second.wait_for(CardDrawn)
    assert (card.count, card.code) == (2, "KH")
    shoe.close()


def test_an_unreadable_cards_fault_is_acknowledged_only_with_the_card(
    board: ShoeEmulator,
) -> None:
    sink = Recorder()
    shoe = connect(board, sink, ack_when_handled=True)
    load(board, shoe, sink, ["AS", "KH"])
    board.unreadable_next()
    board.draw()
    (card,) = sink.wait_for(CardDrawn)
    (fault,) = sink.of(ShoeFault)
    assert fault.kind is ShoeFaultKind.UNREADABLE
    shoe.handled(fault)  # the owner keeps the fault in memory until the card comes
    assert not board.wait_until(lambda: pending(board) < 2, REPEAT)
    shoe.handled(card)
    assert board.wait_until(lambda: pending(board) == 0, WAIT)
    shoe.close()


def test_a_reconnection_neither_repeats_a_card_nor_forgets_to_acknowledge_it(
    board: ShoeEmulator,
) -> None:
    sink = Recorder()
    shoe = connect(board, sink, ack_when_handled=True)
    load(board, shoe, sink, ["AS", "KH"])
    board.draw()
    (card,) = sink.wait_for(CardDrawn)
    board.unplug()
    board.replug()
    sink.wait_for(LinkUp, 2)
    assert not board.wait_until(lambda: len(sink.of(CardDrawn)) > 1, REPEAT)
    assert pending(board) == 2  # repeated to the new session, taken as duplicates
    shoe.handled(card)
    assert board.wait_until(lambda: pending(board) == 0, WAIT)
    shoe.close()
