"""The loop's exception boundary and its bounded queue (R9, R14).

An exception that escapes the loop drives every output safe, is journalled as `system:crash`
(never as an orderly power-off, and never with a card in it) and ends `shoectl run` with a
non-zero status; a journal that is itself what failed still gets the outputs driven safe; a
full event queue stops the table the same way instead of growing without limit.
"""

from __future__ import annotations

import signal
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from controller.cli import run_command
from controller.journal.store import JournalError
from controller.service.app import TableApp
from controller.service.crash import TableCrashError, crash_report, mask_cards
from controller.service.loop import EventLoop, EventQueueFullError
from controller.service.runtime import RuntimeCall, TableRuntime
from drivers.config import parse_devices
from drivers.interfaces import LampMode
from drivers.registry import Devices
from tests.controller.helpers import runtime
from tests.support.clock import FakeClock
from tests.support.fakes import FakeLayout, FakeSign

LAYOUT = {"kind": "emulated", "lamps": {"fault": 0, "no_more_bets": 1, "shuffle": 2},
          "bet_sensors": {}, "buttons": {}}


def table(tmp_path: Path, max_events: int = 10_000) -> tuple[TableApp, FakeLayout, FakeSign]:
    """A started table on fake devices (their links up), a fake clock, a real journal."""
    config = parse_devices({"layout": LAYOUT}, allow_emulated=True, camera_kinds=())
    assert config.layout is not None
    layout = FakeLayout(config.layout, lambda event: None)
    sign = FakeSign("sign", lambda event: None)
    layout.start()
    sign.start()
    rt = runtime(tmp_path)
    loop = EventLoop(rt.handle, clock=FakeClock(), max_events=max_events)
    app = TableApp(table=None, devices=Devices(layout=layout, sign=sign),  # type: ignore[arg-type]
                   loop=loop, state_dir=tmp_path, runtime=rt)
    return app, layout, sign


def fail_with(error: Exception) -> RuntimeCall:
    def run(_runtime: TableRuntime) -> None:
        raise error
    return RuntimeCall(run)


def records(app: TableApp, kind: str) -> list[dict[str, Any]]:
    assert app.runtime is not None
    return [e.data for e in app.runtime.journal.entries([kind])]


def test_a_crash_drives_the_outputs_safe_and_is_journalled_as_a_crash(tmp_path: Path) -> None:
    app, layout, sign = table(tmp_path)
    assert app.runtime is not None
    app.runtime.fire("shuffle_done")
    app.loop.post(fail_with(KeyError("dealer hole 7S under TH")))
    with pytest.raises(TableCrashError) as raised:
        app.run_forever()
    assert not raised.value.journal_failed
    assert raised.value.journalled
    assert layout.lamps == {"fault": LampMode.FLASH, "no_more_bets": LampMode.OFF,
                            "shuffle": LampMode.OFF}
    assert sign.shown[-1][1:] == ("fault", ("PROGRESSIVE OFF",))
    (crash,) = records(app, "system:crash")
    assert crash["error"] == "KeyError"
    assert crash["message"] == "'dealer hole ?? under ??'"
    assert crash["state"] == "betting"
    assert crash["round"] == 1
    assert crash["stack"][-1].startswith("tests/controller/test_crash_boundary.py:")
    app.close("table crashed")
    again = runtime(tmp_path)
    assert [e.kind for e in again.journal.entries()][-2:] == ["system:crash", "power:on"]
    power_on = [e.data for e in again.journal.entries(["power:on"])][-1]
    assert power_on["clean_shutdown"] is False
    assert power_on["after_crash"] is True


def test_an_orderly_stop_is_still_a_clean_shutdown(tmp_path: Path) -> None:
    app, _layout, _sign = table(tmp_path)
    app.loop.stop()
    app.run_forever()
    app.close("service stopped")
    again = runtime(tmp_path)
    power_on = [e.data for e in again.journal.entries(["power:on"])][-1]
    assert power_on["clean_shutdown"] is True
    assert power_on["after_crash"] is False


def test_a_failed_journal_still_gets_the_outputs_driven_safe(tmp_path: Path,
                                                             caplog: pytest.LogCaptureFixture,
                                                             ) -> None:
    app, layout, sign = table(tmp_path)
    assert app.runtime is not None
    journal = app.runtime.journal

    def refuse(*_args: object) -> int:
        raise JournalError("journal: write failed: database or disk is full")
    journal.commit = refuse  # type: ignore[method-assign]
    app.loop.post(RuntimeCall(lambda rt: rt.record("test:anything", {})))
    with pytest.raises(TableCrashError) as raised:
        app.run_forever()
    assert raised.value.journal_failed
    assert not raised.value.journalled
    assert layout.lamps["fault"] is LampMode.FLASH
    assert sign.shown[-1][1:] == ("fault", ("PROGRESSIVE OFF",))
    assert "system:crash not journalled: JournalError" in caplog.text


def test_the_event_queue_is_bounded_and_a_full_one_stops_the_table(
    tmp_path: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    app, layout, _sign = table(tmp_path, max_events=5)
    for _ in range(8):
        app.loop.post(RuntimeCall(lambda rt: None))
    assert app.loop.pending() == 5
    assert app.loop.dropped == 3
    full = [r.getMessage() for r in caplog.records if "event queue full" in r.getMessage()]
    assert full == ["event queue full: the loop's queue holds its bound of 5 events; "
                    "the table stops"]
    with pytest.raises(TableCrashError):
        app.run_forever()
    (crash,) = records(app, "system:crash")
    assert crash["error"] == "EventQueueFullError"
    assert crash["message"] == "the event loop's queue reached its bound of 5 events (3 dropped)"
    assert layout.lamps["fault"] is LampMode.FLASH


def test_the_loop_handles_nothing_once_an_event_was_dropped() -> None:
    seen: list[int] = []
    loop = EventLoop(seen.append, clock=FakeClock(), max_events=2)
    for n in range(3):
        loop.post(n)
    with pytest.raises(EventQueueFullError):
        loop.run_until_idle()
    assert seen == []


def test_the_default_bound_is_ten_thousand_events() -> None:
    loop = EventLoop(lambda event: None, clock=FakeClock())
    for n in range(10_001):
        loop.post(n)
    assert loop.pending() == 10_000
    assert loop.dropped == 1


def test_card_codes_never_reach_a_crash_report() -> None:
    assert mask_cards("hole 10D, up AS; QH 2C") == "hole ??, up ??; ?? ??"
    assert mask_cards("ASSERT KCX 7SS") == "ASSERT KCX 7SS"
    report = crash_report(ValueError("no card 9H here"))
    assert report.message == "no card ?? here"
    assert report.line().startswith("ValueError: ")


@pytest.mark.parametrize(("journal_failed", "status"), [(False, 5), (True, 1)])
def test_shoectl_run_exits_non_zero_after_a_crash(journal_failed: bool, status: int) -> None:
    closed: list[str] = []

    class CrashingApp:
        crashed: object = None

        def start(self) -> Any:
            return SimpleNamespace(watchers=[])

        def run_forever(self) -> None:
            self.crashed = crash_report(RuntimeError("boom"))
            raise TableCrashError(self.crashed, journal_failed=journal_failed,  # type: ignore[arg-type]
                                  journalled=True)

        def close(self, reason: str) -> None:
            closed.append(reason)

    web = SimpleNamespace(attach=lambda runtime: None)
    handlers = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
    try:
        assert run_command._serve(CrashingApp(), web) == status  # type: ignore[arg-type]
    finally:
        signal.signal(signal.SIGTERM, handlers[0])
        signal.signal(signal.SIGINT, handlers[1])
    assert closed == ["table crashed"]
