"""A card drawn in error (RULES.md "Irregularities"; regulation §1.7).

Not exposed: it is the next card. Exposed after the initial deal: offered to the players or
the dealer in order; a player who refuses it gets no more cards that round; if no one can use
it, it is burned.
"""

from dataclasses import replace
from pathlib import Path

from .helpers import deal, kinds, open_round
from .helpers import runtime as live_runtime


def runtime(tmp_path: Path):
    """A table where decisions come from buttons only: a card drawn while a decision is due
    is a card drawn in error (`[table] card_is_a_hit = false`)."""
    rt = live_runtime(tmp_path)
    config = rt.setup.config
    rt.setup = replace(rt.setup, config=replace(
        config, table=replace(config.table, card_is_a_hit=False)))
    rt.model.setup = rt.setup
    return rt


def two_seats_at_15_and_17(tmp_path: Path):
    rt = runtime(tmp_path)
    open_round(rt, {1: {"main": 1000}, 2: {"main": 1000}})
    deal(rt, "TS", "9H", "7C", "5D", "8C", "9D")  # seat 1 TS 5D, seat 2 9H 8C, dealer 7C 9D
    assert rt.model.state == "players"
    assert rt.model.decision_due() == (1, 0)
    return rt


def draw_in_error(rt, code: str, exposed: bool) -> None:
    assert rt.fire("card", code=code)  # no card is due: a decision is
    assert rt.model.state == "card_in_error"
    assert rt.fire("error_exposed" if exposed else "error_unexposed")
    assert rt.model.state == "players"


def test_the_player_in_turn_takes_the_exposed_card_by_hitting(tmp_path: Path) -> None:
    rt = two_seats_at_15_and_17(tmp_path)
    draw_in_error(rt, "KH", exposed=True)
    assert rt.model.decisions.exposed_card_offered()
    assert "EXPOSED CARD" in rt.model.outputs.public_view().dealer_text
    assert rt.fire("hit")  # decisions are open while the card is on offer
    seat = rt.model.game.seats[0]
    assert [str(c) for c in seat.hands[0].cards] == ["TS", "5D", "KH"]
    assert rt.model.round.next_card == ""
    assert "irregularity:held_card_used" in kinds(rt)


def test_a_player_who_refuses_is_passed_over_and_the_next_takes_it(tmp_path: Path) -> None:
    rt = two_seats_at_15_and_17(tmp_path)
    draw_in_error(rt, "4H", exposed=True)
    assert rt.fire("stand")  # seat 1 refuses the exposed card
    refused = [e.data for e in rt.journal.entries()
               if e.kind == "irregularity:exposed_card_refused"]
    assert refused == [{"seat": 1}]
    assert rt.model.decision_due() == (2, 0)
    assert rt.model.decisions.exposed_card_offered()  # offered on, in order
    assert rt.fire("hit")
    assert [str(c) for c in rt.model.game.seats[1].hands[0].cards] == ["9H", "8C", "4H"]


def test_a_player_who_refused_gets_no_more_cards_that_round(tmp_path: Path) -> None:
    rt = runtime(tmp_path)
    open_round(rt, {1: {"main": 1000}})
    deal(rt, "8S", "6D", "8H", "TC")  # seat 1 8S 8H; dealer 6D, hole TC (16)
    assert rt.fire("split")
    deal(rt, "3C")  # first split hand 8S 3C
    draw_in_error(rt, "KH", exposed=True)
    assert rt.fire("stand")  # refuses the exposed card on the first hand
    assert rt.model.round.refused == [1]
    # The second split hand's own second card comes from the shoe, not the refused card.
    assert rt.model.card_due_to() is not None
    deal(rt, "2D")
    assert rt.model.decision_due() == (1, 1)
    assert not rt.fire("hit")  # no more cards for the seat that refused
    assert not rt.fire("double")
    assert "procedure:rejected" in kinds(rt)
    assert rt.fire("stand")
    # The dealer must draw on 16: the exposed card is the dealer's, in order.
    record = rt.model.results[-1]
    assert record["dealer"] == ["6D", "TC", "KH"]
    assert [h["cards"] for h in record["seats"][0]["hands"]] == [["8S", "3C"], ["8H", "2D"]]


def test_an_exposed_card_no_one_can_use_is_burned(tmp_path: Path) -> None:
    rt = runtime(tmp_path)
    open_round(rt, {1: {"main": 1000}})
    deal(rt, "TS", "7C", "9H", "TD")  # seat 1 19 v dealer 17
    draw_in_error(rt, "5S", exposed=True)
    assert rt.fire("stand")  # refused; the dealer stands on 17
    assert rt.model.state == "round_over"
    assert rt.model.results[-1]["dealer"] == ["7C", "TD"]
    assert rt.fire("clear_round")
    burned = [e.data for e in rt.journal.entries() if e.kind == "irregularity:error_card_burned"]
    assert burned == [{"card": "5S"}]


def test_an_unexposed_card_is_the_next_card_whoever_draws(tmp_path: Path) -> None:
    rt = two_seats_at_15_and_17(tmp_path)
    draw_in_error(rt, "2C", exposed=False)
    assert not rt.model.decisions.exposed_card_offered()
    assert rt.fire("stand")  # not a refusal: the card was never offered
    assert rt.model.round.refused == []
    assert rt.fire("hit")  # seat 2 draws: it gets the held card, not a new one
    assert [str(c) for c in rt.model.game.seats[1].hands[0].cards] == ["9H", "8C", "2C"]
    assert "irregularity:exposed_card_refused" not in kinds(rt)


def test_the_offer_is_public_but_the_card_is_not(tmp_path: Path) -> None:
    rt = two_seats_at_15_and_17(tmp_path)
    start = len(rt.outputs.applied)
    draw_in_error(rt, "KH", exposed=True)
    rt.fire("stand")
    public = " ".join(str(e) for e in rt.outputs.applied[start:])
    assert "KH" not in public


def test_where_a_card_is_a_hit_the_card_drawn_goes_to_the_hand_due(tmp_path: Path) -> None:
    rt = live_runtime(tmp_path)  # the default table: a card drawn is a hit
    open_round(rt, {1: {"main": 1000}, 2: {"main": 1000}})
    deal(rt, "TS", "9H", "7C", "5D", "8C", "9D")
    assert rt.fire("card", code="KH")
    assert rt.model.state == "players"
    assert [str(c) for c in rt.model.game.seats[0].hands[0].cards] == ["TS", "5D", "KH"]
    hits = [e.data for e in rt.journal.entries() if e.kind == "decision:hit"]
    assert hits == [{"turn": [1, 0], "cents": None, "source": "shoe"}]
