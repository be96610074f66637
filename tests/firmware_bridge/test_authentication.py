"""Authentication (PROTOCOL.md section 4): forged, replayed and reflected frames, keys, modes.

Host and board endpoints joined in memory on a fake clock, with a third party on the line
that writes frames of its own: what the attacks of protocol version 1 did, refused.
"""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from firmware_bridge import (
    Catalogue,
    DeviceEndpoint,
    DeviceIdentity,
    Expectation,
    HostEndpoint,
    KeyFileError,
    PairingKey,
    read_key_file,
    write_key_file,
)
from firmware_bridge.codec import Codec, Message
from firmware_bridge.framing import Frame, FrameKind, encode_frame
from firmware_bridge.guard import COUNTER_LIMIT, FrameGuard
from firmware_bridge.status import ClientState, Connected
from tests.support.clock import FakeClock
from tests.support.linked_pair import LinkedPair

KEY = PairingKey(bytes(range(7, 39)))
OTHER = PairingKey(bytes(range(70, 102)))


class Table:
    """A paired demo board and host, and what the host delivered."""

    def __init__(self, catalogue: Catalogue, *, host_key: PairingKey | None = KEY,
                 board_key: PairingKey | None = KEY) -> None:
        self.clock = FakeClock()
        self.board = DeviceEndpoint(catalogue.board("demo"), DeviceIdentity("1.0.0"),
                                    self.clock, pairing=board_key)
        self.outputs: list[Message] = []
        self.board.on("set_output", self.outputs.append)
        self.host = HostEndpoint("mem://demo", catalogue, Expectation("demo"), self.clock,
                                 pairing=host_key)
        self.pair = LinkedPair(self.host, self.board, self.clock)
        self.codec = Codec(catalogue.board("demo"))
        self.notices: list[object] = []
        self.pair.start()
        self.run(0.1)

    def run(self, seconds: float) -> None:
        self.pair.run(seconds)
        self.notices += self.host.take_notices()

    def events(self) -> list[Message]:
        return [n for n in self.notices if isinstance(n, Message) and n.name == "input_changed"]

    def forge_to_host(self, frame: Frame) -> None:
        """A third party writes `frame` (a valid CRC, any tag it likes) towards the host."""
        self.host.feed(encode_frame(frame))
        self.notices += self.host.take_notices()


def test_the_forged_frame_of_version_1_is_refused_and_takes_no_sequence_slot(
    demo_catalogue: Catalogue,
) -> None:
    table = Table(demo_catalogue)
    assert table.host.state is ClientState.READY
    expected = table.host.stats().link.data_received % 256  # DATA frames in order so far
    forged = table.codec.encode("input_changed", {"count": 1, "input": 7, "active": True,
                                                  "label": "FORGED"})
    for guess in range(50):  # tags of zeros, ones, and anything else a guesser tries
        table.forge_to_host(Frame(FrameKind.DATA, expected, 0, forged, 1000 + guess,
                                  bytes([guess]) * 8))
    stats = table.host.stats().link
    assert stats.bad_macs == 50
    assert stats.data_received == expected
    assert stats.duplicates == stats.out_of_order == 0
    table.board.emit("input_changed", input=2, active=True, label="REAL")
    table.run(0.1)
    assert [m["label"] for m in table.events()] == ["REAL"]  # the real event took the slot
    assert table.host.stats().link.data_received == expected + 1


def test_forged_and_replayed_heartbeats_cannot_keep_a_dead_board_alive(
    demo_catalogue: Catalogue,
) -> None:
    table = Table(demo_catalogue)
    recorded: list[bytes] = []
    table.pair.to_host.fault = lambda wire: recorded.append(wire) or [wire]
    table.run(0.5)  # a party on the line records the board's heartbeats
    table.pair.to_host.fault = lambda wire: []  # the board dies
    silent_at = table.clock()
    while table.host.state is ClientState.READY and table.clock() - silent_at < 3.0:
        for wire in recorded:  # ... and the party plays them back, again and again
            table.host.feed(wire)
        table.forge_to_host(Frame(FrameKind.ACK, 0, 0, b"", 99, bytes(8)))
        table.run(0.05)
    assert table.host.state is not ClientState.READY
    assert table.clock() - silent_at < 1.0
    link = table.host.stats().link
    assert link.replayed >= len(recorded)
    assert link.bad_macs > 0


def test_a_frame_reflected_back_to_the_board_is_refused(demo_catalogue: Catalogue) -> None:
    table = Table(demo_catalogue)
    seen: list[bytes] = []
    table.pair.to_host.fault = lambda wire: seen.append(wire) or [wire]
    table.board.emit("input_changed", input=1, active=True, label="ONCE")
    table.run(0.05)
    before = table.board.stats().link
    for wire in seen:
        table.board.feed(wire)  # the board's own frames, sent back to it
    after = table.board.stats().link
    assert after.bad_macs - before.bad_macs == len(seen) > 0
    assert after.data_received == before.data_received


def test_a_host_without_the_key_cannot_command_a_paired_board(
    demo_catalogue: Catalogue,
) -> None:
    for host_key in (None, OTHER):  # an unpaired console, one paired with another board
        table = Table(demo_catalogue, host_key=host_key)
        table.run(2.0)
        assert table.host.state is ClientState.CONNECTING
        assert table.board.stats().link.sessions == 0
        assert table.board.failsafe
        assert table.outputs == []
        problem = table.host.auth_problem()
        assert problem is not None
        expected = ("is paired (it announces auth mode 'paired'), but no pairing key"
                    if host_key is None else "failed authentication: it is not paired with "
                    f"this host's key {OTHER.key_id}")
        assert expected in problem


def test_a_paired_host_refuses_a_board_without_a_key(demo_catalogue: Catalogue) -> None:
    table = Table(demo_catalogue, board_key=None)
    table.run(1.0)
    assert table.host.state is ClientState.CONNECTING
    assert table.host.stats().link.auth_mismatches > 0
    assert "the board has no pairing key" in (table.host.auth_problem() or "")


def test_auth_none_on_both_ends_connects_and_says_so_everywhere(
    demo_catalogue: Catalogue,
) -> None:
    table = Table(demo_catalogue, host_key=None, board_key=None)
    (connected,) = [n for n in table.notices if isinstance(n, Connected)]
    assert connected.key_id is None
    assert "auth=none (UNAUTHENTICATED)" in table.host.stats().summary()
    paired = Table(demo_catalogue)
    (connected,) = [n for n in paired.notices if isinstance(n, Connected)]
    assert connected.key_id == KEY.key_id
    assert f"auth=paired (key {KEY.key_id})" in paired.host.stats().summary()


def test_a_session_ends_before_its_frame_counter_runs_out(demo_catalogue: Catalogue) -> None:
    table = Table(demo_catalogue)
    sessions = table.host.stats().link.sessions
    table.host._link._guard._tx = COUNTER_LIMIT - 3  # months of traffic, skipped
    table.run(1.0)
    link = table.host.stats().link
    assert link.sessions == sessions + 1  # a new session, with new keys and counters from 1
    assert table.host.state is ClientState.READY
    assert link.bad_macs == link.replayed == 0
    assert table.board.stats().link.counter_errors == 0  # the limit itself was never sent


def test_a_frame_carrying_the_counter_limit_is_refused_even_with_its_right_tag() -> None:
    keys = FrameGuard(host=True, key=KEY).session_keys(bytes(range(16)), bytes(range(16, 32)))
    sender, receiver = FrameGuard(host=True, key=KEY), FrameGuard(host=False, key=KEY)
    sender.open(keys)
    receiver.open(keys)
    assert receiver.admit(sender.seal(Frame(FrameKind.ACK, 0, 0)))
    sender._tx = COUNTER_LIMIT - 1  # the last counter a sender may use: FFFEFFFF
    assert receiver.admit(sender.seal(Frame(FrameKind.ACK, 0, 0)))
    assert sender.exhausted  # the next one would carry FFFF0000
    assert not receiver.admit(sender.seal(Frame(FrameKind.ACK, 0, 0)))
    stats = receiver.stats()
    assert (stats.counter_errors, stats.bad_macs, stats.replayed) == (1, 0, 0)


def test_no_two_copies_of_an_event_are_queued_while_the_link_has_not_delivered_one(
    demo_catalogue: Catalogue,
) -> None:
    table = Table(demo_catalogue)
    table.pair.to_board.fault = lambda wire: []  # nothing of the host's reaches the board
    for label in ("A", "B", "C"):
        table.board.emit("input_changed", input=1, active=True, label=label)
    table.pair.run(0.6)  # longer than the repeat interval; the board's link keeps trying
    stats = table.board.stats().link
    assert stats.queued + stats.in_flight == 3  # one copy of each, never a second
    assert stats.retransmissions > 0


def test_pairing_keys_never_show_and_parse_strictly() -> None:
    assert KEY.secret.hex() not in repr(KEY)
    assert PairingKey.from_text(KEY.to_text()) == KEY
    assert len(KEY.key_id) == 16
    assert KEY.key_id != OTHER.key_id
    for text, reason in (("ab" * 31, "expected 64 hex digits, found 62"),
                         ("zz" * 32, "found other characters"),
                         ("00" * 32, "the all-zero key is auth mode 'none'")):
        with pytest.raises(ValueError, match=reason):
            PairingKey.from_text(text)


def test_key_files_are_private_never_overwritten_and_checked_when_read(tmp_path: Path) -> None:
    path = tmp_path / "keys" / "shoe.key"
    write_key_file(path, KEY)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert read_key_file(path) == KEY
    with pytest.raises(KeyFileError, match="a pairing key is there already"):
        write_key_file(path, OTHER)
    path.chmod(0o644)
    with pytest.raises(KeyFileError, match=r"readable by every user \(mode 0644\)"):
        read_key_file(path)
    path.chmod(0o600)
    path.write_text("not a key\n")
    with pytest.raises(KeyFileError, match=r"shoe\.key: not a pairing key: expected 64 hex"):
        read_key_file(path)
    with pytest.raises(KeyFileError, match=r"missing.key: cannot read the pairing key \(No "
                                            "such file or directory\\)"):
        read_key_file(tmp_path / "missing.key")
