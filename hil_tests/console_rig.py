"""The emulated rig with its console served, for tests that use the console like a person.

The table runs on the byte-level emulators (shoe, layout board, sign behind real ptys) with
the real drivers, its loop on a thread of its own as under `shoectl run`, and the console
served by uvicorn on a free loopback port. A test deals by drawing from the emulated shoe.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.cli import simulate_command
from controller.service.app import TableApp
from controller.service.runtime import RuntimeCall, TableRuntime
from controller.sim.rig import RigSpec, start_rig_app
from controller.web.settings import ConsoleSettings
from controller.web.table_web import TableWeb, start_web
from tests.console.live import KIOSK, table_credentials


@dataclass
class ConsoleRig:
    """A started table on the emulated rig and its console."""

    app: TableApp
    web: TableWeb
    thread: threading.Thread

    @property
    def url(self) -> str:
        return self.web.servers[0].url

    @property
    def kiosk_url(self) -> str:
        """The console opened with the kiosk's token in the address (a browser by hand; the
        kiosk unit's launcher opens it with a one-time code instead)."""
        return f"{self.url}#token={KIOSK}"

    @property
    def shoe(self) -> Any:
        return self.app.devices.emulators["shoe"]

    def journal_records(self, kind: str) -> list[dict[str, Any]]:
        """The data of every journal record of `kind`, in order (read on the loop thread)."""
        found: list[dict[str, Any]] = []
        done = threading.Event()

        def read(rt: TableRuntime) -> None:
            try:
                found.extend(e.data for e in rt.journal.entries() if e.kind == kind)
            finally:
                done.set()
        self.app.loop.post(RuntimeCall(read))
        assert done.wait(60), "the loop did not answer"
        return found

    def close(self) -> None:
        self.web.stop()
        self.app.loop.stop()
        self.thread.join(10)
        self.app.close("test finished")


def start_console_rig(tmp: Path, cards: list[str], seats: int = 5,
                      game: str = "blackjack") -> ConsoleRig:
    """The table dealt from `cards` (a scripted shoe, no burn), its console on loopback."""
    config = simulate_command.parse_options(["--game", game, "--seats", str(seats)]).config
    app = start_rig_app("console-test", config, RigSpec(seats, 1, cards, burn=False),
                        state_dir=tmp / "state", ports=tmp / "ports")
    assert app.runtime is not None
    web = start_web(ConsoleSettings(listen=("127.0.0.1", 0)), app.loop.post,
                    credentials=table_credentials(tmp))
    web.attach(app.runtime)  # the loop thread has not started: this thread may touch it
    thread = threading.Thread(target=app.loop.run_forever, name="table-loop", daemon=True)
    thread.start()
    return ConsoleRig(app, web, thread)
