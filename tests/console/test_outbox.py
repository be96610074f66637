"""The channel between the table and its web process. The table's side (controller/web/
bridge.py `Outbox`): frames leave in the order they were made, the caller's thread sends one
at once when it can, never waits for a web process that stopped reading, and a new channel
begins clean. The web process's side (worker.py): frames read on its event loop, whole
however the bytes arrive."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
import threading
from collections.abc import Iterator

import pytest

from controller.web.bridge import Outbox
from controller.web.channel import (
    MAX_FRAME,
    Channel,
    ChannelClosedError,
    FrameReader,
    encode_frame,
)
from controller.web.worker import RemoteHub, WebChannelLink

LIMIT_S = 60.0
"""A limit for a thread that would otherwise hang, not a speed."""


@pytest.fixture
def pair() -> Iterator[tuple[Channel, Channel]]:
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    ours.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)  # fills after a few frames
    table, web = Channel(ours), Channel(theirs)
    yield table, web
    table.close()
    web.close()


def test_a_frame_goes_at_once_without_the_writer_thread(pair: tuple[Channel, Channel]) -> None:
    table, web = pair
    outbox = Outbox()
    outbox.attach(table)
    outbox.put({"pub": 0, "seq": 1, "text": "{}"})
    outbox.put({"reply": 7, "status": 200, "body": {}})
    assert web.receive() == {"pub": 0, "seq": 1, "text": "{}"}
    assert web.receive() == {"reply": 7, "status": 200, "body": {}}


def test_a_web_process_that_stops_reading_never_holds_the_caller(
        pair: tuple[Channel, Channel]) -> None:
    table, web = pair
    outbox = Outbox()
    outbox.attach(table)
    text = "x" * 20000  # larger than the socket takes at once: frames go in parts
    messages = [{"pub": 0, "seq": seq, "text": text} for seq in range(1, 201)]

    def publish() -> None:
        for message in messages:
            outbox.put(message)
    publisher = threading.Thread(target=publish, daemon=True)
    publisher.start()
    publisher.join(LIMIT_S)
    assert not publisher.is_alive(), "put waited for a socket nobody reads"

    writer = threading.Thread(target=outbox.write, args=(table,), daemon=True)
    writer.start()
    received = [web.receive() for _ in messages]  # whole frames, in order, none lost
    assert received == messages
    outbox.detach()
    writer.join(LIMIT_S)
    assert not writer.is_alive()


def test_a_new_channel_drops_the_old_one_s_leftovers_and_begins_with_the_latest(
        pair: tuple[Channel, Channel]) -> None:
    table, web = pair
    outbox = Outbox()
    old_ours, old_theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    old_ours.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    old = Channel(old_ours)
    outbox.attach(old)
    for seq in range(1, 50):  # nobody reads: some sent, one cut short, the rest wait
        outbox.put({"pub": 0, "seq": seq, "text": "y" * 3000})
    old_theirs.close()
    outbox.detach()
    old.close()

    outbox.attach(table, lambda: [{"pub": 0, "seq": 49, "text": "latest"}])
    outbox.put({"pub": 0, "seq": 50, "text": "next"})
    writer = threading.Thread(target=outbox.write, args=(table,), daemon=True)
    writer.start()
    assert web.receive() == {"pub": 0, "seq": 49, "text": "latest"}
    assert web.receive() == {"pub": 0, "seq": 50, "text": "next"}
    outbox.detach()
    writer.join(LIMIT_S)


def test_a_closed_channel_is_no_error_for_the_caller(pair: tuple[Channel, Channel]) -> None:
    table, web = pair
    outbox = Outbox()
    outbox.attach(table)
    web.close()
    table.sock.shutdown(socket.SHUT_RDWR)
    outbox.put({"pub": 0, "seq": 1, "text": "{}"})  # kept for the writer, which ends
    writer = threading.Thread(target=outbox.write, args=(table,), daemon=True)
    writer.start()
    writer.join(LIMIT_S)
    assert not writer.is_alive()
    with pytest.raises(ChannelClosedError):
        table.send({"reply": 1, "status": 200, "body": {}})


def test_the_web_process_drops_a_publication_it_already_had(
        pair: tuple[Channel, Channel]) -> None:
    _table, web = pair
    hub = RemoteHub(0, WebChannelLink(web, 1))
    seen: list[int] = []
    hub.subscribe(lambda published: seen.append(published.seq))
    for seq in (1, 2, 2, 1, 3):
        hub.deliver(seq, "{}")
    assert seen == [1, 2, 3]
    assert hub.latest is not None
    assert hub.latest.seq == 3


def test_frames_come_out_whole_however_the_bytes_arrive() -> None:
    messages = [{"pub": 0, "seq": n, "text": "é" * n} for n in range(1, 6)]
    stream = b"".join(encode_frame(message) for message in messages)
    for piece in (1, 3, 7, len(stream)):
        frames = FrameReader()
        out: list[dict[str, object]] = []
        for start in range(0, len(stream), piece):
            out += frames.feed(stream[start:start + piece])
        assert out == messages, piece


@pytest.mark.parametrize(("data", "problem"), [
    (struct.pack(">I", MAX_FRAME + 1), "a frame of"),
    (struct.pack(">I", 2) + b"[]", "not a JSON object"),
    (struct.pack(">I", 2) + b"{x", "not JSON"),
])
def test_a_frame_that_is_not_one_ends_the_channel_in_one_line(data: bytes, problem: str) -> None:
    with pytest.raises(ChannelClosedError, match=problem):
        FrameReader().feed(data)


def test_the_web_process_reads_the_table_on_its_event_loop(
        pair: tuple[Channel, Channel]) -> None:
    table, web = pair
    link = WebChannelLink(web, 1)
    seen: list[tuple[str, int]] = []
    link.hubs[0].subscribe(lambda published: seen.append(
        (threading.current_thread().name, published.seq)))

    async def run() -> None:
        following = asyncio.ensure_future(link.follow())
        reply = asyncio.wrap_future(link.command(0, "console", {"command": "stand"}, "console",
                                                 "kiosk"))
        asked = table.receive()
        assert asked["cmd"] == 1
        table.send({"pub": 0, "seq": 1, "text": "{}"})
        table.send({"reply": asked["cmd"], "status": 200, "body": {"ok": True}})
        answer = await asyncio.wait_for(reply, LIMIT_S)
        assert (answer.status, answer.body) == (200, {"ok": True})
        table.sock.shutdown(socket.SHUT_RDWR)  # the table stops: the reading ends
        await asyncio.wait_for(following, LIMIT_S)

    asyncio.run(run())
    assert seen == [(threading.current_thread().name, 1)], "read on the loop's own thread"
    assert link.closed.is_set()


def test_the_web_process_stops_reading_when_its_servers_end(
        pair: tuple[Channel, Channel]) -> None:
    _table, web = pair
    link = WebChannelLink(web, 1)

    async def run() -> bool:
        following = asyncio.ensure_future(link.follow())
        await asyncio.sleep(0)  # it is reading now
        following.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await following
        return asyncio.get_running_loop().remove_reader(web.sock.fileno())

    still_registered = asyncio.run(run())
    assert not still_registered, "the socket stays watched after the reading ended"
    assert link.closed.is_set()
