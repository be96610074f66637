"""The message catalogue: which messages a board understands, their ids and typed fields.

A catalogue is data (a TOML file owned by whoever knows what the boards are for); this
module loads and validates it, with errors that name the board, message and field, and
computes each board's catalogue hash, which the handshake compares (see PROTOCOL.md,
"Catalogue hash"). It also defines the reserved link messages (ids 0x01-0x0F) that every
board speaks whatever its catalogue. `catalogue_file` reads catalogue files.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Final

from firmware_bridge.errors import CatalogueError

CATALOGUE_FORMAT: Final = 1
FIRST_CATALOGUE_ID: Final = 0x10
LAST_ID: Final = 0xFF
MAX_TEXT_LEN: Final = 200
MAX_MESSAGE_PAYLOAD: Final = 234  # framing.MAX_PAYLOAD; a message must fit in one frame
COUNT_FIELD: Final = "count"
NAME_PATTERN: Final = re.compile(r"[a-z][a-z0-9_]{0,31}")


class FieldType(StrEnum):
    """Wire types of message fields (encodings in PROTOCOL.md, "Field encodings")."""

    U8 = "u8"
    U16 = "u16"
    U32 = "u32"
    U64 = "u64"
    I8 = "i8"
    I16 = "i16"
    I32 = "i32"
    I64 = "i64"
    BOOL = "bool"
    ENUM = "enum"
    STR = "str"
    BYTES = "bytes"


INT_WIDTHS: Final[Mapping[FieldType, int]] = {
    FieldType.U8: 1, FieldType.U16: 2, FieldType.U32: 4, FieldType.U64: 8,
    FieldType.I8: 1, FieldType.I16: 2, FieldType.I32: 4, FieldType.I64: 8,
}
SIGNED_TYPES: Final = frozenset({FieldType.I8, FieldType.I16, FieldType.I32, FieldType.I64})
LENGTH_PREFIXED: Final = frozenset({FieldType.STR, FieldType.BYTES})


def int_range(field_type: FieldType) -> tuple[int, int]:
    """Return the smallest and largest value an integer field type can carry."""
    bits = 8 * INT_WIDTHS[field_type]
    if field_type in SIGNED_TYPES:
        return -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return 0, (1 << bits) - 1


class Direction(StrEnum):
    """Who sends a message."""

    TO_BOARD = "to_board"
    TO_HOST = "to_host"


@dataclass(frozen=True, slots=True)
class FieldSpec:
    """One field of a message, in wire order.

    Attributes:
        name: snake_case field name.
        type: wire type.
        max_len: longest value of a str or bytes field, in bytes.
        values: the names of an enum field's values; the wire value is the index.
        minimum: smallest allowed value of an integer field (None: the type's range).
        maximum: largest allowed value of an integer field (None: the type's range).
        unit: the unit of a number, for people ("cents", "ms"); not on the wire.
        doc: one line on what the field means; not on the wire.
        secret: the value is masked in every human-readable rendering (logs, console,
            post-mortem) unless explicitly revealed; not on the wire.
    """

    name: str
    type: FieldType
    max_len: int | None = None
    values: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    unit: str = ""
    doc: str = ""
    secret: bool = False

    def bounds(self) -> tuple[int, int]:
        """Return the allowed range of an integer field (its own limits or its type's)."""
        low, high = int_range(self.type)
        return (
            low if self.minimum is None else self.minimum,
            high if self.maximum is None else self.maximum,
        )

    def worst_case_size(self) -> int:
        """Return the most bytes this field can take on the wire."""
        if self.type in LENGTH_PREFIXED:
            return 1 + (self.max_len or 0)
        return INT_WIDTHS.get(self.type, 1)

    def canonical(self) -> str:
        """Return this field's line of the canonical catalogue text (hash input)."""
        parts = ["field", self.name, str(self.type)]
        if self.minimum is not None:
            parts.append(f"min={self.minimum}")
        if self.maximum is not None:
            parts.append(f"max={self.maximum}")
        if self.max_len is not None:
            parts.append(f"max_len={self.max_len}")
        if self.values:
            parts.append("values=" + ",".join(self.values))
        return " ".join(parts)


@dataclass(frozen=True, slots=True)
class MessageSpec:
    """One message: its id, name, direction and fields.

    Attributes:
        id: the first payload byte of a DATA frame carrying this message.
        name: snake_case message name.
        direction: who sends it.
        fields: the fields, in wire order.
        counted: an event the board repeats until the host acknowledges its `count`
            (the first field, u32); see PROTOCOL.md, "Counted events".
        response: for a request, the name of the message the board answers with.
        doc: what the message means; not on the wire.
    """

    id: int
    name: str
    direction: Direction
    fields: tuple[FieldSpec, ...] = ()
    counted: bool = False
    response: str | None = None
    doc: str = ""

    def canonical(self) -> str:
        """Return this message's lines of the canonical catalogue text (hash input)."""
        kind = "counted" if self.counted else "plain"
        lines = [f"message {self.id} {self.name} {self.direction} {kind}"]
        lines += [spec.canonical() for spec in self.fields]
        return "\n".join(lines)


IDENTIFY: Final = "identify"
IDENTIFY_RESPONSE: Final = "identify_response"
EVENT_ACK: Final = "event_ack"
FAILSAFE: Final = "failsafe"
COMMAND_ERROR: Final = "command_error"

LINK_MESSAGES: Final[tuple[MessageSpec, ...]] = (
    MessageSpec(0x01, IDENTIFY, Direction.TO_BOARD, response=IDENTIFY_RESPONSE,
                doc="Ask the board who it is; sent by the host first in every session."),
    MessageSpec(0x02, IDENTIFY_RESPONSE, Direction.TO_HOST, (
        FieldSpec("protocol_version", FieldType.U8),
        FieldSpec("board_kind", FieldType.STR, max_len=32),
        FieldSpec("firmware_version", FieldType.STR, max_len=32),
        FieldSpec("catalogue_hash", FieldType.BYTES, max_len=32),
        FieldSpec("boot_id", FieldType.U32),
    ), doc="The board's identity; the host refuses the board if any field mismatches."),
    MessageSpec(0x03, EVENT_ACK, Direction.TO_BOARD, (FieldSpec(COUNT_FIELD, FieldType.U32),),
                doc="Every counted event up to and including `count` is safely received."),
    MessageSpec(0x04, FAILSAFE, Direction.TO_BOARD, (FieldSpec("active", FieldType.BOOL),),
                doc="Enter (true) or leave (false) the board's failsafe state."),
    MessageSpec(0x05, COMMAND_ERROR, Direction.TO_HOST, (
        FieldSpec("message_id", FieldType.U8),
        FieldSpec("reason", FieldType.STR, max_len=64),
    ), doc="The board could not carry out a message it received (unknown id, bad field)."),
)
RESERVED_NAMES: Final = frozenset(spec.name for spec in LINK_MESSAGES)


@dataclass(frozen=True, slots=True)
class BoardCatalogue:
    """The messages one kind of board speaks, beyond the reserved link messages.

    Attributes:
        kind: the board kind, as the board reports it in `identify_response`.
        messages: the catalogue messages (ids 0x10-0xFF), in id order.
        doc: what the board is.
    """

    kind: str
    messages: tuple[MessageSpec, ...]
    doc: str = ""
    _by_name: Mapping[str, MessageSpec] = field(init=False, repr=False, compare=False)
    _by_id: Mapping[int, MessageSpec] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        every = LINK_MESSAGES + self.messages
        object.__setattr__(self, "_by_name", {spec.name: spec for spec in every})
        object.__setattr__(self, "_by_id", {spec.id: spec for spec in every})

    def spec(self, name: str) -> MessageSpec:
        """Return the message called `name` (reserved or catalogue).

        Raises:
            CatalogueError: if the board has no such message.
        """
        try:
            return self._by_name[name]
        except KeyError:
            raise CatalogueError(f"board {self.kind!r} has no message {name!r}") from None

    def spec_by_id(self, message_id: int) -> MessageSpec | None:
        """Return the message with `message_id`, or None if the board has none."""
        return self._by_id.get(message_id)

    def names(self) -> tuple[str, ...]:
        """Return every message name the board speaks, reserved ones first."""
        return tuple(self._by_name)

    def canonical_text(self) -> str:
        """Return the canonical text whose SHA-256 is the catalogue hash."""
        lines = [f"catalogue-format {CATALOGUE_FORMAT}", f"board {self.kind}"]
        lines += [spec.canonical() for spec in sorted(self.messages, key=lambda m: m.id)]
        return "\n".join(lines) + "\n"

    def hash(self) -> bytes:
        """Return the 32-byte catalogue hash the board must report in `identify_response`."""
        return hashlib.sha256(self.canonical_text().encode("ascii")).digest()


@dataclass(frozen=True, slots=True)
class Catalogue:
    """A whole catalogue file: one `BoardCatalogue` per board kind."""

    boards: Mapping[str, BoardCatalogue]
    source: str = "<catalogue>"
    doc: str = ""

    def board(self, kind: str) -> BoardCatalogue:
        """Return the catalogue of board `kind`.

        Raises:
            CatalogueError: naming the kinds that exist, if `kind` is not one of them.
        """
        try:
            return self.boards[kind]
        except KeyError:
            known = ", ".join(sorted(self.boards)) or "none"
            raise CatalogueError(
                f"{self.source}: no board kind {kind!r} (known: {known})"
            ) from None
