"""The web server's own process: the console and the pit view, off the table's interpreter.

`shoectl run` binds the servers' addresses, then starts this process
(`python -m controller.web.worker SPEC`) with the listening sockets and one end of a Unix
socket (`controller.web.channel`) as inherited descriptors. Here every request is parsed,
authenticated, bounded and answered; the table's process only sees what passes: each
publication arrives once over the channel (`RemoteHub`), each command goes back as one frame
and waits for its reply. A flood of requests spends this process's time and interpreter
lock, never the table's. The process ends when the channel closes (the table stopped).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import os
import socket
import sys
import threading
from concurrent.futures import Future
from pathlib import Path
from typing import Any, Final

from starlette.applications import Starlette

from controller.console.commands import Reply
from controller.console.hub import Published, Subscriber
from controller.console.views.common import JsonObject
from controller.web.accounts import Accounts
from controller.web.channel import Channel, ChannelClosedError, FrameReader
from controller.web.guard import GuardSettings, Rate
from controller.web.routes import Stations, StationSeqs, console_app, pit_app
from controller.web.server import serve

_LOG = logging.getLogger(__name__)

READ_SIZE: Final = 256 * 1024
"""The most taken from the table's socket in one turn of the loop."""

WORKER_NICE: Final = 10
"""The web process's niceness above the table's: a Raspberry Pi has 4 cores, a flood can
take one; when the cores are all busy the scheduler gives the table's process its turn
first, so a card is read, journalled and shown before a flood's next request is parsed."""


class RemoteHub:
    """A hub of the table's process, seen from here (`controller.console.hub.Hub`)."""

    def __init__(self, index: int, link: WebChannelLink) -> None:
        self.index = index
        self._link = link
        self._lock = threading.Lock()
        self._latest: Published | None = None
        self._subscribers: list[Subscriber] = []

    @property
    def latest(self) -> Published | None:
        """The last publication received."""
        with self._lock:
            return self._latest

    def deliver(self, seq: int, text: str) -> None:
        """A publication from the table (the event loop); one already had is dropped.

        A restart of this process can bring the table's latest publication twice (sent as
        what was missed, and as it was made): the table's numbers only grow.
        """
        published = Published(seq, text=text)
        with self._lock:
            if self._latest is not None and seq <= self._latest.seq:
                return
            self._latest = published
            subscribers = list(self._subscribers)
        for subscriber in subscribers:
            subscriber(published)

    def subscribe(self, subscriber: Subscriber) -> Published | None:
        """Receive every publication from now on; returns the current one."""
        with self._lock:
            self._subscribers.append(subscriber)
            return self._latest

    def unsubscribe(self, subscriber: Subscriber) -> None:
        """Stop receiving publications (idempotent)."""
        with self._lock:
            if subscriber in self._subscribers:
                self._subscribers.remove(subscriber)

    def submit_as(self, executor: str, command: JsonObject, source: str, by: str
                  ) -> Future[Reply]:
        """Send the command to the table; the future holds its reply."""
        return self._link.command(self.index, executor, command, source, by)

    def record(self, kind: str, data: dict[str, object]) -> None:
        """Ask the table to journal one record."""
        self._link.send({"record": kind, "hub": self.index, "data": data})


class WebChannelLink:
    """The channel to the table: commands out, replies and publications in."""

    def __init__(self, channel: Channel, hubs: int) -> None:
        self.channel = channel
        self.hubs = [RemoteHub(index, self) for index in range(hubs)]
        self._ids = itertools.count(1)
        self._waiting: dict[int, Future[Reply]] = {}
        self._lock = threading.Lock()
        self.closed = threading.Event()

    def send(self, message: dict[str, Any]) -> None:
        """One frame to the table (a closed channel: dropped, the process is ending)."""
        try:
            self.channel.send(message)
        except ChannelClosedError:
            self.closed.set()

    def command(self, hub: int, executor: str, command: JsonObject, source: str, by: str
                ) -> Future[Reply]:
        """Send a command; its reply completes the future."""
        done: Future[Reply] = Future()
        number = next(self._ids)
        with self._lock:
            self._waiting[number] = done
        done.add_done_callback(lambda _done: self._forget(number))
        self.send({"cmd": number, "hub": hub, "executor": executor, "command": command,
                   "source": source, "by": by})
        return done

    def _forget(self, number: int) -> None:
        with self._lock:
            self._waiting.pop(number, None)

    def take(self, message: dict[str, Any]) -> None:
        """One frame from the table: a publication for its hub, or a command's reply."""
        if "pub" in message:
            self.hubs[message["pub"]].deliver(message["seq"], message["text"])
        elif "reply" in message:
            with self._lock:
                done = self._waiting.get(message["reply"])
            if done is not None and done.set_running_or_notify_cancel():
                done.set_result(Reply(message["status"], message["body"]))

    async def follow(self) -> None:
        """Take frames on the running event loop until the channel closes.

        The loop that serves the event streams reads the socket itself: a publication is
        written to its streams on the turn of the loop that read it, with no thread to wake
        in between.
        """
        loop = asyncio.get_running_loop()
        frames = FrameReader()
        sock = self.channel.sock
        ended: asyncio.Future[None] = loop.create_future()

        def readable() -> None:
            try:
                data = sock.recv(READ_SIZE, socket.MSG_DONTWAIT)
                if not data:
                    raise ChannelClosedError("the table closed the channel")
                for message in frames.feed(data):
                    self.take(message)
            except BlockingIOError:
                return
            except (ChannelClosedError, OSError, KeyError, IndexError, TypeError) as exc:
                _LOG.debug("web: the table's channel closed (%s)", exc)
                loop.remove_reader(sock.fileno())
                if not ended.done():
                    ended.set_result(None)

        loop.add_reader(sock.fileno(), readable)
        try:
            await ended
        finally:
            loop.remove_reader(sock.fileno())  # also when cancelled (the servers ended)
            self.closed.set()


def main(argv: list[str]) -> int:
    """Serve as the spec (argv[0], JSON) says until the table's channel closes."""
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    for noisy in ("uvicorn", "uvicorn.error"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    os.nice(WORKER_NICE)  # on a busy CPU the table's process runs first
    spec = json.loads(argv[0])
    link = WebChannelLink(Channel(socket.socket(fileno=spec["channel"])), spec["hubs"])
    credentials = spec["credentials"]
    accounts = Accounts(Path(credentials) if credentials else None)
    commands, reads = spec["rates"]
    guard = GuardSettings(hosts=frozenset(spec["hosts"]), commands=Rate(commands, 2 * commands),
                          reads=Rate(reads, 4 * reads))
    served = []
    if spec["console"] is not None:
        console = spec["console"]
        board = link.hubs[console["board"]] if console["board"] is not None else None
        stations = [link.hubs[i] for i in console["stations"]]
        seqs = StationSeqs(Path(spec["seqs"]) if spec.get("seqs") else None)
        served.append((console_app(link.hubs[console["hub"]], board, Stations(stations, seqs),
                                   accounts=accounts, guard=guard),
                       socket.socket(fileno=console["fd"]), "console"))
    if spec["pit"] is not None:
        pit = spec["pit"]
        legacy = tuple(pit["legacy"]) if pit["legacy"] else None
        served.append((pit_app(link.hubs[pit["hub"]], accounts,
                               legacy=legacy,
                               stations=pit["stations"], guard=guard),
                       socket.socket(fileno=pit["fd"]), "pit view"))
    asyncio.run(_serve_following(link, served))
    return 0


async def _serve_following(link: WebChannelLink,
                           served: list[tuple[Starlette, socket.socket, str]]) -> None:
    following = asyncio.ensure_future(link.follow())
    try:
        await serve(served, link.closed)
    finally:
        following.cancel()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
