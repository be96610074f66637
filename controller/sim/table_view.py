"""The live table view of `shoectl simulate` on a terminal: what the table shows, as it plays.

It is a public screen, like the layout's lamps and the progressive sign (R5, R17): every
figure on it is something anyone standing at the table can see. A `Snapshot` is taken from
the runtime's public view (lamps, sign and dealer display as last applied to the devices),
the procedure's public queries (whose card or decision is due), the cards lying face up on
the layout with a `??` for each one face down (the model's `camera_layout`, the same picture
the overhead camera is checked against), the seats' wagers, and the settled round record.
The dealer's hole card is never read: until the procedure turns it over, the dealer's hand is
the up card and `??`. Player decisions are remembered from the procedure's decision steps
(never its card steps) as each one is taken.

`render` turns a snapshot into lines of text (ANSI styling optional); `LiveView` redraws them
in place on a terminal at most `fps` times a second, and paces the table (`pace` seconds a
card, a short pause on each settled round) only so that a person can follow it. Nothing here
changes what the table does: the view reads, it never fires a trigger.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, TextIO

from controller.procedure.baccarat.model import BaccaratModel
from controller.procedure.blackjack.model import BlackjackModel
from controller.procedure.core.model import HOLD_STATES
from controller.procedure.core.states import TableState
from controller.procedure.families import FAMILY, is_model, model_as
from controller.procedure.shared.table_model import TableModel
from controller.procedure.shared.table_outputs import PublicView
from controller.rules import baccarat as bac
from controller.rules import blackjack as bj
from controller.rules.cards import Card
from controller.rules.hands import DEALER, Game, Position, hand_value
from controller.rules.money import format_cents
from controller.rules.sidebets import SideBet, Spanish21Bonus, is_super_bonus, spanish21_bonus
from controller.service.app import SIGN_FAULT_TEXT
from controller.service.runtime import TableRuntime

HIDDEN: Final = "??"
"""How a card lying face down is shown (the hole card until it is turned over)."""
DEFAULT_PACE: Final = 0.012
"""Seconds per card on a terminal: `make demo`'s 100 rounds stay well under a minute."""
ROUND_HOLD_CARDS: Final = 12
"""A settled round stays on screen as long as this many cards take to deal."""
DEFAULT_FPS: Final = 15.0
FALLBACK_SIZE: Final = (100, 30)

LAMPS: Final = {
    "blackjack": ("no_more_bets", "blackjack", "insurance", "dealer_draw", "dealer_stand",
                  "shuffle", "fault"),
    "baccarat": ("no_more_bets", "player_draw", "banker_draw", "shuffle", "fault"),
}
WAGER_ORDER: Final = ("main", "banker", "player", "tie", "dragon-banker", "dragon-player",
                      *(b.value for b in SideBet))
SHORT_NAMES: Final = {
    "perfect-pairs": "PP", "lucky-ladies": "LL", "match-the-dealer": "MtD",
    "blazing7s": "B7", "axman": "AX", "insurance": "INS", "super-bonus": "SB", "envy": "ENVY",
    "banker": "BNK", "player": "PLR", "dragon-banker": "DB", "dragon-player": "DP",
}
DECISION_LABELS: Final = {"insure": "insured", "even_money": "even money"}
BONUS_LABELS: Final = {
    Spanish21Bonus.FIVE_CARD_21: "5-card 21", Spanish21Bonus.SIX_CARD_21: "6-card 21",
    Spanish21Bonus.SEVEN_CARD_21: "7-card 21", Spanish21Bonus.MIXED_678: "6-7-8",
    Spanish21Bonus.SUITED_678: "suited 6-7-8", Spanish21Bonus.SPADES_678: "spaded 6-7-8",
    Spanish21Bonus.MIXED_777: "7-7-7", Spanish21Bonus.SUITED_777: "suited 7-7-7",
    Spanish21Bonus.SPADES_777: "spaded 7-7-7",
}


# ---------------------------------------------------------------------------- snapshot
@dataclass(frozen=True, slots=True)
class HandRow:
    """One player hand as it lies on the layout.

    Attributes:
        cards: Card codes in the order dealt.
        total: "hard 16", "soft 17", "blackjack", "bust 24" (and a Spanish 21 bonus).
        stake: The main wager at risk on this hand (with its double).
        last: The last decision taken on it ("" before any).
        net: After settlement, what the hand won or lost (cents).
        marker: ">" the hand decides, "+" a card is due to it, "" otherwise.
    """

    cards: tuple[str, ...]
    total: str
    stake: int
    last: str = ""
    net: int | None = None
    marker: str = ""


@dataclass(frozen=True, slots=True)
class SeatRow:
    """A seat's wagers (main wager on its hands for blackjack) and, once settled, nets."""

    seat: int
    wagers: tuple[tuple[str, int], ...]
    hands: tuple[HandRow, ...] = ()
    nets: tuple[tuple[str, int], ...] | None = None
    marker: str = ""


@dataclass(frozen=True, slots=True)
class SideRow:
    """The dealer's hand, or baccarat's Player or Banker hand."""

    name: str
    cards: tuple[str, ...] = ()
    total: str = ""
    note: str = ""
    marker: str = ""


@dataclass(frozen=True, slots=True)
class Totals:
    """Running totals since the view started."""

    rounds: int = 0
    house: int = 0
    hits: int = 0
    faults: int = 0
    void: int = 0


@dataclass(frozen=True, slots=True)
class ShoeLayout:
    """What the dealer put in the shoe: its size and where the cut card lies.

    Attributes:
        size: Cards in the shoe.
        cut_after: Cards dealt before the cut card comes out; None without one (a scripted
            shoe).
    """

    size: int
    cut_after: int | None


@dataclass(frozen=True, slots=True)
class Snapshot:
    """One frame's worth of public table state."""

    game: str
    decks: int
    round: int
    state: str
    dealer_text: str
    lamps: tuple[tuple[str, str], ...]
    sign: str | None
    accepted: int | None
    shoe: str
    sides: tuple[SideRow, ...]
    seats: tuple[SeatRow, ...]
    result: str
    totals: Totals

    @property
    def family(self) -> str:
        """The procedure family: baccarat, or blackjack (Spanish 21 deals like blackjack)."""
        return FAMILY[self.game]


def players_net(record: dict[str, Any]) -> int:
    """What the players won (negative: lost) in one settled round record.

    A linked table's meter hit that waits for the controller (`null`) counts as nothing yet.
    """
    if "banker" in record:
        return sum(sum(s["bets"].values()) for s in record["seats"])
    return sum(sum(h["net"] for h in s["hands"])
               + sum(v for v in s["side_bets"].values() if v is not None)
               for s in record["seats"])


def capture(runtime: TableRuntime, memory: Memory, shoe: ShoeLayout) -> Snapshot:
    """The table's public state now (call on the loop thread, after `memory.observe`)."""
    model = runtime.model
    view = runtime.shown or model.outputs.public_view()
    table = model.setup.config.table
    family = FAMILY[table.game.value]
    rows = _FAMILY_ROWS.get(family)
    sides, seats, result = rows(model, memory) if rows is not None else ((), (), "")
    return Snapshot(table.game.value, table.decks, model.round.number, model.state,
                    view.dealer_text, _lamps(view, LAMPS[FAMILY[table.game.value]]),
                    _sign(model, view), _accepted(model), _shoe_text(model, shoe), sides,
                    seats, result, memory.totals(model))


_Rows = tuple[tuple["SideRow", ...], tuple["SeatRow", ...], str]
"""The sides (dealer, Player, Banker), the seats and the result line of a snapshot."""

_FAMILY_ROWS: Final[dict[str, Callable[[TableModel, Memory], _Rows]]] = {
    "blackjack": lambda model, memory: _blackjack(model_as(model, BlackjackModel), memory),
    "baccarat": lambda model, _memory: _baccarat(model_as(model, BaccaratModel)),
}
"""The rows each family shows in the live view (the other families show none here)."""


def _lamps(view: PublicView, wanted: Sequence[str]) -> tuple[tuple[str, str], ...]:
    states = dict(view.lamps)
    return tuple((name, str(states.get(name, "off"))) for name in wanted)


def _sign(model: TableModel, view: PublicView) -> str | None:
    """What the progressive sign says; None at a table without the progressive wager."""
    if SideBet.BLAZING7S not in model.setup.config.table.side_bets:
        return None
    if view.sign_message == "FAULT":
        return SIGN_FAULT_TEXT
    amount = format_cents(view.sign_amount or 0)
    seat, paid = view.sign_win
    if seat and view.sign_message.startswith("WIN"):
        return f"{amount}  WIN seat {seat} {format_cents(paid)}"
    return amount


def _accepted(model: TableModel) -> int | None:
    """Blazing 7's wagers accepted at no more bets (None before the lock-out)."""
    if not is_model(model, BlackjackModel) or model.game is None:
        return None
    return len(model.accepted_seats())


def _shoe_text(model: TableModel, layout: ShoeLayout) -> str:
    shoe = model.shoe
    if model.state == TableState.SHOE_LOADING:
        return "shuffling"
    dealt = f"{shoe.tally.cards_out} dealt"
    if layout.cut_after is None:
        return f"{shoe.tally.cards_out} of {layout.size} dealt (scripted shoe, no cut card)"
    if shoe.tally.cut_seen:
        return f"{dealt}, cut card out: shuffle after this round"
    return f"{dealt}, {max(0, layout.cut_after - shoe.tally.cards_out)} to the cut card"


# ---------------------------------------------------------------------------- blackjack
def _blackjack(model: BlackjackModel, memory: Memory) -> tuple[tuple[SideRow, ...],
                                                               tuple[SeatRow, ...], str]:
    game = model.game
    if game is None:
        return (SideRow("DEALER"),), _bets_placed(model), ""
    layout, _ = model.camera_layout()
    due = model.card_due_to()
    record = model.round.result if model.round.settled else {}
    settled = {s["seat"]: s for s in record.get("seats", [])}
    held = _held_face_up(model)
    seats = tuple(_seat(model, game, seat, held.get(seat.seat, ()), due, memory,
                        settled.get(seat.seat)) for seat in game.seats)
    result = f"players net {_signed(players_net(record))}" if record else ""
    return (_dealer(game, layout.get("dealer", []), due),), seats, result


def _bets_placed(model: TableModel) -> tuple[SeatRow, ...]:
    """Wagers on the layout while bets are open (Blazing 7's: the chip on its sensor)."""
    stake = model.setup.config.paytables.blazing7s.wager
    chips = (_sensor_seat(name) for name, on in model.wagers.sensors.items() if on)
    seats = set(model.wagers.pending) | {seat for seat in chips if seat is not None}
    rows = []
    for seat in sorted(seats):
        wagers = dict(model.wagers.pending.get(seat, {}))
        if model.wagers.sensors.get(f"seat{seat}.{SideBet.BLAZING7S}"):
            wagers[SideBet.BLAZING7S] = stake
        rows.append(SeatRow(seat, tuple(wagers.items())))
    return tuple(rows)


def _sensor_seat(sensor: str) -> int | None:
    """The seat of a bet sensor named `seat<n>.<bet>` (None for any other name)."""
    seat = sensor.partition(".")[0].removeprefix("seat")
    return int(seat) if seat.isdigit() else None


def _held_face_up(model: BlackjackModel) -> dict[int, tuple[str, ...]]:
    """Cards of the initial deal already on a seat but not yet taken by the rules' order."""
    held: dict[int, tuple[str, ...]] = {}
    for (seat, _hand, hole), card in model.deal.held:
        if seat != DEALER and not hole:
            held[seat] = (*held.get(seat, ()), str(card))
    return held


def _dealer(game: bj.BlackjackRound, lying: Sequence[str | None],
            due: Position | None) -> SideRow:
    """The dealer's cards as they lie: face-down ones (the hole card) as `??` (R5)."""
    cards = tuple(HIDDEN if card is None else card for card in lying)
    face_up = [Card.parse(card) for card in cards if card != HIDDEN]
    if HIDDEN in cards or not game.hole_revealed:
        total = f"showing {_points(face_up[0])}" if face_up else ""
    else:
        total = _total(face_up, blackjack_possible=True)
    note = "no blackjack" if game.peeked and not game.hole_revealed else ""
    marker = "+" if due is not None and due.is_dealer else ""
    return SideRow("DEALER", cards, total, note, marker)


def _points(card: Card) -> str:
    return "A" if card.rank.points == 1 else str(card.rank.points)


def _total(cards: Sequence[Card], *, blackjack_possible: bool) -> str:
    if not cards:
        return ""
    value = hand_value(cards)
    if value.total > 21:
        return f"bust {value.total}"
    if blackjack_possible and len(cards) == 2 and value.total == 21:
        return "blackjack"
    return f"{'soft' if value.soft else 'hard'} {value.total}"


def _seat(model: BlackjackModel, game: bj.BlackjackRound, seat: bj.SeatState,
          held: tuple[str, ...], due: Position | None, memory: Memory,
          record: dict[str, Any] | None) -> SeatRow:
    wagers = dict(seat.bets.side_bets)
    if seat.insurance:
        wagers[SideBet.INSURANCE] = seat.insurance
    hands = []
    turn = model.decision_due()
    for index, hand in enumerate(seat.hands):
        cards = (*(str(c) for c in hand.cards), *(held if index == 0 else ()))
        marker = (">" if turn == (seat.seat, index) else
                  "+" if due is not None and (due.seat, due.hand) == (seat.seat, index) else "")
        net = record["hands"][index]["net"] if record else None
        hands.append(HandRow(cards, _hand_total(game, hand, cards), hand.at_risk,
                             memory.decisions.get((seat.seat, index), ""), net, marker))
    nets = tuple(record["side_bets"].items()) if record else None
    asked = "?" if model.insurer.seat_asked() == seat.seat else ""
    return SeatRow(seat.seat, tuple(wagers.items()), tuple(hands), nets, asked)


def _hand_total(game: bj.BlackjackRound, hand: bj.Hand, codes: Sequence[str]) -> str:
    cards = [Card.parse(code) for code in codes]
    total = _total(cards, blackjack_possible=not hand.from_split)
    if game.rules.game is not Game.SPANISH21 or not total.endswith(" 21"):
        return total
    bonus = spanish21_bonus(cards)
    eligible = not hand.doubled and (not hand.from_split or game.rules.bonuses_after_split)
    if bonus is not None and eligible:
        total = f"{total} bonus {BONUS_LABELS[bonus]}"
    up = game.up_card
    if up is not None and is_super_bonus(cards, up):
        total = f"{total} SUPER BONUS"
    return total


# ---------------------------------------------------------------------------- baccarat
def _baccarat(model: BaccaratModel) -> tuple[tuple[SideRow, ...], tuple[SeatRow, ...], str]:
    coup = model.coup
    due = model.card_due_to()
    player_rule, banker_rule = drawing_rules(coup)
    sides = (SideRow("PLAYER", tuple(str(c) for c in coup.player), _bac_total(coup.player),
                     player_rule, "+" if due is bac.Side.PLAYER else ""),
             SideRow("BANKER", tuple(str(c) for c in coup.banker), _bac_total(coup.banker),
                     banker_rule, "+" if due is bac.Side.BANKER else ""))
    record = model.round.result if model.round.settled else {}
    nets = {s["seat"]: tuple(s["bets"].items()) for s in record.get("seats", [])}
    bets = model.bets if model.bets else model.wagers.pending
    seats = tuple(SeatRow(seat, tuple(wagers.items()), (), nets.get(seat))
                  for seat, wagers in sorted(bets.items()))
    return sides, seats, _coup_result(coup) if record else ""


def _bac_total(cards: Sequence[Card]) -> str:
    return str(bac.baccarat_total(cards)) if cards else ""


def drawing_rules(coup: bac.Coup) -> tuple[str, str]:
    """Why each baccarat hand draws or stands (R19), from the cards on the layout.

    Returns:
        The Player's and the Banker's rule ("" before the four first cards are out).
    """
    player, banker = coup.player, coup.banker
    if len(player) < 2 or len(banker) < 2:
        return "", ""
    p_total, b_total = bac.baccarat_total(player[:2]), bac.baccarat_total(banker[:2])
    if bac.is_natural(player[:2]) or bac.is_natural(banker[:2]):
        return (_natural_rule(player[:2], p_total, "Banker"),
                _natural_rule(banker[:2], b_total, "Player"))
    drew = bac.player_draws(p_total)
    player_rule = f"draws on {p_total} (0-5)" if drew else f"stands on {p_total} (6-7)"
    return player_rule, _banker_rule(b_total, player, drew)


def _banker_rule(total: int, player: Sequence[Card], player_drew: bool) -> str:
    if not player_drew:
        return f"{'draws' if total <= 5 else 'stands'} on {total} (Player stood)"
    if len(player) < 3:
        return f"{total}: waits for the Player's third card"
    third = player[2]
    verb = "draws" if bac.banker_draws(total, third) else "stands"
    return f"{verb} on {total} against a Player third card of {third.rank.baccarat_points}"


def _natural_rule(cards: Sequence[Card], total: int, other: str) -> str:
    return f"natural {total}" if bac.is_natural(cards) else f"stands ({other} natural)"


def _coup_result(coup: bac.Coup) -> str:
    player, banker = bac.baccarat_total(coup.player), bac.baccarat_total(coup.banker)
    outcome = coup.outcome
    if outcome is bac.Outcome.TIE:
        return f"TIE {player}-{banker}"
    high, low = max(player, banker), min(player, banker)
    return f"{outcome.value.upper()} wins {high}-{low}"


# ---------------------------------------------------------------------------- memory
@dataclass
class Memory:
    """What the view remembers between frames: decisions taken, and running totals.

    Decisions come from the procedure's decision and insurance steps as each is taken (the
    hand in turn before the step is the one that decided); card steps are never looked at.
    """

    decisions: dict[tuple[int, int], str] = field(default_factory=dict)
    round: int = -1
    turn: tuple[int, int] | None = None
    steps: int = 0
    answered: int = 0
    results: int = 0
    hits_at_start: int = 0
    rounds: int = 0
    house: int = 0
    faults: int = 0
    held: bool = False

    @classmethod
    def starting(cls, model: TableModel) -> Memory:
        """Totals count from now: rounds settled and meter hits before are not shown."""
        return cls(results=len(model.results), hits_at_start=model.progressive.meters.hits,
                   held=model.state in HOLD_STATES)

    def observe(self, model: TableModel) -> None:
        """Take note of what changed since the last call (call after every table step)."""
        for record in model.results[self.results:]:
            self.rounds += 1
            self.house -= players_net(record)
        self.results = len(model.results)
        held = model.state in HOLD_STATES
        if held and not self.held:
            self.faults += 1  # the table stopped (fault lamp) once more
        self.held = held
        if is_model(model, BlackjackModel):
            self._decisions(model)

    def _decisions(self, model: BlackjackModel) -> None:
        if model.round.number != self.round:
            self.round, self.decisions, self.turn = model.round.number, {}, None
            self.steps = self.answered = 0
        new_steps = [step for step in model.steps[self.steps:] if step[0] != "card"]
        act = next((step for step in new_steps if step[0] == "act"), None)
        if act is not None and self.turn is not None:
            self.decisions[self.turn] = str(act[1])
        for seat in model.insurer.answered[self.answered:]:
            taken = next((s[0] for s in new_steps if s[0] in DECISION_LABELS and s[1] == seat),
                         None)
            self.decisions[(seat, 0)] = DECISION_LABELS.get(taken or "", "no insurance")
        self.steps, self.answered = len(model.steps), len(model.insurer.answered)
        self.turn = model.decision_due()

    def totals(self, model: TableModel) -> Totals:
        """The running totals now."""
        return Totals(self.rounds, self.house, model.progressive.meters.hits - self.hits_at_start,
                      self.faults, len(model.voided))


# ---------------------------------------------------------------------------- rendering
Segment = tuple[str, str]
"""A piece of a line: (text, style name; "" for plain)."""
TextLine = list[Segment]

STYLES: Final = {
    "title": "1;36", "bold": "1", "dim": "2", "lit": "1;7", "flash": "1;5;7;31",
    "red": "31", "black": "", "hidden": "7;2", "turn": "1;33", "win": "1;33;41",
    "plus": "1;32", "minus": "1;31", "head": "1;4", "state": "1;35", "sign": "1;33",
}
CLEAR_TO_EOL: Final = "\x1b[K"
HOME: Final = "\x1b[H"
CLEAR_BELOW: Final = "\x1b[J"
CLEAR_SCREEN: Final = "\x1b[2J"
HIDE_CURSOR: Final = "\x1b[?25l"
SHOW_CURSOR: Final = "\x1b[?25h"


def render(snapshot: Snapshot, width: int = 100, *, color: bool = False) -> str:
    """The frame as text: no escape codes unless `color`; lines cut to `width`."""
    return "\n".join(paint(frame_lines(snapshot, width), width, color=color))


def frame_lines(snapshot: Snapshot, width: int) -> list[TextLine]:
    """The frame's lines, styled."""
    s = snapshot
    what = "coup" if s.family == "baccarat" else "round"
    lines: list[TextLine] = [
        [("shoectl simulate", "title"), (f"  {s.game}, {s.decks} decks  ", ""),
         (f"{what} {s.round}", "bold"), ("  ", ""), (s.state.replace("_", " ").upper(), "state")],
        _info("dealer display", [(s.dealer_text, "bold")]),
    ]
    if s.sign is not None:
        lines.append(_sign_line(s))
    lines += [_info("lamps", _lamp_segments(s.lamps)), _info("shoe", [(s.shoe, "")]), []]
    lines += [_side_line(side) for side in s.sides]
    if s.result:
        lines.append([("  ", ""), (s.result, "bold")])
    lines.append([])
    lines += seat_table(s.seats, width)
    totals = s.totals
    lines += [[], _info("totals", [(f"rounds {totals.rounds}   house win "
                                     f"{format_cents(totals.house)}   meter hits "
                                     f"{totals.hits}   faults {totals.faults}   void "
                                     f"{totals.void}", "")])]
    return lines


def _info(label: str, value: TextLine) -> TextLine:
    return [(f"{label:<15}", "dim"), *value]


def _sign_line(s: Snapshot) -> TextLine:
    assert s.sign is not None
    amount, _, win = s.sign.partition("  ")
    value: TextLine = [(amount, "flash" if s.sign == SIGN_FAULT_TEXT else "sign")]
    if win:
        value += [("  ", ""), (win, "win")]
    if s.accepted is not None:
        value.append((f"   accepted at no more bets: {s.accepted}", ""))
    return _info("Blazing 7's", value)


def _lamp_segments(lamps: Iterable[tuple[str, str]]) -> TextLine:
    out: TextLine = []
    for name, lamp_state in lamps:
        label = name.replace("_", " ")
        if lamp_state == "on":
            out.append((f"[{label.upper()}]", "lit"))
        elif lamp_state == "flash":
            out.append((f"[!{label.upper()}!]", "flash"))
        else:
            out.append((label, "dim"))
        out.append(("  ", ""))
    return out[:-1]


def _card_segments(cards: Sequence[str]) -> TextLine:
    out: TextLine = []
    for code in cards:
        style = "hidden" if code == HIDDEN else "red" if code[-1] in "HD" else "black"
        out += [(code, style), (" ", "")]
    return out[:-1]


def _side_line(side: SideRow) -> TextLine:
    cards = _card_segments(side.cards) or [("-", "dim")]
    pad = 20 - sum(len(text) for text, _ in cards)
    return [(f"{side.marker or ' ':<2}", "turn"), (f"{side.name:<8}", "bold"), *cards,
            (" " * max(1, pad), ""), (f"{side.total:<10}", "bold"), ("  ", ""),
            (side.note, "dim")]


def paint(lines: Sequence[TextLine], width: int, *, color: bool) -> list[str]:
    """Lines as strings cut to `width` visible characters, with ANSI styles if `color`."""
    out = []
    for line in lines:
        room, parts = width, []
        for text, style in line:
            piece = text[:room]
            room -= len(piece)
            code = STYLES.get(style, "") if color else ""
            parts.append(f"\x1b[{code}m{piece}\x1b[0m" if code and piece else piece)
        out.append("".join(parts).rstrip())
    return out


# ---------------------------------------------------------------------------- seat table
@dataclass(frozen=True, slots=True)
class _Cell:
    text: str
    style: str = ""
    right: bool = False


def seat_table(seats: Sequence[SeatRow], width: int) -> list[TextLine]:
    """The seats as a table: one row per hand, a column per wager (full names if they fit).

    Before settlement a wager's cell is its stake; after, its net, signed.
    """
    if not seats:
        return [[("  no wagers on the layout", "dim")]]
    names = _columns(seats)
    hands = any(seat.hands for seat in seats)
    settled = any(seat.nets is not None for seat in seats)
    rows = [cells for seat in seats for cells in _seat_rows(seat, names, hands, settled)]
    for short in (False, True):
        heads = [_head(n, short) for n in names]
        head = [_Cell(" "), _Cell("seat"),
                *([_Cell("cards"), _Cell("total"), _Cell("last")] if hands else []),
                *(_Cell(h, right=True) for h in heads),
                *([_Cell("net", right=True)] if settled else [])]
        table = _layout([head, *rows], header=True)
        if short is True or max(_visible(line) for line in table) <= width:
            break
    legend = [f"{_head(n, True)} {n}" for n in names if _head(n, True) != n]
    return table + (_wrapped(legend, width) if short else [])


def _wrapped(words: Sequence[str], width: int) -> list[TextLine]:
    """`words` as dim lines of at most `width` characters (an indent of two)."""
    lines: list[str] = []
    for word in words:
        if lines and len(lines[-1]) + 2 + len(word) <= width:
            lines[-1] += "  " + word
        else:
            lines.append("  " + word)
    return [[(line, "dim")] for line in lines]


def _columns(seats: Sequence[SeatRow]) -> list[str]:
    names = {name for seat in seats for name, _ in (*seat.wagers, *(seat.nets or ()))}
    if any(seat.hands for seat in seats):
        names.add("main")
    return sorted(names, key=lambda n: (WAGER_ORDER.index(n) if n in WAGER_ORDER else 99, n))


def _head(name: str, short: bool) -> str:
    return SHORT_NAMES.get(name, name) if short else name


def _seat_rows(seat: SeatRow, names: Sequence[str], hands: bool,
               with_net: bool) -> list[list[_Cell]]:
    stakes, nets = dict(seat.wagers), dict(seat.nets or {})
    settled = seat.nets is not None
    rows: list[list[_Cell]] = []
    for index, hand in enumerate(seat.hands or (None,)):
        label = str(seat.seat) if len(seat.hands) < 2 else f"{seat.seat}{'abcdefgh'[index]}"
        marker = (hand.marker if hand else "") or (seat.marker if index == 0 else "")
        cells = [_Cell(marker, "turn"), _Cell(label, "bold")]
        if hands:
            cells += _hand_cells(hand)
        for name in names:
            if name == "main" and hand is not None:
                cells.append(_money(hand.net if settled else hand.stake, settled))
            elif index == 0 and name in (nets if settled else stakes):
                cells.append(_money((nets if settled else stakes)[name], settled))
            else:
                cells.append(_Cell(""))
        if with_net:
            total = sum(nets.values()) + sum(h.net or 0 for h in seat.hands)
            cells.append(_money(total, True) if settled and index == 0 else _Cell(""))
        rows.append(cells)
    return rows


def _hand_cells(hand: HandRow | None) -> list[_Cell]:
    if hand is None:
        return [_Cell(""), _Cell(""), _Cell("")]
    return [_Cell(" ".join(hand.cards), "cards"), _Cell(hand.total, "bold"),
            _Cell(hand.last, "dim")]


def _money(cents: int | None, signed: bool) -> _Cell:
    if cents is None:
        return _Cell("")
    if not signed:
        return _Cell(format_cents(cents), right=True)
    return _Cell(_signed(cents), "plus" if cents > 0 else "minus" if cents < 0 else "",
                 right=True)


def _signed(cents: int) -> str:
    return f"+{format_cents(cents)}" if cents > 0 else format_cents(cents)


def _layout(rows: Sequence[Sequence[_Cell]], *, header: bool) -> list[TextLine]:
    widths = [max(len(row[i].text) for row in rows) for i in range(len(rows[0]))]
    lines: list[TextLine] = []
    for number, row in enumerate(rows):
        line: TextLine = []
        for cell, wide in zip(row, widths, strict=True):
            text = cell.text.rjust(wide) if cell.right else cell.text.ljust(wide)
            style = "head" if header and number == 0 and cell.text.strip() else cell.style
            line += _cards_line(text) if style == "cards" else [(text, style)]
            line.append(("  " if wide else "", ""))
        lines.append(line)
    return lines


def _cards_line(text: str) -> TextLine:
    padded = len(text) - len(text.rstrip())
    cards = _card_segments(text.split())
    return [*cards, (" " * padded, "")] if cards else [(text, "")]


def _visible(line: TextLine) -> int:
    return len("".join(text for text, _ in line).rstrip())


# ---------------------------------------------------------------------------- live view
def terminal_size() -> tuple[int, int]:
    """(columns, lines) of the terminal, or `FALLBACK_SIZE` when it cannot be told."""
    size = shutil.get_terminal_size(FALLBACK_SIZE)
    return size.columns, size.lines


Pause = Callable[[float], None]
"""Waits this many seconds while the table's loop keeps handling device events."""


class LiveView:
    """Redraws the table in place on a terminal, throttled, and paces the dealer.

    Call `after_step` after every dealer or player action (on the loop thread); `close` at
    the end (it draws the last frame and shows the cursor again).

    Args:
        runtime: The table.
        out: The terminal.
        shoe: The shoe's size and cut card.
        pace: At least this many seconds per card (0: as fast as the table goes).
        wait: How to wait without stalling the table's devices.
        fps: At most this many frames a second.
        clock: Monotonic clock (seconds).
        size: Terminal size (columns, lines).
    """

    def __init__(self, runtime: TableRuntime, out: TextIO, shoe: ShoeLayout, *,
                 pace: float = DEFAULT_PACE, wait: Pause = time.sleep,
                 fps: float = DEFAULT_FPS, clock: Callable[[], float] = time.monotonic,
                 size: Callable[[], tuple[int, int]] | None = None) -> None:
        self.runtime, self.out, self.shoe = runtime, out, shoe
        self.pace, self.wait, self.clock = pace, wait, clock
        self.interval = 1.0 / fps
        self.size = size or terminal_size
        self.memory = Memory.starting(runtime.model)
        self.frames = 0
        self.last_frame = float("-inf")
        self.last_card = float("-inf")
        self.cards_out = runtime.model.shoe.tally.cards_out
        self.settled_round = -1
        self.stale = False

    def snapshot(self) -> Snapshot:
        """The public table state now."""
        return capture(self.runtime, self.memory, self.shoe)

    def after_step(self) -> None:
        """Note what the step changed, redraw if a frame is due, pace a dealt card."""
        model = self.runtime.model
        self.memory.observe(model)
        dealt = model.shoe.tally.cards_out != self.cards_out
        self.cards_out = model.shoe.tally.cards_out
        if model.round.settled and model.round.number != self.settled_round:
            self.settled_round = model.round.number
            self.draw(force=True)
            self._pause(self.pace * ROUND_HOLD_CARDS)
        else:
            self.draw()
            if dealt:
                self._pause(self.last_card + self.pace - self.clock())
        if dealt:
            self.last_card = self.clock()

    def _pause(self, seconds: float) -> None:
        """Wait `seconds`; a change not drawn yet is drawn as soon as a frame is due."""
        if seconds <= 0:
            return
        end = self.clock() + seconds
        next_frame = self.last_frame + self.interval
        if self.stale and next_frame <= end:
            self.wait(max(0.0, next_frame - self.clock()))
            self.draw(force=True)
        remaining = end - self.clock()
        if remaining > 0:
            self.wait(remaining)

    def draw(self, *, force: bool = False) -> None:
        """Redraw in place if the last frame is old enough (or `force`)."""
        now = self.clock()
        if not force and now - self.last_frame < self.interval:
            self.stale = True
            return
        self.last_frame, self.stale = now, False
        self.memory.observe(self.runtime.model)
        width, height = self.size()
        lines = paint(frame_lines(self.snapshot(), width), width, color=True)[:max(1, height - 1)]
        start = HIDE_CURSOR + CLEAR_SCREEN if self.frames == 0 else ""
        body = "".join(f"{line}{CLEAR_TO_EOL}\n" for line in lines)
        self.out.write(f"{start}{HOME}{body}{CLEAR_BELOW}")
        self.out.flush()
        self.frames += 1

    def close(self) -> None:
        """Draw the final frame and give the cursor back."""
        try:
            self.draw(force=True)
        finally:
            self.out.write(SHOW_CURSOR)
            self.out.flush()
