"""The shoe end to end: emulator bytes -> pty -> pyserial -> firmware_bridge -> driver events."""

import pytest

from drivers.board import LinkOptions, link_timing
from drivers.emulated.shoe import ShoeEmulator
from drivers.emulated.shoe_model import CUT_CARD, ShoeContents, deck
from drivers.errors import HandshakeError
from drivers.events import CardDrawn, LinkDown, LinkUp, ShoeFault, ShoeFaultKind, ShoeLoaded
from drivers.shoe import BridgeShoe
from firmware_bridge import DeviceIdentity
from hil_tests.rig import WAIT_S

TEN_THOUSAND = 10_000


def load(table, codes):
    emulator = table.emulator("shoe")
    mark = table.events.mark()
    emulator.load(ShoeContents.scripted(codes))
    table.events.wait_for_event(ShoeLoaded, WAIT_S, mark)
    return emulator, table.events.mark()


def deal(emulator, cards: int) -> None:
    for _ in range(cards):
        assert emulator.wait_for_room(30.0), "the host stopped acknowledging events"
        emulator.draw()


def wait_for_cards(table, mark, cards: int, timeout: float) -> list[CardDrawn]:
    arrived = table.events.wait_for(
        lambda events: sum(isinstance(e, CardDrawn) for e in events) >= cards, timeout, mark)
    drawn = table.events.of(CardDrawn, mark)
    assert arrived, f"only {len(drawn)} of {cards} cards arrived"
    return drawn


@pytest.mark.needs("shoe", "fault_injection")
def test_ten_thousand_cards_arrive_once_and_in_order_with_2pc_corrupt_and_2pc_lost(table):
    codes = (deck() * (TEN_THOUSAND // 52 + 1))[:TEN_THOUSAND]
    emulator, mark = load(table, codes)
    emulator.set_fault_rates(corrupt=0.02, drop=0.02, seed=2026)
    deal(emulator, TEN_THOUSAND)
    drawn = wait_for_cards(table, mark, TEN_THOUSAND, 120.0)
    assert emulator.wait_until_acknowledged(10.0)
    emulator.set_fault_rates(0.0, 0.0)
    assert [card.count for card in drawn] == list(range(1, TEN_THOUSAND + 1))
    assert [card.code for card in drawn] == codes
    # The faults really happened, in both directions.
    assert emulator.inbound.dropped > 50
    assert emulator.inbound.corrupted > 50
    stats = table.shoe.connection.stats()
    assert stats.decoder.errors, "no corrupted frame reached the host's decoder"
    assert stats.link.retransmissions > 50
    assert stats.missed_events == 0


@pytest.mark.needs("shoe", "fault_injection")
def test_unplug_and_replug_mid_shoe_loses_nothing(table):
    codes = deck()[:40]
    emulator, mark = load(table, codes)
    deal(emulator, 15)
    wait_for_cards(table, mark, 15, 5.0)
    emulator.unplug()
    table.events.wait_for_event(LinkDown, WAIT_S, mark)
    deal(emulator, 10)  # the dealer keeps dealing while the cable is out
    emulator.replug()
    table.events.wait_for_event(LinkUp, WAIT_S, mark)
    deal(emulator, 15)
    drawn = wait_for_cards(table, mark, 40, 10.0)
    assert [card.count for card in drawn] == list(range(1, 41))
    assert [card.code for card in drawn] == codes
    kinds = [type(e).__name__ for e in table.events.since(mark)
             if isinstance(e, LinkDown | LinkUp)]
    assert kinds == ["LinkDown", "LinkUp"]


@pytest.mark.needs("shoe", "fault_injection")
def test_duplicated_and_delayed_frames_are_delivered_once(table):
    emulator, mark = load(table, deck()[:30])
    emulator.faults.duplicate_next(10)
    emulator.faults.delay_next(0.05, frames=3)
    deal(emulator, 30)
    drawn = wait_for_cards(table, mark, 30, 10.0)
    assert [card.count for card in drawn] == list(range(1, 31))


@pytest.mark.needs("shoe", "fault_injection")
def test_read_faults_and_shoe_conditions_are_reported(table):
    emulator, mark = load(table, ["AS", "KH", "7D", "2C"])
    emulator.unreadable_next()
    emulator.draw()
    emulator.face_up_next()
    emulator.draw()
    emulator.quality_next(41)
    emulator.draw()
    emulator.jam()
    emulator.clear_jam()
    emulator.open_lid()
    emulator.close_lid()
    emulator.draw()
    table.events.wait_for_event(ShoeFault, WAIT_S, mark,
                                where=lambda e: e.kind is ShoeFaultKind.SHOE_EMPTY)
    events = [e for e in table.events.since(mark) if isinstance(e, CardDrawn | ShoeFault)]
    summary = [(type(e).__name__, getattr(e, "kind", getattr(e, "code", None)), e.count)
               for e in events]
    assert summary == [
        ("ShoeFault", ShoeFaultKind.UNREADABLE, 1), ("CardDrawn", None, 1),
        ("ShoeFault", ShoeFaultKind.FACE_UP, 2), ("CardDrawn", None, 2),
        ("CardDrawn", "7D", 3),
        ("ShoeFault", ShoeFaultKind.JAM, 3), ("ShoeFault", ShoeFaultKind.JAM, 3),
        ("ShoeFault", ShoeFaultKind.LID_OPEN, 3), ("ShoeFault", ShoeFaultKind.LID_OPEN, 3),
        ("CardDrawn", "2C", 4), ("ShoeFault", ShoeFaultKind.SHOE_EMPTY, 4),
    ]
    assert [e.active for e in events if isinstance(e, ShoeFault)][2:6] == [True, False, True,
                                                                             False]
    assert events[4].quality == 41
    assert table.shoe.query_state().cards_out == 4


@pytest.mark.needs("shoe", "fault_injection")
def test_cut_card_is_reported_where_it_sits(table):
    emulator, mark = load(table, [])
    emulator.load(ShoeContents(["AS", "KH", CUT_CARD, "7D"]))
    deal(emulator, 4)
    cut = table.events.wait_for_event(ShoeFault, WAIT_S, mark,
                                      where=lambda e: e.kind is ShoeFaultKind.CUT_CARD)
    assert cut.count == 2
    drawn = wait_for_cards(table, mark, 3, 5.0)
    assert [card.code for card in drawn] == ["AS", "KH", "7D"]


@pytest.mark.needs("emulated")
def test_handshake_mismatch_is_refused_with_every_field_named(table, tmp_path):
    wrong = DeviceIdentity("0.9-old", catalogue_hash=bytes(32))
    with ShoeEmulator(link_dir=tmp_path, identity=wrong) as emulator:
        options = LinkOptions(emulator.path, table.options.table_catalogue(), link_timing(750),
                              firmware_versions=frozenset({"emulated-1.0"}))
        shoe = BridgeShoe("shoe", options, table.events.append)
        with pytest.raises(HandshakeError) as refused:
            shoe.start()
        shoe.close()
    message = str(refused.value)
    assert message.startswith("[devices.shoe] ")
    assert "firmware version: expected 'emulated-1.0', got '0.9-old'" in message
    assert "catalogue hash of 'shoe': expected" in message
    assert emulator.failsafe  # the host never released the refused board
