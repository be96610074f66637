"""The configuration reader: typed getters, unknown keys refused, one line naming where.

Each refusal is checked as the exact line an operator reads (file, section, key, what is
wrong); the last test runs the real `shoectl run` on a file with a misspelt `[console]`
key (a section read by `confkeys` directly) and reads stderr: one line, no traceback.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from confkeys import DEVICE, Section, SettingError

ROOT = Path(__file__).resolve().parents[2]


def refusal(action: object) -> str:
    """The one line `action()` is refused with."""
    assert callable(action)
    with pytest.raises(SettingError) as caught:
        action()
    line = str(caught.value)
    assert "\n" not in line
    return line


def table(data: object, **options: object) -> Section:
    return Section("table", data, source="table.toml", **options)  # type: ignore[arg-type]


def test_a_section_read_in_full_gives_typed_values_and_defaults() -> None:
    section = table({"seats": 7, "min_wager": 500, "surrender": True, "game": "baccarat",
                     "side_bets": ["dragon", "panda"], "link": {"group": "pit-2"}})
    assert section.integer("seats", 5, minimum=1, maximum=9) == 7
    assert section.integer("decks", 6, minimum=1, maximum=8) == 6  # absent: the default
    assert section.cents("min_wager", 100, minimum=1, maximum=100_000_000) == 500
    assert section.flag("surrender", False) is True
    assert section.choice("game", ("blackjack", "baccarat")) == "baccarat"
    assert section.strings("side_bets", (), ("dragon", "panda", "tiger")) == ("dragon", "panda")
    link = section.section("link")
    assert link.text("group") == "pit-2"
    link.finish()
    section.finish()


def test_a_misspelt_key_is_refused_naming_file_section_and_key() -> None:
    section = table({"seats": 7, "seets": 6})
    section.integer("seats", 5, minimum=1, maximum=9)
    assert refusal(section.finish) == "table.toml: [table] seets: unknown key (known keys: seats)"


def test_the_first_unknown_key_in_file_order_is_named() -> None:
    section = table({"zeta": 1, "alpha": 2})
    assert refusal(section.finish) == "table.toml: [table] zeta: unknown key (known keys: none)"


def test_a_key_asked_for_but_absent_is_listed_as_known_not_as_read() -> None:
    section = table({"decks": 6})
    section.integer("seats", 5)
    assert refusal(section.finish) == ("table.toml: [table] decks: unknown key "
                                       "(known keys: seats)")


@pytest.mark.parametrize(("value", "line"), [
    ("nine", "table.toml: [table] seats: expected a whole number, got 'nine'"),
    (True, "table.toml: [table] seats: expected a whole number, got True"),
    (7.0, "table.toml: [table] seats: expected a whole number, got 7.0"),
    (12, "table.toml: [table] seats: must be 1..9, got 12"),
    (0, "table.toml: [table] seats: must be 1..9, got 0"),
])
def test_a_bad_integer_is_refused(value: object, line: str) -> None:
    section = table({"seats": value})
    assert refusal(lambda: section.integer("seats", 5, minimum=1, maximum=9)) == line


@pytest.mark.parametrize(("value", "line"), [
    (10**18, "table.toml: [table] max_wager: must be 1..100000000 cents (at most "
             "1,000,000.00), got 1000000000000000000"),
    (-5, "table.toml: [table] max_wager: must be >= 1, got -5"),
    ("500", "table.toml: [table] max_wager: expected a whole number, got '500'"),
    (12.5, "table.toml: [table] max_wager: expected a whole number, got 12.5"),
])
def test_an_absurd_amount_is_refused(value: object, line: str) -> None:
    section = table({"max_wager": value})
    assert refusal(lambda: section.cents("max_wager", 100, minimum=1,
                                         maximum=100_000_000)) == line


def test_a_missing_required_key_and_section_are_named() -> None:
    section = Section("floor", {"group": "pit-2"}, source="floor.toml")
    assert refusal(lambda: section.text("broker")) == (
        "floor.toml: [floor] broker: missing (required)")
    assert refusal(lambda: section.section("link", required=True)) == (
        "floor.toml: [floor] link: missing (required)")


def test_a_section_that_is_not_a_table_is_refused() -> None:
    assert refusal(lambda: Section("link", 5, source="floor.toml")) == (
        "floor.toml: [link]: expected a table of keys, got 5")
    parent = Section("floor", {"link": ["a"]}, source="floor.toml")
    assert refusal(lambda: parent.section("link")) == (
        "floor.toml: [floor.link]: expected a table of keys, got ['a']")


def test_an_absent_section_reads_as_empty() -> None:
    section = Section("console", None)
    assert section.integer("commands_per_s", 20) == 20
    section.finish()


@pytest.mark.parametrize(("data", "read", "line"), [
    ({"surrender": 1}, lambda s: s.flag("surrender", False),
     "[t] surrender: expected true or false, got 1"),
    ({"game": "poker"}, lambda s: s.choice("game", ("blackjack", "baccarat")),
     "[t] game: expected one of blackjack, baccarat, got 'poker'"),
    ({"game": 3}, lambda s: s.text("game", "blackjack"), "[t] game: expected a string, got 3"),
    ({"bets": "dragon"}, lambda s: s.strings("bets", (), ("dragon",)),
     "[t] bets: expected a list of strings, got 'dragon'"),
    ({"bets": ["tiger"]}, lambda s: s.strings("bets", (), ("dragon",)),
     "[t] bets: unknown name 'tiger' (known: dragon)"),
    ({"bets": ["dragon", "dragon"]}, lambda s: s.strings("bets", (), ("dragon",)),
     "[t] bets: names repeated in ['dragon', 'dragon']"),
])
def test_each_getter_refuses_its_bad_values(data: dict[str, object], read: object,
                                            line: str) -> None:
    section = Section("t", data)
    assert callable(read)
    assert refusal(lambda: read(section)) == line


@pytest.mark.parametrize(("data", "read", "line"), [
    ({"baud": "fast"}, lambda s: s.integer("baud", 9600, minimum=300, maximum=115200),
     "[shoe] baud: expected an integer, got str"),
    ({"baud": True}, lambda s: s.integer("baud", 9600, minimum=300, maximum=115200),
     "[shoe] baud: expected an integer, got a boolean"),
    ({"baud": 1}, lambda s: s.integer("baud", 9600, minimum=300, maximum=115200),
     "[shoe] baud: 1 is out of range 300..115200"),
    ({"pull": "sideways"}, lambda s: s.choice("pull", ("up", "down")),
     "[shoe] pull: 'sideways' is not one of up, down"),
    ({}, lambda s: s.get("url", str), "[shoe] url: missing (required)"),
    ({"url": "x", "baudrate": 1}, lambda s: (s.get("url", str), s.finish()),
     "[shoe] baudrate: unknown key"),
])
def test_the_device_wording(data: dict[str, object], read: object, line: str) -> None:
    section = Section("shoe", data, phrases=DEVICE)
    assert callable(read)
    assert refusal(lambda: read(section)) == line


class BoardConfigError(ValueError):
    def __init__(self, section: str, key: str, message: str) -> None:
        self.where = (section, key)
        super().__init__(f"{section}/{key}: {message}")


def test_the_caller_chooses_the_error_and_nested_sections_keep_it() -> None:
    section = Section("sign", {"port": {"url": 5}}, error=BoardConfigError)
    nested = section.section("port")
    with pytest.raises(BoardConfigError) as caught:
        nested.text("url")
    assert caught.value.where == ("sign.port", "url")
    assert str(caught.value) == "sign.port/url: expected a string, got 5"


def test_shoectl_run_refuses_a_misspelt_console_key_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "table.toml"
    path.write_text("[console]\nlisten = '127.0.0.1:8420'\nreads_per_sec = 50\n")
    done = subprocess.run(
        [sys.executable, "-m", "controller", "run", "--config", str(path), "--allow-emulated",
         "--unverified-software", "--state-dir", str(tmp_path / "state")],
        capture_output=True, text=True, timeout=120, check=False, cwd=ROOT)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"shoectl run: {path}: [console] reads_per_sec: unknown key (known keys: listen, "
        "pit_listen, pit_user, pit_credential, hosts, commands_per_s, reads_per_s)"]
    assert not (tmp_path / "state").exists()
