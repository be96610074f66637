"""The live table view of `shoectl simulate`: frames rendered from scripted shoes, its public
secrecy (R5: nothing before the hole card is turned over tells one hole card from another of
its class), its pacing and throttling, and the terminal branch of `shoectl simulate`."""

import io
import json
import random
import re
from pathlib import Path

import pytest

from controller.cli import simulate_command
from controller.rules import baccarat as bac
from controller.rules.cards import Card
from controller.rules.money import format_cents
from controller.rules.strategy import BasicStrategyPolicy
from controller.sim import options as sim_options
from controller.sim import table_view
from controller.sim.games import shoe_table
from controller.sim.table_view import (
    HIDDEN,
    LiveView,
    Memory,
    ShoeLayout,
    Snapshot,
    capture,
    drawing_rules,
    render,
    take_note,
)

from .helpers import act, next_round, open_round, random_hole_pair, runtime

SHOE = ShoeLayout(312, 234)
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


class Table:
    """A runtime and the view's memory of it: fire triggers, deal cards, look at frames."""

    def __init__(self, tmp_path: Path, game: str = "blackjack") -> None:
        self.rt = runtime(tmp_path, game, durable=False)
        self.memory = Memory.starting(self.rt.model)

    def open(self, wagers: dict[int, dict[str, int]]) -> None:
        open_round(self.rt, wagers)
        take_note(self.memory, self.rt.model)

    def fire(self, name: str, **kwargs: object) -> None:
        assert self.rt.fire(name, **kwargs), (name, self.rt.model.state)
        take_note(self.memory, self.rt.model)

    def deal(self, *codes: str) -> None:
        for code in codes:
            self.fire("card", code=code)

    def snapshot(self) -> Snapshot:
        take_note(self.memory, self.rt.model)
        return capture(self.rt, self.memory, SHOE)

    def frame(self, width: int = 200) -> str:
        return render(self.snapshot(), width)

    def row(self, seat: str, width: int = 200) -> str:
        """The seat table's line for `seat` ("1", "2a"...)."""
        lines = [line for line in self.frame(width).splitlines()
                 if re.match(rf"^[>+? ]\s+{seat}\s", line)]
        assert len(lines) == 1, (seat, self.frame(width))
        return lines[0]


def signed(cents: int) -> str:
    """A net as the view shows it: a plus sign on a win."""
    return f"+{format_cents(cents)}" if cents > 0 else format_cents(cents)


# ---------------------------------------------------------------------------- blackjack
def test_a_blackjack_round_frame_by_frame(tmp_path: Path) -> None:
    t = Table(tmp_path)
    t.open({1: {"main": 1000, "perfect-pairs": 100, "blazing7s": 500}, 2: {"main": 1000}})
    t.deal("8H", "7C", "KS")
    frame = t.frame()
    assert re.search(r"^\+ DEALER\s+KS\s+showing 10", frame, re.M) is None  # seat 1 is due
    assert re.search(r"^  DEALER\s+KS\s+showing 10", frame, re.M)
    assert t.row("1").startswith("+")
    assert "DEAL SEAT 1" in frame
    assert "accepted at no more bets: 1" in frame
    assert "[NO MORE BETS]" in frame
    t.deal("8D", "9C")
    assert re.search(r"^\+ DEALER\s+KS\s+showing 10", t.frame(), re.M)  # the hole card next
    t.deal("7D")
    frame = t.frame()
    assert re.search(rf"DEALER\s+KS {re.escape(HIDDEN)}\s+showing 10\s+no blackjack", frame)
    assert "7D" not in frame
    assert re.match(r"^>\s+1\s+8H 8D\s+hard 16\s+10\.00\s+1\.00\s+5\.00$", t.row("1"))
    assert re.match(r"^\s+2\s+7C 9C\s+hard 16\s+10\.00$", t.row("2"))
    assert "SEAT 1 HAND 1: DECIDE" in frame


def test_split_double_and_the_nets_of_every_wager_by_name(tmp_path: Path) -> None:
    t = Table(tmp_path)
    t.open({1: {"main": 1000, "perfect-pairs": 100, "blazing7s": 500}, 2: {"main": 1000}})
    t.deal("8H", "7C", "KS", "8D", "9C", "7D")
    t.fire("split")
    assert re.match(r"^\+\s+1a\s+8H\s+hard 8\s+split\s+10\.00", t.row("1a"))
    assert re.match(r"^\s+1b\s+8D\s+hard 8\s+10\.00$", t.row("1b"))
    t.deal("3S")
    assert t.row("1a").startswith(">")
    t.fire("double")
    assert re.match(r"^\+\s+1a\s+8H 3S\s+hard 11\s+double\s+20\.00", t.row("1a"))
    t.deal("TS", "2C")
    t.fire("stand")
    t.fire("hit")
    assert re.match(r"^\+\s+2\s+7C 9C\s+hard 16\s+hit\s+10\.00$", t.row("2"))
    t.deal("5H")
    assert t.rt.model.state == "round_over"
    record = t.rt.model.results[-1]
    side = record["seats"][0]["side_bets"]
    frame = t.frame()
    assert re.search(r"DEALER\s+KS 7D\s+hard 17", frame)
    assert "[DEALER STAND]" in frame
    assert re.match(rf"^\s+1a\s+8H 3S TS\s+hard 21\s+double\s+\+20\.00\s+"
                    rf"{re.escape(signed(side['perfect-pairs']))}\s+-5\.00\s+"
                    rf"{re.escape(signed(20_00 - 10_00 + sum(side.values())))}$", t.row("1a"))
    assert re.match(r"^\s+1b\s+8D 2C\s+hard 10\s+stand\s+-10\.00$", t.row("1b"))
    assert re.match(r"^\s+2\s+7C 9C 5H\s+hard 21\s+hit\s+\+10\.00\s+\+10\.00$", t.row("2"))
    header = next(line for line in frame.splitlines() if "seat" in line and "cards" in line)
    assert header.split() == ["seat", "cards", "total", "last", "main", "perfect-pairs",
                              "blazing7s", "net"]
    assert f"players net {signed(table_view.players_net(record))}" in frame
    assert "rounds 1" in frame


def test_a_narrow_terminal_gets_short_column_names_and_a_legend(tmp_path: Path) -> None:
    t = Table(tmp_path)
    bets = {"main": 1000, "perfect-pairs": 100, "lucky-ladies": 100, "match-the-dealer": 100,
            "blazing7s": 500, "axman": 100}
    t.open({1: bets, 2: bets})
    t.deal("8H", "7C", "KS", "8D", "9C", "7D")
    wide, narrow = t.frame(200), t.frame(80)
    assert "match-the-dealer" in wide.split("\n\n")[2]
    assert "  PP perfect-pairs  LL lucky-ladies  MtD match-the-dealer  B7 blazing7s\n  AX axman" \
        in narrow
    assert max(len(line) for line in narrow.splitlines()) <= 80
    header = next(line for line in narrow.splitlines() if "seat" in line and "cards" in line)
    assert header.split()[-6:] == ["main", "PP", "LL", "MtD", "B7", "AX"]


def test_bets_on_the_layout_before_no_more_bets(tmp_path: Path) -> None:
    t = Table(tmp_path)
    t.rt.fire("shuffle_done")
    assert "no wagers on the layout" in t.frame()
    t.fire("wager", seat=3, bet="main", cents=2500)
    t.fire("bet_sensor", sensor="seat3.blazing7s", occupied=True)
    t.fire("bet_sensor", sensor="seat5.blazing7s", occupied=True)
    frame = t.frame()
    assert "PLACE YOUR BETS" in frame
    assert "no more bets  " in frame  # the lamp is off
    assert re.match(r"^\s+3\s+25\.00\s+5\.00$", t.row("3"))
    assert re.match(r"^\s+5\s+5\.00$", t.row("5"))


def test_blazing_7s_meter_hit_shows_win_seat_and_amount(tmp_path: Path) -> None:
    t = Table(tmp_path)
    t.open({1: {"main": 1000, "blazing7s": 500}})
    meter = t.rt.model.progressive.meters.amount
    assert re.search(rf"Blazing 7's\s+{re.escape(format_cents(meter))}\s+accepted "
                     r"at no more bets: 1", t.frame())
    t.deal("7D", "7D", "7D", "5C")
    t.fire("stand")
    t.deal("TS")
    assert t.rt.model.state == "round_over"
    frame = t.frame()
    won = re.escape(format_cents(meter))
    reset = re.escape(format_cents(t.rt.model.progressive.meters.amount))
    assert re.search(rf"Blazing 7's\s+{reset}\s+WIN seat 1 {won}", frame)
    assert re.search(rf"^\s+1\s+7D 7D\s+hard 14\s+stand\s+\+10\.00\s+"
                     rf"{re.escape(signed(meter - 500))}", frame, re.M)
    assert "meter hits 1" in frame


def test_insurance_question_answers_and_the_insurance_wager(tmp_path: Path) -> None:
    t = Table(tmp_path)
    t.open({1: {"main": 1000}, 2: {"main": 1000}})
    t.deal("9S", "TC", "AH", "9D", "QC", "5S")
    frame = t.frame()
    assert "[INSURANCE]" in frame
    assert "SEAT 1: INSURANCE?" in frame
    assert t.row("1").startswith("?")
    t.fire("no_insurance")
    assert "no insurance" in t.row("1")
    assert t.row("2").startswith("?")
    t.fire("insurance")
    assert re.search(r"DEALER\s+AH \?\?\s+showing A\s+no blackjack", t.frame())
    assert re.match(r"^>\s+1\s+9S 9D\s+hard 18\s+no insurance\s+10\.00$", t.row("1"))
    assert re.match(r"^\s+2\s+TC QC\s+hard 20\s+insured\s+10\.00\s+5\.00$", t.row("2"))
    t.fire("stand")
    t.fire("stand")
    t.deal("2C")
    assert t.rt.model.state == "round_over"
    assert re.search(r"DEALER\s+AH 5S 2C\s+soft 18", t.frame())
    assert re.match(r"^\s+2\s+TC QC\s+hard 20\s+stand\s+\+10\.00\s+-5\.00\s+\+5\.00$",
                    t.row("2"))


def test_dealer_blackjack_is_turned_over_at_the_peek(tmp_path: Path) -> None:
    t = Table(tmp_path)
    t.open({1: {"main": 1000}})
    t.deal("9S", "KH", "9D", "AS")
    frame = t.frame()
    assert "[BLACKJACK]" in frame
    assert re.search(r"DEALER\s+KH AS\s+blackjack", frame)
    assert re.match(r"^\s+1\s+9S 9D\s+hard 18\s+-10\.00\s+-10\.00$", t.row("1"))


# ---------------------------------------------------------------------------- Spanish 21
def test_spanish_21_bonus_21s_super_bonus_and_envy(tmp_path: Path) -> None:
    t = Table(tmp_path, "spanish21")
    t.open({1: {"main": 1000}, 2: {"main": 1000, "match-the-dealer": 100}})
    t.deal("7S", "5D", "7S", "7S", "6D", "9C")
    assert re.search(r"DEALER\s+7S \?\?\s+showing 7", t.frame())
    t.fire("hit")
    t.deal("7S")
    assert re.match(r"^\s+1\s+7S 7S 7S\s+hard 21 bonus spaded 7-7-7 SUPER BONUS\s+hit", t.row("1"))
    for card in ("2H", "3C", "5C"):
        t.fire("hit")
        t.deal(card)
    assert re.match(r"^\s+2\s+5D 6D 2H 3C 5C\s+hard 21 bonus 5-card 21\s+hit", t.row("2"))
    t.deal("KC")
    assert t.rt.model.state == "round_over"
    record = t.rt.model.results[-1]
    one, two = record["seats"]
    frame = t.frame()
    header = next(line for line in frame.splitlines() if "seat" in line and "cards" in line)
    assert header.split()[-5:] == ["main", "match-the-dealer", "super-bonus", "envy", "net"]
    award = one["side_bets"]["super-bonus"]
    assert re.search(rf"{re.escape(signed(award))}\s+"
                     rf"{re.escape(signed(one['hands'][0]['net'] + award))}$", t.row("1"))
    assert re.search(rf"{re.escape(signed(two['hands'][0]['net']))}\s+"
                     rf"{re.escape(signed(two['side_bets']['match-the-dealer']))}\s+"
                     rf"{re.escape(signed(two['side_bets']['envy']))}", t.row("2"))
    assert two["side_bets"]["envy"] > 0
    assert one["hands"][0]["net"] > 1000  # the bonus odds, not 1:1


# ---------------------------------------------------------------------------- baccarat
def test_a_baccarat_coup_with_the_drawing_rules(tmp_path: Path) -> None:
    t = Table(tmp_path, "baccarat")
    t.open({1: {"banker": 1000, "dragon-banker": 100}, 2: {"player": 500, "tie": 100}})
    t.deal("2S", "3D", "KS")
    assert re.search(r"^\+ BANKER\s+3D\s+3", t.frame(), re.M)
    t.deal("3C")
    frame = t.frame()
    assert "[PLAYER DRAW]" in frame
    assert re.search(r"^\+ PLAYER\s+2S KS\s+2\s+draws on 2 \(0-5\)$", frame, re.M)
    assert re.search(r"^  BANKER\s+3D 3C\s+6\s+6: waits for the Player's third card$", frame,
                     re.M)
    t.deal("6H")
    frame = t.frame()
    assert "[BANKER DRAW]" in frame
    assert re.search(r"BANKER\s+3D 3C\s+6\s+draws on 6 against a Player third card of 6",
                     frame)
    t.deal("3S")
    assert t.rt.model.state == "round_over"
    frame = t.frame()
    assert re.match(r"shoectl simulate  baccarat, \d+ decks  coup 1  ROUND OVER$", frame, re.M)
    assert "BANKER wins 9-8" in frame
    header = next(line for line in frame.splitlines() if line.strip().startswith("seat"))
    assert header.split() == ["seat", "banker", "player", "tie", "dragon-banker", "net"]
    assert re.match(r"^\s+1\s+\+9\.50\s+-1\.00\s+\+8\.50$", t.row("1"))
    assert re.match(r"^\s+2\s+-5\.00\s+-1\.00\s+-6\.00$", t.row("2"))
    assert "house win -2.50" in frame


@pytest.mark.parametrize(("player", "banker", "rules"), [
    ("8S KD", "2C 3C", ("natural 8", "stands (Player natural)")),
    ("2S 4D", "9C KC", ("stands (Banker natural)", "natural 9")),
    ("KS 7D", "2C 3C", ("stands on 7 (6-7)", "draws on 5 (Player stood)")),
    ("KS 6D", "QC 6C", ("stands on 6 (6-7)", "stands on 6 (Player stood)")),
    ("KS 4D 8H", "2C 1C", ("draws on 4 (0-5)", "stands on 3 against a Player third card of 8")),
])
def test_baccarat_drawing_rules(player: str, banker: str, rules: tuple[str, str]) -> None:
    def cards(text: str) -> tuple[Card, ...]:
        return tuple(Card.parse(c.replace("1", "A")) for c in text.split())
    assert drawing_rules(bac.Coup(cards(player), cards(banker))) == rules


# ---------------------------------------------------------------------------- secrecy
def frames_until_reveal(rt, seats: int, first: list[str], hole: str,
                        rest: list[str]) -> list[tuple[Snapshot, str, str]]:
    """Every frame of a round from no more bets until the hole card is turned over."""
    next_round(rt)
    memory = Memory.starting(rt.model)
    open_round(rt, {s: {"main": 1000, "perfect-pairs": 100, "blazing7s": 500}
                    for s in range(1, seats + 1)})
    stream = iter([*first[:-1], hole, *rest])
    policy = BasicStrategyPolicy()
    frames = []
    while rt.model.state != "round_over":
        take_note(memory, rt.model)
        game = rt.model.game
        if game is None or not game.hole_revealed:
            snap = capture(rt, memory, SHOE)
            frames.append((snap, render(snap, 200), render(snap, 80, color=True)))
        act(rt, stream, policy)
    return frames


def test_frames_before_the_reveal_are_identical_for_holes_of_one_class(
        tmp_path: Path) -> None:
    rng = random.Random(7)
    table_a = runtime(tmp_path / "a", durable=False)
    table_b = runtime(tmp_path / "b", durable=False)
    compared = 0
    for n in range(250):
        pair = random_hole_pair(rng)
        hole_a, hole_b = pair.holes
        a = frames_until_reveal(table_a, pair.seats, pair.first, hole_a, pair.rest)
        b = frames_until_reveal(table_b, pair.seats, pair.first, hole_b, pair.rest)
        assert a == b, (n, pair.up, hole_a, hole_b)
        compared += len(a)
    assert compared > 1000


def test_the_frame_that_turns_the_hole_over_shows_it(tmp_path: Path) -> None:
    t = Table(tmp_path)
    t.open({1: {"main": 1000}})
    t.deal("9C", "5S", "8D")
    before = t.frame()
    t.deal("QH")
    assert "QH" not in t.frame()
    assert before.replace("DEAL DEALER", "") != t.frame()
    t.fire("stand")
    assert re.search(r"DEALER\s+5S QH\s+hard 15", t.frame())


# ---------------------------------------------------------------------------- live view
class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class FakeTime:
    """A clock that moves only while the view waits."""

    def __init__(self) -> None:
        self.now = 100.0
        self.waits: list[float] = []

    def __call__(self) -> float:
        return self.now

    def wait(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.now += seconds


def test_live_view_paces_cards_throttles_frames_and_redraws_in_place(tmp_path: Path) -> None:
    t = Table(tmp_path)
    out, clock = FakeTerminal(), FakeTime()
    view = LiveView(t.rt, out, SHOE, pace=0.1, wait=clock.wait, fps=10, clock=clock,
                    size=lambda: (100, 40))
    t.rt.fire("shuffle_done")
    for seat in (1, 2):
        t.rt.fire("wager", seat=seat, bet="main", cents=1000)
        view.after_step()
    t.rt.fire("no_more_bets")
    view.after_step()
    cards = ["9S", "TC", "6D", "9D", "QC", "5S", "TH"]
    for code in cards[:6]:
        t.rt.fire("card", code=code)
        view.after_step()
    for _ in range(2):
        t.rt.fire("stand")
        view.after_step()
    t.rt.fire("card", code=cards[6])
    view.after_step()
    view.close()
    assert t.rt.model.state == "round_over"
    text = out.getvalue()
    frames = text.split(table_view.HOME)[1:]
    assert text.startswith(table_view.HIDE_CURSOR + table_view.CLEAR_SCREEN + table_view.HOME)
    assert text.count(table_view.CLEAR_SCREEN) == 1  # later frames overwrite in place
    assert text.endswith(table_view.SHOW_CURSOR)
    assert all(f.endswith(table_view.CLEAR_BELOW) for f in frames[:-1])
    elapsed = clock.now - 100.0
    assert view.frames == len(frames) <= elapsed * 10 + 2  # at most 10 frames a second
    # One card every 0.1 s (the first without waiting); the settled round is held on screen.
    assert sum(clock.waits) == pytest.approx(0.1 * 5 + 0.1 * table_view.ROUND_HOLD_CARDS)
    assert clock.waits[-1] == pytest.approx(0.1 * table_view.ROUND_HOLD_CARDS)
    # A card whose frame was throttled is drawn during its pause, once a frame is due.
    shown = [ANSI.sub("", f) for f in frames]
    for dealt in range(2, 7):  # (the first card followed the bets with no time between)
        assert any(f"{dealt} dealt, " in f for f in shown), dealt
    assert re.search(r"DEALER\s+6D 5S TH\s+hard 21", shown[-1])


def test_live_view_without_pace_never_waits(tmp_path: Path) -> None:
    t = Table(tmp_path)
    out, clock = FakeTerminal(), FakeTime()
    view = LiveView(t.rt, out, SHOE, pace=0, wait=clock.wait, clock=clock,
                    size=lambda: (100, 40))
    t.open({1: {"main": 1000}})
    for code in ("9S", "6D", "9D", "5S"):
        t.rt.fire("card", code=code)
        view.after_step()
    t.rt.fire("stand")
    view.after_step()
    assert view.frames == 1  # the clock never moved: one frame until the round settles...
    t.rt.fire("card", code="TH")
    view.after_step()
    assert view.frames == 2  # ...which is always drawn...
    view.close()
    assert view.frames == 3  # ...and so is the last frame
    assert clock.waits == []


def test_a_short_terminal_gets_the_top_of_the_frame(tmp_path: Path) -> None:
    t = Table(tmp_path)
    out, clock = FakeTerminal(), FakeTime()
    view = LiveView(t.rt, out, SHOE, pace=0, wait=clock.wait, clock=clock,
                    size=lambda: (40, 6))
    view.close()
    body = ANSI.sub("", out.getvalue())
    assert len(body.strip("\n").splitlines()) == 5
    assert all(len(line) <= 40 for line in body.splitlines())


# ---------------------------------------------------------------------------- simulate
def run_on_terminal(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> tuple[int, str]:
    terminal = FakeTerminal()
    monkeypatch.setattr("sys.stdout", terminal)
    code = simulate_command.main(argv)
    return code, terminal.getvalue()


@pytest.mark.parametrize("extra", [["--in-process"], []], ids=["in-process", "devices"])
def test_simulate_on_a_terminal_draws_the_live_table(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, extra: list[str]) -> None:
    code, text = run_on_terminal(["--rounds", "2", "--seed", "4", "--pace", "0",
                                  "--state-dir", str(tmp_path), *extra], monkeypatch)
    assert code == 0
    frames = [ANSI.sub("", f) for f in text.split(table_view.HOME)[1:]]
    assert frames
    last = frames[-1]
    assert "shoectl simulate  blackjack, 6 decks  round 2  ROUND OVER" in last
    assert "rounds 2   house win" in last
    assert re.search(r"DEALER\s+(\w\w ){2,}", last)
    assert "accepted at no more bets: 5" in last
    summary = last.splitlines()[-1]
    assert summary.startswith("rounds 2  hands ")
    assert not re.search(r"^round\s+1\s+dealer", ANSI.sub("", text), re.M)  # no plain lines


def test_json_on_a_terminal_is_unchanged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--rounds", "2", "--seed", "6", "--json", "--in-process"]
    code, text = run_on_terminal([*argv, "--state-dir", str(tmp_path / "a")], monkeypatch)
    assert code == 0
    monkeypatch.undo()
    assert simulate_command.main([*argv, "--state-dir", str(tmp_path / "b")]) == 0
    assert text == capsys.readouterr().out
    assert [json.loads(line)["round"] for line in text.splitlines()] == [1, 2]


@pytest.mark.parametrize("pace", ["-0.1", "11", "nan"])
def test_a_pace_out_of_range_is_refused(pace: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert simulate_command.main(["--pace", pace, "--rounds", "1", "--in-process"]) == 2
    assert f"--pace: 0..{sim_options.MAX_PACE} seconds a card, got" in capsys.readouterr().err


def test_the_shoe_line_follows_the_cut_card() -> None:
    options = simulate_command.parse_options(["--decks", "6"])
    assert shoe_table.shoe_layout(options) == ShoeLayout(312, 234)
    options = simulate_command.parse_options(["--game", "baccarat"])
    assert shoe_table.shoe_layout(options) == ShoeLayout(416, 402)
    options = simulate_command.parse_options(["--game", "spanish21"])
    assert shoe_table.shoe_layout(options) == ShoeLayout(288, 216)


def test_a_linked_hit_waiting_for_the_controller_counts_as_nothing_yet() -> None:
    record = {"seats": [{"hands": [{"net": 1000}], "side_bets": {"blazing7s": None,
                                                                   "perfect-pairs": -100}}]}
    assert table_view.players_net(record) == 900
