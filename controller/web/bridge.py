"""The table's side of the web process: publications out, commands in, the process kept up.

`WebProcess.start` starts `controller.web.worker` with the listening sockets and one end of
a Unix socket; two threads of the table's process carry the frames (`controller.web.channel`):
the writer sends every publication of every hub, in order, and every reply; the reader hands
each command to its hub (which posts it to the loop thread) and each journal record too.
The loop thread only queues: it never writes to the socket. A web process that dies is
started again (after `RESTART_S`), given the current publications, and the table goes on.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import queue
import socket
import subprocess
import sys
import threading
from concurrent.futures import Future
from typing import Any, Final

from controller.console.commands import Reply
from controller.console.hub import ConsoleHub, Published
from controller.web.channel import Channel, ChannelClosedError

_LOG = logging.getLogger(__name__)

RESTART_S: Final = 1.0
STOP_S: Final = 5.0


class WebProcess:
    """The web server's process and the two threads that talk to it.

    Args:
        hubs: The table's hubs, in the order the spec's indices name them.
        spec: What the worker serves (`controller.web.worker.main`), without descriptors.
        listeners: name -> the bound listening socket of that server ("console", "pit").
    """

    def __init__(self, hubs: list[ConsoleHub], spec: dict[str, Any],
                 listeners: dict[str, socket.socket]) -> None:
        self.hubs = hubs
        self._spec = spec
        self._listeners = listeners
        self._out: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self._stopping = threading.Event()
        self._channel: Channel | None = None
        self.process: subprocess.Popen[bytes] | None = None
        self._keeper = threading.Thread(target=self._keep, name="web-process", daemon=True)
        self._started = threading.Event()
        for index, hub in enumerate(hubs):
            hub.subscribe(functools.partial(self._publish, index))

    def start(self) -> None:
        """Start the process; returns once it runs (its servers answer shortly after)."""
        self._keeper.start()
        self._started.wait(30)

    def _publish(self, index: int, published: Published) -> None:
        self._out.put({"pub": index, "seq": published.seq, "text": published.text})

    def _keep(self) -> None:
        """Run the process; start it again whenever it ends, until `stop`."""
        while not self._stopping.is_set():
            try:
                self._run_once()
            except Exception:  # noqa: BLE001 - the table goes on without its web server
                _LOG.exception("web process: could not be run")
            if not self._stopping.wait(RESTART_S):
                _LOG.error("web process ended: starting it again")

    def _run_once(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        fds = {name: sock.fileno() for name, sock in self._listeners.items()}
        spec = dict(self._spec, channel=theirs.fileno())
        for name in ("console", "pit"):
            if spec.get(name) is not None:
                spec[name] = dict(spec[name], fd=fds[name])
        quiet = {k: v for k, v in os.environ.items()  # systemd's are the table's own
                 if k not in ("NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID")}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "controller.web.worker", json.dumps(spec)],
            pass_fds=[theirs.fileno(), *fds.values()], env=quiet)
        theirs.close()
        channel = self._channel = Channel(ours)
        for index, hub in enumerate(self.hubs):  # what it missed (a restart): now first
            latest = hub.latest
            if latest is not None:
                self._out.put({"pub": index, "seq": latest.seq, "text": latest.text})
        writer = threading.Thread(target=self._write, args=(channel,), name="web-writer",
                                  daemon=True)
        writer.start()
        self._started.set()
        self._read(channel)
        self._out.put(None)  # the writer ends too
        writer.join(STOP_S)
        channel.close()
        try:
            self.process.wait(STOP_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(STOP_S)

    def _write(self, channel: Channel) -> None:
        while True:
            message = self._out.get()
            if message is None:
                return
            try:
                channel.send(message)
            except ChannelClosedError:
                return

    def _read(self, channel: Channel) -> None:
        try:
            while True:
                message = channel.receive()
                if "cmd" in message:
                    self._command(message)
                elif "record" in message:
                    self.hubs[message["hub"]].record(str(message["record"]),
                                                     dict(message["data"]))
        except (ChannelClosedError, OSError, ValueError, KeyError, IndexError) as exc:
            if not self._stopping.is_set():
                _LOG.error("web process: channel closed (%s)", exc)

    def _command(self, message: dict[str, Any]) -> None:
        number = message["cmd"]
        done: Future[Reply] = self.hubs[message["hub"]].submit_as(
            str(message["executor"]), dict(message["command"]), str(message["source"]),
            str(message["by"]))

        def answer(finished: Future[Reply]) -> None:
            try:
                reply = finished.result()
            except Exception:  # noqa: BLE001 - logged by the hub: the client hears 500
                reply = Reply(500, {"error": "the command failed; the table goes on"})
            self._out.put({"reply": number, "status": reply.status, "body": reply.body})
        done.add_done_callback(answer)

    def stop(self) -> None:
        """End the process and the threads (idempotent)."""
        self._stopping.set()
        if self._channel is not None:
            self._channel.close()
        if self._keeper.is_alive():
            self._keeper.join(2 * STOP_S)
