"""The roulette table on the emulated rig with its console, result board and pit view served.

The real wheel driver reads the wheel emulator's pty, the layout board's emulator shows the
lamps, and the console (with the board) and the pit view are served by uvicorn on free
loopback ports. `play(n)` deals whole spins first, the dealer and the bots acting through
the console's commands (`controller.sim.games.roulette`); `live()` then starts the table's loop
on a thread of its own, as under `shoectl run`, and `step()` sends the wheel's next run of
lines while a browser does the dealer's part.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.cli import simulate_command
from controller.service.app import TableApp, build_app
from controller.service.runtime import RuntimeCall
from controller.service.tableconfig import TableFile
from controller.sim.games.roulette import RouletteSimulation, rig_devices
from controller.web.credentials import hash_password
from controller.web.settings import ConsoleSettings
from controller.web.table_web import TableWeb, start_web
from drivers.registry import BuildOptions
from tests.console.live import BOARD, KIOSK, table_credentials

PIT_PASSWORD = "pit-secret"
WAIT_S = 60.0


@dataclass
class RouletteRig:
    """A started roulette table, its web servers, and the simulation's dealer and bots."""

    app: TableApp
    web: TableWeb
    sim: RouletteSimulation
    thread: threading.Thread | None = None
    spins: list[dict[str, Any]] = field(default_factory=list)

    @property
    def url(self) -> str:
        return self.web.servers[0].url

    @property
    def kiosk_url(self) -> str:
        """The console as the kiosk opens it: logged in with its token at start."""
        return f"{self.url}#token={KIOSK}"

    @property
    def board_url(self) -> str:
        """The result board as its screen opens it, with the board's token."""
        return f"{self.url}board#token={BOARD}"

    @property
    def pit_url(self) -> str:
        return self.web.servers[1].url

    @property
    def emulator(self) -> Any:
        return self.app.devices.emulators["wheel"]

    def play(self, spins: int) -> None:
        """Deal `spins` whole spins before the loop runs on its own (this thread drives it)."""
        assert self.thread is None
        self.sim.options.spins = len(self.spins) + spins
        self.spins += list(self.sim.run())

    def live(self) -> None:
        """Publish to the servers and run the loop on its own thread from now on."""
        assert self.app.runtime is not None
        self.web.attach(self.app.runtime)
        self.thread = threading.Thread(target=self.app.loop.run_forever, name="table-loop",
                                       daemon=True)
        self.thread.start()

    def step(self) -> bool:
        """The wheel's next run of lines, read by the driver and handled by the table."""
        if not self.emulator.send_step():
            return False
        wheel = self.app.devices.wheel
        assert wheel is not None
        assert wheel.wait_handled(self.emulator.sent, WAIT_S)
        self.sync()
        return True

    def sync(self) -> None:
        """Wait until the loop has handled every event posted so far (it runs them in order)."""
        done = threading.Event()
        self.app.loop.post(RuntimeCall(lambda _runtime: done.set()))
        assert done.wait(WAIT_S), "the table's loop did not answer"

    def table(self) -> dict[str, Any]:
        """The console's table object as last published."""
        latest = self.web.hubs[0].latest
        assert latest is not None
        return latest.table

    def board(self) -> dict[str, Any]:
        latest = self.web.hubs[1].latest
        assert latest is not None
        return latest.table

    def pit(self) -> dict[str, Any]:
        assert self.web.pit is not None
        latest = self.web.pit.latest
        assert latest is not None
        return latest.table

    def close(self) -> None:
        self.web.stop()
        if self.thread is not None:
            self.app.loop.stop()
            self.thread.join(10)
        self.app.close("test finished")


def start_roulette_rig(tmp: Path, seed: int, *, faults: bool = True,
                       wheel: str = "double") -> RouletteRig:
    """The roulette table on the emulated rig, the wheel's games seeded by `seed`."""
    options = simulate_command.parse_options(["--game", "roulette", "--seed", str(seed),
                                              "--wheel", wheel, "--seats", "4"])
    devices = rig_devices(options.config, seed, 0, None)
    devices["wheel"]["faults"] = faults
    (tmp / "ports").mkdir(parents=True, exist_ok=True)
    app = build_app(TableFile("roulette-test", options.config, {"devices": devices}),
                    allow_emulated=True, state_dir=tmp / "state", devices=devices,
                    options=BuildOptions(workdir=tmp / "ports"))
    app.start()
    try:
        web = start_web(ConsoleSettings(listen=("127.0.0.1", 0), pit_listen=("127.0.0.1", 0),
                                        pit_credential=hash_password(PIT_PASSWORD)),
                        app.loop.post, credentials=table_credentials(tmp))
    except BaseException:
        app.close("test failed")
        raise
    return RouletteRig(app, web, RouletteSimulation(app, options))
