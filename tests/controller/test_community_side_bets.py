"""Side wagers per spot at the community table: offered by `[rules.community]`, placed on a
wagered spot within their limits, settled by the rules' pay tables with the spot, journalled,
in the station's credits and meters, and kept across a power cut.

Starting cards in dealing order (spot 1, 2, 3, up, spot 1, 2, 3, hole): spot 1 8S 8S (a
perfect pair), spot 2 QH KH (a suited 20), spot 3 9H 5C (the 9H matches the up card, suited);
the dealer 9H up, 7C in the hole (16), then TD: bust.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.procedure.community import (
    STATION_KINDS,
    reconcile_credits,
    replay_credits,
    stored_credits,
)
from controller.rules.errors import ConfigError
from controller.service.tableconfig import parse_table_text

from .community_helpers import CREDITS, SECONDS, SIDE_BETS, Table, table

DEAL = ["8S", "QH", "9H", "9H", "8S", "KH", "5C", "7C"]


@pytest.fixture
def t(tmp_path: Path) -> Table:
    return table(tmp_path, side_bets=SIDE_BETS)


def bet(t: Table, station: int, spot: int, cents: int, name: str = "main") -> bool:
    return t.fire("wager", station=station, spot=spot, cents=cents, bet=name, source="test")


def place(t: Table) -> None:
    assert t.fire("shuffle_done")
    assert bet(t, 1, 1, 1000)
    assert bet(t, 1, 1, 500, "perfect-pairs")
    assert bet(t, 2, 2, 1000)
    assert bet(t, 2, 2, 500, "lucky-ladies")
    assert bet(t, 3, 3, 1000)
    assert bet(t, 3, 3, 500, "match-the-dealer")
    assert bet(t, 3, 3, 500, "perfect-pairs")


def play(t: Table) -> None:
    assert t.fire("no_more_bets")
    t.deal(*DEAL)
    t.wait(SECONDS)  # every hand stands
    t.deal("TD")
    assert t.model.state == "round_over"


def test_side_wagers_are_settled_per_spot_by_the_pay_tables(t: Table) -> None:
    place(t)
    play(t)
    spots = {(s["station"], p["spot"]): p for s in t.model.results[-1]["stations"]
             for p in s["spots"]}
    assert spots[(1, 1)]["side_bets"] == {"perfect-pairs": 12_500}  # perfect pair 25:1
    assert spots[(2, 2)]["side_bets"] == {"lucky-ladies": 5_000}  # suited 20 10:1
    assert spots[(3, 3)]["side_bets"] == {"match-the-dealer": 5_500,  # suited match 11:1
                                          "perfect-pairs": -500}
    # The spot's one net counts its side wagers: the main wager won 1000 (dealer bust).
    assert [spots[k]["net"] for k in ((1, 1), (2, 2), (3, 3))] == [13_500, 6_000, 6_000]
    settled = {r["station"]: r for r in t.records("station:settled")}
    assert [settled[s]["wagered"] for s in (1, 2, 3)] == [1_500, 1_500, 2_000]
    assert [settled[s]["won"] for s in (1, 2, 3)] == [15_000, 7_500, 8_000]
    assert t.model.credits.balance[1] == CREDITS + 13_500
    kept = stored_credits(t.rt.journal.load_critical())
    replayed = replay_credits((e.kind, e.data) for e in t.rt.journal.entries(
        STATION_KINDS))
    assert not reconcile_credits(kept, replayed)


def test_a_side_wager_needs_its_spot_wagered_offered_and_within_its_limits(t: Table) -> None:
    assert t.fire("shuffle_done")
    wagers = t.model.wagers
    assert "place the main wager first" in wagers.refusal(
        {"station": 1, "spot": 2, "cents": 500, "bet": "perfect-pairs"})
    assert not bet(t, 1, 2, 500, "perfect-pairs")
    assert bet(t, 1, 2, 1000)
    assert "is not offered" in wagers.refusal(
        {"station": 1, "spot": 2, "cents": 500, "bet": "blazing7s"})
    rules = t.model.setup.config.community
    assert not bet(t, 1, 2, rules.side_min_wager - 1, "perfect-pairs")  # under the minimum
    assert bet(t, 1, 2, rules.side_max_wager, "perfect-pairs")
    assert "outside the side wager limits" in wagers.refusal(
        {"station": 1, "spot": 2, "cents": 100, "bet": "perfect-pairs"})  # over the maximum
    assert t.model.credits.available(1) == CREDITS - 1000 - rules.side_max_wager
    placed = t.records("bet:wager")
    assert [(r["bet"], r["cents"]) for r in placed] == [
        ("main", 1000), ("perfect-pairs", rules.side_max_wager)]


def test_clear_last_takes_the_side_wager_first_and_repeat_places_it_again(t: Table) -> None:
    place(t)
    assert t.fire("clear_last", station=3, source="test")
    assert t.model.wagers.sides[3] == {3: {"match-the-dealer": 500}}
    assert t.fire("clear_all", station=3, source="test")
    assert 3 not in t.model.wagers.sides
    assert 3 not in t.model.wagers.spots
    play(t)
    assert t.fire("clear_round")
    assert t.fire("repeat", station=1, source="test")
    assert t.model.wagers.spots[1] == {1: 1000}
    assert t.model.wagers.sides[1] == {1: {"perfect-pairs": 500}}


def test_side_wagers_in_play_come_back_after_a_power_cut(tmp_path: Path) -> None:
    t = table(tmp_path, side_bets=SIDE_BETS)
    place(t)
    assert t.fire("no_more_bets")
    t.deal(*DEAL[:5])
    t.rt.journal.close()
    again = table(tmp_path, credits=0, side_bets=SIDE_BETS)
    assert again.model.game is not None
    assert again.model.game.sides == {1: {1: {"perfect-pairs": 500}},
                                      2: {2: {"lucky-ladies": 500}},
                                      3: {3: {"match-the-dealer": 500, "perfect-pairs": 500}}}
    assert again.model.credits.available(3) == CREDITS - 2000
    again.deal(*DEAL[5:])
    again.wait(SECONDS)
    again.deal("TD")
    nets = {(s["station"], p["spot"]): p["net"] for s in again.model.results[-1]["stations"]
            for p in s["spots"]}
    assert nets == {(1, 1): 13_500, (2, 2): 6_000, (3, 3): 6_000}


def test_the_side_wagers_offered_are_configuration() -> None:
    parsed = parse_table_text('[table]\ngame = "community"\nside_bets = []\n'
                              '[rules.community]\nside_bets = ["perfect-pairs"]\n'
                              'side_min_wager = 200\nside_max_wager = 10000\n')
    rules = parsed.game.community
    assert (rules.side_bets, rules.side_min_wager, rules.side_max_wager) == (
        ("perfect-pairs",), 200, 10_000)
    with pytest.raises(ConfigError, match=r"\[rules.community\] side_bets: unknown name "
                                          r"'blazing7s'"):
        parse_table_text('[table]\ngame = "community"\nside_bets = []\n'
                         '[rules.community]\nside_bets = ["blazing7s"]\n')
    with pytest.raises(ConfigError, match=r"\[rules.community\] side_min_wager"):
        parse_table_text('[table]\ngame = "community"\nside_bets = []\n'
                         '[rules.community]\nside_min_wager = 900\nside_max_wager = 800\n')
    with pytest.raises(ConfigError, match=r"\[rules.blackjack\] side_min_wager"):
        parse_table_text("[rules.blackjack]\nside_min_wager = 100\n")
