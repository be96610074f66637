"""The whole controller over ptys, and what the links now refuse (PROTOCOL.md 4, 10, 12).

Supervisor actions are taken only from a key switch that proved itself (the Pi's GPIO, or a
board paired with this Pi) and journalled with which switch it was; a forged board swapped
in for the layout board never moves the meter; and a hold is not cleared while the shoe
still reports its lid open.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from controller.cli import bridge_command, simulate_command
from controller.console.prompts import faults
from controller.procedure.core.model import HOLD_STATES
from controller.service.app import TableApp, build_app
from controller.service.tableconfig import TableFile
from controller.sim import rig
from drivers.emulated.layout import LayoutEmulator
from drivers.registry import BuildOptions
from firmware_bridge import PairingKey
from firmware_bridge.framing import FrameDecoder, FrameKind, encode_frame

pytestmark = pytest.mark.needs("shoe", "layout", "sign", "emulated")
WAIT = 20.0  # an upper bound for a loaded machine


def start(tmp_path: Path, layout_auth: str = "paired") -> TableApp:
    config = simulate_command.parse_options([]).config
    devices: dict[str, Any] = rig.rig_devices(config.table, 3, 1, None)
    devices["layout"]["auth"] = layout_auth
    (tmp_path / "ports").mkdir()
    app = build_app(TableFile("links", config, {"devices": devices}), allow_emulated=True,
                    state_dir=tmp_path / "state", devices=devices, burn=False,
                    options=BuildOptions(workdir=tmp_path / "ports"))
    app.start()
    rig.wait_for_links(app)
    return app


@pytest.fixture
def app(tmp_path: Path) -> Iterator[TableApp]:
    built = start(tmp_path)
    try:
        yield built
    finally:
        built.devices.close()


def records(app: TableApp, kind: str) -> list[dict[str, Any]]:
    assert app.runtime is not None
    return [entry.data for entry in app.runtime.journal.entries([kind])]


def turn(app: TableApp, position: str, journalled: str) -> dict[str, Any]:
    """Turn the layout board's key; the journal record it makes."""
    before = len(records(app, journalled))
    app.devices.emulators["layout"].turn_key(position)
    assert app.loop.run_until(lambda: len(records(app, journalled)) > before, WAIT)
    return records(app, journalled)[-1]


def test_a_supervisor_action_is_journalled_with_the_key_it_came_from(app: TableApp) -> None:
    layout = app.devices.emulators["layout"]
    key_on = turn(app, "supervisor", "supervisor:key_on")
    assert key_on == {"who": "layout:supervisor",
                      "key": f"layout board key switch, key {layout.pairing.key_id}"}


def test_a_board_without_a_key_moves_nothing(tmp_path: Path) -> None:
    app = start(tmp_path, layout_auth="none")
    try:
        assert app.runtime is not None
        meter = app.runtime.model.progressive.meters.amount
        refused = turn(app, "reset", "supervisor:key_refused")
        app.loop.run_until_idle()
        assert refused == {"device": "layout", "position": "reset",
                           "key": "layout board key switch, UNAUTHENTICATED"}
        assert records(app, "supervisor:key_on") == []
        assert records(app, "meter:correction") == []
        assert app.runtime.model.progressive.meters.amount == meter
        assert app.devices.unauthenticated == ("layout",)
    finally:
        app.devices.close()


def test_a_forged_layout_board_in_the_genuine_ones_place_moves_nothing(
    app: TableApp, tmp_path: Path,
) -> None:
    assert app.runtime is not None
    meter = app.runtime.model.progressive.meters.amount
    genuine = app.devices.emulators["layout"]
    genuine.close()
    with LayoutEmulator(link_dir=tmp_path / "ports", name="layout",
                        pairing=PairingKey.generate()) as forged:
        assert app.loop.run_until(lambda: app.runtime.model.state == "fault", WAIT)
        forged.turn_key("reset")
        forged.send_now()
        app.loop.run_until(lambda: False, 1.0)  # whatever the forged board can do, now
        assert forged.stats().link.sessions == 0
    holds = records(app, "procedure:hold")
    assert "failed authentication" in holds[-1]["reason"]
    assert records(app, "supervisor:key_on") == []
    assert records(app, "meter:correction") == []
    assert app.runtime.model.progressive.meters.amount == meter


def test_a_hold_is_not_cleared_while_the_shoe_reports_its_lid_open(app: TableApp) -> None:
    assert app.runtime is not None
    model = app.runtime.model
    sim = rig.PtySimulation(app, rig.RigPlan(3, 1, {"main": 1000}, None, 1))  # type: ignore[arg-type]
    sim.step()  # shuffle done: betting
    shoe = app.devices.emulators["shoe"]
    shoe.open_lid()
    assert app.loop.run_until(lambda: model.state in HOLD_STATES, WAIT)
    refused = turn(app, "supervisor", "supervisor:clear_refused")
    assert refused == {"who": "layout:supervisor", "shoe": ["lid_open"]}
    assert model.state in HOLD_STATES
    turn(app, "normal", "supervisor:key_off")
    shoe.close_lid()
    assert app.loop.run_until(lambda: not app.runtime.shoe_conditions, WAIT)
    turn(app, "supervisor", "supervisor:clear")
    assert model.state not in HOLD_STATES


def test_the_shoe_boards_shoe_loaded_is_the_end_of_the_shuffle(app: TableApp) -> None:
    # PROTOCOL.md 12: the table waits in shoe_loading for shoe_loaded (or the dealer's
    # shuffle-done button) and takes it as "the shuffle is done".
    assert app.runtime is not None
    model = app.runtime.model
    assert model.state == "shoe_loading"
    app.devices.emulators["shoe"].load()
    assert app.loop.run_until(lambda: model.state != "shoe_loading", WAIT)
    assert model.state in ("burn", "betting")
    assert [record["shuffle"] for record in records(app, "shoe:shuffled")] == [1]


def test_the_start_of_day_check_marks_a_board_without_a_key(tmp_path: Path) -> None:
    from controller.appliance import selftest
    from drivers.registry import build_devices

    devices = build_devices({"shoe": {"kind": "emulated", "auth": "none"}}, lambda event: None,
                            allow_emulated=True, options=BuildOptions(workdir=tmp_path))
    try:
        assert devices.shoe is not None
        handshake = selftest.check_shoe(devices.shoe)[0]
    finally:
        devices.close()
    assert handshake.passed
    assert handshake.detail == "answered (EMULATED) (UNAUTHENTICATED)"


def test_a_sign_unplugged_mid_shift_refuses_only_the_progressive(app: TableApp) -> None:
    from controller.service.runtime import ControllerEvent

    assert app.runtime is not None
    model = app.runtime.model
    sign, layout = app.devices.emulators["sign"], app.devices.emulators["layout"]
    sim = rig.PtySimulation(app, rig.RigPlan(3, 1, {"main": 1000}, None, 1))  # type: ignore[arg-type]
    sim.step()  # shuffle done: betting
    sign.unplug()
    assert app.loop.run_until(lambda: "sign" in model.progressive.links_down, WAIT)
    layout.place_chip(0)  # seat 1's Blazing 7's spot, over the layout board's link
    assert app.loop.run_until(lambda: model.wagers.sensors.get("seat1.blazing7s"), WAIT)
    app.loop.post(ControllerEvent("wager", {"seat": 1, "bet": "main", "cents": 1000}))
    layout.click(rig.BUTTON_NUMBERS["no_more_bets"])
    assert app.loop.run_until(lambda: records(app, "bet:lock_out") != [], WAIT)
    assert records(app, "bet:lock_out")[-1] == {
        "round": 1, "accepted_progressive": [], "refused_progressive": [1],
        "closed": "sign down"}
    assert model.state == "dealing"  # the rest of the table plays on
    sign.replug()
    assert app.loop.run_until(lambda: "sign" not in model.progressive.links_down, WAIT)
    amount = model.progressive.meters.amount
    assert app.loop.run_until(lambda: sign.display()[1:] == (amount, "PROGRESSIVE OFF"), WAIT)


def test_forged_and_replayed_frames_are_counted_journalled_and_shown(
    app: TableApp, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    assert app.runtime is not None
    shoe = app.devices.emulators["shoe"]
    sent: list[bytes] = []
    shoe.write_observer = sent.append  # what the genuine board writes in this session
    assert app.loop.run_until(lambda: len(sent) >= 6, WAIT)  # heartbeats, at least
    shoe.write_observer = None
    genuine = [frame for chunk in sent for frame in FrameDecoder().feed(chunk)
               if getattr(frame, "kind", None) in (FrameKind.ACK, FrameKind.DATA)]
    replays = [encode_frame(frame) for frame in genuine[:6]]
    forged = [encode_frame(replace(genuine[-1], counter=genuine[-1].counter + 100 + n,
                                   tag=bytes(8))) for n in range(12)]
    for wire in [*forged, *replays]:
        shoe.send_garbage(wire)  # a third party on the line, between the board's frames
    assert app.loop.run_until(lambda: records(app, "link:bad_frames") != [], WAIT)
    (burst,) = records(app, "link:bad_frames")
    assert burst["device"] == "shoe"
    assert (burst["frames"]["bad_mac"], burst["frames"]["replayed"]) == (12, 6)
    assert app.loop.run_until(lambda: app.runtime.model.link_alarms != {}, WAIT)
    # The fault area of the dealer's console and of the pit view.
    (shown,) = [f for f in faults(app.runtime.model) if f["kind"] == "bad_frames:shoe"]
    assert shown["detail"] == "18 frames refused on its line: 12 with a wrong tag, 6 replayed"
    assert "BAD FRAMES shoe 18" in app.status_line()
    assert app.runtime.model.state not in HOLD_STATES  # none was taken: the table goes on
    capsys.readouterr()
    assert bridge_command.main(["stats", "--state-dir", str(tmp_path / "state")]) == 0
    assert capsys.readouterr().out.startswith(
        "shoe: 18 frames refused in 1 burst (the last ended ")
    assert bridge_command.main(["stats", "--state-dir", str(tmp_path / "state"),
                                "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["shoe"]["frames"] == {"bad_mac": 12, "replayed": 6, "counter_error": 0,
                                       "auth_mismatch": 0, "crc": 0}
