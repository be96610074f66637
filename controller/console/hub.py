"""Between the table's loop thread and the console's clients: the table as published, commands.

The loop thread publishes the public table after every commit (`ConsoleHub.watch`, a runtime
watcher); a change gets the next sequence number and goes to every subscriber. A client's
command travels the other way: `submit` posts it to the loop as a `RuntimeCall` and returns a
future the web server awaits. Only the loop thread touches the model; the hub hands over
JSON-ready objects under its lock.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass

from controller.console.commands import Reply, execute, table_now
from controller.console.table_state import JsonObject
from controller.service.runtime import RuntimeCall, TableRuntime

_LOG = logging.getLogger(__name__)

Post = Callable[[object], None]
"""The table loop's `post` (safe from any thread)."""


@dataclass(frozen=True, slots=True)
class Published:
    """One published state of the table: its sequence number and the table object."""

    seq: int
    table: JsonObject

    def event(self) -> JsonObject:
        """The Server-Sent Event's data: `{"seq": n, "table": {...}}`."""
        return {"seq": self.seq, "table": self.table}


Executor = Callable[[TableRuntime, JsonObject, str], Reply]
"""Carries out a parsed command on the loop thread: (runtime, command, source) -> reply."""

Subscriber = Callable[[Published], None]
"""Called (on the loop thread) with every new state; must only hand it over, quickly."""


class ConsoleHub:
    """The latest published table, its subscribers, and the way commands reach the loop.

    Args:
        post: The table loop's `post`.
        view: Builds the published object from the runtime (loop thread); the dealer's
            console by default, the pit view builds its own.
    """

    def __init__(self, post: Post,
                 view: Callable[[TableRuntime], JsonObject] = table_now) -> None:
        self._post = post
        self._view = view
        self._lock = threading.Lock()
        self._latest: Published | None = None
        self._subscribers: list[Subscriber] = []

    # ------------------------------------------------------------------ loop thread
    def attach(self, runtime: TableRuntime) -> None:
        """Publish after every commit of `runtime`, starting now (loop thread)."""
        runtime.watchers.append(self.watch)
        self.watch(runtime)

    def watch(self, runtime: TableRuntime) -> None:
        """Runtime watcher: publish the table if it changed since the last publication."""
        table = self._view(runtime)
        with self._lock:
            if self._latest is not None and self._latest.table == table:
                return
            published = Published((self._latest.seq + 1) if self._latest else 1, table)
            self._latest = published
            subscribers = list(self._subscribers)
        for subscriber in subscribers:
            subscriber(published)

    # ------------------------------------------------------------------ any thread
    @property
    def latest(self) -> Published | None:
        """The last published table (None until the table has started)."""
        with self._lock:
            return self._latest

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

    def submit(self, command: JsonObject, source: str = "console",
               carry_out: Executor = execute) -> Future[Reply]:
        """Carry out a parsed command on the loop thread; the future holds its reply.

        `carry_out` is the console's `execute` unless given (a station's, the attendant's).
        A command whose future was cancelled before the loop reached it (the web server
        stopped waiting and answered 503 "try again") is not carried out.
        """
        done: Future[Reply] = Future()

        def run(runtime: TableRuntime) -> None:
            if not done.set_running_or_notify_cancel():
                return  # the client gave up waiting (told to try again): not carried out
            try:
                done.set_result(carry_out(runtime, command, source))
            except Exception as exc:  # noqa: BLE001 - the client gets an answer; the loop goes on
                _LOG.exception("console: command %s failed", command.get("command"))
                done.set_exception(exc)

        self._post(RuntimeCall(run))
        return done
