"""`shoectl simulate` options refused before any card is dealt, and a shoe file's last round,
on the device path (the real drivers against the pty emulators)."""

import json
import re
import time
from pathlib import Path

import pytest

from controller.cli import meter_command, simulate_command
from controller.journal import audit
from controller.journal.store import JournalStore


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = simulate_command.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def shoe_file(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "shoe.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(("argv", "message"), [
    (["--decks", "1"], "[paytables.match-the-dealer] 1: no pay table for a 1-deck shoe "
                       "(configured: 8, 6, 5, 4, 2)"),
    (["--decks", "3"], "--decks: a shoe holds 1, 2, 4, 5, 6 or 8 decks, not 3"),
    (["--camera", "--in-process"], "--camera: the camera is a device"),
])
def test_a_table_the_options_cannot_make_is_refused_before_dealing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str],
        message: str) -> None:
    state = tmp_path / "state"
    code, out, err = run([*argv, "--json", "--state-dir", str(state)], capsys)
    assert code == 2
    assert out == ""
    assert message in err
    assert not state.exists()  # nothing was dealt, nothing journalled


def test_a_deck_count_without_match_the_dealer_deals_when_nobody_bets_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["--decks", "1", "--bets", "main=1000,perfect-pairs=100", "--rounds",
                        "2", "--json", "--in-process", "--state-dir", str(tmp_path)], capsys)
    assert code == 0
    assert len(out.splitlines()) == 2


@pytest.mark.parametrize(("game", "lines", "message"), [
    ("spanish21", ["9S", "QH", "# a comment", "TS", "5C"],
     "line 4: TS cannot be in a Spanish 21 shoe"),
    ("blackjack", ["AS"] * 7, "line 7: AS is copy 7 of AS, but a 6-deck shoe holds 6"),
    ("blackjack", ["AS", "", "1X", "KD"], "line 3: '1X' is not a card"),
    ("baccarat", ["KD"] * 9, "line 9: KD is copy 9 of KD, but a 8-deck shoe holds 8"),
])
def test_a_shoe_file_card_the_shoe_cannot_hold_is_refused_up_front(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], game: str, lines: list[str],
        message: str) -> None:
    path = shoe_file(tmp_path, lines)
    state = tmp_path / "state"
    code, out, err = run(["--game", game, "--shoe-file", str(path), "--json", "--state-dir",
                          str(state)], capsys)
    assert code == 2
    assert out == ""
    assert f"--shoe-file {path} {message}" in err
    assert "shoe_error" not in err
    assert not state.exists()


def test_the_last_card_completes_a_round_with_a_stand_due_on_the_device_path(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = shoe_file(tmp_path, ["TS", "7C", "9H", "TD"])
    code, out, err = run(["--seats", "1", "--decks", "6", "--bets", "main=1000", "--shoe-file",
                          str(path), "--strategy", "stand", "--json", "--state-dir",
                          str(tmp_path / "state")], capsys)
    assert code == 0, err
    [record] = [json.loads(line) for line in out.splitlines()]
    assert record["round"] == 1
    assert record["dealer"] == ["7C", "TD"]
    assert record["seats"][0]["hands"] == [{"cards": ["TS", "9H"], "net": 1000}]


def test_the_last_card_under_an_ace_completes_the_round_on_the_device_path(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = shoe_file(tmp_path, ["TS", "AC", "9H", "9D"])
    code, out, err = run(["--seats", "1", "--bets", "main=1000", "--shoe-file", str(path),
                          "--strategy", "stand", "--json", "--state-dir",
                          str(tmp_path / "state")], capsys)
    assert code == 0, err
    [record] = [json.loads(line) for line in out.splitlines()]
    assert record["dealer"] == ["AC", "9D"]
    assert record["seats"][0]["hands"][0]["net"] == -1000


@pytest.mark.parametrize("in_process", [False, True])
def test_a_void_final_round_gives_back_its_meter_increments(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], in_process: bool) -> None:
    # Round 1 is dealt and settled; round 2's dealer must draw and the shoe has no card.
    path = shoe_file(tmp_path, ["TS", "7C", "9H", "TD", "5S", "6C", "9D", "QH"])
    state = tmp_path / "state"
    argv = ["--seats", "2", "--bets", "main=1000,blazing7s=500", "--shoe-file", str(path),
            "--strategy", "stand", "--json", "--state-dir", str(state)]
    code, out, err = run([*argv, "--in-process"] if in_process else argv, capsys)
    assert code == 0, err
    records = [json.loads(line) for line in out.splitlines()]
    assert [r["round"] for r in records] == [1]
    summary = re.search(r"meter ([\d,.]+) .* void (\d+)", err)
    assert summary is not None, err
    assert summary.group(1) == "10,002.00"  # round 1's two increments stay; round 2's are back
    assert summary.group(2) == "1"
    assert meter_command.main(["show", "--json", "--state-dir", str(state)]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["meter"] == records[0]["meter"] == 1_000_200
    assert shown["progressive_in"] == 2
    report = audit.verify_state_dir(state)
    assert report.ok, report.lines


@pytest.mark.parametrize(("game", "bets", "rounds"), [
    ("blackjack", "main=1000", 12),
    ("baccarat", "banker=1000,player=1000", 14),
])
@pytest.mark.parametrize("path", [["--in-process"], []], ids=["in-process", "devices"])
def test_round_numbers_run_on_without_a_gap_across_a_shuffle(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], game: str, bets: str,
        rounds: int, path: list[str]) -> None:
    # One deck and seven seats bring the cut card out within a few rounds.
    code, out, _ = run(["--game", game, "--decks", "1", "--seats", "7", "--bets", bets,
                        "--rounds", str(rounds), "--json", *path,
                        "--state-dir", str(tmp_path)], capsys)
    assert code == 0
    numbers = [json.loads(line)["round"] for line in out.splitlines()]
    assert numbers == list(range(1, rounds + 1))
    store = JournalStore(tmp_path, clock=time.monotonic)
    try:
        shuffles = list(store.entries(["shoe:shuffled"]))
    finally:
        store.close()
    assert len(shuffles) >= 2


@pytest.mark.parametrize(("game", "bets"), [("blackjack", "main=1000"),
                                             ("baccarat", "banker=1000,tie=100")])
def test_a_seed_deals_the_same_games_on_both_paths_across_shuffles(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], game: str, bets: str) -> None:
    argv = ["--game", game, "--decks", "1", "--seats", "7", "--bets", bets, "--rounds", "14",
            "--seed", "9", "--json"]
    code, devices, _ = run([*argv, "--state-dir", str(tmp_path / "devices")], capsys)
    assert code == 0
    code, in_process, _ = run([*argv, "--in-process", "--state-dir", str(tmp_path / "loop")],
                              capsys)
    assert code == 0
    assert devices.splitlines() == in_process.splitlines()
    assert len(devices.splitlines()) == 14


@pytest.mark.parametrize(("game", "decks", "changes", "expected"), [
    ("blackjack", 6, {}, 234),                       # 75% of 312
    ("blackjack", 6, {"penetration": 60}, 187),
    ("spanish21", 8, {"penetration": 80}, 307),      # Spanish decks: 384 cards
    ("baccarat", 8, {}, 402),                        # 14 cards behind the cut card
    ("baccarat", 8, {"cut_from_end": 20}, 396),
])
def test_the_emulated_shoe_takes_its_cut_card_from_the_table_settings(
        game: str, decks: int, changes: dict[str, int], expected: int) -> None:
    from dataclasses import replace

    from controller.rules.hands import Game
    from controller.service.tableconfig import load_default_table
    from controller.sim import rig

    table = replace(load_default_table().game.table, game=Game(game), decks=decks, **changes)
    size = decks * (48 if game == "spanish21" else 52)
    assert rig.cut_card_after(table, size) == expected
    shoe = rig.rig_devices(table, 3, 1, None)["shoe"]
    assert shoe["cut_card_from_end"] == size - expected
