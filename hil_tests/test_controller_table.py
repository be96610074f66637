"""The whole controller over pseudo-terminals: real drivers and firmware_bridge against the
byte-level emulators of the shoe, the layout board and the sign."""

import json
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.cli import simulate_command
from controller.rules.cards import shoe
from controller.rules.strategy import BasicStrategyPolicy
from controller.service.app import TableApp, build_app
from controller.service.runtime import ControllerEvent
from controller.service.tableconfig import TableFile
from controller.sim import rig
from drivers.registry import BuildOptions
from firmware_bridge import write_key_file
from tests.controller.helpers import SCRIPT_BETS, reference_rounds

pytestmark = pytest.mark.needs("shoe", "layout", "sign", "emulated")

BETS = SCRIPT_BETS


def options(game: str, extra: list[str] = ()):
    return simulate_command.parse_options(["--game", game, *extra])


def reference(game: str, cards: list[str]) -> list[dict]:
    opts = options(game, ["--bets", BETS[game], "--seats", "4"])
    return reference_rounds(opts.config, opts.bets, cards)


@pytest.mark.parametrize("game", ["blackjack", "spanish21", "baccarat"])
def test_scripted_shoes_over_ptys_match_the_reference_dealer(tmp_path: Path, game: str,
                                                             capsys) -> None:
    cards = [str(c) for c in shoe(8 if game == "baccarat" else 6, spanish=game == "spanish21")]
    random.Random(21).shuffle(cards)
    cards = cards[:90]
    path = tmp_path / "shoe.txt"
    path.write_text("\n".join(cards) + "\n")
    assert simulate_command.main(["--game", game, "--shoe-file", str(path), "--json",
                                  "--seats", "4",
                          "--rounds", "1000", "--bets", BETS[game],
                          "--state-dir", str(tmp_path / "state")]) == 0
    out = capsys.readouterr().out
    mine = [json.loads(line) for line in out.splitlines()]
    assert mine == reference(game, cards)
    assert mine


@pytest.fixture
def app(tmp_path: Path) -> Iterator[TableApp]:
    built = rig.start_rig_app("test", options("blackjack").config,
                                   rig.RigSpec(3, 1, burn=False),
                                   state_dir=tmp_path / "state", ports=tmp_path / "ports")
    try:
        yield built
    finally:
        built.devices.close()


def driver(app: TableApp) -> rig.PtySimulation:
    plan = rig.RigPlan(3, 1, {"main": 1000, "blazing7s": 500}, BasicStrategyPolicy(), 1)
    return rig.PtySimulation(app, plan)


def lamp(app: TableApp, name: str) -> str:
    layout = app.devices.emulators["layout"]
    number = {n: i for i, n in enumerate(rig.BASE_LAMPS)}.get(name)
    if number is None:
        seat, what = name.split(".")
        seat_no = int(seat.removeprefix("seat"))
        number = len(rig.BASE_LAMPS) + 2 * seat_no - (2 if what == "turn" else 1)
    layout.wait_until(lambda: True, 0.05)
    return layout.lamp(number)


def test_lock_out_lamps_and_sign_reach_the_boards(app: TableApp) -> None:
    sim = driver(app)
    sim.step()  # shuffle_done button
    assert app.runtime.model.state == "betting"
    while app.runtime.model.state == "betting":
        sim.step()
    sign = app.devices.emulators["sign"]
    assert sign.wait_until(lambda: sign.display()[1] == 1_000_300)
    layout = app.devices.emulators["layout"]
    assert layout.wait_until(lambda: lamp(app, "seat2.blazing7s") == "on")
    assert lamp(app, "no_more_bets") == "on"
    assert app.outputs.dealer_text == "DEAL SEAT 1"


def test_sign_silence_refuses_progressive_until_it_answers(app: TableApp) -> None:
    sign = app.devices.emulators["sign"]
    model = app.runtime.model
    sim = driver(app)

    def kinds() -> list[str]:
        return [e.kind for e in app.runtime.journal.entries()]

    while model.state != "betting":
        sim.step()
    assert model.progressive.is_open()
    ups = kinds().count("link:up")
    sign.go_silent()
    assert app.loop.run_until(lambda: "link:down" in kinds(), 10)
    assert not model.progressive.is_open()
    lost_in = model.round.number
    sign.answer_again()
    assert app.loop.run_until(lambda: kinds().count("link:up") > ups, 10)
    # Back, but the betting in which the sign was lost stays closed to the progressive ...
    assert not model.progressive.is_open()
    for _ in range(2000):  # ... until the next round's betting opens
        if model.round.number != lost_in and model.state == "betting":
            break
        sim.step()
    assert model.round.number != lost_in
    assert model.progressive.is_open()


def test_unreadable_card_holds_the_table_until_the_supervisor_key(app: TableApp) -> None:
    sim = driver(app)
    sim.step()
    while app.runtime.model.state == "betting":
        sim.step()
    shoe_emulator = app.devices.emulators["shoe"]
    shoe_emulator.unreadable_next()
    shoe_emulator.draw()
    assert app.loop.run_until(lambda: app.runtime.model.state == "shoe_error", 10)
    app.loop.post(ControllerEvent("no_insurance", {}))  # a dealer button cannot clear it
    app.loop.run_until_idle()
    assert app.runtime.model.state == "shoe_error"
    app.devices.emulators["layout"].turn_key("supervisor")
    assert app.loop.run_until(lambda: app.runtime.model.state == "dealing", 10)
    layout = app.devices.emulators["layout"]
    assert layout.wait_until(lambda: lamp(app, "fault") == "off")


def test_a_card_received_but_never_journalled_is_taken_after_a_power_loss(
    tmp_path: Path, app: TableApp
) -> None:
    sim = driver(app)
    sim.step()
    while app.runtime.model.state == "betting":
        sim.step()
    last = app.runtime.model.shoe.tally.last_card_no
    shoe_emulator = app.devices.emulators["shoe"]
    waiting = app.loop.pending()
    shoe_emulator.draw()
    # The card reaches the controller's loop, which never gets to journal it: the Pi loses
    # power. The shoe board keeps its power, and the card it was never told was handled.
    assert shoe_emulator.wait_until(lambda: app.loop.pending() > waiting, 5)
    for device in app.devices.all():
        device.close()
    app.runtime.journal.close()
    for name, emulator in app.devices.emulators.items():
        if name != "shoe":
            emulator.close()
    assert shoe_emulator.stats().events_pending == 2  # card_read and card_out
    opts = options("blackjack")
    devices = rig.rig_devices(opts.config.table, 3, 1, None)
    key_file = tmp_path / "shoe.key"  # the same board, as a real one: its key, its firmware
    write_key_file(key_file, shoe_emulator.pairing)
    devices["shoe"] = {"kind": "serial", "url": shoe_emulator.path, "key_file": str(key_file),
                       "firmware": [shoe_emulator.firmware_version]}
    (tmp_path / "ports2").mkdir()
    again = build_app(TableFile("test", opts.config, {"devices": devices}),
                      allow_emulated=True, state_dir=app.state_dir, devices=devices, burn=False,
                      options=BuildOptions(workdir=tmp_path / "ports2"))
    again.start()
    try:
        rig.wait_for_links(again)
        model = again.runtime.model
        assert again.loop.run_until(lambda: model.shoe.tally.last_card_no == last + 1, 10)
        assert model.state != "shoe_error"
        kinds = {entry.kind for entry in again.runtime.journal.entries(
            ["shoe:card_after_gap", "shoe:card_repeated"])}
        assert kinds == set()
        assert shoe_emulator.wait_until(lambda: shoe_emulator.stats().events_pending == 0, 5)
    finally:
        again.devices.close()


def test_a_restart_reasserts_the_lamps(tmp_path: Path, app: TableApp) -> None:
    sim = driver(app)
    sim.step()
    while app.runtime.model.state == "betting":
        sim.step()
    state_dir = app.state_dir
    app.devices.close()  # power lost: the boards go to their failsafe pattern
    opts = options("blackjack")
    devices = rig.rig_devices(opts.config.table, 3, 2, None)
    (tmp_path / "ports2").mkdir()
    again = build_app(TableFile("test", opts.config, {"devices": devices}),
                      allow_emulated=True, state_dir=state_dir, devices=devices, burn=False,
                      options=BuildOptions(workdir=tmp_path / "ports2"))
    again.start()
    try:
        rig.wait_for_links(again)
        assert again.runtime.model.state == "dealing"
        layout = again.devices.emulators["layout"]
        assert layout.wait_until(lambda: lamp(again, "seat1.blazing7s") == "on")
        assert lamp(again, "no_more_bets") == "on"
    finally:
        again.devices.close()
