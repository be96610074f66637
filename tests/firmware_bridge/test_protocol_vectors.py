"""Every test vector, example and generated table in PROTOCOL.md, asserted against the code.

The document and the implementation cannot drift: a change to either that breaks a vector
fails here.
"""

import hashlib
import hmac
import shlex
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from firmware_bridge import cobs, docgen, load_catalogue
from firmware_bridge.auth import PairingKey, derive_session_keys
from firmware_bridge.catalogue import LINK_MESSAGES, BoardCatalogue
from firmware_bridge.codec import Codec
from firmware_bridge.device import DeviceEndpoint, DeviceIdentity
from firmware_bridge.errors import CodecError
from firmware_bridge.framing import (
    Frame,
    FrameDecoder,
    FrameErrorKind,
    FrameKind,
    crc16,
    encode_body,
    encode_frame,
)
from firmware_bridge.guard import FrameGuard
from firmware_bridge.link import Link, LinkEnd, LinkStats
from tests.support.clock import FakeClock

from .helpers import PROTOCOL_MD, ROOT, TABLE_CATALOGUE, example_catalogue, fenced_blocks


@dataclass
class Vector:
    name: str
    wire: bytes = b""
    frames: list[Frame] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)
    messages: list[str] = field(default_factory=list)
    message_error: str | None = None
    catalogue: str | None = None
    board: str | None = None
    sender: str | None = None
    receiver: str | None = None
    auth_errors: dict[str, int] = field(default_factory=dict)


def parse_wire(text: str) -> bytes:
    out = bytearray()
    for token in text.split():
        value, _, repeat = token.partition("*")
        out += bytes([int(value, 16)]) * (int(repeat) if repeat else 1)
    return bytes(out)


def parse_frame(text: str) -> Frame:
    kind, *pairs = text.split()
    values = dict(pair.split("=", 1) for pair in pairs)
    payload = b"" if values["payload"] == "-" else bytes.fromhex(values["payload"])
    return Frame(FrameKind[kind], int(values["seq"]), int(values["ack"]), payload,
                 int(values["counter"]), bytes.fromhex(values["tag"]))


def parse_counts(value: str) -> dict[str, int]:
    return {k: int(n) for k, n in (pair.split("=") for pair in value.split())}


def parse_vector(body: str) -> Vector:
    lines = [line.split(": ", 1) for line in body.strip().splitlines()]
    vector = Vector(name=dict(lines)["name"])
    for key, value in lines:
        if key == "wire":
            vector.wire += parse_wire(value)
        elif key == "frame":
            vector.frames.append(parse_frame(value))
        elif key == "message":
            vector.messages.append(value)
        elif key == "errors":
            vector.errors = parse_counts(value)
        elif key == "auth_errors":
            vector.auth_errors = parse_counts(value)
        elif key in ("message_error", "catalogue", "board", "sender", "receiver"):
            setattr(vector, key, value)
        else:
            assert key in ("name", "meaning"), f"unknown key {key!r} in vector {vector.name}"
    return vector


VECTORS = [parse_vector(body) for body in fenced_blocks("vector")]
BY_NAME = {vector.name: vector for vector in VECTORS}


def parse_pairs(body: str) -> dict[str, str]:
    return dict(line.split(": ", 1) for line in body.strip().splitlines())


(DEMO_SESSION,) = [parse_pairs(body) for body in fenced_blocks("auth-vector")]
DEMO_KEY = PairingKey(parse_wire(DEMO_SESSION["pairing_key"]))
DEMO_HOST_NONCE = parse_wire(DEMO_SESSION["host_nonce"])
DEMO_BOARD_NONCE = parse_wire(DEMO_SESSION["board_nonce"])


def board_of(vector: Vector) -> BoardCatalogue:
    assert vector.catalogue, f"vector {vector.name} names no catalogue"
    assert vector.board, f"vector {vector.name} names no board"
    if vector.catalogue == "example":
        return example_catalogue().board(vector.board)
    return load_catalogue(ROOT / vector.catalogue).board(vector.board)


def decode(data: bytes, byte_by_byte: bool) -> tuple[list[Frame], dict[str, int]]:
    decoder = FrameDecoder()
    chunks = [data[i : i + 1] for i in range(len(data))] if byte_by_byte else [data]
    frames = [item for chunk in chunks for item in decoder.feed(chunk) if isinstance(item, Frame)]
    return frames, {str(kind): n for kind, n in decoder.stats().errors.items()}


def test_the_document_has_vectors() -> None:
    assert len(VECTORS) >= 30
    assert len(BY_NAME) == len(VECTORS), "vector names must be unique"


@pytest.mark.parametrize("byte_by_byte", [False, True], ids=["one-chunk", "byte-by-byte"])
@pytest.mark.parametrize("vector", VECTORS, ids=lambda v: v.name)
def test_decoder_gives_exactly_the_listed_frames_and_errors(vector: Vector, byte_by_byte: bool):
    frames, errors = decode(vector.wire, byte_by_byte)
    assert frames == vector.frames
    assert errors == vector.errors


@pytest.mark.parametrize(
    "vector",
    [v for v in VECTORS if len(v.frames) == 1 and not v.errors and v.wire.count(0) == 1],
    ids=lambda v: v.name,
)
def test_encoder_gives_exactly_the_listed_wire_bytes(vector: Vector) -> None:
    assert encode_frame(vector.frames[0]) == vector.wire


@pytest.mark.parametrize("vector", [v for v in VECTORS if v.messages], ids=lambda v: v.name)
def test_message_decodes_to_the_listed_meaning_and_encodes_back(vector: Vector) -> None:
    codec = Codec(board_of(vector))
    data_frames = [frame for frame in vector.frames if frame.kind is FrameKind.DATA]
    assert len(data_frames) == len(vector.messages)
    for frame, text in zip(data_frames, vector.messages, strict=True):
        assert codec.describe(codec.decode(frame.payload), reveal_secrets=True) == text
        name, *assignments = shlex.split(text)
        assert codec.encode(name, codec.parse_fields(name, assignments)) == frame.payload


@pytest.mark.parametrize("vector", [v for v in VECTORS if v.message_error], ids=lambda v: v.name)
def test_invalid_message_is_rejected_with_a_clear_error(vector: Vector) -> None:
    codec = Codec(board_of(vector))
    (frame,) = vector.frames
    with pytest.raises(CodecError) as caught:
        codec.decode(frame.payload)
    assert vector.message_error in str(caught.value)


def test_every_frame_kind_error_kind_and_reserved_message_has_a_vector() -> None:
    kinds = {frame.kind for vector in VECTORS for frame in vector.frames}
    assert kinds == set(FrameKind)
    errors = {kind for vector in VECTORS for kind in vector.errors}
    assert errors == {str(kind) for kind in FrameErrorKind}
    named = {text.split()[0] for vector in VECTORS for text in vector.messages}
    assert {spec.name for spec in LINK_MESSAGES} <= named
    refused = {kind for vector in VECTORS for kind in vector.auth_errors}
    assert refused == {"bad_macs", "replayed", "auth_mismatches", "counter_errors", "ignored"}


def test_the_demo_session_keys_and_key_id_are_what_the_code_derives() -> None:
    keys = derive_session_keys(DEMO_KEY, DEMO_HOST_NONCE, DEMO_BOARD_NONCE)
    assert keys.host_to_board == parse_wire(DEMO_SESSION["host_to_board_key"])
    assert keys.board_to_host == parse_wire(DEMO_SESSION["board_to_host_key"])
    assert DEMO_KEY.key_id == DEMO_SESSION["key_id"]


def admit(guard: FrameGuard, frame: Frame) -> bool:
    """One frame through the receiving end's checks (PROTOCOL.md 4.4)."""
    if frame.kind in (FrameKind.RESET, FrameKind.NO_SESSION):
        return guard.admit_beacon(frame)
    if frame.kind is FrameKind.RESET_ACK:
        return guard.admit_reset_ack(frame) is not None
    return guard.admit(frame)


def host_awaiting_the_demo_session(frames: list[Frame]) -> tuple[list[bool], LinkStats]:
    """RESET_ACKs fed to a host link whose pending RESET carries the demo nonce (4.4, 5.1)."""
    link = Link(LinkEnd.HOST, FakeClock(), pairing=DEMO_KEY,
                nonce_source=lambda: DEMO_HOST_NONCE)
    link.start()
    admitted = []
    for frame in frames:
        sessions = link.stats().sessions
        link.on_frame(frame)
        admitted.append(link.stats().sessions > sessions)
    return admitted, link.stats()


@pytest.mark.parametrize("vector", [v for v in VECTORS if v.receiver], ids=lambda v: v.name)
def test_the_receiver_admits_or_refuses_exactly_as_listed(vector: Vector) -> None:
    if vector.receiver == "host" and vector.frames[0].kind is FrameKind.RESET_ACK:
        admitted, link = host_awaiting_the_demo_session(vector.frames)
        counts = {"bad_macs": link.bad_macs, "replayed": link.replayed,
                  "auth_mismatches": link.auth_mismatches,
                  "counter_errors": link.counter_errors, "ignored": link.ignored_frames}
    else:
        guard = FrameGuard(host=vector.receiver == "host", key=DEMO_KEY)
        guard.open(guard.session_keys(DEMO_HOST_NONCE, DEMO_BOARD_NONCE))
        admitted = [admit(guard, frame) for frame in vector.frames]
        stats = guard.stats()
        counts = {"bad_macs": stats.bad_macs, "replayed": stats.replayed,
                  "auth_mismatches": stats.auth_mismatches,
                  "counter_errors": stats.counter_errors, "ignored": 0}
    assert counts == {name: vector.auth_errors.get(name, 0) for name in counts}
    assert admitted.count(False) == sum(vector.auth_errors.values())


def expected_tag(frame: Frame, sender: str) -> bytes:
    """The tag section 4.3 prescribes, computed here with the standard library alone."""
    keys = derive_session_keys(DEMO_KEY, DEMO_HOST_NONCE, DEMO_BOARD_NONCE)
    if frame.kind in (FrameKind.RESET, FrameKind.NO_SESSION):
        key = DEMO_KEY.secret
    elif frame.kind is FrameKind.RESET_ACK or sender == "board":
        key = keys.board_to_host
    else:
        key = keys.host_to_board
    body = encode_body(frame)
    return hmac.new(key, body[:-10], hashlib.sha256).digest()[:8]


@pytest.mark.parametrize("vector", [v for v in VECTORS if v.sender], ids=lambda v: v.name)
def test_every_tag_is_the_truncated_hmac_of_section_4(vector: Vector) -> None:
    assert vector.sender in ("host", "board")
    for frame in vector.frames:
        assert frame.tag == expected_tag(frame, vector.sender)


@pytest.mark.parametrize("body", fenced_blocks("cobs-vector"))
def test_cobs_vectors(body: str) -> None:
    pairs = parse_pairs(body)
    data = b"" if pairs["data"] == "-" else parse_wire(pairs["data"])
    assert cobs.encode(data) == parse_wire(pairs["encoded"])
    assert cobs.decode(parse_wire(pairs["encoded"])) == data


@pytest.mark.parametrize("body", fenced_blocks("crc-vector"))
def test_crc_vectors(body: str) -> None:
    pairs = parse_pairs(body)
    data = pairs["ascii"].encode() if "ascii" in pairs else parse_wire(pairs["data"])
    assert crc16(data) == int(pairs["crc"], 16)


def test_crc_check_value_is_stated() -> None:
    assert crc16(b"123456789") == 0x29B1
    assert "`0x29B1`" in PROTOCOL_MD.read_text(encoding="utf-8")


def test_example_catalogue_canonical_text_and_hash() -> None:
    board = example_catalogue().board("demo")
    (canonical,) = fenced_blocks("text", "example-canonical")
    (digest,) = fenced_blocks("text", "example-hash")
    assert board.canonical_text() == canonical
    assert board.hash().hex() == digest.strip()


def test_generated_catalogue_section_matches_the_catalogue_file() -> None:
    document = PROTOCOL_MD.read_text(encoding="utf-8")
    expected = docgen.splice(document, docgen.render(load_catalogue(TABLE_CATALOGUE),
                                                     TABLE_CATALOGUE.name))
    assert document == expected, (
        "PROTOCOL.md's catalogue tables are stale: run "
        "python -m firmware_bridge.docgen drivers/catalogue.toml --write"
    )


def run_transcript(lines: list[str]) -> None:
    board = example_catalogue().board("demo")
    clock = FakeClock()
    endpoint = DeviceEndpoint(board, DeviceIdentity("1.0.0", boot_id=42), clock,
                              pairing=DEMO_KEY, nonce_source=lambda: DEMO_BOARD_NONCE)
    endpoint.on("set_output", lambda message: None)
    endpoint.on("get_status", lambda message: endpoint.send(
        "status", uptime_ms=1000, temperature=215, serial=bytes.fromhex("dead")))
    endpoint.start()
    expected = b""
    for line in lines:
        command, _, rest = line.partition(" ")
        if command == "B>":
            expected += parse_wire(rest.split("#")[0])
            continue
        assert endpoint.take_output() == expected, f"board output before {line!r}"
        expected = b""
        if command == "H>":
            endpoint.feed(parse_wire(rest.split("#")[0]))
        elif command == "emit":
            name, *assignments = shlex.split(rest)
            endpoint.emit(name, **endpoint.codec.parse_fields(name, assignments))
        elif command == "advance":
            clock.advance(float(rest))
            endpoint.poll()
        else:
            assert command == "expect", line
            assert rest == f"failsafe={str(endpoint.failsafe).lower()}"
    assert endpoint.take_output() == expected


@pytest.mark.parametrize("number", [0, 1], ids=["session", "refused-resets"])
def test_session_transcript_is_what_the_board_endpoint_does(number: int) -> None:
    bodies = fenced_blocks("transcript")
    assert len(bodies) == 2
    run_transcript(bodies[number].strip().splitlines())


def test_vectors_refer_to_files_that_exist() -> None:
    for vector in VECTORS:
        if vector.catalogue and vector.catalogue != "example":
            assert Path(ROOT / vector.catalogue).is_file(), vector.name
