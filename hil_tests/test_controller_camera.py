"""The camera cross-check on the emulated table: the whole controller over pseudo-terminals
plus the emulated overhead camera (`shoectl simulate --camera`), the recogniser on the camera
worker's thread, and the supervisor key on the emulated layout board (R9)."""

import json
import random
import re
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.cli import simulate_command
from controller.journal.store import JournalStore
from controller.rules.cards import shoe
from controller.rules.strategy import BasicStrategyPolicy
from controller.service.app import TableApp
from controller.sim import rig

pytestmark = pytest.mark.needs("shoe", "layout", "sign", "emulated")


def journal_kinds(state: Path) -> Counter[str]:
    store = JournalStore(state, clock=time.monotonic)
    try:
        return Counter(e.kind for e in store.entries())
    finally:
        store.close()


def cards_on_the_layout(records: list[dict]) -> int:
    return sum(len(r["dealer"]) + sum(len(h["cards"]) for s in r["seats"] for h in s["hands"])
               for r in records)


def test_simulate_with_the_camera_checks_every_card_and_plays_the_same(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cards = [str(c) for c in shoe(6)]
    random.Random(8).shuffle(cards)
    path = tmp_path / "shoe.txt"
    path.write_text("\n".join(cards[:40]) + "\n")
    common = ["--shoe-file", str(path), "--seats", "3", "--rounds", "100", "--json",
              "--bets", "main=1000,blazing7s=500"]
    assert simulate_command.main([*common, "--state-dir", str(tmp_path / "plain")]) == 0
    plain = capsys.readouterr().out
    camera_dir = str(tmp_path / "camera")
    assert simulate_command.main([*common, "--camera", "--state-dir", camera_dir]) == 0
    out, err = capsys.readouterr()
    assert out == plain  # the cross-check watches; it changes nothing in play
    records = [json.loads(line) for line in out.splitlines()]
    assert records
    kinds = journal_kinds(tmp_path / "camera")
    assert kinds["camera:mismatch"] == kinds["camera:phantom"] == 0
    assert kinds["camera:match"] + kinds["camera:unconfirmed"] == cards_on_the_layout(records)
    assert kinds["camera:match"] >= 0.9 * cards_on_the_layout(records)
    checked = re.search(r"camera-checked (\d+)", err)
    assert checked is not None, err
    assert int(checked.group(1)) == kinds["camera:match"]


@pytest.fixture
def app(tmp_path: Path) -> Iterator[TableApp]:
    opts = simulate_command.parse_options(["--camera"])
    built = rig.start_rig_app("test", opts.config,
                                   rig.RigSpec(3, 5, camera=True, burn=False),
                                   state_dir=tmp_path / "state", ports=tmp_path / "ports")
    try:
        yield built
    finally:
        built.close("test over")


def test_a_card_the_shoe_never_dealt_holds_the_table_until_the_supervisor_key(
        app: TableApp) -> None:
    plan = rig.RigPlan(3, 5, {"main": 1000}, BasicStrategyPolicy(), 5, camera=True)
    sim = rig.PtySimulation(app, plan)
    model = app.runtime.model
    sim.step()  # shuffle_done
    while model.state == "betting":
        sim.step()
    sim.step()  # seat 1's first card, confirmed
    assert model.state == "dealing"
    camera = app.devices.emulators["camera"]
    camera.deal("seat2", "KH")  # a card slipped onto the layout
    camera.deal("seat2", "KC")
    sim.step()  # seat 2's card: its frame shows the strays
    assert model.state == "fault"
    assert not sim.step()  # the auto-dealer stops at the hold
    assert "SUPERVISOR KEY REQUIRED" in app.outputs.dealer_text
    app.devices.emulators["layout"].click(rig.BUTTON_NUMBERS["no_insurance"])
    app.loop.run_until(lambda: False, 0.5)
    assert model.state == "fault"  # a dealer button does not clear it
    camera.show({k: [c for c in v if c not in ("KH", "KC")]
                 for k, v in camera.layout().items()})
    app.devices.emulators["layout"].turn_key("supervisor")
    assert app.loop.run_until(lambda: model.state == "dealing", 10)
    kinds = journal_kinds(app.state_dir)
    assert kinds["camera:phantom"] + kinds["camera:mismatch"] == 1
    assert kinds["supervisor:clear"] == 1
