"""The web side of a running table: the hubs here, the servers in a process of their own.

`start_web` binds the servers' addresses (an address in use is a clear error at start-up)
and starts the web process (`controller.web.bridge`, `controller.web.worker`) before the
devices start (it answers 503 "starting" until then); `TableWeb.attach` connects the hubs
to the table's runtime once it is up, on the loop thread. The pit view runs only where
`[console] pit_listen` says. Requests are parsed, authenticated and bounded in the web
process: a flood of them spends its interpreter, not the table's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.console.hub import ConsoleHub
from controller.console.pit_state import PitView
from controller.console.station_feed import StationFeed
from controller.console.views import board_state
from controller.service.runtime import TableRuntime
from controller.web.bridge import WebProcess
from controller.web.routes import SEQ_FILE
from controller.web.server import Listener
from controller.web.settings import ConsoleSettings


@dataclass
class TableWeb:
    """The bound addresses, the hubs and the web process."""

    servers: list[Listener] = field(default_factory=list)
    hubs: list[ConsoleHub] = field(default_factory=list)
    stations: StationFeed | None = None
    """The player stations' hubs, published together (a community table)."""
    pit: ConsoleHub | None = None
    """The pit view's hub (published after the stations': theirs are the ones waited on)."""
    process: WebProcess | None = None

    def attach(self, runtime: TableRuntime) -> None:
        """Publish the table to every hub from now on (loop thread)."""
        for hub in self.hubs:
            hub.attach(runtime)
        if self.stations is not None:
            self.stations.attach(runtime)
        if self.pit is not None:
            self.pit.attach(runtime)

    def stop(self) -> None:
        """Stop the web process and close the addresses."""
        if self.process is not None:
            self.process.stop()
        for server in self.servers:
            server.stop()


def start_web(settings: ConsoleSettings, post: Callable[[object], None],
              stations: int = 0, credentials: Path | None = None,
              state_dir: Path | None = None) -> TableWeb:
    """Start the console (and the pit view) as the settings say.

    `stations` player station pages are served beside the console (a community table's
    `[rules.community] stations`); `credentials` is the file of who may log in (None:
    nobody but the pit view's deprecated `pit_user`); `state_dir` keeps the stations' last
    `seq` across restarts (`routes.SEQ_FILE`; None: in memory).

    Raises:
        WebServerError: An address cannot be listened on (named).
    """
    web = TableWeb()
    every: list[ConsoleHub] = []
    spec: dict[str, Any] = {"console": None, "pit": None,
                            "hosts": sorted(settings.allowed_hosts()),
                            "rates": [settings.commands_per_s, settings.reads_per_s],
                            "credentials": str(credentials) if credentials else None,
                            "seqs": str(state_dir / SEQ_FILE) if state_dir else None}
    listeners = {}
    try:
        if settings.listen is not None:
            hub = ConsoleHub(post)
            board = ConsoleHub(post, view=board_state)
            seats = [ConsoleHub(post) for _ in range(stations)]
            web.hubs += [hub, board]
            web.stations = StationFeed(seats) if seats else None
            every += [hub, board, *seats]
            spec["console"] = {"hub": 0, "board": 1,
                               "stations": list(range(2, 2 + len(seats)))}
            listener = Listener(settings.listen, "console")
            web.servers.append(listener)
            listeners["console"] = listener.socket
        if settings.pit_listen is not None:
            pit = web.pit = ConsoleHub(post, view=PitView())
            every.append(pit)
            legacy = ([settings.pit_user, settings.pit_credential]
                      if settings.pit_credential else None)
            spec["pit"] = {"hub": len(every) - 1, "stations": stations > 0, "legacy": legacy}
            listener = Listener(settings.pit_listen, "pit view")
            web.servers.append(listener)
            listeners["pit"] = listener.socket
    except Exception:
        web.stop()
        raise
    spec["hubs"] = len(every)
    if listeners:
        web.process = WebProcess(every, spec, listeners)
        web.process.start()
    return web
