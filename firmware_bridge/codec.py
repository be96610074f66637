"""Messages to payload bytes and back, driven entirely by a `BoardCatalogue`.

A DATA frame's payload is the message id (one byte) followed by each field in catalogue
order (encodings in PROTOCOL.md, "Field encodings"). The codec is pure; every error it
raises is a `CodecError` naming the board, message and field.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from firmware_bridge.catalogue import (
    INT_WIDTHS,
    SIGNED_TYPES,
    BoardCatalogue,
    FieldSpec,
    FieldType,
    MessageSpec,
)
from firmware_bridge.errors import CatalogueError, CodecError

FieldValue = int | bool | str | bytes
"""A decoded field: int (integers), bool, str (str and enum value names) or bytes."""

MASK: Final = "***"
_PRINTABLE: Final = range(0x20, 0x7F)
_SIGNED_FORMATS: Final = {1: "b", 2: "h", 4: "i", 8: "q"}
_STRUCTS: Final[Mapping[FieldType, struct.Struct]] = {
    kind: struct.Struct(
        ">" + (_SIGNED_FORMATS[width] if kind in SIGNED_TYPES else _SIGNED_FORMATS[width].upper())
    )
    for kind, width in INT_WIDTHS.items()
}


@dataclass(frozen=True, slots=True)
class Message:
    """One decoded or to-be-encoded message.

    Attributes:
        name: the catalogue name of the message.
        fields: every field's value, in catalogue order.
    """

    name: str
    fields: Mapping[str, FieldValue] = field(default_factory=dict)

    def __getitem__(self, field_name: str) -> FieldValue:
        return self.fields[field_name]

    def int(self, field_name: str) -> int:
        """Return an integer field, refusing any other type (bool included)."""
        value = self.fields[field_name]
        if isinstance(value, bool) or not isinstance(value, int):
            raise CodecError(f"message {self.name!r}: field {field_name!r} is not an integer")
        return value

    def text(self, field_name: str) -> str:
        """Return a str or enum field."""
        value = self.fields[field_name]
        if not isinstance(value, str):
            raise CodecError(f"message {self.name!r}: field {field_name!r} is not text")
        return value

    def blob(self, field_name: str) -> bytes:
        """Return a bytes field."""
        value = self.fields[field_name]
        if not isinstance(value, bytes):
            raise CodecError(f"message {self.name!r}: field {field_name!r} is not bytes")
        return value

    def flag(self, field_name: str) -> bool:
        """Return a bool field."""
        value = self.fields[field_name]
        if not isinstance(value, bool):
            raise CodecError(f"message {self.name!r}: field {field_name!r} is not a bool")
        return value


class Codec:
    """Encodes and decodes the messages of one board kind (reserved link messages included)."""

    def __init__(self, board: BoardCatalogue) -> None:
        self.board = board

    def encode(self, name: str, fields: Mapping[str, FieldValue] | None = None) -> bytes:
        """Return the payload of message `name` with `fields`.

        Raises:
            CodecError: if the message is unknown, a field is missing, unexpected, of the
                wrong type or out of range.
        """
        spec = self._spec(name)
        given = dict(fields or {})
        extra = sorted(set(given) - {item.name for item in spec.fields})
        if extra:
            raise CodecError(f"{self._where(spec)}: no field {extra[0]!r}")
        out = bytearray((spec.id,))
        for item in spec.fields:
            if item.name not in given:
                raise CodecError(f"{self._where(spec)}: field {item.name!r} is missing")
            out += _encode_value(item, given[item.name], f"{self._where(spec)}, field")
        return bytes(out)

    def decode(self, payload: bytes) -> Message:
        """Return the message in `payload` (a DATA frame's payload).

        Raises:
            CodecError: if the id is unknown, a field is malformed, or bytes are missing
                or left over.
        """
        if not payload:
            raise CodecError(f"board {self.board.kind!r}: empty payload")
        spec = self.board.spec_by_id(payload[0])
        if spec is None:
            raise CodecError(f"board {self.board.kind!r}: unknown message id 0x{payload[0]:02X}")
        values: dict[str, FieldValue] = {}
        offset = 1
        for item in spec.fields:
            values[item.name], offset = _decode_value(
                item, payload, offset, f"{self._where(spec)}, field"
            )
        if offset != len(payload):
            raise CodecError(
                f"{self._where(spec)}: {len(payload) - offset} bytes left after the last field"
            )
        return Message(spec.name, values)

    def describe(self, message: Message, *, reveal_secrets: bool = False) -> str:
        """Return ``name field=value ...`` for people; secret fields show as ``***``."""
        spec = self._spec(message.name)
        parts = [message.name]
        for item in spec.fields:
            value = message.fields.get(item.name)
            shown = MASK if item.secret and not reveal_secrets else _show(item, value)
            parts.append(f"{item.name}={shown}")
        return " ".join(parts)

    def parse_fields(self, name: str, assignments: Sequence[str]) -> dict[str, FieldValue]:
        """Turn ``field=value`` texts (as typed at a console) into typed field values.

        Integers accept decimal or 0x-prefixed hex, bools true/false/1/0, enums a value
        name, bytes hex digits, strings themselves.

        Raises:
            CodecError: naming the field whose text cannot be parsed.
        """
        spec = self._spec(name)
        by_name = {item.name: item for item in spec.fields}
        values: dict[str, FieldValue] = {}
        for text in assignments:
            key, sep, raw = text.partition("=")
            if not sep or key not in by_name:
                raise CodecError(f"{self._where(spec)}: expected field=value, got {text!r}")
            values[key] = _parse_text(by_name[key], raw, f"{self._where(spec)}, field")
        return values

    def _spec(self, name: str) -> MessageSpec:
        try:
            return self.board.spec(name)
        except CatalogueError as error:
            raise CodecError(str(error)) from None

    def _where(self, spec: MessageSpec) -> str:
        return f"board {self.board.kind!r}, message {spec.name!r} (id 0x{spec.id:02X})"


def _encode_value(spec: FieldSpec, value: FieldValue, where: str) -> bytes:
    where = f"{where} {spec.name!r}"
    if spec.type in INT_WIDTHS:
        return _STRUCTS[spec.type].pack(_checked_int(spec, value, where))
    if spec.type is FieldType.BOOL:
        if not isinstance(value, bool):
            raise CodecError(f"{where}: expected true or false, got {value!r}")
        return b"\x01" if value else b"\x00"
    if spec.type is FieldType.ENUM:
        if value not in spec.values:
            raise CodecError(f"{where}: {value!r} is not one of {', '.join(spec.values)}")
        return bytes((spec.values.index(str(value)),))
    data = _text_bytes(spec, value, where)
    if len(data) > (spec.max_len or 0):
        raise CodecError(f"{where}: {len(data)} bytes is longer than max_len {spec.max_len}")
    return bytes((len(data),)) + data


def _checked_int(spec: FieldSpec, value: FieldValue, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise CodecError(f"{where}: expected an integer, got {value!r}")
    low, high = spec.bounds()
    if not low <= value <= high:
        raise CodecError(f"{where}: {value} is outside {low}..{high}")
    return value


def _text_bytes(spec: FieldSpec, value: FieldValue, where: str) -> bytes:
    if spec.type is FieldType.BYTES:
        if not isinstance(value, bytes):
            raise CodecError(f"{where}: expected bytes, got {value!r}")
        return value
    if not isinstance(value, str):
        raise CodecError(f"{where}: expected a string, got {value!r}")
    data = value.encode("ascii", errors="replace")
    if any(byte not in _PRINTABLE for byte in data) or not value.isascii():
        raise CodecError(f"{where}: {value!r} has characters outside printable ASCII")
    return data


def _decode_value(
    spec: FieldSpec, payload: bytes, offset: int, where: str
) -> tuple[FieldValue, int]:
    where = f"{where} {spec.name!r}"
    if spec.type in INT_WIDTHS:
        packer = _STRUCTS[spec.type]
        _need(payload, offset, packer.size, where)
        value: int = packer.unpack_from(payload, offset)[0]
        low, high = spec.bounds()
        if not low <= value <= high:
            raise CodecError(f"{where}: {value} is outside {low}..{high}")
        return value, offset + packer.size
    _need(payload, offset, 1, where)
    byte = payload[offset]
    if spec.type is FieldType.BOOL:
        if byte > 1:
            raise CodecError(f"{where}: 0x{byte:02X} is not a bool (0x00 or 0x01)")
        return byte == 1, offset + 1
    if spec.type is FieldType.ENUM:
        if byte >= len(spec.values):
            raise CodecError(f"{where}: {byte} is not one of 0..{len(spec.values) - 1}")
        return spec.values[byte], offset + 1
    return _decode_text(spec, payload, offset, where)


def _decode_text(
    spec: FieldSpec, payload: bytes, offset: int, where: str
) -> tuple[FieldValue, int]:
    length = payload[offset]
    if length > (spec.max_len or 0):
        raise CodecError(f"{where}: length {length} is over max_len {spec.max_len}")
    _need(payload, offset + 1, length, where)
    data = bytes(payload[offset + 1 : offset + 1 + length])
    if spec.type is FieldType.BYTES:
        return data, offset + 1 + length
    if any(byte not in _PRINTABLE for byte in data):
        raise CodecError(f"{where}: bytes outside printable ASCII (0x20-0x7E)")
    return data.decode("ascii"), offset + 1 + length


def _need(payload: bytes, offset: int, count: int, where: str) -> None:
    if offset + count > len(payload):
        raise CodecError(f"{where}: the payload ends after {len(payload)} bytes")


def _show(spec: FieldSpec, value: FieldValue | None) -> str:
    """Render a value so that `shlex.split` plus `parse_fields` reads it back."""
    if isinstance(value, bytes):
        return value.hex() or '""'
    if isinstance(value, str) and spec.type is not FieldType.ENUM:
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return str(value).lower() if isinstance(value, bool) else str(value)


def _parse_text(spec: FieldSpec, text: str, where: str) -> FieldValue:
    where = f"{where} {spec.name!r}"
    try:
        if spec.type in INT_WIDTHS:
            return int(text, 0)
        if spec.type is FieldType.BYTES:
            return bytes.fromhex(text)
    except ValueError:
        raise CodecError(f"{where}: cannot read {text!r} as {spec.type}") from None
    if spec.type is FieldType.BOOL:
        choices = {"true": True, "1": True, "false": False, "0": False}
        if text.lower() not in choices:
            raise CodecError(f"{where}: expected true or false, got {text!r}")
        return choices[text.lower()]
    return text

