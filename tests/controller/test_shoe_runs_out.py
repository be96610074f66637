"""The shoe's last card, and a void round (decision 106 "Shoe"; R13).

The shoe reports `shoe_empty` together with its last card. That matters only once a card is
due: a round that completes with the cards dealt is settled and reported; a round that wants a
card that is not there waits for the discards (a live table) or is voided with the supervisor
key: every wager is returned and its progressive contributions are reversed by a recorded
`meter:void`, so the meters, `meter show` and `journal verify` agree.
"""

import json
from pathlib import Path

import pytest

from controller.cli import meter_command
from controller.journal import audit
from controller.procedure.shared import meter_books
from drivers import events as ev

from .helpers import kinds, open_round, runtime


def drawn(rt, count: int, code: str, last: bool = False) -> None:
    rt.handle(ev.CardDrawn("shoe", count, code, 100, 0.0))
    if last:
        rt.handle(ev.ShoeFault("shoe", ev.ShoeFaultKind.SHOE_EMPTY, count, True, 0.0))


def deal(rt, codes: list[str]) -> None:
    for count, code in enumerate(codes, start=1):
        drawn(rt, count, code, last=count == len(codes))


def test_the_last_card_as_hole_card_with_a_stand_due_settles_the_round(tmp_path: Path) -> None:
    rt = runtime(tmp_path)
    open_round(rt, {1: {"main": 1000}})
    deal(rt, ["TS", "7C", "9H", "TD"])
    assert rt.model.state == "players"  # not reshuffle_discards: no card is due
    assert rt.model.shoe.tally.empty
    assert "shoe:empty" in kinds(rt)
    assert rt.fire("stand")
    assert rt.model.state == "round_over"
    record = rt.model.results[-1]
    assert record["dealer"] == ["7C", "TD"]
    assert record["seats"][0]["hands"] == [{"cards": ["TS", "9H"], "net": 1000}]
    assert rt.fire("clear_round")
    assert rt.model.state == "shoe_loading"  # an empty shoe is changed before betting


def test_the_last_card_under_an_ace_with_insurance_due_settles_the_round(tmp_path: Path) -> None:
    rt = runtime(tmp_path)
    open_round(rt, {1: {"main": 1000}})
    deal(rt, ["TS", "AC", "9H", "9D"])
    assert rt.model.state == "insurance"
    assert rt.fire("no_insurance")
    assert rt.model.state == "players"
    assert rt.fire("stand")
    record = rt.model.results[-1]
    assert record["dealer"] == ["AC", "9D"]
    assert record["peeked"]
    assert record["seats"][0]["hands"][0]["net"] == -1000


def test_a_card_wanted_from_an_empty_shoe_waits_for_the_discards(tmp_path: Path) -> None:
    rt = runtime(tmp_path)
    open_round(rt, {1: {"main": 1000}})
    deal(rt, ["TS", "7C", "6H", "TD"])
    assert rt.fire("hit")  # 16 hits: a card is due and the shoe has none
    assert rt.model.state == "reshuffle_discards"
    assert "irregularity:too_few_cards" in kinds(rt)
    assert not rt.model.results
    rt.handle(ev.ShoeLoaded("shoe", 0.0))  # the discards are shuffled into the shoe
    assert rt.model.state == "players"
    assert not rt.model.shoe.tally.empty
    drawn(rt, 1, "2C")
    assert rt.fire("stand")
    assert rt.model.results[-1]["seats"][0]["hands"][0]["cards"] == ["TS", "6H", "2C"]


def test_the_dealer_wanting_a_card_from_an_empty_shoe_is_out_of_cards(tmp_path: Path) -> None:
    rt = runtime(tmp_path)
    open_round(rt, {1: {"main": 1000}})
    deal(rt, ["TS", "6C", "9H", "TD"])
    assert rt.fire("stand")  # the dealer must draw to 16
    assert rt.model.state == "reshuffle_discards"


def locked_round_with_progressive(tmp_path: Path):
    rt = runtime(tmp_path)
    open_round(rt, {1: {"main": 1000, "blazing7s": 500, "perfect-pairs": 100},
                    2: {"main": 2000, "blazing7s": 500}})
    assert rt.model.progressive.meters.amount == 1_000_200
    assert rt.model.progressive.meters.progressive_in == 2
    for count, code in enumerate(["TS", "9H", "6C", "8D"], start=1):
        drawn(rt, count, code)
    return rt


def test_voiding_needs_the_supervisor_key(tmp_path: Path) -> None:
    rt = locked_round_with_progressive(tmp_path)
    assert not rt.fire("void_round", reason="misdeal")
    assert rt.model.state == "dealing"


def test_a_void_round_returns_its_wagers_and_reverses_its_contributions(tmp_path: Path) -> None:
    rt = locked_round_with_progressive(tmp_path)
    rt.handle(ev.KeySwitchTurned("layout", "supervisor", 0.0))
    rt.handle(ev.ShoeFault("shoe", ev.ShoeFaultKind.SHOE_EMPTY, 4, True, 0.0))
    assert rt.model.state == "reshuffle_discards"  # the hole card is due
    assert rt.fire("void_round", reason="the shoe ran out")
    assert rt.model.state == "shoe_loading"  # the shoe is empty: a new one first
    assert rt.model.progressive.meters.amount == 1_000_000
    assert rt.model.progressive.meters.progressive_in == 0
    assert not rt.model.results
    assert rt.model.voided == [1]
    [void] = [e.data for e in rt.journal.entries() if e.kind == "round:void"]
    assert void["who"] == "layout:supervisor"
    assert void["meter_returned"] == 200
    assert [r["wagers"] for r in void["returned"]] == [
        {"main": 1000, "blazing7s": 500, "perfect-pairs": 100}, {"main": 2000, "blazing7s": 500}]
    [meter] = [e.data for e in rt.journal.entries() if e.kind == "meter:void"]
    assert (meter["before"], meter["after"], meter["seats"]) == (1_000_200, 1_000_000, [1, 2])
    assert rt.journal_ok()
    rt.journal.close()
    report = audit.verify_state_dir(tmp_path)
    assert report.ok, report.lines


def test_meter_show_and_journal_verify_agree_after_a_void(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str],
                                                          ) -> None:
    rt = locked_round_with_progressive(tmp_path)
    rt.handle(ev.KeySwitchTurned("layout", "supervisor", 0.0))
    assert rt.fire("void_round", reason="misdeal")
    meters = rt.model.progressive.meters
    rt.journal.close()
    assert meter_command.main(["show", "--json", "--state-dir", str(tmp_path)]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown == meters.summary()
    assert shown["meter"] == 1_000_000
    records = ((e.kind, e.data) for e in _entries(tmp_path, meter_books.METER_KINDS))
    replayed, problem = meter_books.replay(records)
    assert problem == ""
    assert meter_books.reconcile(meters, replayed) == ""


def test_a_void_between_rounds_opens_the_next_round_on_the_same_shoe(tmp_path: Path) -> None:
    rt = locked_round_with_progressive(tmp_path)
    rt.handle(ev.KeySwitchTurned("layout", "supervisor", 0.0))
    number = rt.model.round.number
    assert rt.fire("void_round", reason="misdeal")  # the shoe is not empty
    assert rt.model.state == "betting"
    assert rt.model.round.number == number + 1
    assert rt.model.game is None


def test_a_meter_void_that_does_not_follow_is_a_reconciliation_problem() -> None:
    meters, init = meter_books.start(meter_books.MeterParams(reset=1000, increment=10))
    after, records = meter_books.contribute(meters, 1, [1])
    voided, record = meter_books.void(after, 1, [r.data for r in records])
    assert record is not None
    assert voided.amount == 1000
    tampered = {**record.data, "after": 1010}
    _, problem = meter_books.replay([(init.kind, init.data), *((r.kind, r.data) for r in records),
                                     ("meter:void", tampered)])
    assert "meter:void" in problem


def _entries(state_dir: Path, kinds_wanted):
    from controller.journal.store import open_existing

    with open_existing(state_dir) as store:
        return list(store.entries(kinds_wanted))
