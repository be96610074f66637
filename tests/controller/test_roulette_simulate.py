"""`shoectl simulate --game roulette`: the whole table through the wheel emulator over a pty.

`--spins N --seed S --json` prints one object a spin, exactly
`{"spin", "game", "number", "void", "warnings"}`, and they must be what the emulator's game
plan says for that seed (the table read it exactly, through the real driver); a recording put
through `--wheel-replay FILE` must print the same; the journal must hold every spin with the
wheel's own game number.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller.cli import journal_command, simulate_command
from drivers.emulated.wheel import WheelPlay

KEYS = ["spin", "game", "number", "void", "warnings"]


def simulate(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[dict], str]:
    status = simulate_command.main(["--game", "roulette", *argv])
    out, err = capsys.readouterr()
    return status, [json.loads(line) for line in out.splitlines()], err


def expected(seed: int, spins: int, pockets: int = 38) -> list[dict]:
    play = WheelPlay(seed, pockets, spins=spins)
    list(play.lines())
    return [{"spin": n, "game": e.game, "number": e.number, "void": e.void,
             "warnings": list(e.warnings)} for n, e in enumerate(play.expected, 1)]


def test_one_object_a_spin_exactly_as_the_emulator_played_it(
        capsys: pytest.CaptureFixture[str]) -> None:
    status, spins, err = simulate(capsys, "--spins", "40", "--seed", "7", "--json")
    assert status == 0, err
    assert all(list(s) == KEYS for s in spins)
    assert spins == expected(7, 40)
    assert all((s["number"] is None) == s["void"] for s in spins)
    assert all(s["number"] in {"0", "00", *map(str, range(1, 37))} for s in spins
               if not s["void"])
    assert any(s["void"] for s in spins)
    assert any(s["warnings"] for s in spins)
    assert err.startswith("spins 40  void ")
    assert " faults 0 " in err


def test_the_single_zero_wheel_never_shows_00(capsys: pytest.CaptureFixture[str]) -> None:
    status, spins, err = simulate(capsys, "--spins", "60", "--seed", "2", "--wheel", "single",
                                  "--json")
    assert status == 0, err
    assert spins == expected(2, 60, pockets=37)
    assert "00" not in {s["number"] for s in spins}


def test_a_recording_read_through_the_driver_prints_the_same_spins(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    play = WheelPlay(seed=9, spins=25)
    recording = tmp_path / "wheel.bin"
    recording.write_bytes(b"".join(play.lines()))
    status, spins, err = simulate(capsys, "--wheel-replay", str(recording), "--json")
    assert status == 0, err
    assert spins == expected(9, 25)
    status, first, _ = simulate(capsys, "--wheel-replay", str(recording), "--spins", "3",
                                "--json")
    assert (status, first) == (0, spins[:3])


def test_every_spin_is_journalled_with_the_wheels_game_number(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    state = tmp_path / "state"
    status, spins, err = simulate(capsys, "--spins", "15", "--seed", "4", "--json",
                                  "--state-dir", str(state))
    assert status == 0, err
    assert journal_command.main(["export", "--jsonl", "--state-dir", str(state)]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    entries = [(r["kind"], r["data"]) for r in records]
    decided = [(d["game"], d.get("number")) for kind, d in entries
               if kind in ("spin:result", "spin:void")]
    assert decided == [(s["game"], s["number"]) for s in spins]
    settled = [d for kind, d in entries if kind == "round:settled"]
    assert [(r["game"], r["number"]) for r in settled] == [
        (s["game"], s["number"]) for s in spins if not s["void"]]
    order = [kind for kind, _ in entries if kind.startswith("spin:") and kind not in (
        "spin:no_more_bets", "spin:void", "spin:closed")]
    for at, kind in enumerate(order):
        if kind == "spin:losers_cleared":
            assert order[at - 1:at + 2] == ["spin:marker", "spin:losers_cleared",
                                            "spin:winners_paid"]


@pytest.mark.parametrize(("argv", "message"), [
    (["--spins", "0"], "--spins: 1..10000000, got 0"),
    (["--wheel-replay", "/no/such/recording"], "--wheel-replay /no/such/recording: no such"),
    (["--decks", "6"], "--decks: not an option of a roulette table"),
    (["--in-process"], "--in-process: roulette is simulated through the wheel emulator"),
    (["--bets", "trio=500"], "--bets: 'trio' is no roulette bet"),
    (["--bets", "red=1"], "--bets: red=1 is outside the table limits 500..500000 cents"),
])
def test_what_a_roulette_run_cannot_take_is_one_line(capsys: pytest.CaptureFixture[str],
                                                    argv: list[str], message: str) -> None:
    status, spins, err = simulate(capsys, *argv)
    assert (status, spins) == (2, [])
    assert err == f"shoectl simulate: {err.removeprefix('shoectl simulate: ')}"
    assert message in err
    assert err.count("\n") == 1


def test_the_roulette_options_are_refused_at_another_game(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert simulate_command.main(["--game", "blackjack", "--spins", "3"]) == 2
    assert "--spins: only a roulette table takes it (--game roulette)" in capsys.readouterr().err


def test_five_number_bets_are_left_out_on_a_single_zero_layout(
        capsys: pytest.CaptureFixture[str]) -> None:
    status, spins, err = simulate(capsys, "--spins", "2", "--wheel", "single", "--bets",
                                  "five-number=500,red=500", "--json")
    assert status == 0, err
    assert "five-number is not on the single-zero wheel (37 pockets) layout; ignored" in err
    assert len(spins) == 2
