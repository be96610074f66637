"""The floor process's file and `shoectl floor` arguments: each mistake is one line, exit 1."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.mosquitto import CEILING_S

GOOD_LINK = '[link]\nbroker = "mqtt://127.0.0.1:1883"\n'


def _floor(tmp_path: Path, text: str, *args: str) -> subprocess.CompletedProcess[str]:
    config = tmp_path / "floor.toml"
    config.write_text(text, encoding="utf-8")
    return subprocess.run([sys.executable, "-m", "controller", "floor", *args,
                           "--config", str(config)],
                          capture_output=True, text=True, check=False, timeout=CEILING_S)


@pytest.mark.parametrize(("text", "says"), [
    (GOOD_LINK + '[store]\nurl = "mysql://floor/db"\n',
     "[store] url 'mysql://floor/db': expected postgresql://... or sqlite:PATH"),
    (GOOD_LINK, "[store] url '': expected postgresql://... or sqlite:PATH"),
    (GOOD_LINK + '[store]\nurl = "sqlite:f.db"\n[oops]\n',
     "[oops]: unknown section (expected link, store, view)"),
    (GOOD_LINK + '[store]\nurl = "sqlite:f.db"\nurl2 = 1\n', "[store] url2"),
    ('[link]\nbroker = "http://x"\n[store]\nurl = "sqlite:f.db"\n', "[link] broker: link"),
    ('[link]\nbroker = "mqtts://x:8883"\n[store]\nurl = "sqlite:f.db"\n',
     "[link] ca, cert, key: an mqtts:// broker needs all three files"),
    (GOOD_LINK + '[store]\nurl = "sqlite:f.db"\n[view]\nlisten = "127.0.0.1:0"\n',
     "[view] credential: missing"),
    (GOOD_LINK + '[store]\nurl = "sqlite:f.db"\n[view]\nlisten = "nowhere"\n'
     'credential = "scrypt$x"\n', "[view] listen: expected \"HOST:PORT\""),
    ("[link\n", "cannot read"),
])
def test_a_bad_file_is_one_line(tmp_path: Path, text: str, says: str) -> None:
    done = _floor(tmp_path, text, "verify", "--table", "T1")
    assert done.returncode == 1
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"shoectl floor: {tmp_path / 'floor.toml'}: ")
    assert says in lines[0]


def test_an_unreachable_postgresql_is_one_line(tmp_path: Path) -> None:
    done = _floor(tmp_path, GOOD_LINK + f'[store]\nurl = "postgresql://floor:secret@/floor'
                                        f'?host={tmp_path}"\n', "verify", "--table", "T1")
    assert done.returncode == 1
    assert len(done.stderr.splitlines()) == 1, done.stderr
    assert done.stderr.startswith("shoectl floor: floor store postgresql: ")
    assert "cannot open" in done.stderr
    assert "secret" not in done.stderr  # a password never reaches a log line


def test_a_bad_table_name_is_one_line(tmp_path: Path) -> None:
    done = _floor(tmp_path, GOOD_LINK + '[store]\nurl = "sqlite:f.db"\n', "verify",
                  "--table", "T 1")
    assert done.returncode == 1
    assert done.stderr == "shoectl floor: --table: table 'T 1': expected 1-32 of A-Z a-z 0-9 _ -\n"


def test_a_table_never_shipped_has_an_empty_copy(tmp_path: Path) -> None:
    done = _floor(tmp_path, GOOD_LINK + '[store]\nurl = "sqlite:f.db"\n', "verify",
                  "--table", "T1")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "floor copy of T1: 0 records (nothing shipped yet)\n"
