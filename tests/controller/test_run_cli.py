"""`shoectl run` start-up refusals: the exit status tells systemd whether to retry.

2: the configuration is refused (a deck count with no Match the Dealer table, a bad
`[vision]` key, a community decision limit out of bounds); 3: the software failed its
self-authentication (R16), checked before any device starts and before `power:on` is
journalled; 4: the journal fails its start-up check or its key is missing (nothing is added
to it); 1: a device cannot start.
"""

import hashlib
import time
from pathlib import Path
from typing import Any

import pytest

from controller.appliance import integrity
from controller.cli import run_command
from controller.journal.store import JournalStore
from controller.procedure.core.effects import Journal
from controller.rules.errors import ConfigError
from controller.service.tableconfig import default_table_text, load_table_file
from drivers.emulated.board import BoardEmulator
from drivers.registry import Devices
from tests.support.journal_read import journal_kinds

DEVICES = """
[devices.shoe]
kind = "emulated"
decks = 6
seed = 3

[devices.layout]
kind = "emulated"
lamps = { fault = 0, no_more_bets = 1 }
buttons = { no_more_bets = 0 }

[devices.sign]
kind = "emulated"
"""


def table_file(tmp_path: Path, text: str = "") -> Path:
    path = tmp_path / "table.toml"
    path.write_text(default_table_text() + DEVICES + text
                    + f'\n[journal]\nstate_dir = "{tmp_path / "state"}"\n'
                    + '\n[console]\nlisten = "127.0.0.1:0"\n', encoding="utf-8")
    return path


def test_a_deck_count_without_match_the_dealer_is_refused_with_exit_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "table.toml"
    text = default_table_text().replace("decks = 6                   #", "decks = 1 #", 1)
    text = text.replace('"blazing7s", "axman"]', '"blazing7s"]', 1)
    path.write_text(text + DEVICES, encoding="utf-8")
    assert run_command.main(["--config", str(path), "--allow-emulated", "--unverified-software",
                             "--state-dir",
                         str(tmp_path / "state")]) == run_command.EXIT_CONFIG
    err = capsys.readouterr().err
    assert ("[paytables.match-the-dealer] 1: no pay table for a 1-deck shoe "
            "(configured: 8, 6, 5, 4, 2)") in err
    assert not (tmp_path / "state").exists()


def test_a_community_table_with_a_bad_station_key_is_refused_with_exit_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "table.toml"
    text = default_table_text().replace('game = "blackjack"', 'game = "community"', 1)
    text = text.replace('side_bets = ["perfect-pairs", "lucky-ladies", "match-the-dealer", '
                        '"blazing7s", "axman"]', "side_bets = []", 1)
    text = text.replace("decision_seconds = 15 ", "decision_seconds = 3  ", 1)
    path.write_text(text + DEVICES, encoding="utf-8")
    assert run_command.main(["--config", str(path), "--allow-emulated", "--unverified-software",
                             "--state-dir",
                         str(tmp_path / "state")]) == run_command.EXIT_CONFIG
    err = capsys.readouterr().err
    assert "[rules.community] decision_seconds: must be 5..120, got 3" in err
    assert not (tmp_path / "state").exists()


@pytest.mark.parametrize(("vision", "message"), [
    ('on_camera_down = "ignore"', "[vision] on_camera_down: expected one of warn, stop"),
    ("frames = 0", "[vision] frames: must be 1..20, got 0"),
    ("colour = 1", "[vision] colour: unknown key"),
    ("positions = { seat9 = [1, 2] }", "[vision.positions] seat9: no such position"),
    ('positions = { seat1 = "left" }', "[vision.positions] seat1: expected [x, y]"),
])
def test_a_bad_vision_key_is_refused_naming_it(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str],
                                               vision: str, message: str) -> None:
    path = table_file(tmp_path, f"\n[vision]\n{vision}\n")
    assert run_command.main(["--config", str(path), "--allow-emulated",
                                             "--unverified-software"]) == run_command.EXIT_CONFIG
    assert message in capsys.readouterr().err


def tampered_manifest(tmp_path: Path) -> Path:
    victim = tmp_path / "installed.py"
    victim.write_text("print('installed')\n")
    digest = hashlib.sha256(b"something else\n").hexdigest()
    manifest = tmp_path / "manifest.sha256"
    manifest.write_text(f"{integrity.HEADER}\n{digest}  {victim}\n")
    return manifest


class LinkWatch:
    """What the boards behind the table heard from the host, and when the software was checked.

    Every emulated board counts the frames the host sends it (`BoardEmulator.inbound`); the
    production software check (`integrity.authenticate_at_start`, called by the service's
    hosting) is wrapped to note those counts the moment it runs. Neither is a production
    seam: the order is read off the bytes on the ptys.
    """

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.boards: list[BoardEmulator] = []
        self.at_check: dict[str, int] | None = None
        real_start, real_check = BoardEmulator.start, integrity.authenticate_at_start

        def start(board: BoardEmulator) -> BoardEmulator:
            self.boards.append(board)
            return real_start(board)

        def check(*args: Any, **kwargs: Any) -> Any:
            self.at_check = self.heard()
            return real_check(*args, **kwargs)

        monkeypatch.setattr(BoardEmulator, "start", start)
        monkeypatch.setattr(integrity, "authenticate_at_start", check)

    def heard(self) -> dict[str, int]:
        """Frames each board has had from the host so far, by board kind."""
        return {board.endpoint.board.kind: board.inbound.frames for board in self.boards}


def test_software_that_fails_authentication_exits_3_before_devices_and_power_on(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(integrity.MANIFEST_ENV, str(tampered_manifest(tmp_path)))
    watch = LinkWatch(monkeypatch)
    code = run_command.main(["--config", str(table_file(tmp_path)), "--allow-emulated"])
    assert code == run_command.EXIT_INTEGRITY == 3
    assert "software integrity refused" in capsys.readouterr().err
    kinds = journal_kinds(tmp_path / "state")
    assert kinds == [integrity.KIND_MISMATCH]  # no power:on, nothing else
    assert watch.at_check == {"shoe": 0, "layout": 0, "sign": 0}
    assert watch.heard() == {"shoe": 0, "layout": 0, "sign": 0}  # no board was ever opened


def test_authenticated_software_is_checked_before_the_first_byte_to_a_board(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    installed = tmp_path / "installed.py"
    installed.write_text("print('installed')\n")
    manifest = tmp_path / "manifest.sha256"
    manifest.write_text(integrity.build_manifest([], [str(installed)]))
    monkeypatch.setenv(integrity.MANIFEST_ENV, str(manifest))
    watch = LinkWatch(monkeypatch)
    # The shoe and layout are emulated boards; the sign's port does not exist, so the start
    # ends (exit 1) after the boards before it have been talked to.
    devices = DEVICES.replace('[devices.sign]\nkind = "emulated"\n',
                              f'[devices.sign]\nkind = "serial"\nurl = "{tmp_path / "none"}"\n'
                              'timeout_ms = 100\n')
    path = table_file(tmp_path)
    path.write_text(path.read_text(encoding="utf-8").replace(DEVICES, devices),
                    encoding="utf-8")
    assert run_command.main(["--config", str(path), "--allow-emulated"]) == 1
    assert "cannot start" in capsys.readouterr().err
    assert watch.at_check == {"shoe": 0, "layout": 0}
    heard = watch.heard()
    assert heard["shoe"] > 0  # then the devices started
    assert heard["layout"] > 0
    assert "power:on" not in journal_kinds(tmp_path / "state")


def test_a_device_that_cannot_start_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    installed = tmp_path / "installed.py"
    installed.write_text("print('installed')\n")
    manifest = tmp_path / "manifest.sha256"
    manifest.write_text(integrity.build_manifest([], [str(installed)]))
    monkeypatch.setenv(integrity.MANIFEST_ENV, str(manifest))
    path = tmp_path / "table.toml"
    path.write_text(default_table_text() + '\n[devices.shoe]\nkind = "serial"\n'
                    f'url = "{tmp_path / "no-such-port"}"\ntimeout_ms = 100\n'
                    f'\n[journal]\nstate_dir = "{tmp_path / "state"}"\n'
                    '\n[console]\nlisten = "127.0.0.1:0"\n', encoding="utf-8")
    assert run_command.main(["--config", str(path)]) == run_command.EXIT_DEVICE
    assert "cannot start" in capsys.readouterr().err
    kinds = journal_kinds(tmp_path / "state")
    assert "power:on" not in kinds  # the devices start before the table powers on


def test_a_journal_that_does_not_verify_exits_4_before_devices_and_power_on_and_is_kept(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.support.journal_attacks import delete_last_three, file_digests

    path = table_file(tmp_path)
    store = JournalStore(tmp_path / "state", clock=time.monotonic)
    for n in range(5):
        store.commit([Journal("card:dealt", {"n": n})], {"n": n})
    store.close()
    delete_last_three(tmp_path / "state", tmp_path)
    evidence = file_digests(tmp_path / "state")
    started: list[str] = []
    monkeypatch.setattr(Devices, "start", lambda self, skip=(): started.append("start"))
    assert run_command.main(["--config", str(path), "--allow-emulated",
                                             "--unverified-software"]) == 4
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == (f"shoectl run: journal refused: journal {tmp_path / 'state'}/"
                       "journal.sqlite3: journal holds 2 records but its anchor records 5: "
                       "records deleted at the tail, the file truncated or replaced, or its "
                       "WAL lost")
    assert started == []
    assert file_digests(tmp_path / "state") == evidence  # no power:on, no byte added


def test_a_missing_journal_key_exits_4(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHOECTL_JOURNAL_KEY", str(tmp_path / "journal.key"))
    assert run_command.main(["--config", str(table_file(tmp_path)), "--allow-emulated",
                                                        "--unverified-software"]) == 4
    assert (f"shoectl run: journal refused: journal key {tmp_path / 'journal.key'}: missing"
            in capsys.readouterr().err)
    assert not (tmp_path / "journal.key").exists()  # never made by a start



def test_a_relative_state_dir_lies_in_the_table_files_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "conf"
    folder.mkdir()
    path = folder / "table.toml"
    path.write_text(default_table_text() + '\n[journal]\nstate_dir = "journal/state"\n',
                    encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    table = load_table_file(Path("conf/table.toml"))  # a relative --config, too
    assert run_command.journal_dir(table, None) == folder / "journal/state"
    assert run_command.journal_dir(table, tmp_path / "option") == tmp_path / "option"


def test_an_empty_state_dir_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "table.toml"
    path.write_text(default_table_text() + '\n[journal]\nstate_dir = ""\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"\[journal\] state_dir: expected a path"):
        run_command.journal_dir(load_table_file(path), None)
