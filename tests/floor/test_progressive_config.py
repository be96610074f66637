"""The progressive controller's file: `[link] tables` and `max_boots_per_day`, one line each."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.floor import settings

LINK = '[link]\nbroker = "mqtt://127.0.0.1:1883"\ngroup = "bank-a"\n'
METER = "[progressive]\nreset = 1000000\nincrement = 100\n"


def _load(tmp_path: Path, link: str) -> settings.ServerSettings:
    path = tmp_path / "progressive.toml"
    path.write_text(LINK + link + METER, encoding="utf-8")
    return settings.load(path)


def test_the_tables_and_the_boots_a_day_are_read(tmp_path: Path) -> None:
    loaded = _load(tmp_path, 'tables = ["T1", "T2"]\nmax_boots_per_day = 3\n')
    assert (loaded.tables, loaded.max_boots_per_day) == (("T1", "T2"), 3)
    assert _load(tmp_path, 'tables = ["T1"]\n').max_boots_per_day == 10


@pytest.mark.parametrize(("link", "says"), [
    ("", "[link] tables: expected the group's table names"),
    ("tables = []\n", "[link] tables: expected the group's table names"),
    ('tables = "T1"\n', "[link] tables: expected the group's table names"),
    ('tables = ["T 1"]\n', "[link] tables: table 'T 1': expected 1-32 of"),
    ('tables = ["T1", "T1"]\n', "[link] tables: names repeated"),
    ('tables = ["T1"]\nmax_boots_per_day = 0\n', "[link] max_boots_per_day: must be 1..10000"),
    ('tables = ["T1"]\nmax_boots_per_day = true\n', "[link] max_boots_per_day: expected a whole"),
    ('tables = ["T1"]\nextra = 1\n', "[link] extra"),
])
def test_a_bad_tables_key_is_one_line(tmp_path: Path, link: str, says: str) -> None:
    with pytest.raises(settings.FloorConfigError) as caught:
        _load(tmp_path, link)
    text = str(caught.value)
    assert text.startswith(f"{tmp_path / 'progressive.toml'}: ")
    assert says in text
    assert "\n" not in text
