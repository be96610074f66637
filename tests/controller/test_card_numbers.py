"""The shoe numbers its cards from 1 after each load; the controller holds the table when a
number is skipped (a card left the shoe that nothing recorded, e.g. the controller lost power
after the board's report was acknowledged) and ignores a number reported again."""

import time
from pathlib import Path

from drivers import events as ev

from .helpers import kinds, open_round, runtime


def card(number: int, code: str) -> ev.CardDrawn:
    return ev.CardDrawn("shoe", number, code, 99, time.monotonic())


def test_consecutive_numbers_deal_and_a_repeated_one_is_ignored(tmp_path: Path) -> None:
    rt = runtime(tmp_path)
    open_round(rt, {1: {"main": 1000}})
    rt.handle(card(1, "9H"))
    rt.handle(card(2, "7C"))
    rt.handle(card(2, "7C"))  # the board repeated a report the journal already holds
    assert rt.model.state == "dealing"
    assert rt.model.shoe.tally.cards_out == 2
    repeated = [e.data for e in rt.journal.entries(["shoe:card_repeated"])]
    assert repeated == [{"card_no": 2, "last": 2}]


def test_a_skipped_number_holds_the_table_and_keeps_the_card_in_the_audit_journal(
        tmp_path: Path) -> None:
    rt = runtime(tmp_path)
    open_round(rt, {1: {"main": 1000}})
    rt.handle(card(1, "9H"))
    rt.handle(card(4, "KS"))
    assert rt.model.state == "shoe_error"
    gap = [e.data for e in rt.journal.entries(["shoe:card_after_gap"])]
    assert gap == [{"card_no": 4, "card": "KS", "missing": [2, 3]}]
    hold = next(e.data for e in rt.journal.entries(["procedure:hold"]))
    assert hold["reason"] == "cards 2..3 left the shoe but were never recorded"


def test_the_last_number_survives_a_power_loss(tmp_path: Path) -> None:
    rt = runtime(tmp_path)
    open_round(rt, {1: {"main": 1000}})
    rt.handle(card(1, "9H"))
    rt.handle(card(2, "7C"))
    rt.journal.close()  # as after kill -9: the next process starts from the journal
    again = runtime(tmp_path)
    assert again.model.shoe.tally.last_card_no == 2
    again.handle(card(4, "5D"))  # card 3 was acknowledged to the board, never journalled
    assert again.model.state == "shoe_error"
    assert "shoe:card_after_gap" in kinds(again)


def test_a_loaded_shoe_numbers_its_cards_from_one_again(tmp_path: Path) -> None:
    rt = runtime(tmp_path)
    open_round(rt, {1: {"main": 1000}})
    rt.handle(card(1, "9H"))
    rt.handle(card(2, "7C"))
    rt.handle(ev.ShoeLoaded("shoe", time.monotonic()))
    rt.handle(card(1, "8D"))
    assert rt.model.state == "dealing"
    assert rt.model.shoe.tally.cards_out == 3
    assert rt.model.shoe.tally.last_card_no == 1



def test_a_number_reported_again_as_another_card_holds_the_table(tmp_path: Path) -> None:
    rt = runtime(tmp_path)
    open_round(rt, {1: {"main": 1000}})
    rt.handle(card(1, "9H"))
    rt.handle(card(2, "7C"))
    rt.handle(card(1, "KD"))  # number 1 again, but not the card recorded under it
    assert rt.model.state == "shoe_error"
    assert [e.data for e in rt.journal.entries(["shoe:card_unplaced"])] == [
        {"card_no": 1, "card": "KD", "last": 2}]
    assert "shoe:card_repeated" not in kinds(rt)
    assert rt.model.shoe.tally.last_card_no == 2  # nothing recorded under its number


def test_a_repeat_older_than_the_cards_kept_by_number_holds_the_table(tmp_path: Path) -> None:
    rt = runtime(tmp_path)
    rt.model.shoe.tally.last_card_no = 100  # 100 cards out; the tally knows none by number
    rt.handle(card(40, "9H"))
    assert [e.data for e in rt.journal.entries(["shoe:card_unplaced"])] == [
        {"card_no": 40, "card": "9H", "last": 100}]


def test_the_boards_numbering_is_committed_with_each_card(tmp_path: Path) -> None:
    rt = runtime(tmp_path)
    open_round(rt, {1: {"main": 1000}})
    rt.handle(ev.CardDrawn("shoe", 1, "9H", 99, 0.0, ev.BoardNumbering(0xB1, 0)))
    rt.handle(ev.ShoeFault("shoe", ev.ShoeFaultKind.RESTARTED, 1, True, 0.0,
                           "the shoe board restarted", ev.BoardNumbering(0xB2, 1)))
    rt.journal.close()  # the board's restart is in the journal before any of its cards
    tally = runtime(tmp_path).model.shoe.tally
    assert (tally.board_boot, tally.board_base, tally.last_card_no) == (0xB2, 1, 1)
