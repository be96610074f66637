"""BridgeClient and SerialTransport over real pseudo-terminals and pyserial's loop://, with
a DeviceRunner playing the board at the byte level."""

import gc
import os
import queue
import threading
import time
from collections.abc import Iterator

import pytest
import serial

from firmware_bridge import (
    BridgeClient,
    BridgeClosedError,
    BridgeError,
    Catalogue,
    DeviceEndpoint,
    DeviceIdentity,
    DeviceRunner,
    Expectation,
    FdPort,
    HandshakeMismatch,
    HandshakeTimeoutError,
    LinkDownError,
    PtyPair,
    RequestTimeoutError,
    TransportError,
    open_pty,
)
from firmware_bridge.clock import monotonic
from firmware_bridge.codec import Message
from firmware_bridge.framing import Frame, FrameDecoder, FrameKind, encode_frame
from firmware_bridge.status import (
    ClientState,
    Connected,
    Disconnected,
    ReaderFailed,
    SinkFailed,
    TrafficDirection,
)
from firmware_bridge.transport import SerialTransport

WAIT = 5.0  # generous wall-clock limit for threads on a loaded two-core machine


def wait_for(condition, timeout: float = WAIT) -> bool:
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            return False
        time.sleep(0.01)
    return True


class Board:
    """A demo board behind a real pty, run by a DeviceRunner thread."""

    def __init__(self, catalogue: Catalogue, identity: DeviceIdentity | None = None) -> None:
        self.pty: PtyPair = open_pty()
        self.endpoint = DeviceEndpoint(catalogue.board("demo"),
                                       identity or DeviceIdentity("1.0.0"), monotonic)
        self.outputs: list[Message] = []
        self.endpoint.on("set_output", self.outputs.append)
        self.endpoint.on("get_status", lambda m: self.endpoint.send(
            "status", uptime_ms=1, temperature=2, serial=b"\x03"))
        self.runner = DeviceRunner(self.endpoint, FdPort(self.pty.master_fd))

    @property
    def url(self) -> str:
        return self.pty.slave_path

    def close(self) -> None:
        self.runner.stop()
        self.pty.close()


@pytest.fixture
def board(demo_catalogue: Catalogue) -> Iterator[Board]:
    board = Board(demo_catalogue)
    board.runner.start()
    yield board
    board.close()


@pytest.fixture
def client(board: Board, demo_catalogue: Catalogue) -> Iterator[BridgeClient]:
    client = BridgeClient(board.url, demo_catalogue, Expectation("demo"))
    client.connect(WAIT)
    yield client
    client.close()


def test_connect_send_request_and_subscribe_over_a_real_pty(
    board: Board, client: BridgeClient
) -> None:
    assert client.state is ClientState.READY
    assert client.identity is not None
    assert client.identity.board_kind == "demo"
    received: queue.Queue[Message] = queue.Queue()
    client.subscribe("input_changed", received.put)
    client.send("set_output", output=4, level="blink")
    status = client.request("get_status", timeout=WAIT)
    assert status.fields == {"uptime_ms": 1, "temperature": 2, "serial": b"\x03"}
    assert board.outputs == [Message("set_output", {"output": 4, "level": "blink"})]
    board.endpoint.emit("input_changed", input=3, active=True, label="PTY")
    assert received.get(timeout=WAIT)["label"] == "PTY"
    assert wait_for(lambda: board.endpoint.stats().events_pending == 0)
    stats = client.stats()
    assert stats.messages_sent >= 3
    assert stats.decoder.error_total == 0


def test_a_counted_event_reaches_subscribers_exactly_once(
    board: Board, client: BridgeClient
) -> None:
    seen: list[int] = []
    everything: list[str] = []
    client.subscribe("input_changed", lambda m: seen.append(m.int("count")))
    client.subscribe("*", lambda m: everything.append(m.name))
    board.endpoint.faults.duplicate_next(3, kind=FrameKind.DATA)
    for number in range(20):
        board.endpoint.emit("input_changed", input=number, active=True, label="")
    assert wait_for(lambda: len(seen) >= 20)
    time.sleep(0.6)  # one event-repeat interval: nothing more may arrive
    assert seen == list(range(1, 21))
    assert everything.count("input_changed") == 20


def test_in_handled_mode_the_board_keeps_an_event_until_the_owner_declares_it_handled(
    board: Board, demo_catalogue: Catalogue
) -> None:
    received: queue.Queue[Message] = queue.Queue()
    with BridgeClient(board.url, demo_catalogue, Expectation("demo"),
                      ack_on="handled") as client:
        client.connect(WAIT)
        client.subscribe("input_changed", received.put)
        board.endpoint.emit("input_changed", input=1, active=True, label="KEEP")
        message = received.get(timeout=WAIT)
        time.sleep(0.6)  # one event-repeat interval: repeated, not delivered again
        assert received.empty()
        assert board.endpoint.stats().events_pending == 1
        identity = client.identity
        assert identity is not None
        done = threading.Thread(target=client.acknowledge_handled,
                                args=(message.int("count"), identity.boot_id))
        done.start()  # from another thread, as the owner's loop does
        done.join(WAIT)
        assert wait_for(lambda: board.endpoint.stats().events_pending == 0)


def test_close_puts_the_board_in_failsafe_and_is_idempotent(
    board: Board, client: BridgeClient
) -> None:
    client.send("failsafe", active=False)
    assert wait_for(lambda: not board.endpoint.failsafe)
    client.close()
    client.close()
    assert wait_for(lambda: board.endpoint.failsafe)
    assert client.state is ClientState.CLOSED
    with pytest.raises(LinkDownError):
        client.send("set_output", output=0, level="off")
    with pytest.raises(BridgeError, match="connect\\(\\) called in state closed"):
        client.connect(0.1)


def test_handshake_mismatch_is_refused_over_a_real_pty(demo_catalogue: Catalogue) -> None:
    board = Board(demo_catalogue, DeviceIdentity("0.9.9"))
    board.runner.start()
    try:
        client = BridgeClient(board.url, demo_catalogue,
                              Expectation("demo", frozenset({"1.0.0"})))
        with pytest.raises(HandshakeMismatch) as caught:
            client.connect(WAIT)
        assert "firmware version: expected '1.0.0', got '0.9.9'" in str(caught.value)
        assert str(caught.value).startswith(board.url)
        assert client.state is ClientState.CLOSED
    finally:
        board.close()


def test_nobody_answering_is_a_timeout_that_says_so(demo_catalogue: Catalogue) -> None:
    pty = open_pty()
    try:
        client = BridgeClient(pty.slave_path, demo_catalogue)
        started = time.monotonic()
        with pytest.raises(HandshakeTimeoutError, match=r"no session and handshake within 0\.3 s"):
            client.connect(0.3)
        assert time.monotonic() - started < 10 * WAIT  # it gave up, rather than hanging
        written = os.read(pty.master_fd, 4096)
        frames = [f for f in FrameDecoder().feed(written) if isinstance(f, Frame)]
        assert frames
        assert {f.kind for f in frames} == {FrameKind.RESET}  # it kept asking, every 200 ms
    finally:
        pty.close()


def test_an_unopenable_port_names_the_url(demo_catalogue: Catalogue) -> None:
    client = BridgeClient("/dev/no-such-bridge-port", demo_catalogue)
    with pytest.raises(TransportError, match="/dev/no-such-bridge-port: cannot open"):
        client.connect(0.5)


def test_a_request_without_an_answer_times_out(board: Board, client: BridgeClient) -> None:
    board.endpoint.on("get_status", lambda message: None)
    with pytest.raises(RequestTimeoutError, match=r"no 'status' answered 'get_status' in 0\.2 s"):
        client.request("get_status", timeout=0.2)
    with pytest.raises(BridgeError, match="'set_output' has no response"):
        client.request("set_output", {"output": 1, "level": "on"})


def test_the_client_reconnects_after_the_board_goes_quiet(
    board: Board, client: BridgeClient
) -> None:
    events: queue.Queue[object] = queue.Queue()
    client.subscribe_events(events.put)
    board.endpoint.faults.go_silent(1.2)
    first = events.get(timeout=WAIT)
    assert isinstance(first, Disconnected)
    assert "nothing received" in first.reason
    second = events.get(timeout=WAIT)
    assert isinstance(second, Connected)
    assert client.request("get_status", timeout=WAIT)["uptime_ms"] == 1


def test_a_vanished_port_becomes_an_event_not_a_silent_death(
    board: Board, client: BridgeClient
) -> None:
    events: queue.Queue[object] = queue.Queue()
    client.subscribe_events(events.put)
    board.runner.stop()
    board.pty.close()  # the cable is pulled: the pty's other end is gone
    event = events.get(timeout=WAIT)
    while not isinstance(event, ReaderFailed):
        event = events.get(timeout=WAIT)
    assert client.state is ClientState.FAILED
    with pytest.raises(LinkDownError):
        client.send("set_output", output=0, level="off")


def test_a_failing_sink_is_reported_and_others_still_served(
    board: Board, client: BridgeClient
) -> None:
    events: queue.Queue[object] = queue.Queue()
    good: queue.Queue[Message] = queue.Queue()
    client.subscribe_events(events.put)

    def broken(message: Message) -> None:
        raise RuntimeError("sink bug")

    client.subscribe("input_changed", broken)
    client.subscribe("input_changed", good.put)
    board.endpoint.emit("input_changed", input=1, active=False, label="")
    assert good.get(timeout=WAIT)["input"] == 1
    failed = events.get(timeout=WAIT)
    assert isinstance(failed, SinkFailed)
    assert failed.subscription == "input_changed"
    assert str(failed.error) == "sink bug"


def test_traffic_history_records_both_directions(board: Board, client: BridgeClient) -> None:
    client.send("set_output", output=1, level="on")
    assert wait_for(lambda: any(r.text.startswith("set_output") for r in client.history()))
    directions = {record.direction for record in client.history()}
    assert {TrafficDirection.OUT, TrafficDirection.IN, TrafficDirection.LINK} <= directions


def test_a_loopback_plug_is_not_a_board(demo_catalogue: Catalogue) -> None:
    client = BridgeClient("loop://", demo_catalogue)
    with pytest.raises(HandshakeTimeoutError):
        client.connect(0.3)
    assert client.stats().link.ignored_frames >= 1  # it heard its own RESET and ignored it


class Collector:
    def __init__(self) -> None:
        self.data = bytearray()
        self.ticks = 0
        self.errors: list[BaseException] = []
        self.lock = threading.Lock()

    def on_bytes(self, chunk: bytes) -> None:
        with self.lock:
            self.data += chunk

    def on_tick(self) -> None:
        self.ticks += 1

    def frames(self) -> list[Frame]:
        with self.lock:
            return [f for f in FrameDecoder().feed(bytes(self.data)) if isinstance(f, Frame)]


def test_transport_over_loop_url_carries_frames() -> None:
    transport = SerialTransport("loop://")
    collector = Collector()
    transport.open(collector.on_bytes, collector.on_tick, collector.errors.append)
    sent = [Frame(FrameKind.DATA, n, 0, bytes([0x10, n])) for n in range(50)]
    for frame in sent:
        transport.write(encode_frame(frame))
    assert wait_for(lambda: len(collector.frames()) == 50)
    assert collector.frames() == sent
    assert collector.ticks > 0
    transport.close()
    transport.close()
    assert not transport.is_open
    with pytest.raises(BridgeClosedError):
        transport.write(b"\x00")
    with pytest.raises(BridgeClosedError):
        transport.open(collector.on_bytes, collector.on_tick, collector.errors.append)
    assert collector.errors == []


def test_transport_over_a_real_pty_is_raw_both_ways() -> None:
    pty = open_pty()
    transport = SerialTransport(pty.slave_path)
    collector = Collector()
    transport.open(collector.on_bytes, collector.on_tick, collector.errors.append)
    try:
        every_byte = bytes(range(256)) * 4  # raw: no echo, no CR/LF or XON/XOFF processing
        transport.write(every_byte)
        received = b""
        while len(received) < len(every_byte):
            received += FdPort(pty.master_fd).read(WAIT)
        assert received == every_byte
        os.write(pty.master_fd, every_byte)
        assert wait_for(lambda: len(collector.data) == len(every_byte))
        assert bytes(collector.data) == every_byte
    finally:
        transport.close()
        pty.close()


# pyserial's spy handler never closes its log file; collect it here, inside this filter.
@pytest.mark.filterwarnings("ignore::ResourceWarning")
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_spy_url_wraps_a_pty_for_traffic_capture(tmp_path, demo_catalogue: Catalogue) -> None:
    board = Board(demo_catalogue)
    board.runner.start()
    log = tmp_path / "traffic.txt"
    client = BridgeClient(f"spy://{board.url}?file={log}", demo_catalogue)
    try:
        client.connect(WAIT)
        client.send("set_output", output=5, level="off")
        assert wait_for(lambda: board.outputs != [])
    finally:
        client.close()
        board.close()
        gc.collect()
    assert "TX" in log.read_text()


def test_serial_byte_port_refuses_a_bad_url() -> None:
    from firmware_bridge import SerialBytePort

    with pytest.raises(TransportError, match="nope://x: cannot open"):
        SerialBytePort("nope://x")
    assert serial.VERSION  # pyserial is what opens every URL


def test_a_frame_that_arrives_whole_is_handed_up_whole() -> None:
    """Woken by a frame's first byte, the reader takes the rest that came with it: one call
    of `on_bytes` a frame, not the first byte and then the rest (a turn of the link each)."""
    pty = open_pty()
    transport = SerialTransport(pty.slave_path)
    frames = [encode_frame(Frame(FrameKind.DATA, n, 0, bytes(range(40, 90)))) for n in range(20)]
    chunks: list[int] = []
    transport.open(lambda chunk: chunks.append(len(chunk)), lambda: None, lambda error: None)
    try:
        written = 0
        for frame in frames:
            os.write(pty.master_fd, frame)  # a whole frame at once, as a pty or USB brings it
            written += len(frame)
            assert wait_for(lambda: sum(chunks) == written)  # noqa: B023 - read at once
        assert chunks == [len(frame) for frame in frames]
    finally:
        transport.close()
        pty.close()
