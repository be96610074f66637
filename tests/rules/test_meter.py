"""Blazing 7's meter arithmetic (RULES.md "Progressive meter", decision 105 "Meter")."""

from controller.rules.meter import (
    MeterState,
    ProgressiveSettings,
    ProgressiveWin,
    accept_wagers,
    file_settings,
    new_meter,
    pay_share,
    settle_progressive,
)
from controller.rules.money import ForOne, MeterShare

SETTINGS = ProgressiveSettings(reset=1_000_000, increment=100)


def test_accepted_wagers_raise_the_meter() -> None:
    meter = accept_wagers(new_meter(SETTINGS), 3)
    assert meter.amount == 1_000_300


def test_limit_sends_the_rest_to_overflow_and_reserve_accumulates() -> None:
    settings = ProgressiveSettings(reset=1_000, increment=100, reserve=20, limit=1_150)
    meter = accept_wagers(new_meter(settings), 3)
    assert (meter.amount, meter.overflow, meter.reserve) == (1_150, 150, 60)


def test_ten_percent_hit_rounds_down_and_lowers_the_meter_by_exactly_that() -> None:
    meter, paid = pay_share(MeterState(1_234_567, SETTINGS), MeterShare(10))
    assert paid == 123_456
    assert meter.amount == 1_234_567 - 123_456


def test_full_hit_resets_and_applies_filed_settings_only_then() -> None:
    new = ProgressiveSettings(reset=2_000_000, increment=150)
    meter = file_settings(MeterState(1_500_000, SETTINGS), new)
    meter, _ = pay_share(meter, MeterShare(10))          # a 10% hit does not apply them
    assert meter.settings == SETTINGS
    assert meter.pending == new
    assert accept_wagers(meter, 1).amount == meter.amount + 100
    meter, paid = pay_share(meter, MeterShare(100))
    assert paid == 1_350_000
    assert (meter.amount, meter.settings, meter.pending) == (2_000_000, new, None)


def test_several_winners_settled_counter_clockwise() -> None:
    # decision 105 "Meter": highest seat first; a 100% hit resets, the next is paid from the reset.
    meter = MeterState(1_234_000, SETTINGS)
    wins = [ProgressiveWin(2, 500, MeterShare(10)), ProgressiveWin(6, 500, MeterShare(100)),
            ProgressiveWin(4, 500, ForOne(500)), ProgressiveWin(1, 500, None)]
    meter, nets = settle_progressive(meter, wins)
    assert nets == {6: 1_234_000 - 500, 4: 250_000 - 500, 2: 100_000 - 500, 1: -500}
    assert meter.amount == 1_000_000 - 100_000


def test_two_full_hits_in_one_round() -> None:
    meter, nets = settle_progressive(MeterState(1_500_000, SETTINGS), [
        ProgressiveWin(1, 500, MeterShare(100)), ProgressiveWin(3, 500, MeterShare(100))])
    assert nets == {3: 1_499_500, 1: 999_500}
    assert meter.amount == 1_000_000
