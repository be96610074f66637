"""The README's "Deal a round by hand", as written, and API.md's curl script dealing a round.

The README's shell block starts the three emulators as processes (commands appended to
files) and `shoectl run` on them; API.md's script then deals one round through the console
with curl, as a person or a third-party client would. The test only swaps in a scratch
folder and a free console port, and checks the round the script prints and the journal.
"""

from __future__ import annotations

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
    setup = fenced((REPO / "README.md").read_text(), "## Deal a round by hand")
    setup = setup.replace("make demo >/dev/null", ":").replace("/tmp/table", str(tmp_path))
    setup = setup.replace("$REPO/docs/examples/emulated-table.toml", str(config))
    setup = setup.replace("REPO=$PWD;", f"REPO={REPO};").replace(
        "PATH=$REPO/.venv/bin:$PATH", f"PATH={Path(sys.executable).parent}:$PATH")
    rig = subprocess.Popen(["bash", "-c", setup], cwd=REPO, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        wait_for_console(port, rig)
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


def wait_for_console(port: int, rig: subprocess.Popen[str]) -> None:
    """Until the table answers on its console (it is 503 while the devices start)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        assert rig.poll() is None, rig.stdout.read() if rig.stdout else ""
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
                sock.sendall(b"GET /api/table HTTP/1.0\r\n\r\n")
                if b" 200 " in sock.recv(64):
                    return
        except OSError:
            pass
        time.sleep(0.5)
    pytest.fail("the console never answered")
