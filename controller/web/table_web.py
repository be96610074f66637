"""The web side of a running table: the console's and the pit view's hubs and servers.

`start_web` binds and starts the servers before the devices start (they answer 503
"starting" until then); `TableWeb.attach` connects the hubs to the table's runtime once it
is up, on the loop thread. The pit view runs only where `[console] pit_listen` says.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from controller.console.hub import ConsoleHub
from controller.console.pit_state import pit_state
from controller.console.roulette_view import board_state
from controller.console.station_feed import StationFeed
from controller.service.runtime import TableRuntime
from controller.web.accounts import Accounts
from controller.web.guard import GuardSettings
from controller.web.routes import console_app, pit_app
from controller.web.server import WebServer
from controller.web.settings import ConsoleSettings


@dataclass
class TableWeb:
    """The running servers and their hubs."""

    servers: list[WebServer] = field(default_factory=list)
    hubs: list[ConsoleHub] = field(default_factory=list)
    stations: StationFeed | None = None
    """The player stations' hubs, published together (a community table)."""
    pit: ConsoleHub | None = None
    """The pit view's hub (published after the stations': theirs are the ones waited on)."""

    def attach(self, runtime: TableRuntime) -> None:
        """Publish the table to every hub from now on (loop thread)."""
        for hub in self.hubs:
            hub.attach(runtime)
        if self.stations is not None:
            self.stations.attach(runtime)
        if self.pit is not None:
            self.pit.attach(runtime)

    def stop(self) -> None:
        """Stop every server."""
        for server in self.servers:
            server.stop()


def start_web(settings: ConsoleSettings, post: Callable[[object], None],
              stations: int = 0, accounts: Accounts | None = None) -> TableWeb:
    """Start the console (and the pit view) as the settings say.

    `stations` player station pages are served beside the console (a community table's
    `[rules.community] stations`); `accounts` are who may log in (none: nobody but the
    pit view's deprecated `pit_user`).

    Raises:
        WebServerError: An address cannot be listened on (named).
    """
    web = TableWeb()
    known = accounts if accounts is not None else Accounts(None)
    guard = GuardSettings(hosts=settings.allowed_hosts())
    try:
        if settings.listen is not None:
            hub = ConsoleHub(post)
            board = ConsoleHub(post, view=board_state)
            seats = [ConsoleHub(post) for _ in range(stations)]
            web.hubs += [hub, board]
            web.stations = StationFeed(seats) if seats else None
            web.servers.append(WebServer(console_app(hub, board, seats, accounts=known,
                                                     guard=guard),
                                         settings.listen, "console"))
        if settings.pit_listen is not None:
            pit = web.pit = ConsoleHub(post, view=pit_state)
            legacy = ((settings.pit_user, settings.pit_credential)
                      if settings.pit_credential else None)
            web.servers.append(WebServer(pit_app(pit, known, legacy=legacy,
                                                 stations=stations > 0, guard=guard),
                                         settings.pit_listen, "pit view"))
    except Exception:
        web.stop()
        raise
    for server in web.servers:
        server.start()
    return web
