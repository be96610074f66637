"""The catalogue: the table's file is valid, bad files are refused with precise errors."""

import copy
import tomllib
from typing import Any

import pytest

from firmware_bridge import Catalogue, CatalogueError, load_catalogue, parse_catalogue
from firmware_bridge.catalogue import LINK_MESSAGES, Direction

from .helpers import TABLE_CATALOGUE


def test_table_catalogue_defines_the_three_boards(table_catalogue: Catalogue) -> None:
    assert set(table_catalogue.boards) == {"shoe", "layout", "sign"}
    for board in table_catalogue.boards.values():
        assert len(board.hash()) == 32
        assert all(spec.id >= 0x10 for spec in board.messages)


def test_table_catalogue_covers_the_required_messages(table_catalogue: Catalogue) -> None:
    shoe, layout, sign = (table_catalogue.board(k) for k in ("shoe", "layout", "sign"))
    for name in ("card_out", "card_read", "card_unreadable", "card_face_up", "cut_card",
                 "shoe_empty", "jam", "lid", "shoe_loaded"):
        assert shoe.spec(name).counted, name
    for name in ("bet_sensor", "button", "key_switch"):
        assert layout.spec(name).counted, name
    assert layout.spec("set_lamp").fields[1].values == ("off", "on", "blink_slow", "blink_fast")
    assert {"all_off", "chase", "fault"} <= set(layout.spec("set_lamp_pattern").fields[0].values)
    for name in ("show_amount", "show_win", "show_fault"):
        assert sign.spec(name).fields[0].name == "update", name
    assert shoe.spec("card_read").fields[2].secret


def test_requests_name_their_responses(table_catalogue: Catalogue) -> None:
    for board in table_catalogue.boards.values():
        for spec in board.messages:
            if spec.name.startswith("get_"):
                assert spec.response == spec.name.removeprefix("get_")
                assert board.spec(spec.response).direction is Direction.TO_HOST


def raw_table() -> dict[str, Any]:
    return tomllib.loads(TABLE_CATALOGUE.read_text(encoding="utf-8"))


def message(data: dict[str, Any], board: str, name: str) -> dict[str, Any]:
    return next(m for m in data["boards"][board]["messages"] if m["name"] == name)


def test_hash_changes_with_the_wire_and_not_with_the_docs() -> None:
    base = parse_catalogue(raw_table()).board("sign").hash()
    documented = raw_table()
    message(documented, "sign", "show_amount")["doc"] = "another explanation"
    message(documented, "sign", "show_amount")["fields"][1]["unit"] = "pennies"
    assert parse_catalogue(documented).board("sign").hash() == base
    for change in (
        lambda m: m["fields"][1].__setitem__("type", "u64"),
        lambda m: m["fields"][1].__setitem__("name", "amount"),
        lambda m: m["fields"][0].__setitem__("min", 2),
        lambda m: m.__setitem__("id", 0x30),
        lambda m: m["fields"].reverse(),
    ):
        changed = raw_table()
        change(message(changed, "sign", "show_amount"))
        assert parse_catalogue(changed).board("sign").hash() != base


def mutate(path: tuple[str | int, ...], value: object) -> dict[str, Any]:
    data = copy.deepcopy(raw_table())
    target: Any = data
    for key in path[:-1]:
        target = target[key]
    if value is KeyError:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return data


SIGN0 = ("boards", "sign", "messages", 0)  # show_amount
FIELD1 = (*SIGN0, "fields", 1)  # amount_cents


@pytest.mark.parametrize(("path", "value", "expected"), [
    (("format",), 2, "'format' must be 1, got 2"),
    (("colour",), "red", "unknown key 'colour'"),
    (("boards",), {}, "defines no board"),
    (("boards", "Sign"), {"messages": []}, "board 'Sign': name must be lower-case"),
    ((*SIGN0, "id"), 0x05, "message 'show_amount': 'id' must be an integer 0x10-0xFF"),
    ((*SIGN0, "id"), 0x11, "messages 'show_amount' and 'show_win' share id 0x11"),
    ((*SIGN0, "name"), "identify", "message 'identify': the name is reserved"),
    ((*SIGN0, "name"), "show_win", "message 'show_win' is defined twice"),
    ((*SIGN0, "direction"), "sideways", "'direction': unknown value 'sideways'"),
    ((*SIGN0, "counted"), True, "a counted message must go to the host"),
    ((*SIGN0, "priority"), 1, "message 'show_amount': unknown key 'priority'"),
    ((*SIGN0, "response"), "nothing", "'response' must name a to_host message"),
    ((*FIELD1, "type"), "u33", "field 'amount_cents': 'type': unknown value 'u33'"),
    ((*FIELD1, "max_len"), 4, "field 'amount_cents': 'max_len' applies to str and bytes"),
    ((*FIELD1, "min"), -1, "field 'amount_cents': min -1 / max 4294967295 must be ordered"),
    ((*FIELD1, "min"), "low", "field 'amount_cents': 'min': must be an integer"),
    ((*FIELD1, "values"), ["a"], "field 'amount_cents': 'values' is required for enum, and"),
    ((*FIELD1, "secret"), "yes", "field 'amount_cents': 'secret': must be true or false"),
    ((*FIELD1, "name"), "update", "message 'show_amount': field 'update' appears more than"),
    ((*FIELD1, "colour"), 1, "field 'amount_cents': unknown key 'colour'"),
    (("boards", "sign", "messages", 2, "fields", 1, "max_len"), KeyError,
     "field 'text': str needs 'max_len' 1-200"),
    (("boards", "sign", "messages", 2, "fields", 1, "max_len"), 201,
     "field 'text': str needs 'max_len' 1-200"),
    (("boards", "layout", "messages", 0, "fields", 1, "values"), ["on", "on"],
     "field 'mode': 'values' lists a name twice"),
    (("boards", "shoe", "messages", 0, "fields", 0, "type"), "u16",
     "message 'card_out': a counted message must start with 'count' (u32)"),
])
def test_invalid_catalogue_is_refused_naming_the_place(
    path: tuple[str | int, ...], value: object, expected: str
) -> None:
    with pytest.raises(CatalogueError) as caught:
        parse_catalogue(mutate(path, value), "table.toml")
    assert expected in str(caught.value)
    assert str(caught.value).startswith("table.toml: ")


def test_message_too_large_for_a_frame_is_refused() -> None:
    data = mutate((*SIGN0, "fields"), [{"name": f"t{i}", "type": "str", "max_len": 200}
                                        for i in range(2)])
    with pytest.raises(CatalogueError, match=r"can take 403 bytes, more than a frame's 234"):
        parse_catalogue(data)


def test_unreadable_file_is_refused(tmp_path) -> None:
    broken = tmp_path / "broken.toml"
    broken.write_text("format = [", encoding="utf-8")
    with pytest.raises(CatalogueError, match=r"broken\.toml: cannot read catalogue"):
        load_catalogue(broken)
    with pytest.raises(CatalogueError, match="cannot read catalogue"):
        load_catalogue(tmp_path / "missing.toml")


def test_unknown_board_kind_lists_the_known_ones(table_catalogue: Catalogue) -> None:
    expected = r"no board kind 'meter' \(known: layout, shoe, sign\)"
    with pytest.raises(CatalogueError, match=expected):
        table_catalogue.board("meter")


def test_reserved_messages_are_part_of_every_board(table_catalogue: Catalogue) -> None:
    for board in table_catalogue.boards.values():
        for spec in LINK_MESSAGES:
            assert board.spec(spec.name) is spec
            assert board.spec_by_id(spec.id) is spec
    with pytest.raises(CatalogueError, match="board 'sign' has no message 'card_out'"):
        table_catalogue.board("sign").spec("card_out")
