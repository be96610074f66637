"""`shoectl console user|token`: the credentials file beside the configuration, as the
service reads it (controller/cli/console_command.py, controller/web/accounts.py).

Run as a real process (`python -m controller`), the password on standard input.
"""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from pathlib import Path

from controller.web.accounts import Accounts, Principal, credentials_path


def shoectl(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "controller", "console", *args], input=stdin,
                          capture_output=True, text=True, timeout=60, check=False)


def test_users_are_added_listed_and_removed_with_a_password_read_twice(tmp_path: Path
                                                                        ) -> None:
    config = tmp_path / "table.toml"
    config.write_text("")
    added = shoectl("user", "add", "D17", "--role", "dealer", "--config", str(config),
                    stdin="deal-me-in\ndeal-me-in\n")
    assert (added.returncode, added.stdout) == (0, "")
    path = credentials_path(config)
    assert path == tmp_path / "table.credentials.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert "deal-me-in" not in path.read_text()
    differ = shoectl("user", "add", "S1", "--role", "supervisor", "--config", str(config),
                     stdin="first-one\nsecond-one\n")
    assert (differ.returncode, differ.stderr) == (2, "shoectl console: the two passwords "
                                                     "differ\n")
    short = shoectl("user", "add", "S1", "--role", "supervisor", "--config", str(config),
                    stdin="short\nshort\n")
    assert short.returncode == 2
    assert "at least 8" in short.stderr
    assert shoectl("user", "add", "S1", "--role", "supervisor", "--config", str(config),
                   stdin="floor-boss-1\nfloor-boss-1\n").returncode == 0
    listed = shoectl("user", "list", "--config", str(config))
    assert listed.stdout == "D17 dealer\nS1 supervisor\n"
    accounts = Accounts(path)
    assert accounts.password("D17", "deal-me-in") == Principal("dealer", "D17")
    assert accounts.password("D17", "floor-boss-1") is None
    assert shoectl("user", "remove", "D17", "--config", str(config)).returncode == 0
    assert accounts.password("D17", "deal-me-in") is None  # read again: the file changed
    gone = shoectl("user", "remove", "D17", "--config", str(config))
    assert gone.returncode == 2
    assert "no user 'D17'" in gone.stderr
    bad = shoectl("user", "add", "a b", "--role", "dealer", "--config", str(config),
                  stdin="deal-me-in\ndeal-me-in\n")
    assert bad.returncode == 2


def test_a_token_is_one_line_kept_only_as_its_digest_and_replaced_when_made_again(
        tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    made = shoectl("token", "station", "3", "--config", str(config))
    assert made.returncode == 0
    token = made.stdout
    assert token.endswith("\n")
    assert token.count("\n") == 1
    assert len(token.strip()) == 43
    path = credentials_path(config)
    assert token.strip() not in path.read_text()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    accounts = Accounts(path)
    assert accounts.token(token.strip()) == Principal("station", "3", 3)
    kiosk = shoectl("token", "kiosk", "--config", str(config)).stdout.strip()
    assert accounts.token(kiosk) == Principal("kiosk", "kiosk")
    again = shoectl("token", "station", "3", "--config", str(config)).stdout.strip()
    assert accounts.token(token.strip()) is None  # the old one no longer works
    assert accounts.token(again) == Principal("station", "3", 3)
    assert accounts.token(kiosk) is not None
    for wrong in (["token", "station"], ["token", "station", "0"], ["token", "kiosk", "2"]):
        assert shoectl(*wrong, "--config", str(config)).returncode == 2, wrong
    assert set(json.loads(path.read_text())["tokens"]) == {"kiosk", "station:3"}


def test_a_broken_credentials_file_is_one_line(tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    credentials_path(config).write_text('{"users": {"D17": {"role": "boss"}}, "tokens": {}}')
    answer = shoectl("user", "list", "--config", str(config))
    assert answer.returncode == 2
    assert answer.stderr.count("\n") == 1
    assert "user 'D17'" in answer.stderr
