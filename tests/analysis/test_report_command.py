"""`shoectl report` on a real table's journal: the figures agree with what simulate dealt."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def shoectl(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "controller", *argv], cwd=REPO,
                          capture_output=True, text=True, timeout=600, check=False)


@pytest.fixture(scope="module")
def dealt(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, object]]]:
    """A 30-round blackjack journal, and the rounds simulate printed for it."""
    state = tmp_path_factory.mktemp("report") / "state"
    done = shoectl("simulate", "--in-process", "--seats", "3", "--rounds", "30", "--seed", "4",
                   "--pace", "0", "--json", "--state-dir", str(state))
    assert done.returncode == 0, done.stderr
    return state, [json.loads(line) for line in done.stdout.splitlines()]


def house_win(rounds: list[dict[str, object]]) -> int:
    """Cents the house won: the negated sum of every hand's and side wager's net."""
    total = 0
    for round_ in rounds:
        for seat in round_["seats"]:  # type: ignore[attr-defined]
            total -= sum(hand["net"] for hand in seat["hands"])
            total -= sum(seat["side_bets"].values())
    return total


def test_the_shift_report_counts_the_rounds_and_the_money_simulate_dealt(
        dealt: tuple[Path, list[dict[str, object]]]) -> None:
    state, rounds = dealt
    done = shoectl("report", "shift", "--state-dir", str(state), "--json")
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)
    assert figures["rounds"] == len(rounds) == 30
    assert sum(money["win"] for money in figures["wagers"].values()) == house_win(rounds)
    assert figures["hands_per_seat"] == {
        str(seat): sum(len(s["hands"]) for r in rounds for s in r["seats"] if s["seat"] == seat)
        for seat in (1, 2, 3)}
    assert figures["dealers"]["kiosk"]["rounds"] == 30


def test_the_csv_and_the_lines_say_the_same(dealt: tuple[Path, list[dict[str, object]]]) -> None:
    state, _ = dealt
    rows = list(csv.reader(io.StringIO(shoectl("report", "shift", "--state-dir", str(state),
                                               "--csv").stdout)))
    assert rows[0] == ["metric", "value"]
    lines = shoectl("report", "shift", "--state-dir", str(state)).stdout.splitlines()
    assert [f"{key}: {value or '-'}" for key, value in rows[1:]] == lines
    assert ["rounds", "30"] in rows


def test_bad_options_and_a_missing_journal_are_one_line(tmp_path: Path,
                                                        dealt: tuple[Path, object]) -> None:
    state, _ = dealt
    for argv, status in ((("--from", "yesterday"), 2),
                         (("--from", "2026-12-06T18:00", "--to", "2026-12-06T17:00"), 2)):
        done = shoectl("report", "shift", "--state-dir", str(state), *argv)
        assert done.returncode == status
        assert "Traceback" not in done.stderr
    done = shoectl("report", "shift", "--state-dir", str(tmp_path / "none"))
    assert done.returncode == 1
    assert len(done.stderr.strip().splitlines()) == 1


def test_advantage_names_no_seat_of_bots_betting_flat(
        dealt: tuple[Path, list[dict[str, object]]]) -> None:
    state, _ = dealt
    done = shoectl("report", "advantage", "--state-dir", str(state), "--json")
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""


def test_a_counting_bot_is_flagged_and_its_neighbours_are_not(tmp_path: Path) -> None:
    """`simulate --strategy counter,basic,random`: the counter's seat alone is named."""
    state = tmp_path / "state"
    done = shoectl("simulate", "--in-process", "--seats", "3", "--decks", "6", "--rounds", "200",
                   "--seed", "11", "--strategy", "counter,basic,random", "--spread", "1-8",
                   "--pace", "0", "--json", "--state-dir", str(state))
    assert done.returncode == 0, done.stderr
    alerts = [json.loads(line) for line in shoectl(
        "report", "advantage", "--state-dir", str(state), "--json").stdout.splitlines()]
    assert [alert["seat"] for alert in alerts] == [1]
    assert alerts[0]["p_value"] < 1e-5
    seats = {seat["seat"] for seat in json.loads(done.stdout.splitlines()[0])["seats"]}
    assert seats == {1, 2, 3}


@pytest.mark.parametrize(("argv", "line"), [
    (("--strategy", "lucky"), "--strategy: 'lucky' is no strategy"),
    (("--strategy", "counter,basic"), "--strategy: 2 strategies for 3 seats"),
    (("--spread", "1-8"), "--spread: only a counter spreads its wager"),
    (("--strategy", "counter", "--spread", "8-1"), "--spread: '8-1'"),
])
def test_bad_player_options_are_one_line(argv: tuple[str, ...], line: str) -> None:
    done = shoectl("simulate", "--in-process", "--seats", "3", "--rounds", "1", *argv)
    assert done.returncode == 2
    assert line in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
