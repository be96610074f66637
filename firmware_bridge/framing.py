"""Frames on the wire: build them, and decode a byte stream fed in arbitrary chunks.

A frame (protocol version 2) is ``COBS(body) 0x00`` where the body is

    version(1) kind(1) seq(1) ack(1) len(1) payload(len) counter(4) tag(8) crc(2)

with big-endian numbers; the tag is the frame's HMAC-SHA256 (truncated) over every byte
before it (`firmware_bridge.auth`), and the CRC is CRC-16/CCITT-FALSE over every body byte
before it. `PROTOCOL.md` is the normative description; this module is pure (no I/O, no
clock, no keys) and never raises on bad input: the decoder reports each bad fragment as a
`BadFrame` and counts it by kind. Tags are checked by the link layer, which holds the keys.
"""

from __future__ import annotations

import binascii
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import IntEnum, StrEnum
from typing import Final

from firmware_bridge import cobs
from firmware_bridge.auth import COUNTER_SIZE, NONCE_SIZE, TAG_SIZE, AuthMode
from firmware_bridge.errors import FrameError

PROTOCOL_VERSION: Final = 2
HEADER_SIZE: Final = 5
CRC_SIZE: Final = 2
TRAILER_SIZE: Final = COUNTER_SIZE + TAG_SIZE + CRC_SIZE
MIN_BODY: Final = HEADER_SIZE + TRAILER_SIZE
MIN_FRAGMENT: Final = HEADER_SIZE + CRC_SIZE
"""The shortest body of any protocol version (version 1's), so another version is told apart."""
MAX_PAYLOAD: Final = 234
MAX_BODY: Final = HEADER_SIZE + MAX_PAYLOAD + TRAILER_SIZE
MAX_ENCODED: Final = MAX_BODY + 1  # COBS adds exactly one byte to a body under 254 bytes
MAX_WIRE: Final = MAX_ENCODED + 1  # plus the 0x00 delimiter
DELIMITER: Final = b"\x00"
_RAW_KEPT: Final = 32  # bytes of a bad fragment kept in its report


def crc16(data: bytes) -> int:
    """Return CRC-16/CCITT-FALSE of `data` (poly 0x1021, init 0xFFFF, no reflection, xorout 0).

    The check value, the CRC of b"123456789", is 0x29B1.
    """
    return binascii.crc_hqx(data, 0xFFFF)


class FrameKind(IntEnum):
    """The frame kinds of protocol version 2 (body offset 1)."""

    DATA = 0x01
    ACK = 0x02
    RESET = 0x03
    RESET_ACK = 0x04
    NO_SESSION = 0x05


_MODE_SIZE: Final = 1
_PAYLOAD_RULES: Final[Mapping[FrameKind, tuple[int, int]]] = {
    FrameKind.DATA: (1, MAX_PAYLOAD),
    FrameKind.ACK: (0, 0),
    FrameKind.RESET: (_MODE_SIZE + NONCE_SIZE, _MODE_SIZE + NONCE_SIZE),
    FrameKind.RESET_ACK: (_MODE_SIZE + 2 * NONCE_SIZE, _MODE_SIZE + 2 * NONCE_SIZE),
    FrameKind.NO_SESSION: (_MODE_SIZE, _MODE_SIZE),
}
NO_TAG: Final = bytes(TAG_SIZE)


@dataclass(frozen=True, slots=True)
class Frame:
    """One decoded frame: its kind, sequence and acknowledgement numbers, payload and tag.

    Attributes:
        kind: what the frame is for.
        seq: the sender's sequence number (DATA), or its next one (ACK), else 0.
        ack: the sequence number of the next DATA frame the sender expects to receive.
        payload: one message (DATA); the auth mode and nonces (RESET, RESET_ACK); the auth
            mode (NO_SESSION); empty (ACK).
        counter: the sender's frame counter in the session (DATA, ACK), else 0.
        tag: the frame's authentication tag (checked by the link layer, not here).
    """

    kind: FrameKind
    seq: int = 0
    ack: int = 0
    payload: bytes = b""
    counter: int = 0
    tag: bytes = NO_TAG

    @property
    def auth_mode(self) -> int:
        """The auth mode byte of a RESET, RESET_ACK or NO_SESSION frame."""
        return self.payload[0] if self.payload else -1

    @property
    def host_nonce(self) -> bytes:
        """The host's session nonce carried by a RESET or RESET_ACK frame."""
        return self.payload[_MODE_SIZE : _MODE_SIZE + NONCE_SIZE]

    @property
    def board_nonce(self) -> bytes:
        """The board's session nonce carried by a RESET_ACK frame."""
        return self.payload[_MODE_SIZE + NONCE_SIZE : _MODE_SIZE + 2 * NONCE_SIZE]


def reset_payload(mode: AuthMode, host_nonce: bytes) -> bytes:
    """The payload of a RESET: the host's auth mode and its session nonce."""
    return bytes((mode,)) + host_nonce


def reset_ack_payload(mode: AuthMode, host_nonce: bytes, board_nonce: bytes) -> bytes:
    """The payload of a RESET_ACK: the auth mode, the host's nonce and the board's."""
    return bytes((mode,)) + host_nonce + board_nonce


def no_session_payload(mode: AuthMode) -> bytes:
    """The payload of a NO_SESSION: the board's auth mode."""
    return bytes((mode,))


def covered_bytes(frame: Frame) -> bytes:
    """The bytes a frame's tag covers: header, payload and counter (body offsets 0 to 8+N).

    Raises:
        FrameError: if a number is out of range or the payload length is wrong for the kind.
    """
    low, high = _PAYLOAD_RULES[frame.kind]
    if not low <= len(frame.payload) <= high:
        raise FrameError(
            f"{frame.kind.name} frame payload is {len(frame.payload)} bytes; "
            f"it must be {low}..{high}"
        )
    for name, number in (("seq", frame.seq), ("ack", frame.ack)):
        if not 0 <= number <= 0xFF:
            raise FrameError(f"{name} {number} does not fit in one byte")
    if not 0 <= frame.counter <= 0xFFFF_FFFF:
        raise FrameError(f"counter {frame.counter} does not fit in four bytes")
    head = bytes((PROTOCOL_VERSION, frame.kind, frame.seq, frame.ack, len(frame.payload)))
    return head + frame.payload + frame.counter.to_bytes(COUNTER_SIZE, "big")


def encode_body(frame: Frame) -> bytes:
    """Return the unstuffed body of `frame`: header, payload, counter, tag and CRC.

    Raises:
        FrameError: if a number is out of range, the payload length is wrong for the kind,
            or the tag is not 8 bytes.
    """
    if len(frame.tag) != TAG_SIZE:
        raise FrameError(f"the tag is {len(frame.tag)} bytes; it must be {TAG_SIZE}")
    unchecked = covered_bytes(frame) + frame.tag
    return unchecked + crc16(unchecked).to_bytes(CRC_SIZE, "big")


def encode_frame(frame: Frame) -> bytes:
    """Return `frame` as it goes on the wire: COBS-encoded body followed by 0x00."""
    return cobs.encode(encode_body(frame)) + DELIMITER


class FrameErrorKind(StrEnum):
    """Why the decoder dropped a fragment (the names used in statistics and PROTOCOL.md)."""

    JUNK = "junk"
    OVERSIZE = "oversize"
    BAD_COBS = "bad_cobs"
    BAD_CRC = "bad_crc"
    BAD_VERSION = "bad_version"
    BAD_LENGTH = "bad_length"
    BAD_KIND = "bad_kind"


@dataclass(frozen=True, slots=True)
class BadFrame:
    """A dropped fragment: why, a human-readable detail, and its first bytes."""

    kind: FrameErrorKind
    detail: str
    raw: bytes = b""


@dataclass(frozen=True, slots=True)
class DecoderStats:
    """Counters of a `FrameDecoder` since it was made."""

    bytes_in: int = 0
    frames: int = 0
    errors: Mapping[FrameErrorKind, int] = field(default_factory=dict)

    @property
    def error_total(self) -> int:
        """All dropped fragments, whatever the reason."""
        return sum(self.errors.values())


def parse_body(body: bytes) -> Frame | BadFrame:
    """Check an unstuffed body and return its frame, or the reason it is bad."""
    if len(body) < MIN_FRAGMENT:
        return BadFrame(FrameErrorKind.JUNK, f"{len(body)} bytes is shorter than any frame", body)
    expected, received = crc16(body[:-CRC_SIZE]), int.from_bytes(body[-CRC_SIZE:], "big")
    if expected != received:
        detail = f"CRC 0x{received:04X} received, 0x{expected:04X} computed"
        return BadFrame(FrameErrorKind.BAD_CRC, detail, body)
    if body[0] != PROTOCOL_VERSION:
        detail = f"version {body[0]} received, {PROTOCOL_VERSION} spoken"
        return BadFrame(FrameErrorKind.BAD_VERSION, detail, body)
    length = body[4]
    if length != len(body) - MIN_BODY:
        detail = f"length byte says {length}, the frame holds {len(body) - MIN_BODY}"
        return BadFrame(FrameErrorKind.BAD_LENGTH, detail, body)
    return _checked_frame(body, length)


def _checked_frame(body: bytes, length: int) -> Frame | BadFrame:
    try:
        kind = FrameKind(body[1])
    except ValueError:
        return BadFrame(FrameErrorKind.BAD_KIND, f"unknown frame kind 0x{body[1]:02X}", body)
    low, high = _PAYLOAD_RULES[kind]
    if not low <= length <= high:
        detail = f"{kind.name} frame with a {length}-byte payload (allowed {low}..{high})"
        return BadFrame(FrameErrorKind.BAD_LENGTH, detail, body)
    end = HEADER_SIZE + length
    counter = int.from_bytes(body[end : end + COUNTER_SIZE], "big")
    tag = bytes(body[end + COUNTER_SIZE : end + COUNTER_SIZE + TAG_SIZE])
    return Frame(kind, body[2], body[3], bytes(body[HEADER_SIZE:end]), counter, tag)


class FrameDecoder:
    """Turns a byte stream, fed in chunks of any size, into frames and counted errors.

    Bytes are collected up to each 0x00; each collected fragment is COBS-decoded and
    checked. Empty fragments (0x00 0x00) are idle fill and are ignored. A fragment longer
    than the largest frame is dropped as soon as it is too long, and the decoder skips to
    the next 0x00, so a stream with no delimiter never grows memory. Nothing raises.
    """

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._discarding = False
        self._bytes_in = 0
        self._frames = 0
        self._errors: Counter[FrameErrorKind] = Counter()

    def feed(self, chunk: bytes) -> list[Frame | BadFrame]:
        """Add `chunk` to the stream; return every frame or bad fragment it completes, in order."""
        self._bytes_in += len(chunk)
        results: list[Frame | BadFrame] = []
        start = 0
        while (zero := chunk.find(0, start)) >= 0:
            self._collect(chunk[start:zero], results)
            if not self._discarding and self._buffer:
                results.append(self._finish(bytes(self._buffer)))
            self._buffer.clear()
            self._discarding = False
            start = zero + 1
        self._collect(chunk[start:], results)
        return results

    def stats(self) -> DecoderStats:
        """Return a snapshot of the counters."""
        return DecoderStats(self._bytes_in, self._frames, dict(self._errors))

    def _collect(self, piece: bytes, results: list[Frame | BadFrame]) -> None:
        if self._discarding or not piece:
            return
        self._buffer += piece
        if len(self._buffer) > MAX_ENCODED:
            detail = f"no delimiter within {MAX_ENCODED} bytes"
            results.append(self._count(BadFrame(FrameErrorKind.OVERSIZE, detail, self._head())))
            self._buffer.clear()
            self._discarding = True

    def _finish(self, block: bytes) -> Frame | BadFrame:
        try:
            body = cobs.decode(block)
        except cobs.CobsDecodeError as error:
            return self._count(BadFrame(FrameErrorKind.BAD_COBS, str(error), block[:_RAW_KEPT]))
        result = parse_body(body)
        if isinstance(result, Frame):
            self._frames += 1
            return result
        return self._count(BadFrame(result.kind, result.detail, result.raw[:_RAW_KEPT]))

    def _count(self, bad: BadFrame) -> BadFrame:
        self._errors[bad.kind] += 1
        return bad

    def _head(self) -> bytes:
        return bytes(self._buffer[:_RAW_KEPT])
