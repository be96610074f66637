"""The kiosk's launcher (`shoectl console kiosk`, controller/web/kiosk.py) against a live table.

The launcher runs as the kiosk unit runs it: a process of its own whose token is in
`$CREDENTIALS_DIRECTORY`; the "browser" it becomes records the command line it was given and
its own `/proc/self/cmdline`. The token must be in neither; the one-time code in the address
logs in once.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.web import kiosk
from tests.support.clock import FakeClock

from .live import KIOSK, LiveTable, start

SHOECTL = Path(sys.executable).with_name("shoectl")
RECORD = ("import json, pathlib, sys; pathlib.Path(sys.argv[1]).write_text(json.dumps("
          "{'argv': sys.argv, 'cmdline': pathlib.Path('/proc/self/cmdline').read_bytes()"
          ".decode()}))")


@pytest.fixture
def table(tmp_path: Path) -> Iterator[LiveTable]:
    live = start(tmp_path)
    live.attach()
    try:
        yield live
    finally:
        live.close()


def credentials(tmp_path: Path, token: str) -> Path:
    directory = tmp_path / "credentials"
    directory.mkdir(exist_ok=True)
    (directory / "kiosk-token").write_text(token + "\n")
    return directory


def launch(table: LiveTable, tmp_path: Path, token: str | None = KIOSK,
           extra: tuple[str, ...] = ()) -> tuple[subprocess.CompletedProcess[str], Path]:
    record = tmp_path / "browser.json"
    env = {"PATH": "/usr/bin:/bin"}
    if token is not None:
        env["CREDENTIALS_DIRECTORY"] = str(credentials(tmp_path, token))
    done = subprocess.run(
        [str(SHOECTL), "console", "kiosk", "--console", f"http://127.0.0.1:{table.server.port}/",
         "--wait", "5", *extra, "--", sys.executable, "-c", RECORD, str(record),
         "--kiosk", "--app={url}", "--no-first-run"],
        capture_output=True, text=True, timeout=120, env=env, check=False)
    return done, record


def test_the_browser_gets_a_one_time_code_and_never_the_token(table: LiveTable,
                                                               tmp_path: Path) -> None:
    done, record = launch(table, tmp_path)
    assert done.returncode == 0, done.stderr
    seen = json.loads(record.read_text())
    assert KIOSK not in seen["cmdline"]  # what /proc shows any local user
    assert KIOSK not in " ".join(seen["argv"])
    base = f"http://127.0.0.1:{table.server.port}/#code="
    apps = [a for a in seen["argv"] if a.startswith("--app=")]
    assert len(apps) == 1
    assert apps[0].startswith(f"--app={base}")
    assert seen["argv"][-1] == "--no-first-run"
    code = apps[0].removeprefix(f"--app={base}")
    status, about = table.request("POST", "/api/login", {"code": code},
                                  headers={"Authorization": ""})
    assert (status, about) == (200, {"by": "kiosk", "role": "kiosk"})
    assert table.request("POST", "/api/login", {"code": code},
                         headers={"Authorization": ""})[0] == 401  # used up


@pytest.mark.parametrize(("token", "said"), [
    (None, "no $CREDENTIALS_DIRECTORY: run by the kiosk unit"),
    ("y" * 43, "the console refused a login code: 401 unknown token"),
    ("", "not a token"),
])
def test_a_launcher_without_a_working_token_says_why_in_one_line(
        table: LiveTable, tmp_path: Path, token: str | None, said: str) -> None:
    done, record = launch(table, tmp_path, token)
    assert done.returncode == 2
    assert said in done.stderr
    assert len(done.stderr.splitlines()) == 1
    assert not record.exists()


def test_the_browser_s_command_must_say_where_the_page_goes() -> None:
    with pytest.raises(kiosk.KioskError, match=r"names no \{url\}"):
        kiosk.browser_command(["chromium", "--kiosk"], "http://127.0.0.1:8420/", "c")
    assert kiosk.browser_command(["b", "--app={url}"], "http://127.0.0.1:8420/", "c") == [
        "b", "--app=http://127.0.0.1:8420/#code=c"]
    assert kiosk.browser_command(["b", "--app={url}"], "http://127.0.0.1:8420/station/3",
                                 "c") == ["b", "--app=http://127.0.0.1:8420/station/3#code=c"]


def test_the_launcher_waits_for_the_console_then_gives_up(tmp_path: Path) -> None:
    clock = FakeClock(0.0)
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        clock.advance(seconds)
    with pytest.raises(kiosk.KioskError, match="did not answer in 5 s"):
        kiosk.wait_for_code("http://127.0.0.1:9/", KIOSK, 5.0, sleep, clock)
    assert slept == [1.0] * 5
