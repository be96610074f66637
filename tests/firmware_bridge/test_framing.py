"""Frames: encoding limits, and a decoder that survives anything (hypothesis fuzzing)."""

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge import cobs
from firmware_bridge.auth import AuthMode
from firmware_bridge.errors import FrameError
from firmware_bridge.framing import (
    MAX_ENCODED,
    MAX_PAYLOAD,
    MAX_WIRE,
    BadFrame,
    Frame,
    FrameDecoder,
    FrameErrorKind,
    FrameKind,
    encode_frame,
    reset_payload,
)

PAYLOAD_SIZES = {
    FrameKind.DATA: (1, MAX_PAYLOAD), FrameKind.ACK: (0, 0), FrameKind.RESET: (17, 17),
    FrameKind.RESET_ACK: (33, 33), FrameKind.NO_SESSION: (1, 1),
}


@st.composite
def frames(draw: st.DrawFn, max_payload: int = MAX_PAYLOAD) -> Frame:
    kind = draw(st.sampled_from(list(FrameKind)))
    low, high = PAYLOAD_SIZES[kind]
    payload = draw(st.binary(min_size=low, max_size=max(low, min(high, max_payload))))
    seq, ack = (draw(st.integers(0, 255)), draw(st.integers(0, 255)))
    counter = draw(st.integers(0, 0xFFFF_FFFF))
    if kind in (FrameKind.RESET, FrameKind.RESET_ACK, FrameKind.NO_SESSION):
        seq = ack = counter = 0
    return Frame(kind, seq, ack, payload, counter, draw(st.binary(min_size=8, max_size=8)))


def split_at(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({cut % (len(data) + 1) for cut in cuts} | {0, len(data)})
    return [data[a:b] for a, b in itertools.pairwise(points)]


def decode_all(chunks: list[bytes]) -> tuple[list[Frame], FrameDecoder]:
    decoder = FrameDecoder()
    out = [item for chunk in chunks for item in decoder.feed(chunk) if isinstance(item, Frame)]
    return out, decoder


@given(frames())
def test_every_frame_round_trips(frame: Frame) -> None:
    wire = encode_frame(frame)
    assert wire.endswith(b"\x00")
    assert wire.count(0) == 1
    assert len(wire) <= MAX_WIRE
    assert decode_all([wire])[0] == [frame]


@given(st.lists(frames(max_payload=40), max_size=12), st.lists(st.integers(0, 10_000)))
def test_any_chunking_gives_the_same_frames(sent: list[Frame], cuts: list[int]) -> None:
    stream = b"".join(map(encode_frame, sent))
    received, decoder = decode_all(split_at(stream, cuts))
    assert received == sent
    assert decoder.stats().error_total == 0


@given(
    st.lists(st.tuples(frames(max_payload=40), st.binary(max_size=300)), max_size=10),
    st.lists(st.integers(0, 10_000)),
)
def test_garbage_between_frames_costs_no_frame(
    pairs: list[tuple[Frame, bytes]], cuts: list[int]
) -> None:
    # Garbage ended by a delimiter, as after any real line fault, never hides the next frame.
    stream = b"".join(garbage + b"\x00" + encode_frame(frame) for frame, garbage in pairs)
    received, _ = decode_all(split_at(stream, cuts))
    assert received == [frame for frame, _ in pairs]


@given(st.binary(max_size=2000), st.lists(st.integers(0, 10_000)))
def test_arbitrary_bytes_never_raise_and_resync_at_once(noise: bytes, cuts: list[int]) -> None:
    good = Frame(FrameKind.DATA, 7, 9, b"\x10payload")
    chunks = [*split_at(noise, cuts), b"\x00", encode_frame(good)]
    decoder = FrameDecoder()
    results = [item for chunk in chunks for item in decoder.feed(chunk)]
    assert all(isinstance(item, Frame | BadFrame) for item in results)
    assert results[-1] == good


@settings(max_examples=300)
@given(
    st.lists(frames(max_payload=30), min_size=1, max_size=8),
    st.lists(st.integers(0, 100_000), min_size=1, max_size=3),
)
def test_bit_flips_never_let_a_wrong_frame_through(sent: list[Frame], flips: list[int]) -> None:
    wires = [encode_frame(frame) for frame in sent]
    stream = bytearray(b"".join(wires))
    for flip in flips:
        stream[(flip // 8) % len(stream)] ^= 1 << (flip % 8)
    received, _ = decode_all([bytes(stream)])
    assert all(frame in sent for frame in received)
    touched = {(flip // 8) % len(stream) for flip in flips}
    start = 0
    for index, wire in enumerate(wires):
        span = set(range(start - 1, start + len(wire)))  # the frame and the delimiter before it
        if not span & touched:
            assert sent[index] in received, "an intact frame after damage was not decoded"
        start += len(wire)


SAMPLES = [
    Frame(FrameKind.DATA, 5, 0, bytes.fromhex("1000000029000C00016062")),
    Frame(FrameKind.ACK, 3, 5),
    Frame(FrameKind.RESET, payload=reset_payload(AuthMode.PAIRED, bytes(range(16)))),
    Frame(FrameKind.DATA, 255, 128, bytes(range(MAX_PAYLOAD)), 0xFFFF_FFFE, b"\x00\xff" * 4),
]


@pytest.mark.parametrize("frame", SAMPLES, ids=lambda f: f.kind.name)
def test_every_single_bit_flip_is_rejected_and_the_next_frame_survives(frame: Frame) -> None:
    wire, follower = encode_frame(frame), encode_frame(Frame(FrameKind.ACK, 1, 2))
    for position in range(len(wire)):
        for bit in range(8):
            damaged = bytearray(wire)
            damaged[position] ^= 1 << bit
            received, _ = decode_all([bytes(damaged) + follower])
            delimiter_hit = position == len(wire) - 1
            assert received == ([] if delimiter_hit else [Frame(FrameKind.ACK, 1, 2)])


def test_oversize_stream_without_delimiter_keeps_memory_bounded() -> None:
    decoder = FrameDecoder()
    for _ in range(100):
        decoder.feed(b"\x55" * 1000)
    assert decoder.stats().errors == {FrameErrorKind.OVERSIZE: 1}
    assert decoder.feed(b"\x00" + encode_frame(Frame(FrameKind.ACK))) == [Frame(FrameKind.ACK)]


def test_largest_frame_fits_the_limits() -> None:
    wire = encode_frame(Frame(FrameKind.DATA, 1, 1, b"\xff" * MAX_PAYLOAD))
    assert len(wire) == MAX_WIRE == MAX_ENCODED + 1 == 255
    assert FrameDecoder().feed(wire)[0] == Frame(FrameKind.DATA, 1, 1, b"\xff" * MAX_PAYLOAD)


@pytest.mark.parametrize(("frame", "message"), [
    (Frame(FrameKind.DATA, payload=b""), "DATA frame payload is 0 bytes"),
    (Frame(FrameKind.DATA, payload=b"x" * 235), "it must be 1..234"),
    (Frame(FrameKind.ACK, payload=b"x"), "ACK frame payload is 1 bytes"),
    (Frame(FrameKind.RESET, payload=b"xx"), "RESET frame payload is 2 bytes; it must be 17..17"),
    (Frame(FrameKind.ACK, counter=1 << 32), "counter 4294967296 does not fit"),
    (Frame(FrameKind.ACK, tag=b"short"), "the tag is 5 bytes"),
    (Frame(FrameKind.DATA, 256, 0, b"x"), "seq 256 does not fit"),
    (Frame(FrameKind.DATA, 0, -1, b"x"), "ack -1 does not fit"),
])
def test_encoder_refuses_impossible_frames(frame: Frame, message: str) -> None:
    with pytest.raises(FrameError, match=message):
        encode_frame(frame)


@given(st.binary(max_size=600))
def test_cobs_round_trips_and_never_emits_zero(data: bytes) -> None:
    encoded = cobs.encode(data)
    assert 0 not in encoded
    assert cobs.decode(encoded) == data
    assert len(encoded) <= len(data) + 1 + len(data) // 254


@pytest.mark.parametrize("block", [b"\x05\x01", b"\x02\x00", b"\x00", b"\x03\x01\x00"])
def test_cobs_decoder_refuses_invalid_blocks(block: bytes) -> None:
    with pytest.raises(cobs.CobsDecodeError):
        cobs.decode(block)


def test_bad_fragment_report_names_the_reason_and_keeps_a_sample() -> None:
    (bad,) = FrameDecoder().feed(b"\x05\x01\x02\x00")
    assert isinstance(bad, BadFrame)
    assert bad.kind is FrameErrorKind.BAD_COBS
    assert "overruns" in bad.detail
    assert bad.raw == b"\x05\x01\x02"
