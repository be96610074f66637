"""The emulated wheel's game plan at the pace of a real table (issue: roulette by hand).

A real SlingShot at 60 games an hour spends tens of seconds in place your bets; the demo's
emulated wheel must give a croupier as long to take wagers, not the 1-6 s of the default
plan (which the simulation steps through as fast as it can).
"""

from __future__ import annotations

import tomllib
from collections import Counter
from pathlib import Path

from drivers.config import parse_devices
from drivers.emulated.wheel import WheelPlay
from drivers.wheel_protocol import StatusLine, parse_line

DEMO = Path(__file__).resolve().parents[2] / "docs" / "roulette-demo.toml"


def seconds_by_state(play: WheelPlay, pace_s: float, games: int) -> list[Counter[int]]:
    """Each game's seconds in each wheel state (the lines of that game at the pace)."""
    per_game: list[Counter[int]] = []
    current: Counter[int] = Counter()
    last_state = 0
    for raw in play.lines():
        line = parse_line(raw.decode(errors="replace").strip())
        if not isinstance(line, StatusLine):
            continue
        if line.state == 1 and last_state not in (0, 1, 6):
            per_game.append(current)
            current = Counter()
            if len(per_game) == games:
                break
        current[line.state] += 1
        last_state = line.state
    return [Counter({s: n * pace_s for s, n in game.items()}) for game in per_game]


def test_the_demo_wheel_gives_tens_of_seconds_to_bet_and_a_game_a_minute() -> None:
    devices = parse_devices(tomllib.loads(DEMO.read_text())["devices"], allow_emulated=True)
    assert devices.wheel is not None
    assert devices.wheel.emulation is not None
    emulation = devices.wheel.emulation
    play = WheelPlay(emulation.seed, emulation.pockets, False, emulation.nmb_lines, 0,
                     emulation.bets_lines, emulation.wait_lines)
    games = seconds_by_state(play, emulation.pace_ms / 1000, 5)
    for game in games:
        betting = game[1] + game[2] + game[3]  # before the game, place your bets, ball in rim
        assert 30 <= betting <= 60, game
        assert 45 <= sum(game.values()) <= 75, game


def test_the_betting_window_follows_bets_lines() -> None:
    short = seconds_by_state(WheelPlay(7, 38, False, 20, 0), 0.5, 3)
    long = seconds_by_state(WheelPlay(7, 38, False, 20, 0, bets_lines=70, wait_lines=10), 0.5, 3)
    assert [g[2] for g in short] == [1.5, 1.5, 1.5]
    assert [g[2] for g in long] == [35.0, 35.0, 35.0]
    assert [g[1] for g in long] == [5.0, 5.0, 5.0]
