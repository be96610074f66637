"""The hold'em card reader: the camera's readings in the area due become the round's cards."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from controller.camera.crosscheck import CameraFrame, Sighting, VisionSettings
from controller.camera.holdem_reader import SURE, HoldemReader
from tests.controller.helpers import runtime
from tests.controller.holdem_helpers import Table, open_round, table


class Frames:
    """The camera worker as the reader sees it: the requests it was given."""

    def __init__(self) -> None:
        self.asked: list[int] = []
        self.zones: list[tuple[str, ...]] = []

    def request(self, number: int, zones: tuple[str, ...] = ()) -> None:
        self.asked.append(number)
        self.zones.append(zones)


def _reader(t: Table, frames: int = 3) -> tuple[HoldemReader, Frames, list[Any]]:
    later: list[Any] = []
    worker = Frames()
    reader = HoldemReader(VisionSettings(frames=frames), worker,
                          lambda delay, fire: later.append(fire))
    reader.attach(lambda: t.rt.model)
    t.rt.watchers.append(lambda _rt: reader.look())
    return reader, worker, later


def _frame(reader: HoldemReader, t: Table, worker: Frames, *sightings: Sighting,
           error: str = "") -> None:
    """The frame of the last request (the camera's frame numbered as the request)."""
    number = 0 if error else worker.asked[-1]
    verdict = reader.on_frame(CameraFrame(worker.asked[-1], number, sightings, error), {}, [],
                              1)
    for trigger, kwargs in verdict.triggers:
        t.fire(trigger, **kwargs)


def _frames(reader: HoldemReader, t: Table, worker: Frames, *sightings: Sighting) -> None:
    """The same cards on two frames in a row: what a card lying there gives."""
    _frame(reader, t, worker, *sightings)
    _frame(reader, t, worker, *sightings)


def _at_flop(tmp_path: Path) -> Table:
    t = table(tmp_path)
    open_round(t, {1: (1000, 0)})
    assert t.fire("bet", seat=1)
    return t


def _frame_then_wait(reader: HoldemReader, t: Table, worker: Frames, later: list[Any],
                     *sightings: Sighting) -> None:
    """One frame of `sightings`, then the frame interval passes (a timer the reader set)."""
    _frame(reader, t, worker, *sightings)
    if later:
        later.pop()()


def _at_turn(tmp_path: Path) -> Table:
    """A round whose flop AS KD 7C is read, seat 1 checked: the turn is due."""
    t = _at_flop(tmp_path)
    t.read("flop", "AS", "KD", "7C")
    assert t.fire("check", seat=1)
    return t


def _turn_frames(reader: HoldemReader, t: Table, worker: Frames, later: list[Any],
                 *seen: str | None) -> None:
    """One frame of the turn's area for each name (None: unsure), until the console asks."""
    for code in seen:
        assert t.model.game is not None
        if t.model.game.asked is None:
            _frame_then_wait(reader, t, worker, later,
                             Sighting("turn", code, 0.99 if code else 0.3))


def test_a_frame_is_asked_for_once_a_card_is_due(tmp_path: Path) -> None:
    t = table(tmp_path)
    _, worker, _ = _reader(t)
    open_round(t, {1: (1000, 0)})
    assert worker.asked == []  # decisions: no card due
    assert t.fire("bet", seat=1)
    assert worker.asked == [1]


def test_confident_readings_in_the_due_area_are_taken_others_ignored(tmp_path: Path) -> None:
    t = _at_flop(tmp_path)
    reader, worker, _later = _reader(t)
    reader.look()
    _frames(reader, t, worker, Sighting("flop", "AS", 0.99), Sighting("flop", "KD", 0.995),
            Sighting("seat1", "QH", 0.99), Sighting("turn", "2C", 0.99),
            Sighting("flop", "7C", 0.999))
    assert t.model.game is not None
    assert sorted(str(c) for c in t.model.game.board) == ["7C", "AS", "KD"]
    assert t.model.game.seats[1].cards == []  # a seat's area is read only at the showdown
    assert reader.checked == 3


def test_unsure_readings_for_frames_in_a_row_ask_the_console(tmp_path: Path) -> None:
    t = _at_flop(tmp_path)
    reader, worker, later = _reader(t, frames=3)
    reader.look()
    for tried in range(1, 4):
        assert t.model.game is not None
        assert t.model.game.asked is None, tried
        _frame(reader, t, worker, Sighting("flop", None, 0.4))
        if later:
            later.pop()()  # the frame interval passes: the next frame
    assert t.model.game is not None
    assert t.model.game.asked is not None
    assert t.records("card:asked")[-1]["area"] == "flop"


def _unsure_run(t: Table, *guesses: str | None) -> None:
    """One flop frame an unsure card with each guess, until the console is asked."""
    reader, worker, later = _reader(t, frames=len(guesses))
    reader.look()
    for guess in guesses:
        _frame_then_wait(reader, t, worker, later, Sighting("flop", None, 0.6, guess))


def test_a_card_guessed_in_most_unsure_frames_is_offered_to_confirm(tmp_path: Path) -> None:
    t = _at_flop(tmp_path)
    _unsure_run(t, "QH", None, "QH")
    assert t.model.game is not None
    asked = t.model.game.asked
    assert asked is not None
    assert str(asked.guess) == "QH"
    assert t.records("card:asked")[-1]["guess"] == "QH"
    assert t.fire("confirm_card")
    read = t.records("card:read")[-1]
    assert (read["card"], read["by"], read["confirmed"]) == ("QH", "keyed", True)


def test_guesses_without_a_majority_offer_nothing_to_confirm(tmp_path: Path) -> None:
    t = _at_flop(tmp_path)
    _unsure_run(t, "QH", None, None)  # one frame of three
    assert t.model.game is not None
    asked = t.model.game.asked
    assert asked is not None
    assert asked.guess is None
    assert not t.fire("confirm_card")  # the dealer keys the card


def test_a_guess_of_a_card_already_read_is_not_offered(tmp_path: Path) -> None:
    t = _at_flop(tmp_path)
    t.read("flop", "AS", "KD")
    _unsure_run(t, "KD", "KD", "KD")
    assert t.model.game is not None
    asked = t.model.game.asked
    assert asked is not None
    assert asked.guess is None


def test_a_camera_down_asks_for_the_card_at_once_and_is_shown(tmp_path: Path) -> None:
    t = _at_flop(tmp_path)
    reader, worker, _ = _reader(t)
    reader.look()
    _frame(reader, t, worker, error="camera: no frame")
    assert t.model.camera_down == "camera: no frame"
    assert t.model.game is not None
    assert t.model.game.asked is not None
    assert t.fire("key_card", card="AS")


def test_a_card_read_on_the_board_again_holds_the_round(tmp_path: Path) -> None:
    t = _at_turn(tmp_path)
    reader, worker, _ = _reader(t)
    reader.look()
    _frames(reader, t, worker, Sighting("turn", "KD", 0.99))
    assert t.model.state == "card_hold"


def test_a_frame_asked_for_before_the_area_was_due_is_not_read(tmp_path: Path) -> None:
    t = _at_flop(tmp_path)
    reader, worker, later = _reader(t)
    reader.look()
    stale = worker.asked[-1]  # asked for while the flop was due
    t.read("flop", "AS", "KD", "7C")
    assert t.fire("check", seat=1)  # now the turn is due
    verdict = reader.on_frame(CameraFrame(stale, 1, (Sighting("turn", "2C", 0.99),)), {}, [], 1)
    assert verdict.triggers == []
    later.pop()()  # the frame interval passes: a frame asked for now
    assert worker.asked[-1] > stale
    _frames(reader, t, worker, Sighting("turn", "2C", 0.99))
    assert t.model.game is not None
    assert str(t.model.game.board[-1]) == "2C"


def test_cards_already_read_in_the_area_are_not_read_again(tmp_path: Path) -> None:
    t = _at_flop(tmp_path)
    reader, worker, later = _reader(t)
    reader.look()
    _frames(reader, t, worker, Sighting("flop", "AS", 0.99), Sighting("flop", "KD", 0.99),
            Sighting("flop", None, 0.3))
    later.pop()() if later else reader.look()
    _frames(reader, t, worker, Sighting("flop", "AS", 0.99), Sighting("flop", "KD", 0.99),
            Sighting("flop", "QC", 0.99))
    assert t.model.state == "decisions"  # the flop is complete, nothing seen twice
    assert t.model.game is not None
    assert sorted(str(c) for c in t.model.game.board) == ["AS", "KD", "QC"]


def test_a_reader_looks_at_nothing_before_it_is_attached_and_only_at_holdem(
        tmp_path: Path) -> None:
    worker = Frames()
    reader = HoldemReader(VisionSettings(frames=3), worker, lambda delay, fire: None)
    reader.look()  # no table yet: nothing is due, nothing is asked
    assert worker.asked == []
    blackjack = runtime(tmp_path, "blackjack")
    reader.attach(lambda: blackjack.model)
    with pytest.raises(TypeError, match="BlackjackModel reached code of the HoldemModel"):
        reader.look()  # a reader is built for a hold'em table only: anything else is a bug


def test_one_frame_names_a_candidate_and_the_next_frame_decides_it(tmp_path: Path) -> None:
    t = _at_flop(tmp_path)
    reader, worker, later = _reader(t)
    reader.look()
    assert worker.zones[-1] == ("flop",)  # only the area due is wanted
    flop = (Sighting("flop", "AS", 0.99), Sighting("flop", "KD", 0.99),
            Sighting("flop", "7C", 0.99))
    _frame(reader, t, worker, *flop)
    assert t.model.game is not None
    assert t.model.game.board == []  # one frame alone reads nothing
    assert (len(worker.asked), later) == (2, [])  # the next frame at once, no interval
    _frame(reader, t, worker, *flop)
    assert sorted(str(c) for c in t.model.game.board) == ["7C", "AS", "KD"]


def test_a_card_is_read_only_once_one_of_its_frames_names_it_surely(tmp_path: Path) -> None:
    t = _at_turn(tmp_path)
    reader, worker, later = _reader(t, frames=6)
    reader.look()
    # On the rig a ten misread as a seven is named at 0.95 to 0.99 (decision 170)
    _frame(reader, t, worker, Sighting("turn", "7D", 0.97))
    _frame(reader, t, worker, Sighting("turn", "7D", 0.989))
    _frame(reader, t, worker, Sighting("turn", "7D", 0.98))
    assert t.model.game is not None
    assert len(t.model.game.board) == 3  # named three times, never surely: not read
    assert (len(worker.asked), later) == (4, [])  # each frame a candidate: the next at once
    _frame(reader, t, worker, Sighting("turn", "7D", SURE))
    assert [str(c) for c in t.model.game.board] == ["AS", "KD", "7C", "7D"]
    assert reader.checked == 1


def test_a_sure_name_counts_for_the_card_until_it_is_read(tmp_path: Path) -> None:
    t = _at_flop(tmp_path)
    reader, worker, later = _reader(t)
    reader.look()
    _frame(reader, t, worker, Sighting("flop", "AS", 0.999), Sighting("flop", "KD", 0.999),
           Sighting("flop", "7C", 0.999))
    _frame(reader, t, worker, Sighting("flop", "AS", 0.98), Sighting("flop", "KD", 0.98))
    assert t.model.game is not None
    assert sorted(str(c) for c in t.model.game.board) == ["AS", "KD"]
    later.pop()()  # the readings taken, the next frame is asked for
    _frame(reader, t, worker, Sighting("flop", "7C", 0.97))  # its sure frame was the first
    assert sorted(str(c) for c in t.model.game.board) == ["7C", "AS", "KD"]


def test_frames_that_disagree_ask_the_dealer_with_no_guess(tmp_path: Path) -> None:
    t = _at_turn(tmp_path)
    reader, worker, _later = _reader(t)
    reader.look()
    _frame(reader, t, worker, Sighting("turn", "2C", 0.99))  # the card lying there
    _frame(reader, t, worker, Sighting("turn", "3C", 0.99))  # a misreading of it
    assert t.model.game is not None
    asked = t.model.game.asked
    assert asked is not None  # two cards named where one lies: the dealer decides
    assert asked.guess is None
    assert len(t.model.game.board) == 3
    assert reader.disagreed == 1
    assert t.fire("key_card", card="2C")
    assert [str(c) for c in t.model.game.board] == ["AS", "KD", "7C", "2C"]


def test_a_misreading_repeated_beside_the_card_is_never_read(tmp_path: Path) -> None:
    t = _at_turn(tmp_path)
    reader, worker, later = _reader(t, frames=6)
    reader.look()
    _turn_frames(reader, t, worker, later, "2C", "KC", None, "KC")  # KC: it comes back
    assert t.model.game is not None
    assert len(t.model.game.board) == 3  # neither taken
    assert t.model.game.asked is not None
    assert "KC" not in [r["card"] for r in t.records("card:read")]


def test_a_card_misread_once_on_the_flop_asks_for_the_flop(tmp_path: Path) -> None:
    t = _at_flop(tmp_path)
    reader, worker, _later = _reader(t)
    reader.look()
    _frame(reader, t, worker, Sighting("flop", "AS", 0.99), Sighting("flop", "KD", 0.99),
           Sighting("flop", "7H", 0.99))  # 7C misread
    _frame(reader, t, worker, Sighting("flop", "AS", 0.99), Sighting("flop", "KD", 0.99),
           Sighting("flop", "7C", 0.99))
    assert t.model.game is not None
    assert t.model.game.board == []  # four cards named for three: none is taken
    assert t.model.game.asked is not None


def test_the_same_camera_frame_twice_does_not_agree_with_itself(tmp_path: Path) -> None:
    t = _at_turn(tmp_path)
    reader, worker, _later = _reader(t)
    reader.look()
    verdicts = [reader.on_frame(CameraFrame(worker.asked[-1], 7, (Sighting("turn", "2C", 0.99),)),
                                {}, [], 1) for _ in range(2)]
    assert [v.triggers for v in verdicts] == [[], []]  # frame 7 twice: one frame
    _frame(reader, t, worker, Sighting("turn", "2C", 0.99))  # the next frame: two in a row
    assert t.model.game is not None
    assert [str(c) for c in t.model.game.board] == ["AS", "KD", "7C", "2C"]


def test_a_card_named_once_and_guessed_is_offered_to_confirm(tmp_path: Path) -> None:
    t = _at_turn(tmp_path)
    reader, worker, later = _reader(t, frames=3)
    reader.look()
    for seen in ("2C", None, None):
        _frame_then_wait(reader, t, worker, later,
                         Sighting("turn", seen, 0.99 if seen else 0.6, "2C"))
    assert t.model.game is not None
    asked = t.model.game.asked
    assert asked is not None
    assert str(asked.guess) == "2C"  # named once, guessed twice: the dealer confirms
    assert len(t.model.game.board) == 3


def test_a_card_named_beside_cards_read_keeps_its_frame(tmp_path: Path) -> None:
    t = _at_flop(tmp_path)
    reader, worker, later = _reader(t)
    reader.look()
    two = (Sighting("flop", "AS", 0.99), Sighting("flop", "KD", 0.99))
    _frame(reader, t, worker, *two, Sighting("flop", None, 0.3))
    asked = len(worker.asked)
    _frame(reader, t, worker, *two, Sighting("flop", "7C", 0.99))  # AS, KD read; 7C once
    assert t.model.game is not None
    assert len(t.model.game.board) == 2
    assert len(worker.asked) == asked  # no frame asked while the readings were taken
    later.pop()()  # then the next frame
    assert len(worker.asked) == asked + 1
    _frame(reader, t, worker, *two, Sighting("flop", "7C", 0.99))  # 7C: two frames
    assert sorted(str(c) for c in t.model.game.board) == ["7C", "AS", "KD"]


def test_two_frames_naming_a_card_need_not_follow_each_other(tmp_path: Path) -> None:
    t = _at_turn(tmp_path)
    reader, worker, later = _reader(t, frames=6)
    reader.look()
    _turn_frames(reader, t, worker, later, "2C", None, None)
    assert t.model.game is not None
    assert len(t.model.game.board) == 3
    _turn_frames(reader, t, worker, later, "2C")
    assert [str(c) for c in t.model.game.board] == ["AS", "KD", "7C", "2C"]
    assert t.model.game.asked is None


def test_a_candidate_that_goes_away_waits_the_frame_interval(tmp_path: Path) -> None:
    t = _at_turn(tmp_path)
    reader, worker, later = _reader(t)
    reader.look()
    _frame(reader, t, worker, Sighting("turn", "2C", 0.99))
    assert (len(worker.asked), later) == (2, [])  # a candidate: the next frame at once
    _frame(reader, t, worker)  # the card picked up again: nothing there
    assert (len(worker.asked), len(later)) == (2, 1)  # no frame until the interval


def test_a_card_unsure_twice_as_one_card_and_read_twice_as_another_is_not_read(
        tmp_path: Path) -> None:
    # Seed 3, round 388, on six seats: the river's ten of diamonds was unsure on two frames,
    # each looking most like TD (its corners disagreed), then read 7D on two frames.
    t = _at_turn(tmp_path)
    reader, worker, later = _reader(t, frames=6)
    reader.look()
    for _ in range(2):
        _frame_then_wait(reader, t, worker, later, Sighting("turn", None, 0.9, None, "TD"))
    _turn_frames(reader, t, worker, later, "7D", "7D")
    assert t.model.game is not None
    assert len(t.model.game.board) == 3  # 7D not taken
    assert t.model.game.asked is not None
    assert t.model.game.asked.guess is None
    assert reader.disagreed == 1


def test_one_frame_s_likeness_alone_stops_nothing(tmp_path: Path) -> None:
    t = _at_turn(tmp_path)
    reader, worker, later = _reader(t, frames=6)
    reader.look()
    noise = Sighting("turn", None, 0.3, None, "8D")
    _frame_then_wait(reader, t, worker, later, noise)  # once
    _turn_frames(reader, t, worker, later, "2C", "2C")
    assert t.model.game is not None
    assert [str(c) for c in t.model.game.board] == ["AS", "KD", "7C", "2C"]


def test_a_card_keyed_while_counted_is_no_name_that_disagrees(tmp_path: Path) -> None:
    # The flop's cards unsure, each looking like itself: the dealer keys two of them while
    # the frames go on; the third is then offered, not asked for as a disagreement.
    t = _at_flop(tmp_path)
    reader, worker, later = _reader(t, frames=6)
    reader.look()
    flop = [Sighting("flop", None, 0.6, code, code) for code in ("AS", "KD", "7C")]
    for frame in range(5):
        if frame == 4:
            assert t.fire("key_card", card="AS")
            assert t.fire("key_card", card="KD")
        _frame_then_wait(reader, t, worker, later, *flop)
    _frame(reader, t, worker, *flop)
    assert t.model.game is not None
    assert reader.disagreed == 0
    asked = t.model.game.asked
    assert asked is not None
    assert str(asked.guess) == "7C"
