"""A host end whose frames a test writes one at a time, sealed exactly as the real host does.

Tests that talk to a `DeviceEndpoint` frame by frame (a hand-made session, a forged frame,
a replay) use `HandHost`: `reset()` is the RESET that opens a session, `opened_by(output)`
takes the board's RESET_ACK from what it wrote and derives the session's keys, and `data()`
/ `ack()` are the host's next DATA and ACK frames with fresh counters and valid tags.
"""

from __future__ import annotations

from firmware_bridge.auth import PairingKey, mode_of
from firmware_bridge.framing import (
    Frame,
    FrameDecoder,
    FrameKind,
    encode_frame,
    reset_payload,
)
from firmware_bridge.guard import FrameGuard

HOST_NONCE = bytes(range(0x10, 0x20))


class HandHost:
    """The host's half of one session, for frames written by hand.

    Args:
        key: the pairing key (None: auth mode `none`).
        nonce: the host nonce of the RESET.
    """

    def __init__(self, key: PairingKey | None = None, nonce: bytes = HOST_NONCE) -> None:
        self.key = key
        self.nonce = nonce
        self.guard = FrameGuard(host=True, key=key)

    def reset(self) -> bytes:
        """The wire bytes of a RESET opening a session with this host's nonce."""
        frame = Frame(FrameKind.RESET, payload=reset_payload(mode_of(self.key), self.nonce))
        return encode_frame(self.guard.seal(frame))

    def opened_by(self, output: bytes) -> Frame:
        """Open the session the board's RESET_ACK in `output` accepted; return that frame.

        Raises:
            AssertionError: the output holds no authentic RESET_ACK for this host's nonce.
        """
        for item in FrameDecoder().feed(output):
            if isinstance(item, Frame) and item.kind is FrameKind.RESET_ACK:
                keys = self.guard.admit_reset_ack(item)
                assert keys is not None, "the RESET_ACK is not authentic"
                assert item.host_nonce == self.nonce, "not our session"
                self.guard.open(keys)
                return item
        raise AssertionError(f"no RESET_ACK in {output.hex(' ')}")

    def data(self, seq: int, ack: int, payload: bytes) -> bytes:
        """The wire bytes of the host's next DATA frame (a fresh counter and a valid tag)."""
        return encode_frame(self.guard.seal(Frame(FrameKind.DATA, seq, ack, payload)))

    def ack(self, seq: int, ack: int) -> bytes:
        """The wire bytes of the host's next ACK frame."""
        return encode_frame(self.guard.seal(Frame(FrameKind.ACK, seq, ack)))
