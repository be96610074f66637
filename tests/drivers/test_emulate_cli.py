"""`shoectl emulate`: a separate process a running controller can be pointed at."""

import subprocess
import sys
from pathlib import Path

from drivers.board import LinkOptions, link_timing, table_catalogue
from drivers.events import CardDrawn, LinkUp
from drivers.shoe import BridgeShoe

from .conftest import Recorder


def test_emulate_shoe_prints_its_port_and_deals_on_command(tmp_path: Path):
    script = tmp_path / "shoe.txt"
    script.write_text("AS KH 7D\n")
    with subprocess.Popen(
        [sys.executable, "-m", "controller", "emulate", "shoe", "--shoe-file", str(script),
         "--link-dir", str(tmp_path)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    ) as process:
        try:
            talk_to(process, tmp_path)
        finally:
            process.kill()


def talk_to(process: subprocess.Popen, tmp_path: Path) -> None:
    assert process.stdout is not None
    assert process.stdin is not None
    path = process.stdout.readline().strip()
    assert path == str(tmp_path / "shoe")
    recorder = Recorder()
    link = LinkOptions(path, table_catalogue(), link_timing(750),
                       firmware_versions=frozenset({"emulated-1.0"}),
                       key_file=tmp_path / "shoe.key")  # the key the emulator made
    shoe = BridgeShoe("shoe", link, recorder)
    shoe.start()
    recorder.wait_for(LinkUp)
    process.stdin.write("draw 3\n")
    process.stdin.flush()
    assert process.stdout.readline().strip() == "3 drawn, 0 left"
    drawn = recorder.wait_for(CardDrawn, 3)
    assert [card.code for card in drawn] == ["AS", "KH", "7D"]
    shoe.close()
    process.stdin.write("quit\n")
    process.stdin.flush()
    assert process.wait(timeout=10) == 0
