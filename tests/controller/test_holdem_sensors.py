"""Hold'em ante and bonus from the layout's bet sensors, over the layout board's real link.

The table runs on the emulated rig: the layout board's emulator behind a pty, the real
driver reading its frames. A chip on `seat<n>.ante` puts the seat in play; its amount is the
table's fixed amount for that sensor (`[table] sensor_cents`) or the one entered at the
console; with neither, no more bets (the layout's button) is refused and the console says
what to do, one line.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from controller.cli import simulate_command
from controller.console.prompts import prompt
from controller.procedure.holdem import HoldemModel
from controller.rules.errors import ConfigError
from controller.service.app import TableApp, build_app
from controller.service.runtime import ControllerEvent
from controller.service.tableconfig import TableFile
from controller.sim.games.holdem import RIG_CAMERA, RIG_LAMPS, RIG_VISION
from drivers.emulated.layout import LayoutEmulator
from drivers.registry import BuildOptions

WAIT_S = 60.0
"""A limit for a stuck link, not a speed."""
SPOTS = {"seat1.ante": 1, "seat1.bonus": 2, "seat2.ante": 3, "seat2.bonus": 4, "seat3.bonus": 6}
FIXED = (("seat1.ante", 1000), ("seat1.bonus", 500))
BUTTON = 0


def _devices(sensors: dict[str, int]) -> dict[str, Any]:
    return {"layout": {"kind": "emulated", "lamps": dict(RIG_LAMPS), "bet_sensors": sensors,
                       "buttons": {"no_more_bets": BUTTON}},
            "camera": {**RIG_CAMERA, "seed": 1}}


def _build(tmp: Path, fixed: tuple[tuple[str, int], ...],
           sensors: dict[str, int]) -> TableApp:
    config = simulate_command.parse_options(["--game", "holdem", "--seats", "3"]).config
    config = replace(config, table=replace(config.table, sensor_cents=fixed))
    devices = _devices(sensors)
    (tmp / "ports").mkdir(exist_ok=True)
    return build_app(TableFile("sensors", config, {"devices": devices, "vision": RIG_VISION}),
                     allow_emulated=True, state_dir=tmp / "state", devices=devices,
                     options=BuildOptions(workdir=tmp / "ports"))


@pytest.fixture
def app(tmp_path: Path) -> Iterator[TableApp]:
    table = _build(tmp_path, FIXED, SPOTS)
    table.start()
    _until(table, lambda: _started(table))
    try:
        yield table
    finally:
        table.close("test finished")


def _model(app: TableApp) -> HoldemModel:
    assert app.runtime is not None
    model = app.runtime.model
    assert isinstance(model, HoldemModel)
    return model


def _until(app: TableApp, done: Callable[[], object]) -> None:
    assert app.loop.run_until(lambda: bool(done()), WAIT_S)


def _chip(app: TableApp, sensor: str, *, on: bool = True) -> None:
    """A chip put on (or taken off) a spot of the emulated board, read back over its link."""
    layout = app.devices.emulators["layout"]
    (layout.place_chip if on else layout.remove_chip)(SPOTS[sensor])
    _until(app, lambda: _model(app).wagers.sensors.get(sensor, False) is on)


def _press_no_more_bets(app: TableApp) -> None:
    assert app.runtime is not None
    runtime = app.runtime
    before = runtime.handled_kinds.get("ButtonPressed", 0)
    app.devices.emulators["layout"].click(BUTTON)
    _until(app, lambda: runtime.handled_kinds.get("ButtonPressed", 0) > before)


def _command(app: TableApp, trigger: str, **kwargs: Any) -> None:
    assert app.runtime is not None
    runtime = app.runtime
    before = runtime.handled_kinds.get("ControllerEvent", 0)
    app.loop.post(ControllerEvent(trigger, {**kwargs, "source": "console"}))
    _until(app, lambda: runtime.handled_kinds.get("ControllerEvent", 0) > before)


def _started(app: TableApp) -> bool:
    """Whether the board's report of every spot at start has been handled."""
    assert app.runtime is not None
    return app.runtime.handled_kinds.get("BetSensorChanged", 0) >= len(SPOTS)


def _changes(app: TableApp) -> list[dict[str, Any]]:
    """The `bet:sensor` records after those of the spots as they were at start."""
    return _records(app, "bet:sensor")[len(SPOTS):]


def _antes(app: TableApp) -> list[dict[str, Any]]:
    return [data["seats"] for data in _records(app, "holdem:antes")]


def _records(app: TableApp, kind: str) -> list[dict[str, Any]]:
    assert app.runtime is not None
    return [e.data for e in app.runtime.journal.entries() if e.kind == kind]


def test_a_sensed_ante_plays_at_its_fixed_amount_and_an_unknown_one_waits(app: TableApp) -> None:
    model = _model(app)
    _command(app, "shuffle_done")
    _chip(app, "seat1.ante")
    _chip(app, "seat1.bonus")
    assert model.wagers.seats_in_play() == {1: 1000}
    assert model.wagers.betting() == {"1": {"ante": 1000, "bonus": 500, "ante_sensed": True,
                                            "bonus_sensed": True}}
    _chip(app, "seat2.ante")  # no fixed amount for seat 2: in play, amount not known
    assert model.wagers.seats_in_play() == {1: 1000, 2: None}
    _press_no_more_bets(app)
    assert model.state == "betting"
    assert prompt(model) == (
        "chips on seat2.ante have no amount: enter it (tap the seat, ANTE or BONUS, the "
        "chips, DONE) or set it in [table] sensor_cents; no more bets waits for it")
    _command(app, "wager", seat=2, bet="ante", cents=2500)
    _press_no_more_bets(app)
    assert model.state == "dealing"
    assert _antes(app) == [{"1": {"ante": 1000, "bonus": 500}, "2": {"ante": 2500, "bonus": 0}}]
    assert _records(app, "holdem:antes")[0]["fixed"] == ["seat1.ante", "seat1.bonus"]
    sensed = [(r["sensor"], r["occupied"], r["counted"]) for r in _changes(app)]
    assert sensed == [("seat1.ante", True, True), ("seat1.bonus", True, True),
                      ("seat2.ante", True, True)]


def test_an_entered_amount_takes_the_place_of_the_fixed_one(app: TableApp) -> None:
    model = _model(app)
    _command(app, "shuffle_done")
    _chip(app, "seat1.ante")
    _command(app, "wager", seat=1, bet="ante", cents=5000)
    _press_no_more_bets(app)
    assert model.state == "dealing"
    assert _antes(app) == [{"1": {"ante": 5000, "bonus": 0}}]
    assert _records(app, "holdem:antes")[0]["fixed"] == []  # the entered amount, not the file's


def test_chips_taken_off_the_ante_spot_take_the_seat_out(app: TableApp) -> None:
    model = _model(app)
    _command(app, "shuffle_done")
    _chip(app, "seat1.ante")
    _chip(app, "seat2.ante")
    _chip(app, "seat2.ante", on=False)
    assert model.wagers.seats_in_play() == {1: 1000}
    _press_no_more_bets(app)
    assert _antes(app) == [{"1": {"ante": 1000, "bonus": 0}}]


def test_a_bonus_without_an_ante_waits_with_one_line(app: TableApp) -> None:
    model = _model(app)
    _command(app, "shuffle_done")
    _command(app, "wager", seat=2, bet="ante", cents=1000)
    _chip(app, "seat1.bonus")  # its amount is fixed, but seat 1 has no ante
    _command(app, "wager", seat=3, bet="bonus", cents=500)  # refused: no ante
    assert model.wagers.betting()["1"] == {"ante": None, "bonus": 500, "ante_sensed": False,
                                           "bonus_sensed": True}
    assert "3" not in model.wagers.betting()
    _press_no_more_bets(app)
    assert model.state == "betting"
    assert prompt(model) == "a bonus needs an ante: seat 1 has chips on its bonus spot and " \
                            "none on its ante"
    _chip(app, "seat1.bonus", on=False)
    _press_no_more_bets(app)
    assert model.state == "dealing"
    assert _antes(app) == [{"2": {"ante": 1000, "bonus": 0}}]


def test_chips_put_down_while_the_deck_is_shuffled_count_when_betting_opens(
        app: TableApp) -> None:
    model = _model(app)
    assert model.state == "shuffling"
    layout = app.devices.emulators["layout"]
    for sensor in ("seat1.ante", "seat2.ante"):
        layout.place_chip(SPOTS[sensor])
    layout.remove_chip(SPOTS["seat2.ante"])  # taken back before betting opens
    _until(app, lambda: len(_changes(app)) == 3)
    assert {r["counted"] for r in _records(app, "bet:sensor")} == {False}
    assert model.wagers.seats_in_play() == {}
    _command(app, "shuffle_done")
    assert model.state == "betting"
    assert model.wagers.seats_in_play() == {1: 1000}
    _press_no_more_bets(app)
    assert _antes(app) == [{"1": {"ante": 1000, "bonus": 0}}]
    app.devices.emulators["layout"].place_chip(SPOTS["seat2.ante"])
    _until(app, lambda: len(_changes(app)) == 4)
    assert _changes(app)[-1] == {"sensor": "seat2.ante", "occupied": True,
                                               "counted": False}  # locked out (R10)
    assert model.wagers.seats_in_play() == {1: 1000}
    assert model.wagers.present["seat2.ante"]  # lies there for the next round


def test_a_fixed_amount_for_a_sensor_the_layout_lacks_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"^\[table\] sensor_cents: seat3\.ante is not one "
                                          r"of \[devices\.layout\] bet_sensors \(seat1\.ante, "):
        _build(tmp_path, (("seat3.ante", 1000),), SPOTS)


@pytest.fixture
def board(tmp_path: Path) -> Iterator[LayoutEmulator]:
    """A layout board that stays powered while the table restarts."""
    emulator = LayoutEmulator(link_dir=tmp_path).start()
    try:
        yield emulator
    finally:
        emulator.close()


def _on_board(tmp: Path, board: LayoutEmulator) -> TableApp:
    """The table over `board`'s pty (its own process would see the same bytes)."""
    config = simulate_command.parse_options(["--game", "holdem", "--seats", "3"]).config
    config = replace(config, table=replace(config.table, sensor_cents=FIXED))
    devices = {**_devices(SPOTS), "layout": {
        "kind": "serial", "url": board.path, "auth": "none", "firmware": [board.firmware_version],
        "lamps": dict(RIG_LAMPS), "bet_sensors": SPOTS, "buttons": {"no_more_bets": BUTTON}}}
    (tmp / "ports").mkdir(exist_ok=True)
    table = build_app(TableFile("restart", config, {"devices": devices, "vision": RIG_VISION}),
                      allow_emulated=True, state_dir=tmp / "state", devices=devices,
                      options=BuildOptions(workdir=tmp / "ports"))
    table.start()
    _until(table, lambda: _started(table))
    return table


def test_after_a_restart_the_spots_are_as_the_board_says(tmp_path: Path,
                                                         board: LayoutEmulator) -> None:
    """Chips put down while the table was off count; chips taken off meanwhile do not."""
    table = _on_board(tmp_path, board)
    _command(table, "shuffle_done")
    board.place_chip(SPOTS["seat1.ante"])
    _until(table, lambda: _model(table).wagers.seats_in_play() == {1: 1000})
    table.close("restart")
    board.remove_chip(SPOTS["seat1.ante"])  # while the table is off
    board.place_chip(SPOTS["seat2.ante"])
    table = _on_board(tmp_path, board)
    try:
        model = _model(table)
        assert model.state == "betting"  # restored mid-betting from its journal
        assert model.wagers.seats_in_play() == {2: None}
        assert model.wagers.present == {"seat1.ante": False, "seat1.bonus": False,
                                        "seat2.ante": True, "seat2.bonus": False,
                                        "seat3.bonus": False}
    finally:
        table.close("test finished")


def test_chips_lying_on_a_spot_when_the_table_starts_play_when_betting_opens(
        tmp_path: Path, board: LayoutEmulator) -> None:
    board.place_chip(SPOTS["seat1.ante"])
    table = _on_board(tmp_path, board)
    try:
        assert _model(table).state == "shuffling"
        _command(table, "shuffle_done")
        assert _model(table).wagers.seats_in_play() == {1: 1000}
    finally:
        table.close("test finished")
