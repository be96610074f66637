"""No card lost or taken twice when the shoe board power-cycles and the host restarts.

The shoe board (the byte-level emulator on a pty of its own) outlives the table: the table is
built on it, deals, is stopped without an orderly shutdown (nothing but its journal is left,
as after `kill -9`) and built again on the same journal while the board keeps running. The
order the issue found losing six cards: the board power-cycles in the middle of a shoe (the
table holds, the supervisor clears it, the restarted board's cards 1-3 are recorded as the
shoe's 7-9), then the host restarts; the board's next cards must be the shoe's 10, 11, ...
(PROTOCOL.md sections 9 and 12: the host keeps the board's boot and numbering with every card).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.cli import simulate_command
from controller.procedure.core.model import HOLD_STATES
from controller.rules.strategy import BasicStrategyPolicy
from controller.service.app import TableApp, build_app
from controller.service.tableconfig import TableFile
from controller.sim import rig
from drivers.emulated.shoe import ShoeEmulator
from drivers.emulated.shoe_model import ShoeContents, ShoePlan
from drivers.registry import BuildOptions
from firmware_bridge import PairingKey, write_key_file

pytestmark = pytest.mark.needs("layout", "sign", "emulated")
WAIT = 20.0  # an upper bound for a loaded machine


@pytest.fixture
def board(tmp_path: Path) -> Iterator[ShoeEmulator]:
    key = PairingKey.generate()
    write_key_file(tmp_path / "shoe.key", key)
    contents = ShoeContents.shuffled(ShoePlan(decks=2, seed=29, cut_card_from_end=20))
    with ShoeEmulator(contents, link_dir=tmp_path, name="shoe-board", pairing=key) as shoe:
        yield shoe


class Table:
    """One run of the table on the board: its own layout and sign, the board's shoe."""

    def __init__(self, tmp_path: Path, board: ShoeEmulator) -> None:
        config = simulate_command.parse_options([]).config
        devices: dict[str, Any] = rig.rig_devices(config.table, 2, 1, None)
        devices["shoe"] = {"kind": "serial", "url": board.path,
                           "key_file": str(tmp_path / "shoe.key"), "firmware": ["emulated-1.0"]}
        ports = tmp_path / "ports"
        ports.mkdir(exist_ok=True)
        self.app: TableApp = build_app(
            TableFile("numbering", config, {"devices": devices}), allow_emulated=True,
            state_dir=tmp_path / "state", devices=devices, burn=False,
            options=BuildOptions(workdir=ports))
        self.app.start()
        rig.wait_for_links(self.app)
        emulators = self.app.devices.emulators
        emulators["shoe"] = board  # the auto-dealer pulls from this board ...
        self.sim = rig.PtySimulation(self.app, rig.RigPlan(2, 100, {"main": 1000},
                                                           BasicStrategyPolicy(), 1))
        del emulators["shoe"]  # ... which the table does not own: it outlives the run
        self.sim.shuffles = 1  # the shoe in the board is the one in play

    def deal(self, cards: int) -> None:
        """Play on until `cards` more cards have been pulled from the shoe."""
        target = self.sim.cards + cards
        while self.sim.cards < target:
            assert self.sim.step(), f"the table stopped in {self.sim.model.state}"

    def kill(self) -> None:
        """Stop as `kill -9` would: no power-off record; the journal is what is left."""
        self.app.devices.close()
        assert self.app.runtime is not None
        self.app.runtime.journal.close()

    def records(self, kind: str) -> list[dict[str, Any]]:
        assert self.app.runtime is not None
        return [entry.data for entry in self.app.runtime.journal.entries([kind])]

    def clear_hold(self) -> None:
        """The supervisor turns the key to clear the hold, then back."""
        layout = self.app.devices.emulators["layout"]
        model = self.sim.model
        layout.turn_key("supervisor")
        assert self.app.loop.run_until(lambda: model.state not in HOLD_STATES, WAIT)
        layout.turn_key("normal")
        self.sim._drain()


def test_a_power_cycled_board_then_a_host_restart_loses_no_card(
    board: ShoeEmulator, tmp_path: Path,
) -> None:
    table = Table(tmp_path, board)
    table.deal(6)
    board.restart()  # a power cut mid-shoe: the board numbers its cards from 1 again
    model = table.sim.model
    assert table.app.loop.run_until(lambda: model.state in HOLD_STATES, WAIT)
    assert "the shoe board restarted" in table.records("procedure:hold")[-1]["reason"]
    table.clear_hold()
    table.deal(3)  # the board's cards 1-3: the shoe's 7-9
    assert model.shoe.tally.last_card_no == 9
    table.kill()

    table = Table(tmp_path, board)  # the board kept running: its next card is its 4th
    table.deal(6)
    assert table.sim.model.shoe.tally.last_card_no == 15
    assert table.records("shoe:card_repeated") == []
    dealt = [record["card"] for record in table.records("card:dealt")]
    assert dealt == [code for _, code in board.drawn]  # every card once, in order
    assert table.sim.model.state not in HOLD_STATES
    table.kill()


def test_a_board_power_cycled_while_the_host_was_down_holds_and_numbers_on(
    board: ShoeEmulator, tmp_path: Path,
) -> None:
    table = Table(tmp_path, board)
    table.deal(5)
    table.kill()
    board.restart()  # while no host runs: the journal's boot id is not the board's now

    table = Table(tmp_path, board)
    model = table.sim.model
    assert table.app.loop.run_until(lambda: model.state in HOLD_STATES, WAIT)
    assert "the shoe board restarted" in table.records("procedure:hold")[-1]["reason"]
    table.clear_hold()
    table.deal(4)
    assert model.shoe.tally.last_card_no == 9  # the board's 1-4 are the shoe's 6-9
    assert table.records("shoe:card_repeated") == []
    dealt = [record["card"] for record in table.records("card:dealt")]
    assert dealt == [code for _, code in board.drawn]
    table.kill()
