"""Frames between the table's process and its web server's process, over a Unix socket.

A frame is a 4-byte big-endian length and that many bytes of compact JSON. The table sends
publications (`{"pub": HUB, "seq": N, "text": TABLE}`) and replies
(`{"reply": ID, "status": S, "body": {...}}`); the web server sends commands
(`{"cmd": ID, "hub": HUB, "executor": NAME, "command": {...}, "source": S, "by": BY}`) and
journal records (`{"record": KIND, "hub": HUB, "data": {...}}`). `Channel.send` may be
called from any thread; one thread reads.
"""

from __future__ import annotations

import contextlib
import json
import socket
import struct
import threading
from typing import Any, Final

MAX_FRAME: Final = 64 * 1024 * 1024
"""The largest frame taken (a table of 200 stations is well under)."""
_LENGTH: Final = struct.Struct(">I")


def encode_frame(message: dict[str, Any]) -> bytes:
    """One frame: the length, then the message as compact JSON."""
    data = json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode()
    return _LENGTH.pack(len(data)) + data


class ChannelClosedError(EOFError):
    """The other process closed its end (or sent a frame that is not one)."""


class Channel:
    """One end of the socket.

    Args:
        sock: A connected `AF_UNIX` stream socket (blocking).
    """

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self._sending = threading.Lock()
        self._file = sock.makefile("rb", buffering=1024 * 1024)

    def send(self, message: dict[str, Any]) -> None:
        """Send one frame (any thread; whole frames, never interleaved).

        Raises:
            ChannelClosedError: The other end is gone.
        """
        self.send_bytes(encode_frame(message))

    def send_bytes(self, data: bytes) -> None:
        """Send bytes of `encode_frame` whole, waiting for room (any thread).

        Raises:
            ChannelClosedError: The other end is gone.
        """
        with self._sending:
            try:
                self.sock.sendall(data)
            except OSError as exc:
                raise ChannelClosedError(str(exc)) from None

    def send_without_waiting(self, data: bytes) -> int:
        """Send as much of `data` as the socket takes now; how many bytes went (maybe 0).

        The caller keeps the rest and sends it before anything else (`send_bytes`).

        Raises:
            ChannelClosedError: The other end is gone.
        """
        if not self._sending.acquire(blocking=False):
            return 0  # another thread is sending: never wait for it
        try:
            return self.sock.send(data, socket.MSG_DONTWAIT)
        except BlockingIOError:
            return 0
        except OSError as exc:
            raise ChannelClosedError(str(exc)) from None
        finally:
            self._sending.release()

    def receive(self) -> dict[str, Any]:
        """The next frame (the reading thread only).

        Raises:
            ChannelClosedError: The other end closed, or sent something not a frame.
        """
        head = self._file.read(_LENGTH.size)
        if len(head) < _LENGTH.size:
            raise ChannelClosedError("the other process closed the channel")
        size = _frame_size(head)
        data = self._file.read(size)
        if len(data) < size:
            raise ChannelClosedError("the other process closed the channel mid-frame")
        return _message(data)

    def close(self) -> None:
        """Close this end (idempotent); the reading thread sees the channel closed."""
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(OSError, ValueError):  # the reader may be in it
            self._file.close()
        self.sock.close()


class FrameReader:
    """Frames out of bytes that arrive in any pieces (a reader on an event loop)."""

    def __init__(self) -> None:
        self._buffer = bytearray()

    def feed(self, data: bytes) -> list[dict[str, Any]]:
        """The frames `data` completes, in order; a frame's first part waits for the rest.

        Raises:
            ChannelClosedError: A frame over `MAX_FRAME`, or one that is not a JSON object.
        """
        self._buffer += data
        messages = []
        while len(self._buffer) >= _LENGTH.size:
            size = _frame_size(self._buffer)
            end = _LENGTH.size + size
            if len(self._buffer) < end:
                break
            messages.append(_message(bytes(self._buffer[_LENGTH.size:end])))
            del self._buffer[:end]
        return messages


def _frame_size(head: bytes | bytearray) -> int:
    (size,) = _LENGTH.unpack_from(head)
    if size > MAX_FRAME:
        raise ChannelClosedError(f"a frame of {size} bytes (at most {MAX_FRAME})")
    return int(size)


def _message(data: bytes) -> dict[str, Any]:
    try:
        message = json.loads(data)
    except ValueError:
        raise ChannelClosedError("a frame that is not JSON") from None
    if not isinstance(message, dict):
        raise ChannelClosedError("a frame that is not a JSON object")
    return message
