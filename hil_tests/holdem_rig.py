"""The hold'em table on the emulated rig with its console served, for a person's taps.

The real layout driver reads the layout board's emulator over a pty (its bet sensors and
lamps); the emulated overhead camera renders the cards a test lays in its areas and the real
recogniser reads them through the card reader. The table's loop runs on a thread of its own,
as under `shoectl run`, and the console is served by uvicorn on a free loopback port.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from controller.cli import simulate_command
from controller.service.app import TableApp, build_app
from controller.service.tableconfig import TableFile
from controller.sim.games.holdem import RIG_CAMERA, RIG_LAMPS, RIG_VISION
from controller.web.settings import ConsoleSettings
from controller.web.table_web import TableWeb, start_web
from drivers.registry import BuildOptions
from tests.console.live import KIOSK, table_credentials

SPOTS = {"seat1.ante": 1, "seat1.bonus": 2, "seat2.ante": 3, "seat2.bonus": 4}
"""The layout board's bet spots of the rig."""
FIXED = (("seat2.ante", 2500),)
"""`[table] sensor_cents` of the rig: a chip on seat 2's ante spot is 25.00."""


@dataclass
class HoldemRig:
    """A started hold'em table, its console, and the emulators a dealer's hands stand for."""

    app: TableApp
    web: TableWeb
    thread: threading.Thread

    @property
    def url(self) -> str:
        return self.web.servers[0].url

    @property
    def kiosk_url(self) -> str:
        """The console as the kiosk opens it: logged in with its token at start."""
        return f"{self.url}#token={KIOSK}"

    @property
    def camera(self) -> Any:
        return self.app.devices.emulators["camera"]

    @property
    def layout(self) -> Any:
        return self.app.devices.emulators["layout"]

    def turn_up(self, zone: str, cards: list[str]) -> None:
        """Cards turned up in a camera area, beside the ones already there."""
        self.camera.show({**self.camera.layout(), zone: cards})

    def close(self) -> None:
        self.web.stop()
        self.app.loop.stop()
        self.thread.join(10)
        self.app.close("test finished")


def start_holdem_rig(tmp: Path, seats: int = 3,
                     vision: dict[str, Any] | None = None) -> HoldemRig:
    """The hold'em table with its console on loopback, its loop running.

    Args:
        tmp: Folder for the journal and the emulators' ports.
        seats: Seats at the table.
        vision: `[vision]` keys over the rig's own (a deck profile, for instance).
    """
    config = simulate_command.parse_options(["--game", "holdem", "--seats", str(seats)]).config
    config = replace(config, table=replace(config.table, sensor_cents=FIXED))
    devices = {"layout": {"kind": "emulated", "lamps": dict(RIG_LAMPS), "bet_sensors": SPOTS},
               "camera": {**RIG_CAMERA, "seed": 1}}
    (tmp / "ports").mkdir(parents=True, exist_ok=True)
    document = {"devices": devices, "vision": {**RIG_VISION, **(vision or {})}}
    app = build_app(TableFile("console-test", config, document),
                    allow_emulated=True, state_dir=tmp / "state", devices=devices,
                    options=BuildOptions(workdir=tmp / "ports"))
    try:
        app.start()
    except BaseException:
        app.devices.close()
        raise
    assert app.runtime is not None
    web = start_web(ConsoleSettings(listen=("127.0.0.1", 0)), app.loop.post,
                    credentials=table_credentials(tmp))
    web.attach(app.runtime)  # the loop thread has not started: this thread may touch it
    thread = threading.Thread(target=app.loop.run_forever, name="table-loop", daemon=True)
    thread.start()
    return HoldemRig(app, web, thread)
