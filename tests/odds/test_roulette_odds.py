"""`shoectl odds roulette-NAME --wheel double|single [--json]`: exact fractions, the same shape.

The house edges are the customer's (5.26% on double zero, 7.89% for the five-number bet,
2.70% on single zero) as exact fractions, and each sheet's edge equals what the rules'
settlement gives back, pocket by pocket.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from controller.cli import odds_command
from controller.odds.registry import BETS
from controller.rules.roulette import RouletteBet, RoulettePays, RouletteWager, Wheel, settle_spin
from controller.rules.roulette import spots as layout_spots

NAMES = ["straight", "split", "street", "corner", "five-number", "six-line", "column", "dozen",
         "red", "black", "odd", "even", "low", "high"]
"""The customer's list of NAMEs."""
COVERS = {"straight": 1, "split": 2, "street": 3, "corner": 4, "five-number": 5, "six-line": 6,
          "column": 12, "dozen": 12, "red": 18, "black": 18, "odd": 18, "even": 18, "low": 18,
          "high": 18}
PAYS = {"straight": "35:1", "split": "17:1", "street": "11:1", "corner": "8:1",
        "five-number": "6:1", "six-line": "5:1", "column": "2:1", "dozen": "2:1"}
SHOE_SHEET_KEYS = {"bet", "decks", "lines", "house_edge", "house_edge_exact", "method"}


def odds(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = odds_command.main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_every_name_is_a_bet_of_shoectl_odds() -> None:
    assert [name for name in BETS if name.startswith("roulette-")] == [
        f"roulette-{name}" for name in NAMES]


@pytest.mark.parametrize(("name", "wheel"), [
    (name, wheel) for wheel in ("double", "single") for name in NAMES
    if (name, wheel) != ("five-number", "single")])  # refused: see the refusals below
def test_the_sheet_is_exact_and_shaped_as_the_others(capsys: pytest.CaptureFixture[str],
                                                     name: str, wheel: str) -> None:
    status, out, err = odds(capsys, f"roulette-{name}", "--wheel", wheel, "--json")
    assert status == 0, err
    data = json.loads(out)
    assert set(data) >= SHOE_SHEET_KEYS
    assert data["decks"] is None
    assert (data["wheel"], data["pockets"], data["covers"]) == (
        wheel, 38 if wheel == "double" else 37, COVERS[name])
    pockets = data["pockets"]
    win, loses = data["lines"]
    assert Fraction(win["exact"]) == Fraction(COVERS[name], pockets)
    assert win["pays"] == PAYS.get(name, "1:1")
    assert (loses["pays"], Fraction(loses["exact"])) == ("loses",
                                                         1 - Fraction(COVERS[name], pockets))
    expected = (Fraction(3, 38) if name == "five-number" else Fraction(1, 19)
                ) if wheel == "double" else Fraction(1, 37)
    assert Fraction(data["house_edge_exact"]) == expected
    assert data["house_edge"] == pytest.approx(float(expected))


@pytest.mark.parametrize("name", NAMES)
def test_the_sheets_edge_is_what_settlement_gives_back(capsys: pytest.CaptureFixture[str],
                                                       name: str) -> None:
    _, out, _ = odds(capsys, f"roulette-{name}", "--json")
    edge = Fraction(json.loads(out)["house_edge_exact"])
    bet = RouletteBet(name)
    spot = layout_spots(bet, Wheel.DOUBLE)[0]
    nets = [settle_spin([RouletteWager(1, bet, spot, 100)], n, Wheel.DOUBLE, RoulettePays()).net
            for n in Wheel.DOUBLE.pockets]
    assert -Fraction(sum(nets), 100 * 38) == edge


def test_the_table_says_the_wheel_and_the_percent(capsys: pytest.CaptureFixture[str]) -> None:
    _, double, _ = odds(capsys, "roulette-straight")
    _, five, _ = odds(capsys, "roulette-five-number")
    _, single, _ = odds(capsys, "roulette-red", "--wheel", "single")
    assert "Par sheet: roulette-straight, double-zero wheel (38 pockets)" in double
    assert "House edge: 5.2632% of the wager" in double
    assert "House edge: 7.8947% of the wager" in five
    assert "single-zero wheel (37 pockets)" in single
    assert "House edge: 2.7027% of the wager" in single


@pytest.mark.parametrize(("argv", "message"), [
    (["roulette-five-number", "--wheel", "single"],
     "--wheel single: the single-zero wheel (37 pockets) has no five-number bet"),
    (["roulette-red", "--decks", "6"], "--decks: roulette-red is not dealt from a shoe"),
    (["perfect-pairs", "--wheel", "single"], "--wheel applies only to the roulette-* bets"),
    (["roulette-red", "--soft17", "hit"], "--soft17 applies only to"),
])
def test_what_a_wheel_cannot_do_is_refused_in_one_line(capsys: pytest.CaptureFixture[str],
                                                        argv: list[str], message: str) -> None:
    status, out, err = odds(capsys, *argv)
    assert status == 2
    assert out == ""
    assert message in err
    assert err.count("\n") == 1


def test_a_casinos_pay_table_file_is_what_the_sheet_pays(capsys: pytest.CaptureFixture[str],
                                                         tmp_path: Path) -> None:
    table = tmp_path / "roulette.toml"
    table.write_text('straight = "34:1"\n')
    status, out, err = odds(capsys, "roulette-straight", "--paytable", str(table), "--json")
    assert status == 0, err
    data = json.loads(out)
    assert data["lines"][0]["pays"] == "34:1"
    assert Fraction(data["house_edge_exact"]) == Fraction(3, 38)
    table.write_text('straight = "0:1"\n')
    status, _, err = odds(capsys, "roulette-straight", "--paytable", str(table))
    assert status == 2
    assert "[paytables.roulette] straight: a winning line must pay something, got 0:1" in err
