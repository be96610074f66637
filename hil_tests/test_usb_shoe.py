"""The USB shoe end to end: the same frames over bulk endpoints, through pyusb and the driver."""

import pytest

from drivers.config import UsbPortConfig
from drivers.emulated.shoe_model import deck
from drivers.emulated.usb import EmulatedUsbBackend
from drivers.events import CardDrawn, LinkDown, LinkUp, ShoeLoaded
from drivers.registry import EMULATED_USB_IDS, Devices, build_devices
from drivers.usb import UsbTransport
from firmware_bridge import PortInUseError
from hil_tests.rig import WAIT_S

USB_SHOE = {"shoe": {"kind": "emulated", "transport": "usb", "script": deck()[:30]}}


@pytest.fixture
def usb_rig(table) -> Devices:
    devices = build_devices(USB_SHOE, table.events.append, allow_emulated=True,
                            options=table.options)
    devices.start()
    yield devices
    devices.close()


@pytest.mark.needs("usb", "emulated")
def test_usb_shoe_deals_survives_unplug_and_loses_nothing(table, usb_rig):
    emulator, shoe = usb_rig.emulators["shoe"], usb_rig.shoe
    assert shoe.emulated
    assert shoe.connection.url == "usb:1209:5353/EMU-SHOE-1"
    mark = table.events.mark()
    emulator.load()
    table.events.wait_for_event(ShoeLoaded, WAIT_S, mark)
    for _ in range(10):
        emulator.draw()
    emulator.usb.unplug()
    table.events.wait_for_event(LinkDown, WAIT_S, mark)
    for _ in range(10):
        emulator.draw()
    emulator.usb.replug()
    table.events.wait_for_event(LinkUp, WAIT_S, mark)
    for _ in range(10):
        emulator.draw()
    table.events.wait_for(lambda events: sum(isinstance(e, CardDrawn) for e in events) >= 30,
                          10.0, mark)
    drawn = table.events.of(CardDrawn, mark)
    assert [card.count for card in drawn] == list(range(1, 31))
    assert [card.code for card in drawn] == deck()[:30]
    assert emulator.usb.host_writes > 0
    assert shoe.query_state().cards_out == 30


@pytest.mark.needs("usb", "emulated")
def test_a_second_program_cannot_claim_the_usb_shoe(usb_rig):
    emulator, shoe = usb_rig.emulators["shoe"], usb_rig.shoe
    second = UsbTransport(UsbPortConfig(*EMULATED_USB_IDS),
                          backend=EmulatedUsbBackend(emulator.usb))
    with pytest.raises(PortInUseError, match=r"^usb:1209:5353/EMU-SHOE-1: cannot open: the "
                                             "device is in use by another program"):
        second.open(lambda data: None, lambda: None, lambda error: None)
    assert shoe.link_up  # the table's own connection goes on
