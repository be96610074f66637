"""The `ShoeScanner` contract, run against every implementation that can run here."""

import pytest

from drivers.errors import DriverError
from drivers.events import CardDrawn, LinkUp, ShoeFault, ShoeFaultKind, ShoeLoaded
from drivers.interfaces import ShoeScanner


def started(harness):
    harness.device.start()
    harness.recorder.wait_for(LinkUp)
    return harness


def test_is_a_shoe_scanner(shoe_harness):
    assert isinstance(shoe_harness.device, ShoeScanner)
    assert shoe_harness.device.name == "shoe"
    assert shoe_harness.device.emulated


def test_start_reports_the_link_up(shoe_harness):
    started(shoe_harness)
    assert shoe_harness.device.link_up


def test_cards_arrive_numbered_from_one_in_order_with_their_codes(shoe_harness):
    harness = started(shoe_harness)
    harness.load(["AS", "TD", "QH"])
    harness.recorder.wait_for(ShoeLoaded)
    for _ in range(3):
        harness.draw(False)
    drawn = harness.recorder.wait_for(CardDrawn, 3)
    assert [(card.count, card.code) for card in drawn] == [(1, "AS"), (2, "TD"), (3, "QH")]
    assert all(0 <= card.quality <= 100 for card in drawn)
    assert harness.device.query_state().cards_out == 3


def test_an_unreadable_card_is_a_fault_then_a_card_without_code(shoe_harness):
    harness = started(shoe_harness)
    harness.load(["AS", "KH", "7D"])
    harness.draw(True)
    harness.draw(False)
    drawn = harness.recorder.wait_for(CardDrawn, 2)
    faults = harness.recorder.of(ShoeFault)
    assert [(f.kind, f.count) for f in faults] == [(ShoeFaultKind.UNREADABLE, 1)]
    assert [(card.count, card.code) for card in drawn] == [(1, None), (2, "KH")]
    events = harness.recorder.events
    assert events.index(faults[0]) < events.index(drawn[0])


def test_card_codes_stay_out_of_the_record_repr(shoe_harness):
    # R17: a record that reaches a log line by accident must not carry the card.
    harness = started(shoe_harness)
    harness.load(["QH"])
    harness.draw(False)
    (card,) = harness.recorder.wait_for(CardDrawn)
    assert card.code == "QH"
    assert "QH" not in repr(card)


def test_close_is_idempotent_and_final(shoe_harness):
    harness = started(shoe_harness)
    harness.device.close()
    harness.device.close()
    assert not harness.device.link_up
    with pytest.raises(DriverError, match=r"^\[devices.shoe\]"):
        harness.device.start()
