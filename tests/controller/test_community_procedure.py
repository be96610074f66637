"""The community game's procedure: every timing rule of seed 004 on an injected clock, the
rules of the game through settlement, and the journal of each card and decision.

Starting cards are given in dealing order: spot 1, 2, 3, dealer up, spot 1, 2, 3, hole.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .community_helpers import SECONDS, Table, open_round, table

ONE_SPOT = {1: {1: 1000}}
THREE = {s: {1: 1000, 2: 1000, 3: 1000} for s in (1, 2, 3)}
# spot 1: 5+T=15, spot 2: 6+7=13, spot 3: 8+Q=18; dealer 9 up, 7 in the hole (16).
PLAIN = ["5H", "6D", "8S", "9C", "TH", "7D", "QS", "7C"]


@pytest.fixture
def t(tmp_path: Path) -> Table:
    return table(tmp_path)


def nets(t: Table) -> dict[tuple[int, int], int]:
    record = t.model.results[-1]
    return {(s["station"], p["spot"]): p["net"] for s in record["stations"] for p in s["spots"]}


def test_hit_ends_the_round_of_decisions_and_stops_the_timer(t: Table) -> None:
    open_round(t, THREE, PLAIN)
    t.wait(SECONDS - 5)
    assert t.fire("hit", station=1, spot=2)
    assert t.phase(1) == "waiting"
    assert t.model.timers.remaining(1) is None
    # A second hit, split or double in the same round is refused.
    assert not t.fire("hit", station=1, spot=3)
    assert not t.fire("stand", station=1, spot=1)
    # Its timer is stopped: waiting past the limit stands nothing of station 1.
    t.wait(10)
    assert t.phase(1) == "waiting"
    stopped = [r for r in t.records("station:timer_stopped") if r["station"] == 1]
    assert stopped
    assert stopped[0]["why"] == "decided"
    assert stopped[0]["seconds_left"] == 5.0


def test_after_the_card_the_timer_starts_over_with_every_option(t: Table) -> None:
    open_round(t, {1: {1: 1000, 2: 1000}, 2: {1: 1000}}, PLAIN)
    assert t.fire("hit", station=1, spot=2)
    assert t.fire("stand", station=2, spot=1)
    t.wait(SECONDS - 1)  # station 2 is finished; station 1 waits: the card is due
    assert t.model.card_due_to() == "community"
    t.deal("2C")  # spot 2: 6+7+2 = 15
    assert t.phase(1) == "deciding"
    assert t.model.timers.remaining(1) == SECONDS
    assert t.model.game is not None
    assert {str(a) for a in t.model.game.legal(1, 1)} >= {"hit", "stand"}
    assert {str(a) for a in t.model.game.legal(1, 2)} >= {"hit", "stand"}


def test_stand_is_not_round_ending_and_keeps_the_same_timer(t: Table) -> None:
    open_round(t, {1: {1: 1000, 2: 1000, 3: 1000}}, PLAIN)
    t.wait(6)
    assert t.fire("stand", station=1, spot=3)
    assert t.phase(1) == "deciding"
    assert t.model.timers.remaining(1) == SECONDS - 6
    assert t.model.card_due_to() is None  # the dealer draws nothing while a station decides
    t.wait(SECONDS - 6)
    assert t.phase(1) == "finished"  # the expiry stood the other two hands


def test_expiry_stands_every_hand(t: Table) -> None:
    open_round(t, THREE, PLAIN)
    t.wait(SECONDS)
    assert all(t.phase(s) == "finished" for s in (1, 2, 3))
    assert len(t.records("station:timer_expired")) == 3
    assert t.model.state == "dealer"


def test_expiry_is_measured_on_the_loop_clock_not_before(t: Table) -> None:
    open_round(t, ONE_SPOT, PLAIN)
    t.wait(SECONDS - 0.001)
    assert t.phase(1) == "deciding"
    t.wait(0.001)
    assert t.phase(1) == "finished"


def test_finished_station_gets_burns_and_others_their_chosen_hands(t: Table) -> None:
    open_round(t, THREE, PLAIN)
    assert t.fire("hit", station=1, spot=1)
    assert t.fire("hit", station=2, spot=2)
    for spot in (1, 2, 3):
        assert t.fire("stand", station=3, spot=spot)
    t.deal("3D")
    routed = t.records("card:dealt")[-1]
    assert routed["to"] == [{"station": 1, "spot": 1, "hand": 1},
                            {"station": 2, "spot": 2, "hand": 1}]
    assert routed["burned_for"] == [3]
    game = t.model.game
    assert game is not None
    assert game.dealt[(1, 1)] == ["5H", "TH", "3D"]
    assert game.dealt[(2, 2)] == ["6D", "7D", "3D"]
    assert game.dealt[(3, 1)] == ["5H", "TH"]


def test_after_a_split_standing_one_hand_sends_the_next_card_to_the_other(t: Table) -> None:
    # spot 1 a pair of eights.
    open_round(t, {1: {1: 1000, 2: 1000}}, ["8H", "6D", "8S", "9C", "8D", "7D", "QS", "7C"])
    assert t.fire("split", station=1, spot=1)
    assert t.phase(1) == "waiting"
    t.deal("2C")  # first split hand: 8 2
    assert t.phase(1) == "deciding"
    # Double after split is open on a split hand (not aces).
    assert t.model.game is not None
    assert "double" in {str(a) for a in t.model.game.legal(1, 1)}
    assert t.fire("stand", station=1, spot=1)
    assert t.phase(1) == "waiting"  # the stand is an action: the card goes to the other hand
    assert t.model.timers.remaining(1) is None
    t.deal("3H")
    hands = t.model.game.spots[(1, 1)].seats[0].hands
    assert [str(c) for c in hands[1].cards] == ["8D", "3H"]
    assert t.records("card:dealt")[-1]["to"] == [{"station": 1, "spot": 1, "hand": 2}]
    assert t.phase(1) == "deciding"


def test_split_aces_take_one_card_each_and_no_double(t: Table) -> None:
    open_round(t, ONE_SPOT, ["AH", "6D", "8S", "9C", "AD", "7D", "QS", "7C"])
    assert t.model.game is not None
    assert "split" in {str(a) for a in t.model.game.legal(1, 1)}
    assert t.fire("split", station=1, spot=1)
    t.deal("5C")
    assert t.phase(1) == "waiting"  # the first ace is done: the next card is the second's
    t.deal("KH")
    assert t.phase(1) == "finished"
    hands = t.model.game.spots[(1, 1)].seats[0].hands
    assert [len(h.cards) for h in hands] == [2, 2]
    assert not hands[1].blackjack  # A K after a split is 21, not a blackjack


def test_no_resplit(t: Table) -> None:
    open_round(t, ONE_SPOT, ["8H", "6D", "8S", "9C", "8D", "7D", "QS", "7C"])
    assert t.fire("split", station=1, spot=1)
    t.deal("8C")
    assert t.model.game is not None
    assert "split" not in {str(a) for a in t.model.game.legal(1, 1)}


def test_dealer_turns_the_hole_card_only_when_every_station_is_finished(t: Table) -> None:
    open_round(t, {1: {1: 1000}, 2: {1: 1000}}, PLAIN)
    assert t.fire("stand", station=1, spot=1)
    assert t.model.game is not None
    assert t.model.game.dealer_public() == ["9C"]
    assert t.model.state == "decisions"
    assert t.fire("stand", station=2, spot=1)
    assert t.model.state == "dealer"
    assert t.model.game.dealer_public() == ["9C", "7C"]
    assert t.model.card_due_to() == "dealer"
    t.deal("4S")  # dealer 20
    assert t.model.state == "round_over"
    assert nets(t) == {(1, 1): -1000, (2, 1): -1000}


def test_blackjack_pays_six_to_five(t: Table) -> None:
    open_round(t, ONE_SPOT, ["AH", "6D", "8S", "9C", "KD", "7D", "QS", "7C"])
    # Every hand is decided: the dealer need not draw; the round is settled at once.
    assert t.model.state == "round_over"
    assert nets(t) == {(1, 1): 1200}


def test_push_and_double(t: Table) -> None:
    # spot 1: 5+6=11 doubled; spot 2: T+Q=20 against the dealer's 20.
    open_round(t, {1: {1: 1000, 2: 1000}}, ["5H", "TD", "8S", "9C", "6H", "QD", "QS", "7C"])
    assert t.fire("double", station=1, spot=1)
    t.deal("9D")  # 20
    assert t.fire("stand", station=1, spot=2)
    t.deal("4S")  # dealer 9 7 4 = 20
    assert nets(t) == {(1, 1): 0, (1, 2): 0}


def test_ten_card_charlie_wins_even_money(t: Table) -> None:
    open_round(t, ONE_SPOT, ["AH", "6D", "8S", "TC", "AD", "7D", "QS", "QC"])
    for card in ("AS", "AC", "2H", "2D", "2S", "2C", "2H", "2D"):
        assert t.fire("hit", station=1, spot=1)
        t.deal(card)
    game = t.model.game
    assert game is not None
    assert len(game.dealt[(1, 1)]) == 10
    assert t.phase(1) == "finished"  # ten cards, 16: a Charlie, against the dealer's 20
    assert nets(t) == {(1, 1): 1000}


def test_insurance_pays_two_to_one_and_expiry_declines(t: Table) -> None:
    open_round(t, {1: {1: 1000}, 2: {1: 1000}}, ["5H", "6D", "8S", "AC", "TH", "7D", "QS", "KC"])
    assert t.model.state == "insurance"
    assert not t.fire("insurance", station=1, spot=1, cents=600)  # over half the wager
    assert t.fire("insurance", station=1, spot=1, cents=500)
    t.wait(SECONDS)  # station 2 says nothing: declined
    assert t.records("station:timer_expired")[-1]["station"] == 2
    assert t.model.state == "round_over"  # the peek found the blackjack
    assert t.records("dealer:hole_revealed")[-1]["dealer"] == ["AC", "KC"]
    assert nets(t) == {(1, 1): 0, (2, 1): -1000}


def test_insurance_lost_without_a_dealer_blackjack(t: Table) -> None:
    open_round(t, ONE_SPOT, ["5H", "6D", "8S", "AC", "TH", "7D", "QS", "6C"])
    assert t.fire("insurance", station=1, spot=1, cents=500)
    assert t.model.state == "decisions"
    assert t.model.game is not None
    assert t.model.game.dealer_public() == ["AC"]
    assert t.fire("stand", station=1, spot=1)
    t.deal("KD")  # dealer A 6 K = 17
    assert nets(t) == {(1, 1): -1500}


def test_a_card_while_stations_decide_is_an_irregularity(t: Table) -> None:
    open_round(t, ONE_SPOT, PLAIN)
    assert t.fire("card", code="4H")
    assert t.model.state == "card_in_error"
    assert t.fire("error_unexposed")
    assert t.fire("hit", station=1, spot=1)  # the kept card is the next community card
    game = t.model.game
    assert game is not None
    assert game.dealt[(1, 1)] == ["5H", "TH", "4H"]


def test_a_station_under_the_minimum_is_returned(t: Table) -> None:
    assert t.fire("shuffle_done")
    least = t.model.setup.config.table.min_wager
    assert t.fire("wager", station=1, spot=1, cents=least)
    assert t.fire("wager", station=2, spot=1, cents=max(1, least // 2))
    assert t.fire("no_more_bets")
    assert t.records("round:no_more_bets")[-1]["returned_under_minimum"] == [2]
    assert t.model.credits.at_stake(2) == 0  # returned: its credits are free again
    assert t.model.credits.at_stake(1) == least


def test_clear_last_and_clear_all(t: Table) -> None:
    assert t.fire("shuffle_done")
    for spot, cents in ((1, 500), (2, 1000), (1, 500)):
        assert t.fire("wager", station=1, spot=spot, cents=cents)
    assert t.fire("clear_last", station=1)
    assert t.model.wagers.spots == {1: {1: 500, 2: 1000}}
    assert t.fire("clear_all", station=1)
    assert t.model.wagers.spots == {}
    assert not t.fire("clear_all", station=1)


def test_restart_mid_decisions_resumes_the_same_round(tmp_path: Path) -> None:
    first = table(tmp_path)
    open_round(first, {1: {1: 1000, 2: 1000}}, PLAIN)
    assert first.fire("hit", station=1, spot=1)
    first.deal("3D")
    assert first.fire("stand", station=1, spot=2)
    first.rt.journal.close()
    again = table(tmp_path)
    assert again.model.state == "decisions"
    game = again.model.game
    assert game is not None
    assert game.dealt[(1, 1)] == ["5H", "TH", "3D"]
    assert again.phase(1) == "deciding"
    assert again.model.timers.remaining(1) == SECONDS
    assert again.fire("stand", station=1, spot=1)
    assert again.model.state == "dealer"


def test_every_decision_and_card_is_journalled(t: Table) -> None:
    open_round(t, ONE_SPOT, PLAIN)
    assert t.fire("hit", station=1, spot=1, source="station")
    t.deal("2D")
    decisions = t.records("decision")
    assert decisions == [{"round": 1, "station": 1, "spot": 1, "hand": 1, "action": "hit",
                          "station_now": "waiting", "source": "station"}]
    assert [r["card"] for r in t.records("card:dealt")] == [*PLAIN, "2D"]
    assert t.records("card:dealt")[-1]["stage"] == "decisions"


def test_a_lost_layout_pauses_the_community_table_like_the_others(t: Table) -> None:
    from controller.console.prompts import prompt
    from drivers import events as ev

    assert t.fire("shuffle_done")
    assert t.fire("wager", station=1, spot=1, cents=1000)
    t.rt.handle(ev.LinkDown("layout", "timeout", 0.0))
    assert t.records("table:paused") == [
        {"device": "layout", "state": "betting", "round": 1, "round_in_play": False}]
    assert prompt(t.model).startswith("layout down: table paused")
    assert not t.fire("no_more_bets")
    assert t.fire("card", code="9H")  # never dealt into the unlit layout
    assert t.model.state == "card_in_error"
    assert t.fire("error_unexposed")
    t.rt.handle(ev.LinkUp("layout", "ok", 0.0))
    assert t.records("table:resumed")[-1]["state"] == "betting"
    assert t.fire("no_more_bets")
    assert t.model.state == "dealing"


@pytest.mark.parametrize(("text", "why"), [
    ("decision_seconds = 4", "[rules.community] decision_seconds: must be 5..120, got 4"),
    ("decision_seconds = 121", "must be 5..120, got 121"),
    ("stations = 0", "[rules.community] stations: must be 1..200, got 0"),
    ("stations = 201", "must be 1..200, got 201"),
    ("decision_seconds = 1.5", "decision_seconds: expected a whole number"),
])
def test_the_community_keys_are_bounded(text: str, why: str) -> None:
    from controller.rules.errors import ConfigError
    from controller.service.tableconfig import parse_table_text

    with pytest.raises(ConfigError) as caught:
        parse_table_text(f"[table]\ngame = \"community\"\nside_bets = []\n"
                         f"[rules.community]\n{text}\n")
    assert why in str(caught.value)


def test_decision_seconds_is_the_timer_and_only_the_community_has_it() -> None:
    from controller.rules.errors import ConfigError
    from controller.service.tableconfig import parse_table_text

    table_file = parse_table_text("[table]\ngame = \"community\"\nside_bets = []\n"
                                  "[rules.community]\ndecision_seconds = 30\nstations = 40\n")
    assert (table_file.game.community.decision_seconds, table_file.game.community.stations) \
        == (30, 40)
    with pytest.raises(ConfigError, match=r"\[rules.blackjack\] decision_seconds"):
        parse_table_text("[rules.blackjack]\ndecision_seconds = 30\n")


@pytest.mark.parametrize("ticking", [False, True], ids=["still_clock", "ticking_clock"])
def test_timers_running_out_together_are_one_commit(tmp_path: Path, ticking: bool) -> None:
    """Stations that start deciding in one step share one deadline, and so run out in one
    commit, even on a clock that moves between two reads (as a real one does)."""
    t = table(tmp_path, stations=3)
    if ticking:
        still = t.clock

        def moving() -> float:
            still.advance(1e-6)
            return still()
        t.loop.clock = moving
    open_round(t, {1: {1: 1000}, 2: {2: 1000}, 3: {3: 1000}}, PLAIN)
    commits: list[list[str]] = []
    commit = t.rt.journal.commit

    def counted(effects: list[object], critical: object) -> None:
        commits.append([getattr(e, "kind", "") for e in effects])
        commit(effects, critical)  # type: ignore[arg-type]

    t.rt.journal.commit = counted  # type: ignore[method-assign]
    deadlines = {r["deadline"] for r in t.records("station:timer_started")}
    assert len(deadlines) == 1
    t.wait(deadlines.pop() - t.clock())  # the loop wakes when the timers fall due
    expired = [c for c in commits if "station:timer_expired" in c]
    assert len(expired) == 1
    assert expired[0].count("station:timer_expired") == 3
    assert [r["station"] for r in t.records("station:timer_expired")] == [1, 2, 3]
    assert t.model.state in ("dealer", "settlement", "round_over")
