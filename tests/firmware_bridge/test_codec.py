"""The codec: every catalogue message round-trips; bad values and bytes get precise errors."""

import contextlib
import shlex

import pytest
from hypothesis import given
from hypothesis import strategies as st

from firmware_bridge import Catalogue, Codec, CodecError, load_catalogue
from firmware_bridge.catalogue import INT_WIDTHS, FieldSpec, FieldType, MessageSpec
from firmware_bridge.codec import FieldValue, Message

from .helpers import TABLE_CATALOGUE, example_catalogue

BOARDS = [example_catalogue().board("demo"),
          *load_catalogue(TABLE_CATALOGUE).boards.values()]
SPECS = [(board, spec) for board in BOARDS for spec in (*board.messages,)]
PRINTABLE = st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E))


def value_strategy(spec: FieldSpec) -> st.SearchStrategy[FieldValue]:
    if spec.type in INT_WIDTHS:
        low, high = spec.bounds()
        return st.integers(low, high)
    if spec.type is FieldType.BOOL:
        return st.booleans()
    if spec.type is FieldType.ENUM:
        return st.sampled_from(spec.values)
    if spec.type is FieldType.STR:
        return PRINTABLE.filter(lambda text: len(text) <= (spec.max_len or 0))
    return st.binary(max_size=spec.max_len or 0)


def message_strategy(spec: MessageSpec) -> st.SearchStrategy[dict[str, FieldValue]]:
    return st.fixed_dictionaries({item.name: value_strategy(item) for item in spec.fields})


@pytest.mark.parametrize(("board", "spec"), SPECS, ids=lambda x: getattr(x, "name", None))
@given(data=st.data())
def test_every_message_round_trips(board, spec: MessageSpec, data: st.DataObject) -> None:
    codec = Codec(board)
    fields = data.draw(message_strategy(spec))
    payload = codec.encode(spec.name, fields)
    assert payload[0] == spec.id
    assert codec.decode(payload) == Message(spec.name, fields)
    text = codec.describe(codec.decode(payload), reveal_secrets=True)
    name, *assignments = shlex.split(text)
    assert codec.parse_fields(name, assignments) == fields


@given(st.binary(max_size=60))
def test_decoding_arbitrary_payloads_raises_only_codec_errors(payload: bytes) -> None:
    for board in BOARDS:
        with contextlib.suppress(CodecError):
            Codec(board).decode(payload)


def test_integers_are_big_endian_and_signed_twos_complement() -> None:
    codec = Codec(example_catalogue().board("demo"))
    payload = codec.encode("status", {"uptime_ms": 0x01020304, "temperature": -2,
                                      "serial": b""})
    assert payload == bytes.fromhex("13 01020304 FFFE 00")


@pytest.mark.parametrize(("fields", "expected"), [
    ({"output": 3}, "field 'level' is missing"),
    ({"output": 3, "level": "on", "colour": 1}, "no field 'colour'"),
    ({"output": 8, "level": "on"}, "field 'output': 8 is outside 0..7"),
    ({"output": True, "level": "on"}, "field 'output': expected an integer, got True"),
    ({"output": "3", "level": "on"}, "field 'output': expected an integer, got '3'"),
    ({"output": 3, "level": "dim"}, "field 'level': 'dim' is not one of off, on, blink"),
])
def test_encode_errors_name_the_message_and_field(fields, expected: str) -> None:
    codec = Codec(example_catalogue().board("demo"))
    with pytest.raises(CodecError) as caught:
        codec.encode("set_output", fields)
    assert "board 'demo', message 'set_output' (id 0x10)" in str(caught.value)
    assert expected in str(caught.value)


@pytest.mark.parametrize(("label", "expected"), [
    ("NINECHARS", "9 bytes is longer than max_len 8"),
    ("BELL\x07", "has characters outside printable ASCII"),
    ("CAFÉ", "has characters outside printable ASCII"),
])
def test_text_must_be_short_printable_ascii(label: str, expected: str) -> None:
    codec = Codec(example_catalogue().board("demo"))
    with pytest.raises(CodecError, match=expected):
        codec.encode("input_changed", {"count": 1, "input": 0, "active": True, "label": label})


def test_bool_and_bytes_fields_take_only_their_types() -> None:
    codec = Codec(example_catalogue().board("demo"))
    with pytest.raises(CodecError, match="field 'active': expected true or false, got 1"):
        codec.encode("input_changed", {"count": 1, "input": 0, "active": 1, "label": ""})
    with pytest.raises(CodecError, match="field 'serial': expected bytes, got 'ab'"):
        codec.encode("status", {"uptime_ms": 1, "temperature": 0, "serial": "ab"})


def test_unknown_message_name_and_empty_payload_are_refused() -> None:
    codec = Codec(example_catalogue().board("demo"))
    with pytest.raises(CodecError, match="board 'demo' has no message 'set_lamp'"):
        codec.encode("set_lamp", {})
    with pytest.raises(CodecError, match="empty payload"):
        codec.decode(b"")


def test_secret_fields_are_masked_unless_revealed(table_catalogue: Catalogue) -> None:
    codec = Codec(table_catalogue.board("shoe"))
    read = codec.decode(codec.encode("card_read", {"count": 3, "card_no": 1, "code": "QH",
                                                   "quality": 90}))
    assert codec.describe(read) == 'card_read count=3 card_no=1 code=*** quality=90'
    assert 'code="QH"' in codec.describe(read, reveal_secrets=True)


@pytest.mark.parametrize(("assignment", "expected"), [
    ("output", "expected field=value, got 'output'"),
    ("colour=1", "expected field=value, got 'colour=1'"),
    ("output=three", "field 'output': cannot read 'three' as u8"),
])
def test_console_field_parsing_errors(assignment: str, expected: str) -> None:
    codec = Codec(example_catalogue().board("demo"))
    with pytest.raises(CodecError, match=expected):
        codec.parse_fields("set_output", [assignment])


def test_console_field_parsing_reads_each_type() -> None:
    codec = Codec(example_catalogue().board("demo"))
    assert codec.parse_fields("set_output", ["output=0x7", "level=on"]) == {
        "output": 7, "level": "on"}
    assert codec.parse_fields("input_changed", ["active=false", "label=A B"]) == {
        "active": False, "label": "A B"}
    assert codec.parse_fields("status", ["serial=00ff", "temperature=-5"]) == {
        "serial": b"\x00\xff", "temperature": -5}
    with pytest.raises(CodecError, match="expected true or false, got 'maybe'"):
        codec.parse_fields("input_changed", ["active=maybe"])


def test_typed_accessors_refuse_the_wrong_type() -> None:
    message = Message("x", {"n": 1, "flag": True, "text": "a", "blob": b"b"})
    assert (message.int("n"), message.flag("flag"), message.text("text"),
            message.blob("blob")) == (1, True, "a", b"b")
    for accessor, name in ((message.int, "flag"), (message.flag, "n"), (message.text, "blob"),
                           (message.blob, "text")):
        with pytest.raises(CodecError, match=f"field '{name}' is not"):
            accessor(name)
