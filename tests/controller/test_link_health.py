"""Refused frames on the boards' lines: one journal record per burst, an alarm past a threshold."""

from __future__ import annotations

from controller.procedure.core.effects import Journal, OpLog
from controller.service.link_health import (
    ALARM_FRAMES,
    ALARM_HOLD_S,
    MAX_BURST_S,
    QUIET_S,
    LinkHealth,
)
from drivers.board import FrameFaults


class Lines:
    """Counters the test moves, and a clock it sets."""

    def __init__(self) -> None:
        self.now = 0.0
        self.shoe = FrameFaults()
        self.sign = FrameFaults()
        self.health = LinkHealth({"shoe": lambda: self.shoe, "sign": lambda: self.sign},
                                 lambda: self.now)

    def at(self, now: float) -> list[object]:
        self.now = now
        return list(self.health.check())


def records(effects: list[object]) -> list[dict[str, object]]:
    return [e.data for e in effects if isinstance(e, Journal) and e.kind == "link:bad_frames"]


def test_a_burst_is_one_record_once_the_line_is_quiet() -> None:
    lines = Lines()
    assert lines.at(1.0) == []
    lines.shoe = FrameFaults(bad_mac=5)
    assert lines.at(2.0) == []  # the burst goes on
    lines.shoe = FrameFaults(bad_mac=12, replayed=6, crc=1)
    assert lines.at(3.0) == []
    assert lines.at(3.0 + QUIET_S - 0.5) == []
    effects = lines.at(3.0 + QUIET_S)
    assert records(effects) == [{
        "device": "shoe", "seconds": 1.0,
        "frames": {"bad_mac": 12, "replayed": 6, "counter_error": 0, "auth_mismatch": 0,
                   "crc": 1},
        "since_start": {"bad_mac": 12, "replayed": 6, "counter_error": 0,
                        "auth_mismatch": 0, "crc": 1}}]
    (line,) = [e for e in effects if isinstance(e, OpLog)]
    assert line.message == ("shoe: 19 frames refused on its line (12 with a wrong tag, "
                            "6 replayed, 1 damaged (CRC)); 19 since the table started")
    assert lines.at(20.0) == []  # nothing new: nothing more


def test_a_burst_that_goes_on_is_reported_every_max_burst_seconds() -> None:
    lines = Lines()
    reported = []
    for second in range(1, int(2 * MAX_BURST_S) + 3):  # one bad frame every second
        lines.sign = FrameFaults(crc=second)
        reported += records(lines.at(float(second)))
    # Seconds 1..31, then 32..62: a record each time the burst has lasted MAX_BURST_S.
    assert [r["frames"]["crc"] for r in reported] == [int(MAX_BURST_S) + 1] * 2
    assert {r["device"] for r in reported} == {"sign"}


def test_a_burst_past_the_threshold_is_shown_until_it_is_old() -> None:
    lines = Lines()
    lines.shoe = FrameFaults(bad_mac=ALARM_FRAMES - 1)
    lines.at(1.0)
    lines.at(1.0 + QUIET_S)
    assert lines.health.alarms() == {}  # below the threshold: journalled, not shown
    lines.shoe = FrameFaults(bad_mac=ALARM_FRAMES - 1, replayed=ALARM_FRAMES)
    lines.at(10.0)
    lines.at(10.0 + QUIET_S)
    assert lines.health.alarms() == {
        "shoe": f"{ALARM_FRAMES} frames refused on its line: {ALARM_FRAMES} replayed"}
    lines.now = 10.0 + ALARM_HOLD_S - 1
    assert "shoe" in lines.health.alarms()
    lines.now = 10.0 + ALARM_HOLD_S
    assert lines.health.alarms() == {}


def test_the_totals_add_up_what_every_line_refused() -> None:
    lines = Lines()
    lines.shoe, lines.sign = FrameFaults(bad_mac=2), FrameFaults(auth_mismatch=3)
    lines.at(1.0)
    totals = lines.health.totals()
    assert (totals["shoe"].total, totals["sign"].total) == (2, 3)
