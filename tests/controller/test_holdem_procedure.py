"""The Texas Hold'em Bonus procedure: antes, decisions, the camera's cards, holds, settlement."""

from __future__ import annotations

from pathlib import Path

from controller.procedure.core.effects import Lamp, LampState
from controller.procedure.holdem import HoldemModel
from tests.controller.holdem_helpers import Table, open_round, table


def _to_river(t: Table) -> None:
    """Seats 1 and 3 bet; the flop; seat 3 bets the turn; the turn; both check the river."""
    assert t.fire("bet", seat=1)
    assert t.fire("bet", seat=3)
    t.read("flop", "AS", "KD", "7C")
    assert t.fire("check", seat=1)
    assert t.fire("bet", seat=3)
    t.read("turn", "2H")
    assert t.fire("check", seat=1)
    assert t.fire("check", seat=3)


def test_a_round_settles_each_wager_from_the_cards_read(tmp_path: Path) -> None:
    t = table(tmp_path)
    open_round(t, {1: (1000, 500), 3: (1000, 0)})
    _to_river(t)
    t.read("river", "9S")
    t.read("dealer", "QH", "QS")
    assert t.model.public_round()["prompt"] == "expose seat 3's cards"  # from the dealer's right
    t.read("seat", "AH", "AC", seat=3)
    t.read("seat", "3D", "4D", seat=1)
    assert t.model.state == "round_over"
    [record] = t.records("round:settled")
    assert record["board"] == ["AS", "KD", "7C", "2H", "9S"]
    assert record["dealer"] == ["QH", "QS"]
    # Seat 3's trip aces beat queens: flop and turn bets paid, the ante pushes (no straight).
    assert record["seats"]["3"]["nets"] == {"ante": 0, "bonus": 0, "flop": 1000,
                                            "turn": 1000, "river": 0}
    # Seat 1 loses ante, flop bet and its bonus (no pair, no line on the table).
    assert record["seats"]["1"]["nets"] == {"ante": -1000, "bonus": -500, "flop": -1000,
                                            "turn": 0, "river": 0}
    assert [d["decision"] for d in t.records("holdem:decision")] == [
        "bet", "bet", "check", "bet", "check", "check"]


def test_every_seat_folding_ends_the_round_without_a_card(tmp_path: Path) -> None:
    t = table(tmp_path)
    open_round(t, {2: (1000, 500)})
    assert not t.fire("check", seat=2)  # before the flop a seat bets or folds
    assert t.fire("fold", seat=2)
    assert t.model.state == "round_over"
    [record] = t.records("round:settled")
    assert record["seats"]["2"]["nets"]["ante"] == -1000
    assert record["seats"]["2"]["nets"]["bonus"] == -500
    assert record["board"] == []
    assert record["dealer"] == []


def test_an_unsure_card_is_asked_for_and_keyed_at_the_console(tmp_path: Path) -> None:
    t = table(tmp_path)
    open_round(t, {1: (1000, 0), 3: (1000, 0)})
    _to_river(t)
    assert t.fire("camera_card", area="river", seat=None, card=None, confirmed=False)
    assert t.records("card:asked")[-1] == {"round": 1, "area": "river", "seat": None,
                                           "guess": None}
    assert not t.fire("confirm_card")  # no camera guess to confirm
    assert not t.fire("key_card", card="ZZ")  # no card: refused, nothing taken
    assert t.fire("key_card", card="9S", source="console")
    read = t.records("card:read")[-1]
    assert read["card"] == "9S"
    assert read["by"] == "keyed"
    assert read["confirmed"] is False
    assert t.model.game is not None
    assert str(t.model.game.board[-1]) == "9S"


def test_an_unsure_guess_is_confirmed_and_journalled_as_keyed(tmp_path: Path) -> None:
    t = table(tmp_path)
    open_round(t, {1: (1000, 0), 3: (1000, 0)})
    _to_river(t)
    assert t.fire("camera_card", area="river", seat=None, card="9S", confirmed=False)
    assert t.model.game is not None
    assert len(t.model.game.board) == 4
    assert t.fire("confirm_card")
    read = t.records("card:read")[-1]
    assert (read["card"], read["by"], read["confirmed"]) == ("9S", "keyed", True)


def test_a_card_seen_twice_holds_the_round_until_the_supervisor_key(tmp_path: Path) -> None:
    t = table(tmp_path)
    open_round(t, {1: (1000, 0), 3: (1000, 0)})
    _to_river(t)
    t.read("river", "KD")  # already on the flop: one deck holds one KD
    assert t.model.state == "card_hold"
    assert t.rt.shown is not None
    assert dict(t.rt.shown.lamps)[Lamp.FAULT] == LampState.FLASH
    t.fire("camera_card", area="river", seat=None, card="9S", confirmed=True)
    assert t.model.game is not None
    assert len(t.model.game.board) == 4
    assert not t.fire("supervisor_clear", who="pit")  # no key: the dealer cannot clear it
    t.model.key_on = "pit"
    assert t.fire("supervisor_clear", who="pit")
    assert t.model.state == "cards"
    t.read("river", "9S")
    assert t.model.game is not None
    assert str(t.model.game.board[-1]) == "9S"
    assert t.model.state == "cards"  # the dealer's cards are next
    hold = t.records("procedure:hold")[-1]
    assert hold["hold"] == "card_hold"
    assert "KD seen twice" in hold["reason"]


def test_a_lost_layout_pauses_betting_and_the_round_goes_on(tmp_path: Path) -> None:
    t = table(tmp_path)
    assert t.fire("shuffle_done")
    assert t.fire("wager", seat=1, bet="ante", cents=1000)
    assert t.fire("link_down", device="layout", reason="unplugged")
    assert not t.fire("no_more_bets")
    assert t.model.state == "betting"
    assert t.fire("link_up", device="layout", reconciled=True)
    assert t.fire("no_more_bets")
    assert t.records("table:paused")
    assert t.records("table:resumed")


def test_chips_on_a_sensor_need_their_amount_before_no_more_bets(tmp_path: Path) -> None:
    t = table(tmp_path)
    assert t.fire("shuffle_done")
    assert t.fire("wager", seat=1, bet="ante", cents=1000)
    assert t.fire("bet_sensor", sensor="seat2.ante", occupied=True)
    assert not t.fire("no_more_bets")  # seat 2's chips have no amount yet
    assert t.model.wagers.unknown_amounts() == ["seat2.ante"]
    assert not t.fire("wager", seat=2, bet="bonus", cents=500)  # a bonus needs the ante
    assert t.fire("wager", seat=2, bet="ante", cents=1000)
    assert not t.fire("wager", seat=2, bet="ante", cents=1)  # below the table minimum
    assert t.fire("no_more_bets")
    assert t.records("holdem:antes")[-1]["seats"] == {"1": {"ante": 1000, "bonus": 0},
                                                      "2": {"ante": 1000, "bonus": 0}}


def test_the_round_survives_a_restart_from_its_snapshot(tmp_path: Path) -> None:
    t = table(tmp_path)
    open_round(t, {1: (1000, 500), 3: (1000, 0)})
    _to_river(t)
    assert t.fire("camera_card", area="river", seat=None, card="9S", confirmed=False)
    saved = t.model.snapshot()
    again = HoldemModel(t.model.setup, t.model.progressive.meters)
    again.restore(saved)
    assert again.state == "cards"
    assert again.public_round() == t.model.public_round()
    assert again.snapshot() == saved


def test_a_reading_between_rounds_is_journalled_not_taken(tmp_path: Path) -> None:
    t = table(tmp_path)
    assert t.fire("camera_card", area="flop", seat=None, card="AS", confirmed=True)
    assert t.records("camera:not_read")[-1]["reason"] == "no card is read in state shuffling"


def test_the_card_due_can_be_keyed_before_the_camera_reads_it(tmp_path: Path) -> None:
    t = table(tmp_path)
    open_round(t, {1: (1000, 0)})
    assert not t.fire("key_card", card="AS")  # decisions: no card is due
    assert t.fire("bet", seat=1)
    for code in ("AS", "KD", "7C"):
        assert t.fire("key_card", card=code, source="console")
    assert [r["card"] for r in t.records("card:read")] == ["AS", "KD", "7C"]
    assert {r["by"] for r in t.records("card:read")} == {"keyed"}
    assert t.model.state == "decisions"


def test_a_restarted_table_resumes_the_round_from_its_journal(tmp_path: Path) -> None:
    t = table(tmp_path)
    open_round(t, {1: (1000, 500), 3: (1000, 0)})
    _to_river(t)
    assert t.fire("camera_card", area="river", seat=None, card="9S", confirmed=False)
    shown = t.model.public_round()
    t.rt.journal.close()
    again = table(tmp_path)
    assert again.model.state == "cards"
    assert again.model.public_round() == shown
    assert again.fire("confirm_card")
    again.read("dealer", "QH", "QS")
    again.read("seat", "AH", "AC", seat=3)
    again.read("seat", "3D", "4D", seat=1)
    assert again.records("round:settled")[-1]["seats"]["3"]["net"] == 2000
