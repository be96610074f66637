"""A TCP proxy of the tests' own between a client and a server, which can hold the link down.

`hold_down` cuts every open connection and refuses new ones (accepted and closed at once)
until `release`: a table whose cable is pulled, while everything else keeps its link.
`mute_answers` goes on forwarding what the client sends on the connections open now but
drops every byte the server sends back on them: what the client publishes arrives, and no
acknowledgement or answer reaches it (a connection made afterwards is forwarded whole).
"""

from __future__ import annotations

import contextlib
import socket
import threading

from tests.support.mosquitto import free_port


class TcpProxy:
    """Forward 127.0.0.1:`port` to 127.0.0.1:`target`."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.port = free_port()
        self._down = threading.Event()
        self._open: list[socket.socket] = []
        self._muted: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._listener = socket.create_server(("127.0.0.1", self.port))
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            if self._down.is_set():
                client.close()
                continue
            try:
                server = socket.create_connection(("127.0.0.1", self.target))
            except OSError:
                client.close()
                continue
            with self._lock:
                self._open += [client, server]
            for source, sink in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while chunk := source.recv(65536):
                if source not in self._muted:
                    sink.sendall(chunk)
        for end in (source, sink):
            with contextlib.suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)

    def mute_answers(self) -> None:
        """Drop what the server sends on every connection open now."""
        with self._lock:
            self._muted.update(self._open[1::2])  # each connection's server side

    def hold_down(self) -> None:
        """Cut every open connection; refuse new ones until `release`."""
        self._down.set()
        with self._lock:
            for sock in self._open:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                sock.close()
            self._open.clear()

    def release(self) -> None:
        """Forward new connections again."""
        self._down.clear()

    def close(self) -> None:
        """Stop listening and cut everything."""
        self._closed = True
        self.hold_down()
        self._listener.close()
