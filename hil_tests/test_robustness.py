"""Garbage, truncated and oversized frames never crash or wedge a driver."""

import pytest

from drivers.emulated.shoe_model import ShoeContents, deck
from drivers.events import CardDrawn, DeviceFault, LinkDown, ShoeLoaded
from firmware_bridge.framing import Frame, FrameKind, encode_frame
from hil_tests.rig import WAIT_S

GARBAGE = [
    b"\x00" * 50,  # empty frames
    b"\xff" * 600 + b"\x00",  # longer than any frame
    bytes(range(1, 256)) + b"\x00",  # no COBS structure, no CRC
    encode_frame(Frame(FrameKind.DATA, 7, 0, b"\x11\x00\x00\x00\x01"))[:-4],  # cut short
    encode_frame(Frame(FrameKind.DATA, 200, 9, b"\xee" * 20)),  # unknown message id
    b"\x02\x01\x00",  # a tiny fragment
    bytes([0x05, 0x01, 0x01, 0x10, 0x00]) * 40,  # frame-like noise
]


@pytest.mark.needs("shoe", "fault_injection")
def test_garbage_and_truncated_frames_never_crash_or_wedge_the_shoe_driver(table):
    emulator, shoe = table.emulator("shoe"), table.shoe
    mark = table.events.mark()
    emulator.load(ShoeContents.scripted(deck()[:30]))
    table.events.wait_for_event(ShoeLoaded, WAIT_S, mark)
    errors_before = sum(shoe.connection.stats().decoder.errors.values())
    for index, junk in enumerate(GARBAGE * 3):
        emulator.send_garbage(junk)
        emulator.wait_for_room()
        emulator.draw()
        assert emulator.wait_until_acknowledged(5.0), f"wedged after garbage #{index}"
    table.events.wait_for(lambda events: len([e for e in events if isinstance(e, CardDrawn)])
                          >= 21, 10.0, mark)
    drawn = table.events.of(CardDrawn, mark)
    assert [card.count for card in drawn] == list(range(1, 22))
    assert [card.code for card in drawn] == deck()[:21]
    assert shoe.link_up
    assert not table.events.of(LinkDown, mark)
    assert not table.events.of(DeviceFault, mark)
    assert sum(shoe.connection.stats().decoder.errors.values()) > errors_before
    assert shoe.query_state().cards_out == 21
