"""Adding a game, tried: a one-card high-card game added from outside, deleting nothing.

The whole family lives in this file, as docs/architecture.md ("Adding a game") lays it out:
its rules (a pure function), its states and transition rows, its model, its console view and
its simulation driver on the drivers' base. It joins the table only through the registries
keyed by its family's name (`register`, `VIEWS`, `register_driver`); no other family's file
names it. A run through `shoectl simulate`'s own entry deals a few rounds with a fixed seed,
and each round's result is recomputed from the cards the driver dealt; the console's table
object shows the game's state.

High card: each seat with a wager gets one card face up, then the dealer one; the higher rank
(ace high, suits equal) wins even money, a tie pushes.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator
from dataclasses import replace
from enum import StrEnum
from pathlib import Path
from typing import Any, Final

import pytest
from transitions import EventData

from controller.console.table_state import table_state
from controller.console.views import VIEWS, FamilyView
from controller.console.views.common import JsonObject, no_dealer
from controller.journal.store import JournalStore
from controller.procedure import families
from controller.procedure.core.effects import Journal, OpLog
from controller.procedure.core.machine import Table, build_machine, row
from controller.procedure.families import Family, family_of, model_as
from controller.procedure.shared import meter_books
from controller.procedure.shared.setup import Setup
from controller.procedure.shared.table_model import TableModel
from controller.rules.cards import Card, Rank, deck
from controller.rules.options import GameConfig, TableSettings
from controller.rules.strategy import StandPolicy
from controller.service.runtime import RecordingOutputs, TableRuntime
from controller.sim import games, simulation
from controller.sim.games.base import (
    EXIT_INTERRUPTED,
    Driver,
    RoundRecords,
    SimulationStoppedError,
)
from controller.sim.options import Options
from drivers.errors import DeviceUnavailableError

from .helpers import runtime

# ---------------------------------------------------------------------------- 1. its rules

HIGH_CARD_ORDER: Final = "23456789TJQKA"
"""Ranks from lowest to highest: the ace is high."""


def high_card_net(player: Card, dealer: Card, cents: int) -> int:
    """The player's net on a wager of `cents`: won even money, lost, or pushed (pure)."""
    mine, theirs = (HIGH_CARD_ORDER.index(card.rank.value) for card in (player, dealer))
    return cents if mine > theirs else -cents if mine < theirs else 0


class HighCardGame(StrEnum):
    """The game object the family provides: a table file's `Game` does not name it."""

    HIGHCARD = "highcard"


# ------------------------------------------------------------------------ 2. its procedure


class HC(StrEnum):
    """High card's states."""

    SHOE_LOADING = "shoe_loading"
    BETTING = "betting"
    DEALING = "dealing"
    ROUND_OVER = "round_over"
    FAULT = "fault"


INITIAL: Final = HC.SHOE_LOADING
ROWS: Final[Table] = [
    row("shuffle_done", HC.SHOE_LOADING, HC.BETTING, after="open_betting"),
    row("wager", HC.BETTING, None, conditions="wager_allowed", after="take_wager"),
    row("no_more_bets", HC.BETTING, HC.DEALING, conditions="has_wagers", after="lock_wagers"),
    row("card", HC.DEALING, None, conditions="card_wanted", after="take_card"),
    row("proceed", HC.DEALING, HC.ROUND_OVER, conditions="all_dealt", after="settle"),
    row("clear_round", HC.ROUND_OVER, HC.BETTING, after="open_betting"),
]


class HighCardModel(TableModel):
    """The model the rows drive: the wagers, the cards in seat order then the dealer's."""

    in_play_states = frozenset({str(HC.DEALING)})

    def __init__(self, setup: Setup, meters: meter_books.Meters,
                 initial: str = "shoe_loading") -> None:
        super().__init__(setup, meters)
        self.stakes: dict[int, int] = {}
        self.dealt: dict[int | str, str] = {}
        self.machine = build_machine(self, HC, ROWS, str(initial))

    def wager_allowed(self, event: EventData) -> bool:
        """Condition: a seat of the table, within the table's limits."""
        table = self.setup.config.table
        seat, cents = event.kwargs["seat"], event.kwargs["cents"]
        return 1 <= seat <= table.seats and table.min_wager <= cents <= table.max_wager

    def take_wager(self, event: EventData) -> None:
        """Callback: the seat's wager, in cents."""
        self.stakes[event.kwargs["seat"]] = event.kwargs["cents"]

    def has_wagers(self, event: EventData) -> bool:
        """Condition: some seat wagered."""
        return bool(self.stakes)

    def lock_wagers(self, event: EventData) -> None:
        """Callback: no more bets; the wagers are the round's."""
        self.emit(Journal("round:wagers", {"round": self.round.number,
                                           "stakes": {str(s): c for s, c in self.stakes.items()}}))

    def card_due_to(self) -> int | str | None:
        """The seat (in order) or the dealer whose card comes next; None once all have one."""
        if self.state != HC.DEALING:
            return None
        return next((to for to in [*sorted(self.stakes), "dealer"] if to not in self.dealt), None)

    def card_wanted(self, event: EventData) -> bool:
        """Condition: a card is due."""
        return self.card_due_to() is not None

    def take_card(self, event: EventData) -> None:
        """Callback: the card goes to the seat or dealer it is due to (face up)."""
        to = self.card_due_to()
        assert to is not None
        self.dealt[to] = str(Card.parse(event.kwargs["code"]))
        self.emit(Journal("card:dealt", {"round": self.round.number, "to": to,
                                         "card": self.dealt[to]}))

    def all_dealt(self, event: EventData) -> bool:
        """Condition: every seat and the dealer have their card."""
        return self.state == HC.DEALING and self.card_due_to() is None

    def settle(self, event: EventData) -> None:
        """Callback: each seat's net by the rules; the round's record."""
        dealer = Card.parse(str(self.dealt["dealer"]))
        seats = [{"seat": seat, "card": self.dealt[seat], "cents": cents,
                  "net": high_card_net(Card.parse(self.dealt[seat]), dealer, cents)}
                 for seat, cents in sorted(self.stakes.items())]
        record = {"round": self.round.number, "dealer": str(dealer), "seats": seats}
        self.results.append(record)
        self.round.settled = True
        self.emit(Journal("round:settled", record), OpLog(f"round {self.round.number} settled"))

    def open_betting(self, event: EventData) -> None:
        """Callback: the last round's cards and wagers cleared; a new round numbered."""
        super().open_betting(event)
        self.stakes, self.dealt = {}, {}


def high_card_family() -> Family:
    return Family("highcard", (HighCardGame.HIGHCARD,), HC, ROWS, INITIAL, HighCardModel)


# ------------------------------------------------------------------------- 3. its console view


def high_card_prompt(model: TableModel) -> str:
    game = model_as(model, HighCardModel)
    if game.state == HC.BETTING:
        return "place the wagers, then press NO MORE BETS"
    due = game.card_due_to()
    return f"deal one card face up to {'the dealer' if due == 'dealer' else f'seat {due}'}"


def high_card_next(model: TableModel) -> JsonObject | None:
    due = model_as(model, HighCardModel).card_due_to()
    if due is None:
        return None
    return {"to": "dealer", "seat": None, "hand": None} if due == "dealer" else {
        "to": "seat", "seat": due, "hand": 1}


def high_card_seats(model: TableModel) -> list[JsonObject]:
    game = model_as(model, HighCardModel)
    return [{"seat": n, "in_play": n in game.stakes, "main": game.stakes.get(n),
             "hands": [[game.dealt[n]]] if n in game.dealt else []}
            for n in range(1, game.setup.config.table.seats + 1)]


def high_card_dealer(model: TableModel) -> JsonObject:
    card = model_as(model, HighCardModel).dealt.get("dealer")
    return {**no_dealer(), "cards": [card] if card else []}


def high_card_table(model: TableModel) -> JsonObject:
    """The game's own object in the console's table object: the cards by whom they went to."""
    game = model_as(model, HighCardModel)
    return {"dealer": game.dealt.get("dealer"),
            "seats": {str(to): card for to, card in game.dealt.items() if to != "dealer"}}


HIGH_CARD_VIEW: Final = FamilyView(high_card_prompt, high_card_next, high_card_seats,
                                   high_card_dealer, own={"highcard": high_card_table})


# ---------------------------------------------------------------------- 4. its simulation driver


class HighCardDriver(Driver):
    """Bots wager on every seat; the auto-dealer deals from a seeded shuffled deck a round."""

    def __init__(self, options: Options) -> None:
        super().__init__(options)
        self.rng = random.Random(options.seed)
        self.deals: list[list[str]] = []
        """The cards dealt, in dealing order, a list a round (what the test checks against)."""
        self.runtime: TableRuntime | None = None

    def start(self, state_dir: Path, workdir: Path) -> None:
        setup = Setup(self.options.config, burn=False)
        family = family_of(self.options.config.table.game)
        self.runtime = TableRuntime(setup, JournalStore(state_dir, clock=time.monotonic),
                                    RecordingOutputs(), family.model, "simulate")

    def rounds(self) -> RoundRecords:
        runtime = self.runtime
        assert runtime is not None
        runtime.fire("shuffle_done")
        for _ in range(self.options.rounds):
            cards = [str(card) for card in deck()]
            self.rng.shuffle(cards)
            for seat in range(1, self.options.seats + 1):
                runtime.fire("wager", seat=seat, cents=self.options.bets["main"])
            runtime.fire("no_more_bets")
            self.deals.append([])
            while runtime.model.card_due_to() is not None:
                self.deals[-1].append(cards.pop())
                runtime.fire("card", code=self.deals[-1][-1])
            yield runtime.model.results[-1]

    def line(self, record: dict[str, Any]) -> str:
        return f"round {record['round']} dealer {record['dealer']}"

    def summary(self, elapsed: float) -> str:
        return f"{self.reported} rounds"

    def close(self, reason: str) -> None:
        assert self.runtime is not None
        self.runtime.shutdown(reason)
        self.runtime.journal.close()


# ------------------------------------------------------------------------------------ 5. tests

DRIVEN: list[HighCardDriver] = []


class WatchedDriver(HighCardDriver):
    """The driver, kept where the test can read the cards it dealt."""

    def __init__(self, options: Options) -> None:
        super().__init__(options)
        DRIVEN.append(self)


@pytest.fixture
def high_card() -> Iterator[Family]:
    """The family registered for one test, through the registries only, then taken back."""
    family = families.register(high_card_family())
    VIEWS["highcard"] = HIGH_CARD_VIEW
    games.register_driver("highcard", WatchedDriver)
    try:
        yield family
    finally:
        families.unregister("highcard")
        del VIEWS["highcard"], games.DRIVERS["highcard"]
        DRIVEN.clear()


def high_card_options(tmp_path: Path, rounds: int, seats: int = 3) -> Options:
    table = replace(TableSettings(), name="HC-01", game=HighCardGame.HIGHCARD, seats=seats,
                    side_bets=())
    return Options(GameConfig(table=table), seats=seats, rounds=rounds, seed=7,
                   bets={"main": 1000}, policy=StandPolicy(), scripted=None, meter_start=None,
                   as_json=True, state_dir=tmp_path / "state")


def dealt_nets(cards: list[str], stake: int) -> tuple[str, list[int]]:
    """An independent reading of a round: each seat's net, from the cards as dealt."""
    *players, dealer = (Card.parse(code) for code in cards)
    order = [*(r for r in Rank if r is not Rank.ACE), Rank.ACE]
    return str(dealer), [stake * ((order.index(p.rank) > order.index(dealer.rank))
                                  - (order.index(p.rank) < order.index(dealer.rank)))
                         for p in players]


def test_the_family_deals_its_game_through_the_registry(high_card: Family) -> None:
    assert family_of("highcard") is high_card
    assert family_of(HighCardGame.HIGHCARD) is high_card
    assert set(VIEWS) == set(families.FAMILIES) == set(games.DRIVERS)


def test_simulated_rounds_settle_as_the_dealt_cards_say(
        high_card: Family, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert simulation.run(high_card_options(tmp_path, rounds=12)) == 0
    out, err = capsys.readouterr()
    records = [json.loads(line) for line in out.splitlines()]
    assert err == "12 rounds\n"
    [driver] = DRIVEN
    assert [r["round"] for r in records] == list(range(1, 13))
    assert len(driver.deals) == 12
    outcomes = set()
    for record, cards in zip(records, driver.deals, strict=True):
        dealer, nets = dealt_nets(cards, 1000)
        assert record["dealer"] == dealer
        assert [s["card"] for s in record["seats"]] == cards[:-1]
        assert [s["net"] for s in record["seats"]] == nets
        outcomes |= {(n > 0) - (n < 0) for n in nets}
    assert outcomes == {1, 0, -1}, "the seed should show a win, a loss and a push"
    journal = JournalStore(tmp_path / "state", clock=time.monotonic)
    settled = [entry.data for entry in journal.entries(("round:settled",))]
    journal.close()
    assert settled == records, "the journal holds the rounds as printed"


def test_the_console_shows_the_round_in_play(high_card: Family, tmp_path: Path) -> None:
    options = high_card_options(tmp_path, rounds=1, seats=2)
    journal = JournalStore(tmp_path / "journal", clock=time.monotonic)
    runtime = TableRuntime(Setup(options.config, burn=False), journal, RecordingOutputs(),
                           high_card.model, "console")
    runtime.fire("shuffle_done")
    runtime.fire("wager", seat=2, cents=2500)
    shown = table_state(runtime.model, [], "")
    assert (shown["game"], shown["phase"]) == ("highcard", "betting")
    assert shown["prompt"] == "place the wagers, then press NO MORE BETS"
    runtime.fire("no_more_bets")
    runtime.fire("card", code="QH")
    shown = table_state(runtime.model, [], "")
    assert shown["phase"] == "dealing"
    assert shown["prompt"] == "deal one card face up to the dealer"
    assert shown["next_card"] == {"to": "dealer", "seat": None, "hand": None}
    assert shown["seats"] == [
        {"seat": 1, "in_play": False, "main": None, "hands": []},
        {"seat": 2, "in_play": True, "main": 2500, "hands": [["QH"]]}]
    assert shown["dealer"]["cards"] == []
    assert shown["highcard"] == {"dealer": None, "seats": {"2": "QH"}}
    assert (shown["roulette"], shown["baccarat"]) == (None, None)
    runtime.fire("card", code="KS")
    shown = table_state(runtime.model, [], "")
    assert shown["highcard"] == {"dealer": None, "seats": {}}  # the next round's betting
    assert shown["last_round"] == {"round": 1, "dealer": "KS", "seats": [
        {"seat": 2, "card": "QH", "cents": 2500, "net": -2500}]}
    runtime.shutdown("test done")
    runtime.journal.close()


def test_its_own_part_is_null_at_every_other_table_while_it_is_registered(
        tmp_path: Path) -> None:
    blackjack = runtime(tmp_path / "bj")
    assert "highcard" not in table_state(blackjack.model, [], "")
    family = families.register(high_card_family())
    VIEWS[family.name] = HIGH_CARD_VIEW
    try:
        shown = table_state(blackjack.model, [], "")
        assert shown["highcard"] is None
        assert list(shown)[-5:] == ["roulette", "holdem", "community", "baccarat", "highcard"]
    finally:
        families.unregister(family.name)
        del VIEWS[family.name]
    assert "highcard" not in table_state(blackjack.model, [], "")
    blackjack.shutdown("test done")
    blackjack.journal.close()


@pytest.mark.parametrize(("own", "refusal"), [
    ("seats", "the highcard view's own part seats is a key every table object has"),
    ("baccarat", "the highcard view's own part baccarat is the baccarat view's already"),
])
def test_an_own_part_another_key_has_is_refused_in_one_line(
        high_card: Family, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, own: str,
        refusal: str) -> None:
    monkeypatch.setitem(VIEWS, "highcard", replace(HIGH_CARD_VIEW, own={own: high_card_table}))
    options = high_card_options(tmp_path, rounds=1)
    journal = JournalStore(tmp_path / "journal", clock=time.monotonic)
    table = TableRuntime(Setup(options.config, burn=False), journal, RecordingOutputs(),
                         high_card.model, "console")
    with pytest.raises(ValueError, match=f"^{refusal}$"):
        table_state(table.model, [], "")
    table.journal.close()


@pytest.mark.parametrize(("player", "dealer", "net"), [
    ("AS", "KH", 500), ("2C", "AD", -500), ("TH", "TS", 0), ("3D", "2H", 500)])
def test_the_rules_pay_the_higher_rank_even_money(player: str, dealer: str, net: int) -> None:
    assert high_card_net(Card.parse(player), Card.parse(dealer), 500) == net


def test_a_family_is_refused_a_taken_name_or_game(high_card: Family) -> None:
    with pytest.raises(ValueError, match="family highcard: the name is taken"):
        families.register(high_card_family())
    with pytest.raises(ValueError, match="game highcard is dealt by the highcard family"):
        families.register(replace(high_card_family(), name="another"))
    with pytest.raises(ValueError, match="game blackjack is dealt by the blackjack family"):
        families.register(replace(high_card_family(), name="another",
                                  games=(families.Game.BLACKJACK,)))
    with pytest.raises(KeyError):
        families.unregister("blackjack")


class MisnamedHC(StrEnum):
    """High card's states, betting called otherwise than every family's code knows it."""

    SHOE_LOADING = "shoe_loading"
    BETTING = "bets_open"
    DEALING = "dealing"
    ROUND_OVER = "round_over"


def test_a_family_naming_a_shared_state_otherwise_is_refused() -> None:
    with pytest.raises(ValueError, match=r"^family highcard: its state BETTING is 'bets_open', "
                                         r"not 'betting' \(TableState.BETTING\)$"):
        families.register(replace(high_card_family(), states=MisnamedHC))
    assert "highcard" not in families.FAMILIES


def test_no_other_family_names_the_toy() -> None:
    product = Path(__file__).resolve().parents[2] / "controller"
    named = [str(p) for p in product.rglob("*.py") if "highcard" in p.read_text().lower()]
    assert not named, f"the product names the toy game: {named}"


# ------------------------------------------------------------- the drivers' base, on this game


def journal_kinds(state: Path) -> list[tuple[str, dict[str, Any]]]:
    journal = JournalStore(state, clock=time.monotonic)
    kinds = [(entry.kind, entry.data) for entry in journal.entries()]
    journal.close()
    return kinds


class FailingDriver(WatchedDriver):
    """The game dealt as usual, but the run met something wrong (a hold, a refusal)."""

    @property
    def failed(self) -> bool:
        return True


def test_a_run_that_met_a_fault_prints_its_rounds_and_exits_1(
        high_card: Family, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert FailingDriver(high_card_options(tmp_path, rounds=3)).run() == 1
    out, err = capsys.readouterr()
    assert [json.loads(line)["round"] for line in out.splitlines()] == [1, 2, 3]
    assert err == "3 rounds\n"


def test_a_table_that_stops_answering_is_one_line_and_exit_1(
        high_card: Family, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    class Silent(WatchedDriver):
        def rounds(self) -> RoundRecords:
            rounds = super().rounds()
            yield next(rounds)
            raise SimulationStoppedError("the table did not move within 5 s (state betting)")

    assert Silent(high_card_options(tmp_path, rounds=3)).run() == 1
    out, err = capsys.readouterr()
    assert len(out.splitlines()) == 1
    assert err == "shoectl simulate: the table did not move within 5 s (state betting)\n"
    kind, data = journal_kinds(tmp_path / "state")[-1]
    assert (kind, data["reason"]) == ("power:off", "simulation finished")


def test_a_device_that_cannot_start_is_one_line_and_exit_2(
        high_card: Family, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    class NoLayout(WatchedDriver):
        def start(self, state_dir: Path, workdir: Path) -> None:
            raise DeviceUnavailableError("layout", "/dev/ttyUSB1: no such port")

        def close(self, reason: str) -> None:
            raise AssertionError("a table that never started is not closed")

    assert NoLayout(high_card_options(tmp_path, rounds=3)).run() == 2
    assert capsys.readouterr() == (
        "", "shoectl simulate: [devices.layout] /dev/ttyUSB1: no such port\n")


def test_ctrl_c_stops_after_the_round_in_play_and_closes_the_journal(
        high_card: Family, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    options = high_card_options(tmp_path, rounds=50)
    options.stop.set()  # as the first Ctrl-C does
    assert simulation.run(options) == EXIT_INTERRUPTED
    out, err = capsys.readouterr()
    assert len(out.splitlines()) == 1
    assert err == "shoectl simulate: interrupted after 1 rounds; the journal is closed\n"
    kinds = journal_kinds(tmp_path / "state")
    assert [k for k, _ in kinds].count("round:settled") == 1
    assert kinds[-1][0] == "power:off"
    assert kinds[-1][1]["reason"] == "simulation interrupted"
