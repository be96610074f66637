import json
import random
from pathlib import Path

import pytest

from controller.cli import simulate_command
from controller.procedure.families import FAMILIES
from controller.rules.cards import shoe

from .helpers import SCRIPT_BETS, config, deal, kinds, open_round, reference_rounds, runtime


def test_player_blackjack_hand_worked(tmp_path: Path) -> None:
    rt = runtime(tmp_path)
    open_round(rt, {1: {"main": 1000, "perfect-pairs": 100}, 2: {"main": 2000}})
    deal(rt, "AS", "9H", "9C", "KD", "9D", "7C")  # seat 1 AS KD, seat 2 9H 9D, dealer 9C 7C
    assert rt.model.state == "players"
    assert rt.model.decision_due() == (2, 0)
    assert rt.fire("stand")
    assert rt.model.state == "dealer"
    deal(rt, "5H")  # dealer 21
    assert rt.model.state == "round_over"
    record = rt.model.results[-1]
    assert record["dealer"] == ["9C", "7C", "5H"]
    assert record["seats"][0]["hands"][0]["net"] == 1500
    assert record["seats"][0]["side_bets"] == {"perfect-pairs": -100}
    assert record["seats"][1]["hands"][0]["net"] == -2000
    assert not record["peeked"]


def test_split_double_and_dealer_bust_hand_worked(tmp_path: Path) -> None:
    rt = runtime(tmp_path)
    open_round(rt, {1: {"main": 1000}})
    deal(rt, "8S", "6D", "8H", "TC")  # seat 1 8S 8H; dealer 6D, hole TC
    assert rt.fire("split")
    deal(rt, "3C")  # first hand 8S 3C
    assert rt.fire("double")
    deal(rt, "TD")  # 21 doubled
    deal(rt, "9S")  # second hand 8H 9S
    assert rt.fire("stand")
    deal(rt, "KS")  # dealer 6 T K = 26
    record = rt.model.results[-1]
    assert [h["net"] for h in record["seats"][0]["hands"]] == [2000, 1000]
    assert record["dealer"] == ["6D", "TC", "KS"]


def test_dealer_blackjack_peek_and_insurance(tmp_path: Path) -> None:
    rt = runtime(tmp_path)
    open_round(rt, {1: {"main": 1000}, 2: {"main": 1000}})
    deal(rt, "TS", "AH", "AC", "9D", "KC", "QH")  # dealer AC up, QH hole
    assert rt.model.state == "insurance"
    assert rt.fire("insurance", cents=500)
    assert rt.fire("no_insurance")
    assert rt.model.state == "round_over"
    record = rt.model.results[-1]
    assert record["peeked"]
    assert record["dealer_blackjack"]
    assert record["seats"][0]["hands"][0]["net"] == -1000
    assert record["seats"][0]["side_bets"]["insurance"] == 1000
    assert record["seats"][1]["hands"][0]["net"] == 0  # AH KC blackjack pushes


def test_baccarat_hand_worked(tmp_path: Path) -> None:
    rt = runtime(tmp_path, "baccarat")
    open_round(rt, {1: {"banker": 1000, "dragon-banker": 100}, 2: {"player": 1000}})
    deal(rt, "2S", "3H", "KD", "4C")  # player 2, banker 7
    assert rt.model.state == "player_third"
    deal(rt, "9C")  # player 1; banker 7 stands
    record = rt.model.results[-1]
    assert record["player"] == ["2S", "KD", "9C"]
    assert record["banker"] == ["3H", "4C"]
    assert record["result"] == "banker"
    assert record["seats"][0]["bets"] == {"banker": 950, "dragon-banker": 400}  # win by 6: 4 to 1
    assert record["seats"][1]["bets"] == {"player": -1000}


def test_invalid_trigger_is_a_logged_fault_not_a_silent_no_op(tmp_path: Path) -> None:
    rt = runtime(tmp_path)
    assert not rt.fire("hit")
    assert not rt.fire("no_more_bets")  # from shoe_loading
    rt.fire("shuffle_done")
    assert not rt.fire("no_more_bets")  # no wagers: condition fails
    assert kinds(rt).count("procedure:rejected") == 3
    assert any(getattr(e, "level", "") == "warning" for e in rt.outputs.applied)


def test_shoe_errors_hold_until_the_supervisor_key(tmp_path: Path) -> None:
    from drivers import events as ev

    rt = runtime(tmp_path)
    open_round(rt, {1: {"main": 1000}})
    deal(rt, "AS")
    rt.handle(ev.CardDrawn("shoe", 2, None, 0, 0.0))
    assert rt.model.state == "shoe_error"
    assert not rt.fire("card", code="KD")
    assert not rt.fire("supervisor_clear")  # refused: only the supervisor key clears a hold
    rt.handle(ev.KeySwitchTurned("layout", "supervisor", 0.0))
    assert rt.model.state == "dealing"
    assert "supervisor:clear" in kinds(rt)


def test_impossible_card_stops_the_table(tmp_path: Path) -> None:
    rt = runtime(tmp_path)
    open_round(rt, {1: {"main": 1000}})
    deal(rt, "AS", "AS", "AS", "AS")  # four of the six copies a six-deck shoe holds
    assert rt.model.state == "insurance"
    rt2 = runtime(tmp_path / "b")
    open_round(rt2, {1: {"main": 1000}, 2: {"main": 1000}, 3: {"main": 1000}, 4: {"main": 1000}})
    for _ in range(6):
        rt2.fire("card", code="7S")
    assert rt2.model.state == "dealing"
    rt2.fire("card", code="7S")
    assert rt2.model.state == "shoe_error"


def test_irregularities_reorder_the_deal(tmp_path: Path) -> None:
    rt = runtime(tmp_path)
    open_round(rt, {1: {"main": 1000}, 2: {"main": 1000}, 3: {"main": 1000}})
    assert rt.fire("seat_no_card", seat=2)
    deal(rt, "5S", "6D")  # seat 1, dealer up (seat 2 skipped)
    assert rt.fire("seat_one_card", seat=1)
    deal(rt, "9C")  # seat 3 second... first pass seat 3
    assert rt.model.card_due_to() is not None
    deal(rt, "TC", "8H", "QS")
    assert rt.model.state in ("players", "round_over", "dealer")
    game = rt.model.game
    assert [s.seat for s in game.seats] == [1, 3]
    assert "irregularity:seat_no_card" in kinds(rt)
    assert "irregularity:seat_one_card" in kinds(rt)


def test_progressive_lock_out_hit_and_sign(tmp_path: Path) -> None:
    rt = runtime(tmp_path)
    open_round(rt, {1: {"main": 1000, "blazing7s": 500}, 2: {"main": 1000, "blazing7s": 500}})
    assert rt.model.progressive.meters.amount == 1_000_200
    assert rt.model.progressive.meters.progressive_in == 2
    deal(rt, "7D", "7S", "7D", "7D", "7S", "KC")  # seat 1 7D 7D + up 7D: 100%
    while rt.model.state == "players":
        rt.fire("stand")
    while rt.model.state == "dealer":
        deal(rt, "2C")
    record = rt.model.results[-1]
    assert record["seats"][0]["side_bets"]["blazing7s"] == 1_000_200 - 500
    assert record["seats"][1]["side_bets"]["blazing7s"] == 200 * 500 - 500  # any three 7s
    assert record["meter"] == 1_000_000
    assert rt.model.progressive.sign_message.startswith("WIN 1 ")
    signs = [e for e in rt.outputs.applied if type(e).__name__ == "ShowSign"]
    assert signs[-1].message == "WIN 1 10002.00"


def test_progressive_refused_while_the_sign_link_is_down(tmp_path: Path) -> None:
    from drivers import events as ev

    rt = runtime(tmp_path)
    rt.fire("shuffle_done")
    rt.handle(ev.LinkDown("sign", "timeout", 0.0))
    assert rt.model.progressive.sign() == (1_000_000, "FAULT")
    assert not rt.fire("wager", seat=1, bet="blazing7s", cents=500)
    rt.fire("wager", seat=1, bet="main", cents=1000)
    rt.fire("bet_sensor", sensor="seat1.blazing7s", occupied=True)
    rt.fire("no_more_bets")
    assert rt.model.progressive.meters.progressive_in == 0
    rt.handle(ev.LinkUp("sign", "ok", 0.0))
    # Back mid-round: the meter is shown again, progressive play reopens at the next betting.
    assert rt.model.progressive.sign() == (1_000_000, "FAULT")


def test_meter_correction_needs_the_key(tmp_path: Path) -> None:
    from drivers import events as ev

    rt = runtime(tmp_path)
    assert not rt.fire("meter_correction", amount=5)
    rt.handle(ev.KeySwitchTurned("layout", "supervisor", 0.0))
    assert rt.fire("meter_correction", amount=2_000_000, reason="sign replaced")
    entry = next(e for e in rt.journal.entries() if e.kind == "meter:correction")
    assert entry.data == {"who": "layout:supervisor", "old": 1_000_000, "new": 2_000_000,
                          "reason": "sign replaced"}


@pytest.mark.parametrize("game", ["blackjack", "spanish21", "baccarat"])
@pytest.mark.parametrize("seed", [1, 2])
def test_scripted_shoes_match_the_reference_dealer(tmp_path: Path, game: str, seed: int,
                                                   capsys) -> None:
    from controller.sim.options import parse_bets

    spanish = game == "spanish21"
    cards = [str(c) for c in shoe(8 if game == "baccarat" else 6, spanish=spanish)]
    random.Random(seed).shuffle(cards)
    cards = cards[:120]
    path = tmp_path / "shoe.txt"
    path.write_text("\n".join(cards) + "\n")
    bets = SCRIPT_BETS
    assert simulate_command.main(["--in-process", "--game", game, "--shoe-file", str(path),
                                  "--json",
                          "--seats", "4",
                          "--rounds", "1000", "--bets", bets[game],
                          "--state-dir", str(tmp_path / "s")]) == 0
    mine = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert mine == reference_rounds(config(game), parse_bets(bets[game]), cards)


def test_every_callback_and_condition_resolves(tmp_path: Path) -> None:
    for family, game in (("blackjack", "blackjack"), ("baccarat", "baccarat"),
                         ("roulette", "roulette"), ("holdem", "holdem")):
        model = runtime(tmp_path / game, game).model
        for name in FAMILIES[family].callback_names():
            resolved = getattr(model, name, None)
            if name.split("_to_")[0] in ("resumes", "returns", "reshuffled"):
                continue
            assert callable(resolved), (family, name)
            owner = getattr(resolved, "__self__", None)
            assert owner is model or owner in vars(model).values(), (family, name)


def test_no_automatic_transitions(tmp_path: Path) -> None:
    rt = runtime(tmp_path)
    assert not hasattr(rt.model, "to_betting")


@pytest.mark.parametrize("family", ["blackjack", "baccarat", "roulette", "community", "holdem"])
def test_committed_mermaid_diagram_is_fresh(family: str) -> None:
    from controller.procedure import diagram

    for view in ("irregularities", "faults"):
        assert diagram.committed_path(family, view).read_text() == diagram.mermaid(family, view)

    assert diagram.committed_path(family).read_text() == diagram.mermaid(family)


def test_keyed_reset_returns_the_meter_to_its_reset_amount(tmp_path: Path) -> None:
    from drivers import events as ev

    rt = runtime(tmp_path)
    open_round(rt, {1: {"main": 1000, "blazing7s": 500}})
    assert rt.model.progressive.meters.amount == 1_000_100
    rt.handle(ev.KeySwitchTurned("layout", "reset", 0.0))
    assert rt.model.progressive.meters.amount == 1_000_000
    entry = next(e for e in rt.journal.entries() if e.kind == "meter:correction")
    assert entry.data["who"] == "layout:reset"
    assert entry.data["old"] == 1_000_100


def test_link_back_but_meters_not_reconciling_keeps_progressive_refused(tmp_path: Path) -> None:
    from dataclasses import replace

    from drivers import events as ev

    rt = runtime(tmp_path)
    rt.handle(ev.LinkDown("sign", "timeout", 0.0))
    desk = rt.model.progressive
    desk.meters = replace(desk.meters, amount=desk.meters.amount + 1)  # bad RAM
    rt.handle(ev.LinkUp("sign", "ok", 0.0))
    assert not rt.model.progressive.is_open()
    assert rt.model.progressive.sign()[1] == "FAULT"


def test_every_state_change_is_journaled(tmp_path: Path) -> None:
    rt = runtime(tmp_path)
    open_round(rt, {1: {"main": 1000}})
    changes = [(e.data["from"], e.data["to"]) for e in rt.journal.entries()
               if e.kind == "procedure:state"]
    assert changes == [("shoe_loading", "betting"), ("betting", "dealing")]


def test_seat_no_card_after_its_card_is_refused_not_a_fault(tmp_path: Path) -> None:
    rt = runtime(tmp_path)
    open_round(rt, {1: {"main": 1000}, 2: {"main": 1000}})
    deal(rt, "5S")
    assert not rt.fire("seat_no_card", seat=1)
    assert rt.model.state == "dealing"
