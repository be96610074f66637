"""`shoectl simulate --game community --json`: the contract shape, the stand strategy, the
bots through the station commands, and the hole-card secrecy of every public output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller.cli import simulate_command
from controller.console import station_commands, station_view
from controller.console.commands import CommandError
from controller.service.runtime import RecordingOutputs

from .community_helpers import open_round, table

# Two rounds, dealing order: spot 1, 2, 3, up; spot 1, 2, 3, hole; then the dealer's draws.
SHOE = ["5H", "6D", "8S", "9C", "TH", "7D", "QS", "7C", "4S",    # dealer 9 7 4 = 20
        "AH", "2D", "3S", "TC", "KD", "9D", "4S", "8C"]           # dealer T 8 = 18


def run(capsys: pytest.CaptureFixture[str], tmp_path: Path, *extra: str) -> list[dict]:
    shoe_file = tmp_path / "shoe.txt"
    shoe_file.write_text("\n".join(SHOE) + "\n", encoding="utf-8")
    assert simulate_command.main(["--game", "community", "--stations", "2", "--rounds", "2",
                                  "--seed", "3", "--shoe-file", str(shoe_file), "--json",
                                  *extra]) == 0
    out = capsys.readouterr().out
    return [json.loads(line) for line in out.splitlines()]


def test_stand_strategy_keeps_the_starting_cards_in_the_contract_shape(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    rounds = run(capsys, tmp_path, "--strategy", "stand", "--bets", "main=1000")
    assert len(rounds) == 2
    first, second = rounds
    assert first == {"round": 1, "shared": ["5H", "6D", "8S", "TH", "7D", "QS"],
                     "dealer": ["9C", "7C", "4S"],
                     "stations": [{"station": s, "spots": [
                         {"spot": 1, "cards": ["5H", "TH"], "net": -1000},
                         {"spot": 2, "cards": ["6D", "7D"], "net": -1000},
                         {"spot": 3, "cards": ["8S", "QS"], "net": -1000}]} for s in (1, 2)]}
    assert second["shared"] == ["AH", "2D", "3S", "KD", "9D", "4S"]
    assert second["dealer"] == ["TC", "8C"]
    assert [p["net"] for p in second["stations"][0]["spots"]] == [1200, -1000, -1000]


def test_basic_strategy_draws_community_cards(capsys: pytest.CaptureFixture[str],
                                              tmp_path: Path) -> None:
    rounds = run(capsys, tmp_path, "--strategy", "basic")
    spots = rounds[0]["stations"][0]["spots"]
    # 15 and 13 against a 9: hit; the first community card goes to spot 1 at both stations.
    assert spots[0]["cards"][:3] == ["5H", "TH", "4S"]
    assert rounds[0]["stations"][1]["spots"][0]["cards"][:3] == ["5H", "TH", "4S"]


def test_side_wagers_on_every_spot_are_settled_with_it(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    rounds = run(capsys, tmp_path, "--strategy", "stand", "--bets",
                 "main=1000,perfect-pairs=500,match-the-dealer=500")
    first = rounds[0]["stations"][0]["spots"]
    # Round 1 (dealer 9 up, 20): no pair and no 9 at any spot: every side wager loses, and the
    # spot's one net counts them. Round 2 (dealer T up): spot 2 is 2D 9D, spot 1 AH KD
    # (blackjack 6:5), spot 3 3S 4S: no pair, no ten among the spots' cards.
    assert first[0] == {"spot": 1, "cards": ["5H", "TH"], "net": -2000,
                        "side_bets": {"match-the-dealer": -500, "perfect-pairs": -500}}
    second = rounds[1]["stations"][1]["spots"]
    assert [p["net"] for p in second] == [200, -2000, -2000]
    assert all(set(p["side_bets"]) == {"match-the-dealer", "perfect-pairs"} for p in second)


def test_side_wagers_not_offered_and_a_bad_station_count_are_refused(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert simulate_command.main(["--game", "community", "--bets", "main=1000,axman=100"]) == 2
    assert "'axman' is no side wager offered at this community table" in (
        capsys.readouterr().err)
    assert simulate_command.main(["--game", "community", "--bets",
                                  "main=1000,perfect-pairs=99"]) == 2
    assert "perfect-pairs=99 is outside the side wager limits 100..50000" in (
        capsys.readouterr().err)
    assert simulate_command.main(["--game", "community", "--bets", "perfect-pairs=500"]) == 2
    assert "a main wager (main=CENTS) is needed" in capsys.readouterr().err
    assert simulate_command.main(["--game", "community", "--stations", "0"]) == 2
    assert "--stations: 1..200, got 0" in capsys.readouterr().err


def test_station_commands_refuse_what_the_table_does_not_take(tmp_path: Path) -> None:
    t = table(tmp_path)
    with pytest.raises(CommandError, match="'spot' must be an integer"):
        station_commands.parse({"command": "hit", "station": 1})
    open_round(t, {1: {1: 1000}}, ["5H", "6D", "8S", "9C", "TH", "7D", "QS", "7C"])
    reply = station_commands.execute(t.rt, station_commands.parse(
        {"command": "double", "station": 1, "spot": 2}))
    assert reply.status == 409
    assert "no wager on spot 2" in reply.body["error"]
    reply = station_commands.execute(t.rt, station_commands.parse(
        {"command": "hit", "station": 1, "spot": 1}))
    assert reply.status == 200
    assert reply.body["phase"] == "waiting"
    assert reply.body["dealer"] == {"cards": ["9C"], "total": 9}


HOLES = ["7C", "8D", "2H", "6S", "9H"]
"""Hole cards that all leave the dealer without a blackjack under a 9 up card."""


def public_trace(tmp_path: Path, hole: str) -> list[str]:
    """Every public output and station view of one scripted round until the hole card."""
    t = table(tmp_path / hole)
    outputs = t.rt.outputs
    assert isinstance(outputs, RecordingOutputs)
    trace: list[str] = []

    def look() -> None:
        trace.extend(repr(e) for e in outputs.applied)
        outputs.applied.clear()
        trace.append(repr(t.model.outputs.public_view()))
        trace.extend(json.dumps(station_view.station_view(t.model, s), sort_keys=True)
                     for s in (1, 2))

    open_round(t, {1: {1: 1000, 2: 1000}, 2: {3: 1000}},
               ["5H", "6D", "8S", "9C", "TH", "7D", "QS", hole])
    look()
    for name, station, spot in (("stand", 1, 2), ("hit", 1, 1), ("stand", 2, 3)):
        assert t.fire(name, station=station, spot=spot)
        look()
    t.deal("2D")
    look()
    t.wait(15.0)  # station 1's timer runs out: every hand stands; the hole card turns
    assert t.model.state in ("dealer", "round_over")
    return trace[:-3]  # the last look is after the hole card is turned over


def test_no_public_output_depends_on_the_hole_card(tmp_path: Path) -> None:
    traces = {hole: public_trace(tmp_path, hole) for hole in HOLES}
    reference = traces[HOLES[0]]
    assert len(reference) > 10
    for hole, trace in traces.items():
        assert trace == reference, f"a public output differs with the hole card {hole}"
        assert not any(hole in line for line in trace if hole not in ("2D",))


def test_a_round_settled_by_a_stand_mid_station_ends_the_bots_turn(
        capsys: pytest.CaptureFixture[str]) -> None:
    # With the default seed, round 63 is settled by a bot's stand while the same bot still
    # held hands to decide in its list: the bots must stop there, not act on a settled round.
    assert simulate_command.main(["--game", "community", "--rounds", "63", "--json"]) == 0
    rounds = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(rounds) == 63
