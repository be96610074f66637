"""Read a catalogue TOML file into a validated `Catalogue`, refusing anything doubtful.

Every error names the file, and the board, message and field it concerns, e.g.
``drivers/catalogue.toml: board 'sign', message 'show_amount', field 'amount': unknown
type 'u33' (known: bool, bytes, enum, ...)``. Unknown keys are errors, so a typo never
silently changes the wire format.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final, TypeVar

from firmware_bridge.catalogue import (
    CATALOGUE_FORMAT,
    COUNT_FIELD,
    FIRST_CATALOGUE_ID,
    INT_WIDTHS,
    LAST_ID,
    LENGTH_PREFIXED,
    MAX_MESSAGE_PAYLOAD,
    MAX_TEXT_LEN,
    NAME_PATTERN,
    RESERVED_NAMES,
    BoardCatalogue,
    Catalogue,
    Direction,
    FieldSpec,
    FieldType,
    MessageSpec,
    int_range,
)
from firmware_bridge.errors import CatalogueError

_TOP_KEYS: Final = frozenset({"format", "doc", "boards"})
_BOARD_KEYS: Final = frozenset({"doc", "messages"})
_MESSAGE_KEYS: Final = frozenset(
    {"id", "name", "direction", "doc", "counted", "response", "fields"}
)
_FIELD_KEYS: Final = frozenset(
    {"name", "type", "max_len", "values", "min", "max", "unit", "doc", "secret"}
)
_MAX_ENUM_VALUES: Final = 256
_E = TypeVar("_E", Direction, FieldType)


def load_catalogue(path: str | Path) -> Catalogue:
    """Read and validate a catalogue TOML file.

    Raises:
        CatalogueError: if the file is unreadable, not TOML, or invalid.
    """
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise CatalogueError(f"{path}: cannot read catalogue: {error}") from error
    return parse_catalogue(data, str(path))


def parse_catalogue(data: Mapping[str, Any], source: str = "<catalogue>") -> Catalogue:
    """Validate already-parsed TOML data and build the `Catalogue`.

    Raises:
        CatalogueError: naming `source` and the board, message and field at fault.
    """
    _check_keys(data, _TOP_KEYS, source)
    if data.get("format") != CATALOGUE_FORMAT:
        got = data.get("format")
        raise CatalogueError(f"{source}: 'format' must be {CATALOGUE_FORMAT}, got {got!r}")
    boards = _table(data.get("boards"), f"{source}: 'boards'")
    if not boards:
        raise CatalogueError(f"{source}: 'boards' defines no board")
    parsed = {kind: _board(kind, body, source) for kind, body in boards.items()}
    return Catalogue(parsed, source, _text(data.get("doc", ""), f"{source}: 'doc'"))


def _board(kind: str, body: object, source: str) -> BoardCatalogue:
    where = f"{source}: board {kind!r}"
    _check_name(kind, where)
    table = _table(body, where)
    _check_keys(table, _BOARD_KEYS, where)
    raw_messages = table.get("messages", [])
    if not isinstance(raw_messages, list):
        raise CatalogueError(f"{where}: 'messages' must be an array of tables")
    messages = tuple(_message(raw, where, index) for index, raw in enumerate(raw_messages))
    _check_unique(messages, where)
    _check_responses(messages, where)
    ordered = tuple(sorted(messages, key=lambda spec: spec.id))
    return BoardCatalogue(kind, ordered, _text(table.get("doc", ""), f"{where}: 'doc'"))


def _message(raw: object, board_where: str, index: int) -> MessageSpec:
    table = _table(raw, f"{board_where}, message #{index + 1}")
    name = table.get("name")
    where = f"{board_where}, message {name!r}"
    _check_keys(table, _MESSAGE_KEYS, where)
    _check_name(name, where)
    if name in RESERVED_NAMES:
        raise CatalogueError(f"{where}: the name is reserved for a link message")
    message_id = table.get("id")
    if not isinstance(message_id, int) or not FIRST_CATALOGUE_ID <= message_id <= LAST_ID:
        raise CatalogueError(
            f"{where}: 'id' must be an integer 0x{FIRST_CATALOGUE_ID:02X}-0x{LAST_ID:02X}"
            f" (0x01-0x0F are reserved), got {message_id!r}"
        )
    raw_fields = table.get("fields", [])
    if not isinstance(raw_fields, list):
        raise CatalogueError(f"{where}: 'fields' must be an array of tables")
    spec = MessageSpec(
        id=message_id,
        name=str(name),
        direction=_choice(table.get("direction"), Direction, f"{where}: 'direction'"),
        fields=tuple(_field(item, where, number) for number, item in enumerate(raw_fields)),
        counted=_bool(table.get("counted", False), f"{where}: 'counted'"),
        response=_optional_name(table.get("response"), f"{where}: 'response'"),
        doc=_text(table.get("doc", ""), f"{where}: 'doc'"),
    )
    _check_message(spec, where)
    return spec


def _check_message(spec: MessageSpec, where: str) -> None:
    names = [item.name for item in spec.fields]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise CatalogueError(f"{where}: field {duplicates[0]!r} appears more than once")
    if spec.counted:
        first = spec.fields[0] if spec.fields else None
        if spec.direction is not Direction.TO_HOST:
            raise CatalogueError(f"{where}: a counted message must go to the host")
        if first is None or first.name != COUNT_FIELD or first.type is not FieldType.U32:
            raise CatalogueError(f"{where}: a counted message must start with 'count' (u32)")
    size = 1 + sum(item.worst_case_size() for item in spec.fields)
    if size > MAX_MESSAGE_PAYLOAD:
        raise CatalogueError(
            f"{where}: can take {size} bytes, more than a frame's {MAX_MESSAGE_PAYLOAD}"
        )


def _field(raw: object, message_where: str, index: int) -> FieldSpec:
    table = _table(raw, f"{message_where}, field #{index + 1}")
    name = table.get("name")
    where = f"{message_where}, field {name!r}"
    _check_keys(table, _FIELD_KEYS, where)
    _check_name(name, where)
    field_type = _choice(table.get("type"), FieldType, f"{where}: 'type'")
    spec = FieldSpec(
        name=str(name),
        type=field_type,
        max_len=_optional_int(table.get("max_len"), f"{where}: 'max_len'"),
        values=_values(table.get("values"), where),
        minimum=_optional_int(table.get("min"), f"{where}: 'min'"),
        maximum=_optional_int(table.get("max"), f"{where}: 'max'"),
        unit=_text(table.get("unit", ""), f"{where}: 'unit'"),
        doc=_text(table.get("doc", ""), f"{where}: 'doc'"),
        secret=_bool(table.get("secret", False), f"{where}: 'secret'"),
    )
    _check_field(spec, where)
    return spec


def _check_field(spec: FieldSpec, where: str) -> None:
    is_int = spec.type in INT_WIDTHS
    if spec.type in LENGTH_PREFIXED:
        if spec.max_len is None or not 1 <= spec.max_len <= MAX_TEXT_LEN:
            raise CatalogueError(f"{where}: {spec.type} needs 'max_len' 1-{MAX_TEXT_LEN}")
    elif spec.max_len is not None:
        raise CatalogueError(f"{where}: 'max_len' applies to str and bytes only")
    if (spec.type is FieldType.ENUM) != bool(spec.values):
        raise CatalogueError(f"{where}: 'values' is required for enum, and only for enum")
    if not is_int and (spec.minimum is not None or spec.maximum is not None):
        raise CatalogueError(f"{where}: 'min'/'max' apply to integer types only")
    if is_int:
        _check_bounds(spec, where)


def _check_bounds(spec: FieldSpec, where: str) -> None:
    low, high = int_range(spec.type)
    minimum, maximum = spec.bounds()
    if not low <= minimum <= maximum <= high:
        raise CatalogueError(
            f"{where}: min {minimum} / max {maximum} must be ordered and within {spec.type} "
            f"({low}..{high})"
        )


def _values(raw: object, where: str) -> tuple[str, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list) or not 1 <= len(raw) <= _MAX_ENUM_VALUES:
        raise CatalogueError(f"{where}: 'values' must be a list of 1-256 names")
    for name in raw:
        _check_name(name, f"{where}: 'values'")
    if len(set(raw)) != len(raw):
        raise CatalogueError(f"{where}: 'values' lists a name twice")
    return tuple(raw)


def _check_unique(messages: tuple[MessageSpec, ...], where: str) -> None:
    seen_ids: dict[int, str] = {}
    seen_names: set[str] = set()
    for spec in messages:
        if spec.id in seen_ids:
            raise CatalogueError(
                f"{where}: messages {seen_ids[spec.id]!r} and {spec.name!r} share id "
                f"0x{spec.id:02X}"
            )
        if spec.name in seen_names:
            raise CatalogueError(f"{where}: message {spec.name!r} is defined twice")
        seen_ids[spec.id] = spec.name
        seen_names.add(spec.name)


def _check_responses(messages: tuple[MessageSpec, ...], where: str) -> None:
    by_name = {spec.name: spec for spec in messages}
    for spec in messages:
        if spec.response is None:
            continue
        answer = by_name.get(spec.response)
        if spec.direction is not Direction.TO_BOARD or answer is None or (
            answer.direction is not Direction.TO_HOST
        ):
            raise CatalogueError(
                f"{where}, message {spec.name!r}: 'response' must name a to_host message "
                f"of this board, answering a to_board request; got {spec.response!r}"
            )


def _check_keys(table: Mapping[str, Any], allowed: frozenset[str], where: str) -> None:
    unknown = sorted(set(table) - allowed)
    if unknown:
        raise CatalogueError(
            f"{where}: unknown key {unknown[0]!r} (allowed: {', '.join(sorted(allowed))})"
        )


def _check_name(name: object, where: str) -> None:
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
        raise CatalogueError(
            f"{where}: name must be lower-case letters, digits and '_', 1-32 chars, got {name!r}"
        )


def _table(raw: object, where: str) -> Mapping[str, Any]:
    if not isinstance(raw, Mapping):
        raise CatalogueError(f"{where}: expected a table, got {type(raw).__name__}")
    return raw


def _choice(raw: object, enum: type[_E], where: str) -> _E:
    known = sorted(member.value for member in enum)
    if raw not in known:
        raise CatalogueError(f"{where}: unknown value {raw!r} (known: {', '.join(known)})")
    return enum(raw)


def _bool(raw: object, where: str) -> bool:
    if not isinstance(raw, bool):
        raise CatalogueError(f"{where}: must be true or false, got {raw!r}")
    return raw


def _optional_int(raw: object, where: str) -> int | None:
    if raw is None:
        return None
    if isinstance(raw, bool) or not isinstance(raw, int):
        raise CatalogueError(f"{where}: must be an integer, got {raw!r}")
    return raw


def _optional_name(raw: object, where: str) -> str | None:
    if raw is None:
        return None
    _check_name(raw, where)
    return str(raw)


def _text(raw: object, where: str) -> str:
    if not isinstance(raw, str):
        raise CatalogueError(f"{where}: must be a string, got {raw!r}")
    return raw
