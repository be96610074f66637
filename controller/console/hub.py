"""Between the table's loop thread and the console's clients: the table as published, commands.

The loop thread publishes the public table after every commit (`ConsoleHub.watch`, a runtime
watcher); a change gets the next sequence number and goes to every subscriber. A client's
command travels the other way: `submit` posts it to the loop as a `RuntimeCall` and returns a
future the web server awaits. Only the loop thread touches the model; the hub hands over
JSON-ready objects under its lock.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Protocol

from controller.console import credit_commands, hit_commands, station_commands
from controller.console.commands import Reply, execute, table_now
from controller.console.views.common import JsonObject
from controller.service.runtime import RuntimeCall, TableRuntime

_LOG = logging.getLogger(__name__)


def compact_json(value: object) -> str:
    """JSON text without spaces between members, non-ASCII characters kept.

    As `GET /api/table` has always answered, so a script may match `"phase":"betting"`.
    """
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)

Post = Callable[[object], None]
"""The table loop's `post` (safe from any thread)."""


class Published:
    """One published state of the table: its sequence number and the table object.

    Built from the object (`table`) or from its JSON text (`text`, a station's, encoded by the
    feed); the other form is made when first asked for, once, however many clients follow.
    """

    __slots__ = ("_sse", "_table", "_text", "seq")

    def __init__(self, seq: int, table: JsonObject | None = None, text: str | None = None
                 ) -> None:
        assert table is not None or text is not None
        self.seq = seq
        self._table = table
        self._text = text
        self._sse: str | None = None

    @property
    def table(self) -> JsonObject:
        """The table object."""
        if self._table is None:
            assert self._text is not None
            self._table = json.loads(self._text)
        return self._table

    @property
    def text(self) -> str:
        """The table object as JSON text."""
        if self._text is None:
            self._text = compact_json(self._table)
        return self._text

    def event(self) -> JsonObject:
        """The Server-Sent Event's data: `{"seq": n, "table": {...}}`."""
        return {"seq": self.seq, "table": self.table}

    def sse(self) -> str:
        """The whole Server-Sent Event (`id:` and `data:` lines), encoded once.

        Two threads racing here both make the same text: harmless.
        """
        if self._sse is None:
            self._sse = f'id: {self.seq}\ndata: {{"seq":{self.seq},"table":{self.text}}}\n\n'
        return self._sse


Executor = Callable[[TableRuntime, JsonObject, str], Reply]
"""Carries out a parsed command on the loop thread: (runtime, command, source) -> reply."""

def _console(runtime: TableRuntime, command: JsonObject, source: str, by: str) -> Reply:
    return execute(runtime, command, source, by=by)


def _station(runtime: TableRuntime, command: JsonObject, source: str, by: str) -> Reply:
    return station_commands.execute(runtime, command, source, by=by)


def _credits(runtime: TableRuntime, command: JsonObject, _source: str, by: str) -> Reply:
    return credit_commands.execute(runtime, command, by)


def _hit(runtime: TableRuntime, command: JsonObject, _source: str, by: str) -> Reply:
    return hit_commands.execute(runtime, command, by)


Attributed = Callable[[TableRuntime, JsonObject, str, str], Reply]
"""Carries out a command and journals who gave it: (runtime, command, source, by)."""
EXECUTORS: dict[str, Attributed] = {
    "console": _console, "station": _station, "credits": _credits, "hit": _hit}
"""The commands a client may give, by name (a name crosses a process; a function does not).
The pit's (`credits`, `hit`) journal who gave them in their own `who`."""

Subscriber = Callable[[Published], None]
"""Called (on the loop thread) with every new state; must only hand it over, quickly."""


class Hub(Protocol):
    """What the web server needs of a hub: here (`ConsoleHub`) or across a process."""

    @property
    def latest(self) -> Published | None:
        """The last published table (None until the table has started)."""

    def subscribe(self, subscriber: Subscriber) -> Published | None:
        """Receive every publication from now on; returns the current one."""

    def unsubscribe(self, subscriber: Subscriber) -> None:
        """Stop receiving publications (idempotent)."""

    def submit_as(self, executor: str, command: JsonObject, source: str, by: str
                  ) -> Future[Reply]:
        """Carry out a parsed command with the executor named `executor`, journalled `by`."""

    def record(self, kind: str, data: dict[str, object]) -> None:
        """Append one journal record on the loop thread."""


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
        self.publish(self._view(runtime))

    def publish(self, table: JsonObject) -> None:
        """Publish `table` if it differs from the last publication (loop thread)."""
        self._publish_if_changed(lambda latest: latest.table == table,
                                 lambda seq: Published(seq, table=table))

    def publish_text(self, text: str) -> None:
        """Publish a table object given as JSON text if its text differs from the last's."""
        self._publish_if_changed(lambda latest: latest.text == text,
                                 lambda seq: Published(seq, text=text))

    def _publish_if_changed(self, unchanged: Callable[[Published], bool],
                            make: Callable[[int], Published]) -> None:
        with self._lock:
            latest = self._latest
            if latest is not None and unchanged(latest):
                return
            published = make(latest.seq + 1 if latest else 1)
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

    def record(self, kind: str, data: dict[str, object]) -> None:
        """Append one journal record on the loop thread (a lock-out, a refused command)."""
        def run(runtime: TableRuntime) -> None:
            runtime.record(kind, dict(data))
        self._post(RuntimeCall(run))

    def submit_as(self, executor: str, command: JsonObject, source: str, by: str
                  ) -> Future[Reply]:
        """Carry out a parsed command with the executor named `executor`, journalled `by`."""
        carry_out = EXECUTORS[executor]

        def attributed(runtime: TableRuntime, parsed: JsonObject, src: str) -> Reply:
            return carry_out(runtime, parsed, src, by)
        return self.submit(command, source, attributed)

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
