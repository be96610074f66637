"""The stations' credits and meters (GLI-24 style): bounded wagers, settlement, power cuts.

Every station's balance and meters live in the critical state; after a power cut (the
journal closed without a power-off, the table started again on it) they are exactly what
they were at the last commit, and they reconcile with the journal's station records, which
`shoectl meter show --station N` checks.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller.cli import meter_command
from controller.procedure.community import (
    STATION_KINDS,
    reconcile_credits,
    replay_credits,
    stored_credits,
)

from .community_helpers import Table, open_round, table

PLAIN = ["5H", "6D", "8S", "9C", "TH", "7D", "QS", "7C"]
"""Spots 5H TH (15), 6D 7D (13), 8S QS (18); dealer 9C up, 7C in the hole (16)."""


def meters(t: Table, station: int) -> dict[str, int]:
    return {"credits": t.model.credits.balance.get(station, 0),
            **t.model.credits.meters_of(station)}


def test_wagers_doubles_and_splits_must_fit_the_credits(tmp_path: Path) -> None:
    t = table(tmp_path, credits=2000)
    assert t.fire("shuffle_done")
    assert t.fire("wager", station=1, spot=1, cents=1000)
    assert not t.fire("wager", station=1, spot=2, cents=1500)  # 1000 left
    assert "over its credits (1000 cents available)" in t.model.wagers.refusal(
        {"station": 1, "spot": 2, "cents": 1500})
    assert t.fire("wager", station=1, spot=2, cents=1000)
    assert t.fire("no_more_bets")
    t.deal(*PLAIN)
    assert t.model.credits.available(1) == 0
    assert not t.fire("double", station=1, spot=1)
    assert "over its credits" in t.model.play.decision_refusal("double", {"station": 1,
                                                                         "spot": 1})
    assert t.fire("stand", station=1, spot=1)


def test_settlement_moves_balance_and_meters_and_they_reconcile(tmp_path: Path) -> None:
    t = table(tmp_path, credits=10_000)
    open_round(t, {1: {1: 1000, 3: 500}, 2: {2: 2000}}, PLAIN)
    assert t.fire("double", station=2, spot=2)  # 13 doubled for 4000 at stake
    assert t.fire("stand", station=1, spot=1)
    assert t.fire("stand", station=1, spot=3)
    t.deal("8H")            # station 2: 6D 7D 8H = 21
    t.deal("5C")            # the dealer: 9C 7C 5C = 21
    assert t.model.state == "round_over"
    assert meters(t, 1) == {"credits": 10_000 - 1500, "credits_in": 10_000,
                            "credits_out": 0, "wagered": 1500, "won": 0, "games_played": 1}
    assert meters(t, 2) == {"credits": 10_000, "credits_in": 10_000, "credits_out": 0,
                            "wagered": 4000, "won": 4000, "games_played": 1}  # a push
    assert meters(t, 3)["games_played"] == 0
    records = [(e.kind, e.data) for e in t.rt.journal.entries(STATION_KINDS)]
    kept = stored_credits(t.rt.critical_state(t.model))
    assert reconcile_credits(kept, replay_credits(records)) == []


def test_a_power_cut_mid_round_restores_credits_and_meters_exactly(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first = table(tmp_path, credits=5000)
    open_round(first, {1: {1: 1000}, 2: {2: 500}}, PLAIN)
    assert first.fire("double", station=1, spot=1)
    before = {s: meters(first, s) for s in (1, 2, 3)}
    available = first.model.credits.available(1)
    first.rt.journal.close()  # the power goes: no power-off is recorded
    again = table(tmp_path, credits=0)
    assert {s: meters(again, s) for s in (1, 2, 3)} == before
    assert again.model.credits.available(1) == available == 5000 - 2000
    assert again.rt.journal.last_kind() == "station:timer_started"  # journalled at once
    assert again.fire("stand", station=2, spot=2)
    again.deal("TD")                             # station 1: 5H TH TD = 25, busted
    again.deal("2C")                             # the dealer: 9C 7C 2C = 18
    assert meters(again, 1)["credits"] == 3000
    assert meters(again, 2)["credits"] == 4500
    again.rt.journal.close()
    assert meter_command.main(["show", "--station", "1", "--json",
                               "--state-dir", str(tmp_path)]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown == {"station": 1, "credits": 3000, "credits_in": 5000, "credits_out": 0,
                     "wagered": 2000, "won": 0, "games_played": 1, "reconciled": True}
    assert meter_command.main(["show", "--station", "7", "--state-dir", str(tmp_path)]) == 1
    assert "station 7: no credits or meters recorded" in capsys.readouterr().err


def test_a_kept_meter_that_does_not_add_up_is_named() -> None:
    records = [("station:credits_in", {"station": 2, "cents": 900}),
               ("station:settled", {"station": 2, "wagered": 300, "won": 600})]
    replayed = replay_credits(records)
    assert replayed[2] == {"credits": 1200, "credits_in": 900, "credits_out": 0,
                           "wagered": 300, "won": 600, "games_played": 1}
    kept = {2: {**replayed[2], "won": 500}}
    assert reconcile_credits(kept, replayed) == [
        "station 2 won: kept 500, the journal's records add up to 600"]


def test_cash_out_waits_for_the_round_and_auto_repeat_stops_without_credits(
        tmp_path: Path) -> None:
    t = table(tmp_path, credits=1500)
    open_round(t, {1: {1: 1000}}, PLAIN)
    assert not t.fire("credits_out", station=1, who="pit:supervisor")
    assert t.fire("auto_repeat", station=1, on=True, source="station")
    assert t.fire("stand", station=1, spot=1)
    t.deal("2C")                                 # the dealer: 18 beats 15
    assert t.fire("clear_round")
    assert t.model.wagers.auto == set()          # 500 left cannot repeat 1000
    assert t.model.wagers.spots == {}
    assert t.fire("credits_out", station=1, who="pit:supervisor")
    assert meters(t, 1) == {"credits": 0, "credits_in": 1500, "credits_out": 500,
                            "wagered": 1000, "won": 0, "games_played": 1}
