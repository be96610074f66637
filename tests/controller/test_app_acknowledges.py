"""`TableApp.handle` tells the shoe a record is handled only after the runtime returned."""

from pathlib import Path

import pytest

from controller.journal.store import JournalError
from controller.service.app import TableApp
from controller.service.loop import EventLoop
from drivers import events as ev
from drivers.registry import Devices
from tests.support.fakes import FakeShoe


class Runtime:
    def __init__(self, fail: bool = False) -> None:
        self.fail = fail
        self.seen: list[object] = []

    def handle(self, event: object) -> None:
        if self.fail:
            raise JournalError("disk full")
        self.seen.append(event)


def table_app(tmp_path: Path, runtime: Runtime) -> tuple[TableApp, FakeShoe]:
    shoe = FakeShoe("shoe", lambda event: None)
    app = TableApp(table=None, devices=Devices(shoe=shoe), loop=EventLoop(print),  # type: ignore[arg-type]
                   state_dir=tmp_path, runtime=runtime)  # type: ignore[arg-type]
    return app, shoe


def test_the_shoes_records_are_declared_handled_after_the_runtime_took_them(
    tmp_path: Path,
) -> None:
    runtime = Runtime()
    app, shoe = table_app(tmp_path, runtime)
    records = [ev.ShoeLoaded("shoe", 0.0),
               ev.ShoeFault("shoe", ev.ShoeFaultKind.UNREADABLE, 1, True, 0.0),
               ev.CardDrawn("shoe", 1, None, 0, 0.0)]
    others = [ev.LinkUp("shoe", "ok", 0.0), ev.ButtonPressed("layout", "hit", 0.0)]
    for event in [*records, *others]:
        app.handle(event)
    assert runtime.seen == [*records, *others]
    assert shoe.handled_records == records


def test_nothing_is_declared_handled_when_the_runtime_fails(tmp_path: Path) -> None:
    app, shoe = table_app(tmp_path, Runtime(fail=True))
    with pytest.raises(JournalError):
        app.handle(ev.CardDrawn("shoe", 1, "AS", 100, 0.0))
    assert shoe.handled_records == []
