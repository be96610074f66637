"""The table's side of the web process: publications out, commands in, the process kept up.

`WebProcess.start` starts `controller.web.worker` with the listening sockets and one end of
a Unix socket (`controller.web.channel`). Every publication of every hub and every reply
leaves through one `Outbox`, in order: the thread that makes it (the loop thread) sends it
itself when nothing waits before it and the socket takes it whole at once; otherwise it waits
in the outbox for the writer thread. The loop thread never waits for the socket. The reader
thread hands each command to its hub (which posts it to the loop thread) and each journal
record too. A web process that dies is started again (after `RESTART_S`), given the current
publications, and the table goes on.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import socket
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, Final

from controller.console.commands import Reply
from controller.console.hub import ConsoleHub, Published
from controller.web.channel import Channel, ChannelClosedError, encode_frame

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
        self._out = Outbox()
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
        self._out.attach(channel, self._latest)  # what it missed (a restart): now first
        writer = threading.Thread(target=self._out.write, args=(channel,), name="web-writer",
                                  daemon=True)
        writer.start()
        self._started.set()
        self._read(channel)
        self._out.detach()  # the writer ends too
        writer.join(STOP_S)
        channel.close()
        try:
            self.process.wait(STOP_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(STOP_S)

    def _latest(self) -> list[dict[str, Any]]:
        return [{"pub": index, "seq": latest.seq, "text": latest.text}
                for index, hub in enumerate(self.hubs) if (latest := hub.latest) is not None]

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


class Outbox:
    """The frames for the web process, in the order they were made.

    `put` sends a frame at once from the caller's thread when nothing waits before it and
    the socket takes it now; the rest of it, and every frame after, waits here for the
    writer thread (`write`), which sends them in order. So a publication needs no other
    thread to wake, and a web process that stops reading fills its socket and then this
    queue, never the loop thread's time.
    """

    def __init__(self) -> None:
        self._ready = threading.Condition()
        self._waiting: deque[bytes] = deque()
        self._channel: Channel | None = None

    def attach(self, channel: Channel,
               first: Callable[[], list[dict[str, Any]]] = lambda: []) -> None:
        """Send to `channel` from now on, beginning with the messages `first` gives.

        What waited for an earlier channel is dropped (a process that ended gets no more;
        a frame cut short there must not begin the new stream). `first` is asked under the
        outbox's lock, so nothing made before it answered can follow its messages.
        """
        with self._ready:
            self._waiting.clear()
            self._channel = channel
            self._waiting.extend(encode_frame(message) for message in first())
            self._ready.notify_all()

    def detach(self) -> None:
        """Stop sending to the current channel; its writer thread returns."""
        with self._ready:
            self._channel = None
            self._ready.notify_all()

    def put(self, message: dict[str, Any]) -> None:
        """Send `message` now if it can go without waiting, else queue it (any thread)."""
        data = encode_frame(message)
        with self._ready:
            channel = self._channel
            if channel is not None and not self._waiting:
                try:
                    sent = channel.send_without_waiting(data)
                except ChannelClosedError:
                    sent = 0  # the reader sees the channel closed; a new one drops the rest
                if sent == len(data):
                    return
                data = data[sent:]
            self._waiting.append(data)
            self._ready.notify_all()

    def write(self, channel: Channel) -> None:
        """The writer thread: send what waits, in order, until `channel` is detached."""
        while True:
            with self._ready:
                self._ready.wait_for(lambda: self._channel is not channel or bool(self._waiting))
                if self._channel is not channel:
                    return
                data = self._waiting[0]  # left at the head while sent: `put` waits behind it
            try:
                channel.send_bytes(data)
            except ChannelClosedError:
                return
            with self._ready:
                if self._channel is channel and self._waiting and self._waiting[0] is data:
                    self._waiting.popleft()
