"""The `JackpotSign` contract, run against every implementation that can run here."""

import pytest

from drivers.errors import DriverError
from drivers.events import LinkDown
from drivers.interfaces import JackpotSign


def test_is_a_jackpot_sign(sign_harness):
    assert isinstance(sign_harness.device, JackpotSign)
    assert sign_harness.device.link_up


def test_shows_amount_win_and_fault_in_order(sign_harness):
    sign = sign_harness.device
    sign.show_amount(1_234_56)
    sign.show_win(4, 5_000_00, hold_s=10)
    sign.show_fault("CHECK METER")
    assert sign_harness.shown() == [("amount", 1_234_56), ("win", 4, 5_000_00),
                                    ("fault", "CHECK METER")]


@pytest.mark.parametrize(("call", "message"), [
    (lambda sign: sign.show_amount(-5), r"amount: -5 cents is out of range"),
    (lambda sign: sign.show_win(0, 100), r"seat: 0 is out of range 1..9"),
    (lambda sign: sign.show_win(1, 100, hold_s=31), r"hold_s: 31 is out of range 1..30"),
    (lambda sign: sign.show_fault("X" * 17), r"text: .* at most 16"),
    (lambda sign: sign.show_fault("BELL\x07"), r"text: .* printable ASCII"),
])
def test_what_the_sign_cannot_show_is_refused_naming_the_device(sign_harness, call, message):
    with pytest.raises(DriverError, match=r"^\[devices.sign\] " + message):
        call(sign_harness.device)


def test_a_silent_sign_is_reported_down(sign_harness):
    sign_harness.silence()
    (down,) = sign_harness.recorder.wait_for(LinkDown, 1)
    assert down.device == "sign"
    assert not sign_harness.device.link_up


def test_close_is_idempotent(sign_harness):
    sign_harness.device.close()
    sign_harness.device.close()
    assert not sign_harness.device.link_up
