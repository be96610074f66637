"""The community game on the dealer's console: each station's wagers, side wagers included,
and no station said FINISHED before its decisions have begun."""

from __future__ import annotations

from pathlib import Path

from controller.console.views.community import community_table
from tests.controller import community_helpers as ch

STARTING = ["5H", "6D", "8S", "9C", "TH", "7D", "QS", "7C"]
"""Spots 5H TH / 6D 7D / 8S QS, the dealer's 9C up and 7C in the hole (no peek)."""


def test_side_wagers_show_while_betting_and_in_play(tmp_path: Path) -> None:
    t = ch.table(tmp_path, side_bets=("perfect-pairs",))
    assert t.fire("shuffle_done")
    assert t.fire("wager", station=1, spot=2, cents=1000, source="test")
    assert t.fire("wager", station=1, spot=2, cents=500, bet="perfect-pairs", source="test")
    assert t.fire("wager", station=2, spot=1, cents=1000, source="test")
    betting = community_table(t.model)["betting"]
    assert betting == [
        {"station": 1, "spots": {"2": 1000}, "side_bets": {"2": {"perfect-pairs": 500}}},
        {"station": 2, "spots": {"1": 1000}, "side_bets": {}}]
    assert t.fire("no_more_bets")
    playing = community_table(t.model)["playing"]
    assert [(p["station"], p["spots"], p["side_bets"]) for p in playing] == [
        (1, {"2": 1000}, {"2": {"perfect-pairs": 500}}), (2, {"1": 1000}, {})]


def test_no_station_is_finished_before_a_card_is_dealt(tmp_path: Path) -> None:
    t = ch.table(tmp_path)
    assert t.fire("shuffle_done")
    assert t.fire("wager", station=1, spot=1, cents=1000, source="test")
    assert t.fire("no_more_bets")
    assert [p["phase"] for p in community_table(t.model)["playing"]] == ["in_play"]
    t.deal(*STARTING[:5])
    assert [p["phase"] for p in community_table(t.model)["playing"]] == ["in_play"]
    t.deal(*STARTING[5:])
    assert t.model.state == "decisions"
    assert [p["phase"] for p in community_table(t.model)["playing"]] == ["deciding"]
