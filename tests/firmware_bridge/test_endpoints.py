"""Host and board endpoints wired together in memory: handshake, failsafe, counted events,
errors and the board's fault injection, all on a fake clock."""

from collections.abc import Callable

import pytest

from firmware_bridge import (
    Catalogue,
    DeviceEndpoint,
    DeviceIdentity,
    Expectation,
    HostEndpoint,
)
from firmware_bridge.codec import Codec, Message
from firmware_bridge.errors import BridgeError, CodecError, LinkDownError
from firmware_bridge.events import EventBaseline
from firmware_bridge.framing import (
    Frame,
    FrameDecoder,
    FrameErrorKind,
    FrameKind,
)
from firmware_bridge.host import AckOn
from firmware_bridge.status import (
    BoardReportedError,
    ClientState,
    Connected,
    Disconnected,
    EventsMissed,
    Refused,
    TrafficDirection,
    TrafficRecord,
)
from tests.support.clock import FakeClock
from tests.support.hand_host import HandHost
from tests.support.linked_pair import LinkedPair, RandomFaults, Wire


class Rig:
    """A demo board and a host joined in memory, with what each side saw."""

    def __init__(self, catalogue: Catalogue, identity: DeviceIdentity | None = None,
                 expect: Expectation | None = None, baseline: EventBaseline | None = None,
                 kind: str = "demo", ack_on: AckOn = "receipt") -> None:
        self.clock = FakeClock()
        self.catalogue = catalogue
        self.device = DeviceEndpoint(catalogue.board(kind),
                                     identity or DeviceIdentity("1.0.0", boot_id=42), self.clock)
        self.host = HostEndpoint("mem://demo", catalogue, expect or Expectation(kind),
                                 self.clock, event_baseline=baseline, ack_on=ack_on)
        self.outputs: list[Message] = []
        if kind == "demo":
            self.device.on("set_output", self.outputs.append)
            self.device.on("get_status", lambda m: self.device.send(
                "status", uptime_ms=5, temperature=-3, serial=b"\x01"))
        self.pair = LinkedPair(self.host, self.device, self.clock)
        self.notices: list[object] = []

    def run(self, seconds: float) -> None:
        self.pair.run(seconds)
        self.notices += self.host.take_notices()

    def messages(self, name: str | None = None) -> list[Message]:
        return [n for n in self.notices if isinstance(n, Message) and name in (None, n.name)]

    def of(self, kind: type) -> list:
        return [n for n in self.notices if isinstance(n, kind)]

    def restart_host(self, baseline: EventBaseline | None = None, ack_on: AckOn = "receipt",
                     before_start: Callable[[], None] = lambda: None) -> HostEndpoint:
        """A new host on the same, still running board (the old one lost power)."""
        self.host = HostEndpoint("mem://demo", self.catalogue, Expectation("demo"), self.clock,
                                 event_baseline=baseline, ack_on=ack_on)
        self.pair.host = self.host
        before_start()
        self.host.start()
        self.notices = []
        return self.host

    def acks(self) -> list[int]:
        """The counts of every `event_ack` the host sent, in order."""
        return [int(n.text.rpartition("=")[2]) for n in self.of(TrafficRecord)
                if n.direction is TrafficDirection.OUT and n.text.startswith("event_ack ")]


def board_in_session(
    catalogue: Catalogue,
) -> tuple[FakeClock, DeviceEndpoint, Codec, HandHost]:
    """A demo board endpoint whose session was opened by hand (no host endpoint)."""
    clock = FakeClock()
    board = catalogue.board("demo")
    device = DeviceEndpoint(board, DeviceIdentity("1.0.0"), clock)
    device.start()
    host = HandHost()
    device.take_output()
    device.feed(host.reset())
    host.opened_by(device.take_output())
    return clock, device, Codec(board), host


@pytest.fixture
def rig(demo_catalogue: Catalogue) -> Rig:
    rig = Rig(demo_catalogue)
    rig.pair.start()
    rig.run(0.05)
    return rig


def test_handshake_connects_and_reports_the_identity(rig: Rig) -> None:
    (connected,) = rig.of(Connected)
    assert connected.identity.board_kind == "demo"
    assert connected.identity.boot_id == 42
    assert rig.host.state is ClientState.READY
    assert rig.device.identified


def test_commands_reach_handlers_and_reports_come_back(rig: Rig) -> None:
    rig.host.send("set_output", {"output": 2, "level": "on"})
    rig.host.send("get_status")
    rig.run(0.05)
    assert rig.outputs == [Message("set_output", {"output": 2, "level": "on"})]
    assert rig.messages("status")[0].fields == {"uptime_ms": 5, "temperature": -3,
                                                 "serial": b"\x01"}


MISMATCHES = [
    (DeviceIdentity("1.0.0", protocol_version=1), Expectation("demo"),
     "protocol version: expected 2, got 1"),
    (DeviceIdentity("1.0.0", board_kind="layout"), Expectation("demo"),
     "board kind: expected 'demo', got 'layout'"),
    (DeviceIdentity("0.9.0"), Expectation("demo", frozenset({"1.0.0", "1.0.1"})),
     "firmware version: expected '1.0.0' or '1.0.1', got '0.9.0'"),
    (DeviceIdentity("1.0.0", catalogue_hash=bytes(32)), Expectation("demo"),
     "catalogue hash of 'demo': expected e51862d0bc2106c7"),
    (DeviceIdentity("1.0.0", board_kind="toaster"), Expectation(),
     "board kind: expected one of demo, got 'toaster'"),
]


@pytest.mark.parametrize(("identity", "expect", "expected"), MISMATCHES,
                         ids=["protocol", "kind", "firmware", "hash", "unknown-kind"])
def test_handshake_mismatch_is_refused_naming_expected_and_got(
    demo_catalogue: Catalogue, identity: DeviceIdentity, expect: Expectation, expected: str
) -> None:
    rig = Rig(demo_catalogue, identity, expect)
    rig.pair.start()
    rig.run(0.05)
    (refused,) = rig.of(Refused)
    assert refused.reason.startswith("mem://demo: board refused: ")
    assert expected in refused.reason
    assert rig.host.state is ClientState.REFUSED
    assert rig.host.refusal is not None
    with pytest.raises(LinkDownError):
        rig.host.send("set_output", {"output": 0, "level": "on"})
    rig.run(1.0)  # the host fell silent: the board times out and stays failsafe
    assert rig.device.failsafe
    assert rig.host.take_output() == b""


def test_every_mismatching_field_is_named_at_once(demo_catalogue: Catalogue) -> None:
    identity = DeviceIdentity("0.1", board_kind="layout", catalogue_hash=b"\x01")
    rig = Rig(demo_catalogue, identity, Expectation("demo", frozenset({"1.0.0"})))
    rig.pair.start()
    rig.run(0.05)
    (refused,) = rig.of(Refused)
    assert "board kind: expected 'demo'" in refused.reason
    assert "firmware version: expected '1.0.0', got '0.1'" in refused.reason


def test_failsafe_from_power_up_until_released_and_again_when_the_host_goes_quiet(
    rig: Rig,
) -> None:
    changes: list[bool] = []
    rig.device.on_failsafe(changes.append)
    assert rig.device.failsafe
    rig.host.send("failsafe", {"active": False})
    rig.run(0.05)
    assert not rig.device.failsafe
    rig.pair.to_board.fault = lambda wire: []  # the host goes quiet
    quiet = rig.clock()
    while not rig.device.failsafe:
        rig.run(0.005)
    assert rig.clock() - quiet < 1.0
    assert changes == [False, True]


def test_failsafe_on_command_and_on_close(rig: Rig) -> None:
    rig.host.send("failsafe", {"active": False})
    rig.run(0.05)
    rig.host.send("failsafe", {"active": True})
    rig.run(0.05)
    assert rig.device.failsafe
    rig.host.send("failsafe", {"active": False})
    rig.run(0.05)
    rig.host.stop("closed")
    rig.run(0.05)
    assert rig.device.failsafe  # the host's stop asks for it before falling silent


def test_counted_events_are_delivered_once_and_acknowledged(rig: Rig) -> None:
    for number in range(5):
        rig.device.emit("input_changed", input=number, active=True, label="X")
    rig.run(0.1)
    assert [m["count"] for m in rig.messages("input_changed")] == [1, 2, 3, 4, 5]
    assert rig.device.stats().events_pending == 0


def test_events_emitted_before_the_host_arrives_are_kept_and_sent_after_identify(
    demo_catalogue: Catalogue,
) -> None:
    rig = Rig(demo_catalogue)
    rig.device.start()
    rig.device.emit("input_changed", input=1, active=True, label="EARLY")
    rig.pair.run(2.0)  # no host yet
    rig.host.start()
    rig.run(0.1)
    assert [m["label"] for m in rig.messages("input_changed")] == ["EARLY"]


def test_an_event_not_acknowledged_by_the_application_is_repeated(
    demo_catalogue: Catalogue,
) -> None:
    clock, device, codec, host = board_in_session(demo_catalogue)
    device.feed(host.data(0, 0, codec.encode("identify")))
    device.emit("input_changed", input=1, active=True, label="AGAIN")
    device.feed(host.ack(1, 2))  # link-level ack only
    decoder = FrameDecoder()

    def events_sent() -> list[int]:
        frames = [f for f in decoder.feed(device.take_output()) if isinstance(f, Frame)]
        return [codec.decode(f.payload).int("count") for f in frames
                if f.kind is FrameKind.DATA and f.payload[0] == 0x11]

    events_sent()
    clock.advance(0.45)
    device.poll()
    assert events_sent() == []
    clock.advance(0.06)
    device.poll()
    assert events_sent() == [1]  # repeated after 500 ms without event_ack
    device.feed(host.data(1, 3, codec.encode("event_ack", {"count": 1})))
    clock.advance(1.0)
    device.poll()
    assert events_sent() == []
    assert device.stats().events_pending == 0


def test_an_event_repeated_after_a_lost_session_is_taken_once(rig: Rig) -> None:
    rig.pair.to_board.fault = lambda wire: []  # the host's event_ack never arrives
    rig.device.emit("input_changed", input=1, active=True, label="ONCE")
    rig.run(0.05)
    assert len(rig.messages("input_changed")) == 1
    rig.pair.to_host.fault = lambda wire: []
    rig.run(1.0)  # both ends time out
    rig.pair.to_board.fault = rig.pair.to_host.fault = None
    rig.run(1.0)  # new session; the board repeats the event; the host suppresses it
    assert len(rig.of(Connected)) == 2
    assert len(rig.messages("input_changed")) == 1
    assert rig.host.stats().duplicate_events == 1
    assert rig.device.stats().events_pending == 0


def test_events_survive_a_host_restart_without_duplicates(demo_catalogue: Catalogue) -> None:
    rig = Rig(demo_catalogue)
    rig.pair.start()
    rig.run(0.05)
    rig.device.emit("input_changed", input=1, active=True, label="A")
    rig.run(0.05)
    position = rig.host.event_position()
    assert position == EventBaseline(42, 1)
    # The host restarts with the journalled position; the board kept running.
    rig.restart_host(position, before_start=lambda: rig.device.emit(
        "input_changed", input=2, active=True, label="B"))
    rig.run(0.2)
    assert [m["label"] for m in rig.messages("input_changed")] == ["B"]


def test_a_rebooted_board_counts_from_one_again(demo_catalogue: Catalogue) -> None:
    rig = Rig(demo_catalogue, baseline=EventBaseline(boot_id=41, last_count=90))
    rig.pair.start()
    rig.device.emit("input_changed", input=1, active=True, label="NEW")
    rig.run(0.1)
    (connected,) = rig.of(Connected)
    assert connected.restarted
    assert [m["count"] for m in rig.messages("input_changed")] == [1]


def test_events_lost_on_a_full_board_queue_are_reported(demo_catalogue: Catalogue) -> None:
    rig = Rig(demo_catalogue)
    rig.device = DeviceEndpoint(demo_catalogue.board("demo"), DeviceIdentity("1.0.0"),
                                rig.clock, event_capacity=3)
    rig.pair.device = rig.device
    rig.device.start()
    for number in range(6):
        rig.device.emit("input_changed", input=number, active=True, label="")
    rig.host.start()
    rig.run(0.1)
    assert [m["count"] for m in rig.messages("input_changed")] == [1, 2, 3]
    rig.device.emit("input_changed", input=9, active=True, label="")
    rig.run(0.1)
    (missed,) = rig.of(EventsMissed)
    assert (missed.message, missed.first, missed.last) == ("input_changed", 4, 6)
    assert rig.host.stats().missed_events == 3


def test_board_reports_commands_it_cannot_carry_out(demo_catalogue: Catalogue) -> None:
    rig = Rig(demo_catalogue)
    rig.device = DeviceEndpoint(demo_catalogue.board("demo"), DeviceIdentity("1.0.0"),
                                rig.clock)  # no handlers registered
    rig.pair.device = rig.device
    rig.pair.start()
    rig.run(0.05)
    rig.host.send("set_output", {"output": 1, "level": "off"})
    rig.run(0.05)
    (error,) = rig.of(BoardReportedError)
    assert error.message_id == 0x10
    assert "'set_output' is not supported by this board" in error.reason


def test_board_refuses_commands_before_identify(demo_catalogue: Catalogue) -> None:
    _, device, codec, host = board_in_session(demo_catalogue)
    device.feed(host.data(0, 0, codec.encode(
        "set_output", {"output": 1, "level": "on"})))
    frames = FrameDecoder().feed(device.take_output())
    answer = codec.decode(frames[-1].payload)
    assert answer.name == "command_error"
    assert answer["reason"] == "identify must come first in a session"
    assert device.send("status", uptime_ms=1, temperature=0, serial=b"") is False


@pytest.mark.parametrize("active", [True, False])
def test_failsafe_before_identify_is_an_error_and_the_board_stays_failsafe(
    demo_catalogue: Catalogue, active: bool,
) -> None:
    _, device, codec, host = board_in_session(demo_catalogue)
    assert device.failsafe  # every session starts in failsafe
    device.feed(host.data(0, 0, codec.encode("failsafe", {"active": active})))
    frames = FrameDecoder().feed(device.take_output())
    answer = codec.decode(frames[-1].payload)
    assert answer.name == "command_error"
    assert answer["reason"] == "identify must come first in a session"
    assert device.failsafe  # active=false released nothing


def test_board_api_refuses_misuse(demo_catalogue: Catalogue) -> None:
    device = DeviceEndpoint(demo_catalogue.board("demo"), DeviceIdentity("1"), FakeClock())
    with pytest.raises(BridgeError, match="'status' is not a command to handle"):
        device.on("status", print)
    with pytest.raises(CodecError, match="'status' is not a counted event"):
        device.emit("status", uptime_ms=1)


@pytest.mark.parametrize("fault", ["drop", "corrupt", "duplicate", "delay"])
def test_injected_faults_on_board_frames_lose_nothing(rig: Rig, fault: str) -> None:
    injector = rig.device.faults
    if fault == "delay":
        injector.delay_next(0.3, frames=1, kind=FrameKind.DATA)
    else:
        getattr(injector, f"{fault}_next")(1, kind=FrameKind.DATA)
    for number in range(3):
        rig.device.emit("input_changed", input=number, active=True, label="F")
    rig.run(1.0)
    assert [m["input"] for m in rig.messages("input_changed")] == [0, 1, 2]
    assert injector.applied[fault] == 1
    if fault == "corrupt":
        assert rig.host.stats().decoder.errors == {FrameErrorKind.BAD_CRC: 1}


def test_injected_silence_drops_the_link_and_it_recovers(rig: Rig) -> None:
    rig.device.faults.go_silent(1.5)
    rig.run(2.5)
    assert len(rig.of(Disconnected)) == 1
    assert len(rig.of(Connected)) == 2
    assert rig.host.state is ClientState.READY


def test_injected_garbage_is_counted_and_harmless(rig: Rig) -> None:
    rig.device.faults.inject_raw(b"\x13\x37\x00\x02\x41\x00")
    rig.device.emit("input_changed", input=7, active=False, label="G")
    rig.run(0.1)
    assert [m["input"] for m in rig.messages("input_changed")] == [7]
    errors = rig.host.stats().decoder.errors
    assert errors == {FrameErrorKind.BAD_COBS: 1, FrameErrorKind.JUNK: 1}


def test_traffic_records_mask_secret_fields(table_catalogue: Catalogue) -> None:
    rig = Rig(table_catalogue, DeviceIdentity("2.0.0"), Expectation("shoe"), kind="shoe")
    rig.pair.start()
    rig.device.emit("card_read", card_no=1, code="QH", quality=97)
    rig.run(0.1)
    texts = [r.text for r in rig.host.history() if r.direction is TrafficDirection.IN]
    assert "card_read count=1 card_no=1 code=*** quality=97" in texts
    assert not [r for r in rig.of(TrafficRecord) if "QH" in r.text]
    assert rig.messages("card_read")[0]["code"] == "QH"  # the application gets the value


def test_a_damaged_frame_is_recorded_without_its_bytes(table_catalogue: Catalogue) -> None:
    # Its secret fields cannot be masked when it cannot be decoded (R17).
    rig = Rig(table_catalogue, DeviceIdentity("2.0.0"), Expectation("shoe"), kind="shoe")
    rig.pair.start()
    rig.run(0.05)
    rig.device.faults.corrupt_next(1, kind=FrameKind.DATA)
    rig.device.emit("card_read", card_no=1, code="QH", quality=97)
    rig.run(0.5)
    (error,) = [r.text for r in rig.host.history() if r.direction is TrafficDirection.ERROR]
    assert error.startswith(("bad_crc: ", "bad_cobs: "))
    assert "(" not in error
    assert rig.messages("card_read")[0]["code"] == "QH"  # retransmitted, then delivered


def test_a_lossy_line_still_delivers_every_event_once(demo_catalogue: Catalogue) -> None:
    rig = Rig(demo_catalogue)
    rig.pair.to_board = Wire(rig.clock, 0.002, RandomFaults(5, 0.05, 0.1, 0.02, 0.05))
    rig.pair.to_host = Wire(rig.clock, 0.002, RandomFaults(6, 0.05, 0.1, 0.02, 0.05))
    rig.pair.start()
    for number in range(100):
        rig.device.emit("input_changed", input=number % 256, active=True, label="L")
        rig.run(0.01)
    rig.run(3.0)
    assert [m["count"] for m in rig.messages("input_changed")] == list(range(1, 101))


# ------------------------------------------------------- acknowledging once handled


def handled_rig(catalogue: Catalogue, baseline: EventBaseline | None = None) -> Rig:
    rig = Rig(catalogue, baseline=baseline, ack_on="handled")
    rig.pair.start()
    rig.run(0.05)
    return rig


def emit(rig: Rig, events: int) -> None:
    for number in range(events):
        rig.device.emit("input_changed", input=number, active=True, label="")


def test_receipt_mode_acknowledges_each_event_as_it_arrives(rig: Rig) -> None:
    emit(rig, 3)
    rig.run(0.1)
    assert rig.acks() == [1, 2, 3]
    assert rig.device.stats().events_pending == 0
    rig.host.acknowledge_handled(3)  # nothing left to acknowledge
    rig.run(0.1)
    assert rig.acks() == [1, 2, 3]


def test_handled_mode_delivers_at_once_but_acknowledges_only_when_told(
    demo_catalogue: Catalogue,
) -> None:
    rig = handled_rig(demo_catalogue)
    emit(rig, 3)
    rig.run(1.2)  # the board repeats them twice meanwhile
    assert [m["count"] for m in rig.messages("input_changed")] == [1, 2, 3]
    assert rig.acks() == []
    assert rig.host.stats().duplicate_events >= 3
    assert rig.device.stats().events_pending == 3
    rig.host.acknowledge_handled(2)
    rig.run(0.05)
    assert rig.acks() == [2]
    assert rig.device.stats().events_pending == 1
    rig.host.acknowledge_handled(3)
    rig.run(0.05)
    assert rig.acks() == [2, 3]
    assert rig.device.stats().events_pending == 0
    assert [m["count"] for m in rig.messages("input_changed")] == [1, 2, 3]


def test_handled_acknowledgements_never_go_back_nor_beyond_what_was_delivered(
    demo_catalogue: Catalogue,
) -> None:
    rig = handled_rig(demo_catalogue)
    emit(rig, 2)
    rig.run(0.05)
    rig.host.acknowledge_handled(2)
    rig.host.acknowledge_handled(1)  # an older declaration: nothing sent
    rig.host.acknowledge_handled(2)  # the same again: nothing sent
    rig.run(0.05)
    assert rig.acks() == [2]
    rig.host.acknowledge_handled(9)  # cut to the 2 delivered: nothing new to send
    emit(rig, 1)
    rig.run(0.05)
    assert rig.acks() == [2]  # event 3 arrived after the declaration: not covered by it
    assert rig.device.stats().events_pending == 1
    rig.host.acknowledge_handled(9)
    rig.run(0.05)
    assert rig.acks() == [2, 3]
    assert rig.device.stats().events_pending == 0


def test_a_duplicate_in_handled_mode_is_answered_with_the_handled_count_only(
    demo_catalogue: Catalogue,
) -> None:
    rig = handled_rig(demo_catalogue)
    emit(rig, 3)
    rig.run(0.05)
    rig.host.acknowledge_handled(1)
    rig.run(0.05)
    assert rig.acks() == [1]
    rig.run(1.1)  # events 2 and 3 are repeated: duplicates now
    assert rig.host.stats().duplicate_events >= 2
    assert set(rig.acks()) == {1}
    assert rig.device.stats().events_pending == 2
    assert [m["count"] for m in rig.messages("input_changed")] == [1, 2, 3]


def test_a_duplicate_before_anything_was_handled_is_not_acknowledged(
    demo_catalogue: Catalogue,
) -> None:
    rig = handled_rig(demo_catalogue)
    emit(rig, 1)
    rig.run(0.6)
    assert rig.host.stats().duplicate_events == 1
    assert rig.acks() == []


def test_an_event_never_handled_is_delivered_again_to_a_restarted_host(
    demo_catalogue: Catalogue,
) -> None:
    rig = handled_rig(demo_catalogue)
    emit(rig, 2)
    rig.run(0.05)
    rig.host.acknowledge_handled(1)
    rig.run(0.05)
    # The host loses power with event 2 delivered but not handled; the board runs on.
    host = rig.restart_host(ack_on="handled")
    rig.run(0.2)
    assert [m["count"] for m in rig.messages("input_changed")] == [2]
    assert rig.acks() == []
    host.acknowledge_handled(2)
    rig.run(0.05)
    assert rig.acks() == [2]
    assert rig.device.stats().events_pending == 0


def test_the_event_position_carries_the_handled_count_to_the_next_host(
    demo_catalogue: Catalogue,
) -> None:
    rig = handled_rig(demo_catalogue)
    emit(rig, 3)
    rig.run(0.05)
    rig.host.acknowledge_handled(1)
    position = rig.host.event_position()
    assert position == EventBaseline(42, 3, handled=1)
    host = rig.restart_host(position, ack_on="handled")
    rig.run(0.2)
    assert rig.messages("input_changed") == []  # delivered once already, not again
    assert set(rig.acks()) == {1}  # the repeats are answered with the handled count
    host.acknowledge_handled(3)
    rig.run(0.05)
    assert rig.acks()[-1] == 3
    assert host.event_position() == EventBaseline(42, 3)


def test_handled_counts_of_an_earlier_board_boot_are_ignored(
    demo_catalogue: Catalogue,
) -> None:
    rig = handled_rig(demo_catalogue, EventBaseline(boot_id=41, last_count=90, handled=80))
    emit(rig, 2)
    rig.run(0.05)
    (connected,) = rig.of(Connected)
    assert connected.restarted
    rig.host.acknowledge_handled(85, boot_id=41)  # a late declaration about boot 41
    rig.run(0.05)
    assert rig.acks() == []
    assert rig.device.stats().events_pending == 2
    rig.host.acknowledge_handled(2, boot_id=42)
    rig.run(0.05)
    assert rig.acks() == [2]


def test_ack_on_must_be_receipt_or_handled(demo_catalogue: Catalogue) -> None:
    with pytest.raises(ValueError, match="ack_on must be 'receipt' or 'handled'"):
        HostEndpoint("mem://demo", demo_catalogue, Expectation("demo"), FakeClock(),
                     ack_on="never")  # type: ignore[arg-type]
