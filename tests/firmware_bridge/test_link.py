"""The link layer with a fake clock: loss, duplication, reordering, retransmission, window,
liveness and recovery, at both ends of the same code."""

from collections.abc import Callable
from itertools import count, pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge import LinkDownError, LinkTiming, PairingKey, SendQueueFullError
from firmware_bridge.faults import frame_kind
from firmware_bridge.framing import Frame, FrameDecoder, FrameKind, encode_frame
from firmware_bridge.link import Delivered, Link, LinkEnd, LinkLost, LinkState, SessionUp
from tests.support.clock import FakeClock
from tests.support.linked_pair import RandomFaults, split_frames

Fault = Callable[[bytes], list[bytes]]
TICK = 0.005
LINK_KEY = PairingKey(bytes(range(1, 33)))


class Pair:
    """A HOST link and a BOARD link joined by two lines with optional per-frame faults."""

    def __init__(self, timing: LinkTiming | None = None,
                 key: PairingKey | None = LINK_KEY) -> None:
        self.clock = FakeClock()
        nonces = count(0x100)
        self.host = Link(LinkEnd.HOST, self.clock, timing, pairing=key,
                         nonce_source=lambda: next(nonces).to_bytes(16, "big"))
        self.board = Link(LinkEnd.BOARD, self.clock, timing, pairing=key)
        self.to_board: Fault | None = None
        self.to_host: Fault | None = None
        self.decoders = {LinkEnd.HOST: FrameDecoder(), LinkEnd.BOARD: FrameDecoder()}
        self.events: dict[LinkEnd, list[object]] = {LinkEnd.HOST: [], LinkEnd.BOARD: []}
        self.wire_log: list[tuple[float, LinkEnd, bytes]] = []

    def start(self) -> "Pair":
        self.board.start()
        self.host.start()
        self.step()
        return self

    def step(self) -> None:
        for link in (self.host, self.board):
            link.poll()
        self._carry(self.host, self.board, self.to_board)
        self._carry(self.board, self.host, self.to_host)
        for link in (self.host, self.board):
            self.events[link.role] += link.take_events()

    def _carry(self, source: Link, target: Link, fault: Fault | None) -> None:
        for wire in source.take_output():
            self.wire_log.append((self.clock(), source.role, wire))
            for arriving in fault(wire) if fault else [wire]:
                for item in self.decoders[target.role].feed(arriving):
                    if isinstance(item, Frame):
                        target.on_frame(item)
        target.poll()

    def run(self, seconds: float) -> None:
        for _ in range(round(seconds / TICK)):
            self.clock.advance(TICK)
            self.step()

    def delivered(self, role: LinkEnd) -> list[bytes]:
        return [e.payload for e in self.events[role] if isinstance(e, Delivered)]

    def lost(self, role: LinkEnd) -> list[LinkLost]:
        return [e for e in self.events[role] if isinstance(e, LinkLost)]

    def sent_data(self, role: LinkEnd) -> list[tuple[float, bytes]]:
        return [(t, w) for t, r, w in self.wire_log if r is role
                and frame_kind(w) is FrameKind.DATA]


def drop_kind(kind: FrameKind) -> Fault:
    return lambda wire: [] if frame_kind(wire) is kind else [wire]


def drop_first(kind: FrameKind) -> Fault:
    """Lose the first frame of `kind`; pass every other frame."""
    dropped: list[bytes] = []

    def fault(wire: bytes) -> list[bytes]:
        if frame_kind(wire) is kind and not dropped:
            dropped.append(wire)
            return []
        return [wire]

    return fault


def test_session_opens_with_reset_and_reset_ack() -> None:
    pair = Pair().start()
    assert pair.host.state is pair.board.state is LinkState.UP
    assert pair.host.session == pair.board.session == (0x100).to_bytes(16, "big")
    assert isinstance(pair.events[LinkEnd.HOST][0], SessionUp)


def test_messages_flow_both_ways_in_order() -> None:
    pair = Pair().start()
    for number in range(10):
        pair.host.send(bytes([0x10, number]))
        pair.board.send(bytes([0x20, number]))
    pair.run(0.1)
    assert pair.delivered(LinkEnd.BOARD) == [bytes([0x10, n]) for n in range(10)]
    assert pair.delivered(LinkEnd.HOST) == [bytes([0x20, n]) for n in range(10)]


def send_all(pair: Pair, sent: list[bytes]) -> None:
    for payload in sent:
        while True:
            try:
                pair.host.send(payload)
                break
            except (SendQueueFullError, LinkDownError):
                pair.run(0.05)


@settings(max_examples=10)
@given(st.integers(0, 2**32), st.floats(0.0, 0.3), st.floats(0.0, 0.3), st.floats(0.0, 0.3))
def test_nothing_is_delivered_twice_or_out_of_order_and_every_loss_is_reported(
    seed: int, loss: float, duplicate: float, reorder: float
) -> None:
    pair = Pair()
    pair.to_board = RandomFaults(seed, loss, duplicate, 0.05, reorder)
    pair.to_host = RandomFaults(seed + 1, loss, duplicate, 0.05, reorder)
    pair.start()
    sent = [number.to_bytes(2, "big") for number in range(300)]  # seq wraps past 255
    send_all(pair, sent)
    pair.run(20)
    received = pair.delivered(LinkEnd.BOARD)
    assert received == sorted(set(received))
    assert len(sent) - len(received) <= sum(lost.discarded for lost in pair.lost(LinkEnd.HOST))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_message_arrives_once_in_order_over_a_bad_line(seed: int) -> None:
    pair = Pair()
    pair.to_board = RandomFaults(seed, loss=0.05, duplicate=0.1, corrupt=0.02, reorder=0.05)
    pair.to_host = RandomFaults(seed + 7, loss=0.05, duplicate=0.1, corrupt=0.02, reorder=0.05)
    pair.start()
    sent = [number.to_bytes(2, "big") for number in range(600)]
    send_all(pair, sent)
    pair.run(5)
    assert pair.lost(LinkEnd.HOST) == []
    assert pair.delivered(LinkEnd.BOARD) == sent
    stats = pair.host.stats()
    assert stats.retransmissions > 0
    assert pair.board.stats().duplicates > 0


def test_a_lost_data_frame_is_retransmitted_after_100_ms() -> None:
    pair = Pair().start()
    pair.to_board = drop_first(FrameKind.DATA)
    start = pair.clock()
    pair.host.send(b"\x10hello")
    pair.run(0.3)
    (first, retry) = [t for t, _ in pair.sent_data(LinkEnd.HOST)]
    assert first == pytest.approx(start, abs=TICK)
    assert retry - first == pytest.approx(0.1, abs=TICK)
    assert pair.delivered(LinkEnd.BOARD) == [b"\x10hello"]
    assert pair.host.stats().retransmissions == 1


def test_retransmission_backs_off_then_gives_up() -> None:
    pair = Pair().start()
    pair.to_board = drop_kind(FrameKind.DATA)  # the board hears heartbeats, never the data
    pair.host.send(b"\x10lost")
    pair.run(3.0)
    first = pair.sent_data(LinkEnd.HOST)[0][0]
    times = [round(t - first, 3) for t, _ in pair.sent_data(LinkEnd.HOST)]
    assert times == pytest.approx([0.0, 0.1, 0.3, 0.7, 1.1, 1.5, 1.9], abs=3 * TICK)
    (lost,) = pair.lost(LinkEnd.HOST)[:1]
    assert lost.reason == "no acknowledgement after 6 retransmissions"
    assert lost.discarded == 1


def test_window_holds_four_frames_in_flight_and_queues_the_rest() -> None:
    pair = Pair().start()
    pair.to_host = drop_kind(FrameKind.ACK)
    for number in range(10):
        pair.host.send(bytes([0x10, number]))
    stats = pair.host.stats()
    assert (stats.in_flight, stats.queued) == (4, 6)
    assert len(pair.host.take_output()) == 4
    pair.to_host = None
    pair.run(0.2)
    assert pair.delivered(LinkEnd.BOARD) == [bytes([0x10, n]) for n in range(10)]
    assert (pair.host.stats().in_flight, pair.host.stats().queued) == (0, 0)


def test_a_full_send_queue_refuses_more() -> None:
    pair = Pair(LinkTiming(window=2, queue_limit=3)).start()
    for number in range(5):
        pair.host.send(bytes([0x10, number]))
    with pytest.raises(SendQueueFullError, match="3 messages already wait"):
        pair.host.send(b"\x10x")


def test_duplicates_are_delivered_once_and_acknowledged_again() -> None:
    pair = Pair().start()
    pair.to_host = drop_kind(FrameKind.ACK)  # the board's acks are lost: the host retransmits
    for number in range(3):
        pair.host.send(bytes([0x10, number]))
    pair.run(0.15)
    pair.to_host = None
    pair.run(0.3)
    assert pair.delivered(LinkEnd.BOARD) == [bytes([0x10, n]) for n in range(3)]
    retransmitted = pair.host.stats().retransmissions
    assert retransmitted >= 3
    assert pair.board.stats().duplicates == retransmitted  # each one arrived, and was dropped
    assert pair.host.stats().in_flight == 0


def test_a_frame_repeated_on_the_line_is_a_replay_and_is_dropped() -> None:
    pair = Pair().start()
    pair.to_board = lambda wire: [wire, wire]
    for number in range(5):
        pair.host.send(bytes([0x10, number]))
    pair.run(0.1)
    assert pair.delivered(LinkEnd.BOARD) == [bytes([0x10, n]) for n in range(5)]
    stats = pair.board.stats()
    assert stats.duplicates == 0  # byte-identical copies never reach the link layer
    assert stats.replayed >= 5


def test_reordered_frames_are_delivered_in_order() -> None:
    pair = Pair().start()
    held: list[bytes] = []

    def swap_first_two_data(wire: bytes) -> list[bytes]:
        if frame_kind(wire) is FrameKind.DATA and len(held) < 2:
            held.append(wire)
            return [held[1], held[0]] if len(held) == 2 else []
        return [wire]

    pair.to_board = swap_first_two_data
    pair.host.send(b"\x10first")
    pair.host.send(b"\x10second")
    pair.run(0.3)
    assert pair.delivered(LinkEnd.BOARD) == [b"\x10first", b"\x10second"]
    assert pair.board.stats().out_of_order == 1


@pytest.mark.parametrize("silent", [LinkEnd.BOARD, LinkEnd.HOST])
def test_a_silent_peer_is_detected_within_one_second(silent: LinkEnd) -> None:
    pair = Pair().start()
    pair.run(1.0)
    if silent is LinkEnd.BOARD:
        pair.to_host = lambda wire: []
    else:
        pair.to_board = lambda wire: []
    went_quiet = pair.clock()
    watcher = LinkEnd.HOST if silent is LinkEnd.BOARD else LinkEnd.BOARD
    while not pair.lost(watcher):
        pair.run(TICK)
    detected = pair.clock() - went_quiet
    assert 0.75 <= detected < 1.0
    assert pair.lost(watcher)[0].reason.startswith("nothing received for")


def test_the_link_recovers_after_an_outage() -> None:
    pair = Pair().start()
    pair.to_host = lambda wire: []
    pair.run(1.5)
    assert pair.host.state is LinkState.DOWN
    pair.to_host = None
    pair.run(1.05)  # the host's next RESET comes within its back-off's cap (1 s)
    assert pair.host.state is pair.board.state is LinkState.UP
    assert pair.host.session == pair.board.session != 0x100
    pair.host.send(b"\x10after")
    pair.run(0.05)
    assert pair.delivered(LinkEnd.BOARD)[-1] == b"\x10after"


def test_a_restarted_board_is_noticed_at_once_by_its_no_session() -> None:
    pair = Pair().start()
    pair.run(0.1)
    pair.board = Link(LinkEnd.BOARD, pair.clock, pairing=LINK_KEY)  # power cycle: a fresh board
    pair.board.start()
    pair.step()
    assert pair.lost(LinkEnd.HOST)[0].reason.startswith("the board has no session")
    pair.run(0.05)
    assert pair.host.state is pair.board.state is LinkState.UP


def test_a_lost_reset_ack_is_asked_again_with_a_fresh_nonce() -> None:
    pair = Pair()
    pair.to_host = drop_first(FrameKind.RESET_ACK)
    pair.start()
    pair.run(0.3)
    assert pair.host.state is LinkState.UP
    resets = [w for _, r, w in pair.wire_log
              if r is LinkEnd.HOST and frame_kind(w) is FrameKind.RESET]
    assert len(resets) == 2  # the first answer was lost, so the host asked again
    nonces = [reset_nonce(wire) for wire in resets]
    assert nonces[0] != nonces[1]  # every attempt has its own nonce (section 5.1)
    assert pair.host.session == pair.board.session == nonces[1]
    assert pair.board.stats().sessions == 2
    assert pair.host.stats().sessions == 1


def test_a_replayed_reset_does_not_restart_the_session() -> None:
    pair = Pair().start()
    pair.run(0.1)
    (opening,) = [w for _, r, w in pair.wire_log
                  if r is LinkEnd.HOST and frame_kind(w) is FrameKind.RESET]
    for item in FrameDecoder().feed(opening):  # someone on the line replays it
        assert isinstance(item, Frame)
        pair.board.on_frame(item)
    pair.run(0.1)
    assert pair.host.state is pair.board.state is LinkState.UP
    assert pair.board.stats().sessions == pair.host.stats().sessions == 1


def test_unanswered_resets_back_off_each_with_a_fresh_nonce() -> None:
    pair = Pair()
    pair.to_board = pair.to_host = lambda wire: []  # no board on the line
    pair.start()
    pair.run(6.0)
    sent = [(t, reset_nonce(w)) for t, r, w in pair.wire_log
            if r is LinkEnd.HOST and frame_kind(w) is FrameKind.RESET]
    waits = [round(b[0] - a[0], 2) for a, b in pairwise(sent)]
    assert waits[:4] == [0.2, 0.4, 0.8, 1.0]  # doubling from 200 ms, capped at 1 s
    assert set(waits[4:]) == {1.0}
    assert len({nonce for _, nonce in sent}) == len(sent)


def test_a_board_announcing_itself_cuts_the_back_off_short() -> None:
    pair = Pair()
    pair.to_board = pair.to_host = lambda wire: []
    pair.start()
    pair.run(2.0)  # the host waits 1 s between RESETs now
    pair.to_board = pair.to_host = None
    pair.board.start()  # the board powers up: its NO_SESSION says it is there
    pair.run(0.25)
    assert pair.host.state is pair.board.state is LinkState.UP


def reset_nonce(wire: bytes) -> bytes:
    (frame,) = FrameDecoder().feed(wire)
    assert isinstance(frame, Frame)
    return frame.host_nonce


def test_frames_outside_a_session_are_ignored_and_answered_with_no_session() -> None:
    clock = FakeClock()
    board = Link(LinkEnd.BOARD, clock)
    board.start()
    board.take_output()
    board.on_frame(Frame(FrameKind.DATA, 3, 3, b"\x10stale"))
    board.poll()
    (answer,) = board.take_output()
    assert frame_kind(answer) is FrameKind.NO_SESSION
    assert board.take_events() == []
    assert board.stats().ignored_frames == 1
    with pytest.raises(LinkDownError):
        board.send(b"\x10x")


def test_acks_for_frames_never_sent_are_counted_and_ignored() -> None:
    pair = Pair().start()
    pair.host.on_frame(pair.board._guard.seal(Frame(FrameKind.ACK, 0, 9)))  # as the board would
    assert pair.host.stats().bad_acks == 1
    pair.host.send(b"\x10x")
    pair.host.on_frame(pair.board._guard.seal(Frame(FrameKind.ACK, 0, 50)))
    assert pair.host.stats().bad_acks == 2
    assert pair.host.stats().in_flight == 1


def test_heartbeats_keep_an_idle_link_up() -> None:
    pair = Pair().start()
    pair.run(10)
    assert pair.host.state is pair.board.state is LinkState.UP
    assert pair.host.stats().acks_sent >= 10 / 0.2 - 1
    beats = [t for t, r, w in pair.wire_log
             if r is LinkEnd.BOARD and frame_kind(w) is FrameKind.ACK]
    gaps = [b - a for a, b in pairwise(beats)]
    assert max(gaps) <= 0.2 + TICK


def test_stop_ends_the_session_and_falls_silent() -> None:
    pair = Pair().start()
    pair.host.stop("handshake refused")
    assert pair.lost(LinkEnd.HOST) == [] and pair.host.state is LinkState.DOWN  # noqa: PT018
    pair.step()
    assert isinstance(pair.events[LinkEnd.HOST][-1], LinkLost)
    pair.run(2)
    assert not [w for t, r, w in pair.wire_log if r is LinkEnd.HOST and t > 0.01]
    assert pair.board.state is LinkState.DOWN


@pytest.mark.parametrize("window", [0, 128])
def test_window_must_be_1_to_127(window: int) -> None:
    with pytest.raises(ValueError, match="window"):
        LinkTiming(window=window)


def test_split_frames_keeps_delimiters() -> None:
    wire = encode_frame(Frame(FrameKind.ACK))
    assert split_frames(wire + wire + b"\x05") == [wire, wire, b"\x05"]


def frames_of(wires: list[bytes]) -> list[Frame]:
    decoder = FrameDecoder()
    return [item for wire in wires for item in decoder.feed(wire) if isinstance(item, Frame)]


def test_more_data_sent_while_some_is_unacknowledged_does_not_restart_the_timer() -> None:
    pair = Pair().start()
    start = pair.clock()
    pair.host.send(b"\x10first")
    pair.host.take_output()  # lost on the line, like everything that follows
    pair.clock.advance(0.05)
    pair.host.send(b"\x10second")
    pair.host.take_output()
    pair.clock.advance(0.051)  # 0.101 s after the first frame, 0.051 s after the second
    pair.host.poll()
    resent = [f for f in frames_of(pair.host.take_output()) if f.kind is FrameKind.DATA]
    assert [f.payload for f in resent] == [b"\x10first", b"\x10second"]  # go-back-N, both
    assert pair.clock() - start < 0.15  # the timer ran from the first frame, not the second


def test_an_ack_of_some_frames_restarts_the_timer_for_the_rest() -> None:
    pair = Pair().start()
    pair.host.send(b"\x10one")
    pair.host.send(b"\x10two")
    one, _two = frames_of(pair.host.take_output())  # the second is lost
    pair.board.on_frame(one)
    pair.board.poll()
    (ack,) = frames_of(pair.board.take_output())
    pair.clock.advance(0.06)
    pair.host.on_frame(ack)  # 60 ms late: one is acknowledged, two is not
    pair.host.poll()
    pair.clock.advance(0.05)  # 110 ms after two was sent, 50 ms after the ack
    pair.host.poll()
    assert [f for f in frames_of(pair.host.take_output()) if f.kind is FrameKind.DATA] == []
    pair.clock.advance(0.051)  # 101 ms after the ack
    pair.host.poll()
    resent = [f.payload for f in frames_of(pair.host.take_output()) if f.kind is FrameKind.DATA]
    assert resent == [b"\x10two"]
