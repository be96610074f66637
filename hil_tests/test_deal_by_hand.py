"""The guides "Deal a round by hand" and "Three linked tables", as written, and API.md's
curl script dealing a round.

The guide's shell block starts the three emulators as processes (commands appended to
files) and `shoectl run` on them; API.md's script then deals one round through the console
with curl, as a person or a third-party client would. The test only swaps in a scratch
folder and a free console port, and checks the round the script prints and the journal.

"Three linked tables": its first block (`floor certs`, a TLS Mosquitto, `progressive serve`, three
`shoectl run` tables on emulators of their own) and its second (a round at each table, run
as from a second terminal, with nothing of the first's environment), on a free broker port
and three free console ports; then the meter `show` printed, `verify` and every sign.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.needs("shoe", "layout", "sign", "emulated")


def fenced(text: str, heading: str) -> str:
    """The first ```sh block after `heading`."""
    after = text[text.index(heading):]
    match = re.search(r"```sh\n(.*?)```", after, re.S)
    assert match is not None, heading
    return match.group(1)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_the_readme_rig_and_the_api_script_deal_a_round(tmp_path: Path) -> None:
    port = free_port()
    config = tmp_path / "emulated-table.toml"
    config.write_text((REPO / "docs/examples/emulated-table.toml").read_text().replace(
        'listen = "127.0.0.1:8420"', f'listen = "127.0.0.1:{port}"'))
    setup = fenced((REPO / "docs/guides/deal-by-hand.md").read_text(), "# Deal a round by hand")
    setup = setup.replace("make demo >/dev/null", ":").replace("/tmp/table", str(tmp_path))
    setup = setup.replace("$REPO/docs/examples/emulated-table.toml", str(config))
    setup = setup.replace("REPO=$PWD;", f"REPO={REPO};").replace(
        "PATH=$REPO/.venv/bin:$PATH", f"PATH={Path(sys.executable).parent}:$PATH")
    rig = subprocess.Popen(["bash", "-c", setup], cwd=REPO, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        wait_for_console(port, rig, tmp_path / "kiosk.token")
        script = fenced((REPO / "controller/console/API.md").read_text(), "A round, dealt from")
        done = subprocess.run(["sh", "-c", script], cwd=tmp_path, capture_output=True,
                              text=True, timeout=240, check=False,
                              env={**os.environ, "CONSOLE": f"127.0.0.1:{port}"})
        assert done.returncode == 0, done.stderr
        record = json.loads(done.stdout.strip().splitlines()[-1])
        assert record["round"] == 1
        assert [s["seat"] for s in record["seats"]] == [1, 2]
        assert isinstance(record["seats"][0]["hands"][0]["net"], int)
        assert record["seats"][1]["hands"][0]["net"] is None  # its amount is not known
        assert len(record["dealer"]) >= 2
    finally:
        os.killpg(rig.pid, signal.SIGTERM)
        out, _ = rig.communicate(timeout=30)
    assert "next: " in out  # the log said what to do next
    verify = subprocess.run([sys.executable, "-m", "controller", "journal", "verify",
                             "--state-dir", str(tmp_path / "state")],
                            capture_output=True, text=True, cwd=REPO, check=False)
    assert verify.returncode == 0, verify.stdout + verify.stderr


def wait_for_console(port: int, rig: subprocess.Popen[str], token: Path) -> None:
    """Until the table answers on its console (it is 503 while the devices start)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        assert rig.poll() is None, rig.stdout.read() if rig.stdout else ""
        if answers(port, token):
            return
        time.sleep(0.5)
    pytest.fail("the console never answered")


def blocks(text: str, heading: str) -> list[str]:
    """Every ```sh block of the section that starts at `heading` (up to the next `## `)."""
    after = text[text.index(heading) + len(heading):]
    section = after[:after.find("\n## ")] if "\n## " in after else after
    return re.findall(r"```sh\n(.*?)```", section, re.S)


def console_base() -> int:
    """A number B whose ports B1, B2 and B3 are free on loopback now (the consoles' 843n)."""
    for base in range(2000, 6553):
        try:
            for n in (1, 2, 3):
                with socket.socket() as sock:
                    sock.bind(("127.0.0.1", base * 10 + n))
        except OSError:
            continue
        return base
    pytest.fail("no three free ports for the consoles")


def answers(port: int, token: Path) -> bool:
    """The table's console answers `GET /api/table` with 200 (with the kiosk's token)."""
    try:
        request = (f"GET /api/table HTTP/1.0\r\nHost: 127.0.0.1\r\n"
                   f"Authorization: Bearer {token.read_text().strip()}\r\n\r\n")
        with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
            sock.sendall(request.encode())
            return b" 200 " in sock.recv(64)
    except OSError:
        return False


def sign_shows(table: Path) -> str:
    """Type `show` to the table's sign emulator; its last reply (after a fresh one came)."""
    log = table / "sign.log"
    before = log.read_text().count("\n")
    with (table / "sign.in").open("a") as typed:
        typed.write("show\n")
    deadline = time.monotonic() + 60
    while log.read_text().count("\n") == before:
        assert time.monotonic() < deadline, f"{log} never answered"
        time.sleep(0.1)
    return log.read_text().splitlines()[-1].strip()


def test_the_readme_three_linked_tables_share_one_meter(tmp_path: Path) -> None:
    broker, base = free_port(), console_base()
    examples = tmp_path / "examples"
    examples.mkdir()
    for name in ("progressive.toml", "linked-table.toml"):
        text = (REPO / "docs/examples" / name).read_text()
        (examples / name).write_text(text.replace(":8883", f":{broker}").replace(
            '"127.0.0.1:8431"', f'"127.0.0.1:{base}1"'))
    setup, deal = blocks((REPO / "docs/guides/linked-tables.md").read_text(),
                         "# Three linked tables")
    swaps = [("/tmp/floor", str(tmp_path / "floor")),
             ("$REPO/docs/examples/", f"{examples}/"), ("REPO=$PWD;", f"REPO={REPO};"),
             ("PATH=$REPO/.venv/bin:$PATH", f"PATH={Path(sys.executable).parent}:$PATH"),
             ("--port 8883", f"--port {broker}"), ("s/8431/", f"s/{base}1/"),
             ("843$n", f"{base}$n")]
    for old, new in swaps:
        assert old in setup + deal, old
        setup, deal = setup.replace(old, new), deal.replace(old, new)
    rig = subprocess.Popen(["bash", "-c", setup], cwd=REPO, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, start_new_session=True)
    floor = tmp_path / "floor"
    try:
        deadline = time.monotonic() + 180
        while not all(answers(base * 10 + n, floor / f"t{n}" / "kiosk.token")
                      for n in (1, 2, 3)):
            assert time.monotonic() < deadline, "the three consoles never answered"
            time.sleep(0.5)
        done = subprocess.run(["bash", "-c", deal], capture_output=True, text=True,
                              timeout=600, check=False, env={"HOME": str(tmp_path)})
        lines = done.stdout.splitlines()
        shown = json.loads(next((line for line in lines if line.startswith('{"meter"')),
                                "{}"))
        assert shown == {"meter": 1000300, "hits": 0, "cumulative_paid": 0,
                         "progressive_in": 3}, done.stdout + done.stderr
        verify = subprocess.run([sys.executable, "-m", "controller", "progressive", "verify",
                                 "--state-dir", str(floor / "ctl")],
                                capture_output=True, text=True, check=False)
        assert verify.returncode == 0, verify.stdout + verify.stderr
        for n in (1, 2, 3):
            deadline = time.monotonic() + 60
            while (shows := sign_shows(floor / f"t{n}")) != "amount 1000300":
                assert time.monotonic() < deadline, f"T{n}'s sign shows {shows!r}"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(rig.pid, signal.SIGTERM)
        rig.wait(timeout=30)
