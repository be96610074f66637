"""Hand-worked rounds for the rare lines, each checked against BOTH dealers.

The expected nets are worked out by hand from RULES.md and docs/decisions/ (the line cited in
each case), so these pin the oracle too: a reading both dealers share would still fail here.
Each shoe holds exactly one round, laid out in dealing order: every seat's first card, the up
card, every seat's second card, the hole card, then the dealer's draws.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from .dealer import Seat, Table, play_baccarat_shoe, play_blackjack_shoe
from .reference import reference_baccarat_shoe, reference_blackjack_shoe
from .shoes import BlackjackCase

M = 1_000_000  # the default meter reset


@dataclass(frozen=True)
class Round:
    """One round: seat -> (main, side wagers, two cards); dealer cards; expected results."""

    name: str
    seats: dict[int, tuple[int, dict[str, int], tuple[str, str]]]
    dealer: tuple[str, ...]
    expected: dict[int, tuple[int, dict[str, int]]]
    game: str = "blackjack"
    decks: int = 8
    h17: bool = False
    meter: tuple[int, int, int] = (M, M, 100)  # start, reset, increment
    meter_after: int | None = None
    peeked: bool | None = None
    dealer_blackjack: bool | None = None
    extra: tuple[str, ...] = field(default=())

    def shoe(self) -> tuple[str, ...]:
        numbers = sorted(self.seats)
        up, hole, *draws = self.dealer
        return (*(self.seats[n][2][0] for n in numbers), up,
                *(self.seats[n][2][1] for n in numbers), hole, *draws, *self.extra)

    def case(self) -> BlackjackCase:
        seats = tuple(Seat(n, main, side) for n, (main, side, _) in sorted(self.seats.items()))
        return BlackjackCase(self.game, self.decks, self.h17, seats, *self.meter, self.shoe())


B7 = {"blazing7s": 500}
AX = {"axman": 100}
ROUNDS = [
    # RULES.md Blazing 7's "three 7D 100% of the meter"; decision 105: net = meter - 500.
    Round("three 7D take the whole meter", {1: (1000, {**B7, "match-the-dealer": 100},
                                                ("7D", "7D"))},
          ("7D", "KS"), {1: (-1000, {"blazing7s": 1_234_667 - 500, "match-the-dealer": 2800})},
          meter=(1_234_567, M, 100), meter_after=M),
    # decision 105 "Meter": counter-clockwise, highest seat first; the next winner is paid from
    # the reset meter.
    Round("two 100% hits in one round", {2: (1000, B7, ("7D", "7D")), 5: (1000, B7, ("7D", "7D"))},
          ("7D", "9C", "TC"),
          {5: (1000, {"blazing7s": 1_000_200 - 500}), 2: (1000, {"blazing7s": 250_003 - 500})},
          meter=(M, 250_003, 100), meter_after=250_003),
    # RULES.md: a 10% hit pays a tenth rounded down and lowers the meter by exactly that.
    Round("two 10% hits, highest seat first", {4: (1000, B7, ("7H", "7H")),
                                               6: (1000, B7, ("7H", "7H"))},
          ("7H", "TC"),
          {6: (-1000, {"blazing7s": 123_476 - 500}), 4: (-1000, {"blazing7s": 111_129 - 500})},
          meter=(1_234_567, M, 100), meter_after=1_234_767 - 123_476 - 111_129),
    Round("Blazing 7's for-1 lines", {1: (1000, B7, ("7D", "7H")), 2: (1000, B7, ("7D", "7S")),
                                      3: (1000, B7, ("7S", "KC")), 4: (1000, B7, ("9S", "KC"))},
          ("7H", "QS"),
          {1: (-1000, {"blazing7s": 500 * 500 - 500}), 2: (-1000, {"blazing7s": 200 * 500 - 500}),
           3: (0, {"blazing7s": 2 * 500 - 500}), 4: (1000, {"blazing7s": -500})},
          meter_after=M + 400),
    Round("two 7s without a 7 up", {1: (1000, B7, ("7S", "7C"))}, ("8D", "TS"),
          {1: (-1000, {"blazing7s": 25 * 500 - 500})}, meter=(M, M, 0), meter_after=M),
    # Lucky Ladies: two QH with a dealer blackjack 1000:1; the hand loses to the blackjack.
    Round("two QH against a dealer blackjack", {1: (1000, {"lucky-ladies": 100}, ("QH", "QH"))},
          ("AS", "KS"), {1: (-1000, {"lucky-ladies": 100_000})}, peeked=True,
          dealer_blackjack=True),
    Round("two QH without a dealer blackjack", {1: (1000, {"lucky-ladies": 100}, ("QH", "QH"))},
          ("AS", "7S"), {1: (1000, {"lucky-ladies": 20_000})}, peeked=True,
          dealer_blackjack=False),
    Round("Lucky Ladies lines", {1: (1000, {"lucky-ladies": 100}, ("KS", "KS")),
                                 2: (1000, {"lucky-ladies": 100}, ("AD", "9D")),
                                 3: (1000, {"lucky-ladies": 100}, ("QC", "JS")),
                                 4: (1000, {"lucky-ladies": 100}, ("9C", "9S"))},
          ("5C", "TC", "4S"),
          {1: (1000, {"lucky-ladies": 2500}), 2: (1000, {"lucky-ladies": 1000}),
           3: (1000, {"lucky-ladies": 400}), 4: (-1000, {"lucky-ladies": -100})}),
    # Perfect Pairs 25/12/6 to 1.
    Round("Perfect Pairs lines", {1: (1000, {"perfect-pairs": 100}, ("8S", "8S")),
                                  2: (1000, {"perfect-pairs": 100}, ("8H", "8D")),
                                  3: (1000, {"perfect-pairs": 100}, ("8C", "8H")),
                                  4: (1000, {"perfect-pairs": 100}, ("8C", "9C"))},
          ("TD", "8D"),
          {1: (-1000, {"perfect-pairs": 2500}), 2: (-1000, {"perfect-pairs": 1200}),
           3: (-1000, {"perfect-pairs": 600}), 4: (-1000, {"perfect-pairs": -100})},
          peeked=True),
    # Match the Dealer by deck count (decision 104), summed over both cards.
    *(Round(f"Match the Dealer, {decks} decks",
            {1: (1000, {"match-the-dealer": 100}, ("9H", "9C"))}, ("9H", "8S"),
            {1: (1000, {"match-the-dealer": 100 * (unsuited + suited)})}, decks=decks)
      for decks, unsuited, suited in ((8, 3, 14), (6, 4, 11), (5, 3, 15), (4, 4, 12),
                                      (2, 4, 19))),
    # RULES.md Spanish 21 Match the Dealer: two suited 24:1 at 8 decks; 6 decks 4/9 per match.
    Round("Spanish 21 Match the Dealer, two suited", {1: (1000, {"match-the-dealer": 100},
                                                          ("9H", "9H"))},
          ("9H", "8S"), {1: (1000, {"match-the-dealer": 2400})}, game="spanish21"),
    # The posted table at every deck count: a suited match 12:1 plus an unsuited one 3:1.
    Round("Spanish 21 Match the Dealer, suited and unsuited, 6 decks",
          {1: (1000, {"match-the-dealer": 100}, ("9H", "9D"))}, ("9H", "8S"),
          {1: (1000, {"match-the-dealer": 1500})}, game="spanish21", decks=6),
    # AxMan: the bust card counts; KD wild and a diamond: 2-3-4-5-KD(6 or A) straight flush;
    # one KD among the player's cards doubles the win (633c.12(j)).
    Round("AxMan straight flush through the bust card, x2", {1: (1000, AX, ("KD", "9S"))},
          ("2D", "3D", "4D", "5D", "KD"), {1: (1000, {"axman": 200_000})}),
    Round("AxMan five of a kind with KD", {1: (1000, AX, ("TS", "9S"))},
          ("2C", "2D", "2H", "2S", "KD"), {1: (1000, {"axman": 50_000})}),
    Round("AxMan full house", {1: (1000, AX, ("TS", "9S"))}, ("3C", "3D", "3H", "4S", "4C"),
          {1: (1000, {"axman": 3000})}),
    # Six cards: the five highest (9, 3, 2, 2, 2) make three of a kind, not the four 2s.
    Round("AxMan six cards: five highest only", {1: (1000, AX, ("TS", "8S"))},
          ("2C", "2D", "2H", "2S", "3C", "9D"), {1: (-1000, {"axman": 2000})}),
    # Six cards, the 2s tie at the cut: choosing 2D gives a straight flush (best for player).
    Round("AxMan six cards: tie at the cut goes to the player", {1: (1000, AX, ("TS", "8S"))},
          ("2D", "3D", "4D", "2C", "5D", "6D"), {1: (1000, {"axman": 100_000})}),
    # Fewer than five cards: KD as a 2 makes only a low pair, and straights do not count.
    Round("AxMan four cards: no straight, low pair loses", {1: (1000, AX, ("TS", "8S"))},
          ("2D", "3D", "4D", "KD"), {1: (-1000, {"axman": -100})}),
    Round("AxMan two KD with the player: x5", {1: (1000, AX, ("KD", "KD"))}, ("QS", "QC"),
          {1: (0, {"axman": 2500})}, peeked=True),
    Round("AxMan loss is the wager even with KD", {1: (1000, AX, ("KD", "7S"))}, ("9S", "8C"),
          {1: (0, {"axman": -100})}),
    # Dealer blackjack: the dealer's final hand is two cards; KD wild reads A-A: jacks or better.
    Round("AxMan on a dealer blackjack with KD", {1: (1000, AX, ("TS", "8S"))}, ("AS", "KD"),
          {1: (-1000, {"axman": 500})}, peeked=True, dealer_blackjack=True),
    # Every hand a blackjack and no AxMan: the dealer does not draw (the 5 stays in the shoe
    # for the next round, which runs out and is void).
    Round("every hand a blackjack: the dealer does not draw",
          {1: (1001, {}, ("AS", "KH")), 3: (1000, {}, ("QD", "AC"))}, ("6S", "9H"),
          {1: (1501, {}), 3: (1500, {})}, extra=("5C",), peeked=False),
    Round("every hand a blackjack but AxMan is on: the dealer draws",
          {1: (1000, AX, ("AS", "KH")), 3: (1000, {}, ("QD", "AC"))}, ("6S", "9H", "5C"),
          {1: (1500, {"axman": -100}), 3: (1500, {})}),
    Round("a player blackjack pushes a dealer blackjack", {1: (1000, {}, ("AS", "KH")),
                                                          2: (1000, {}, ("TS", "TD"))},
          ("KC", "AD"), {1: (0, {}), 2: (-1000, {})}, peeked=True, dealer_blackjack=True),
    Round("a player blackjack beats a three-card dealer 21",
          {1: (1000, {}, ("AS", "KH")), 2: (1000, {}, ("TS", "9D"))},
          ("9C", "5D", "7H"), {1: (1500, {}), 2: (-1000, {})}, extra=("2C",), meter_after=M),
    # Spanish 21: a player blackjack always wins 3:2, also against a dealer blackjack.
    Round("Spanish 21 blackjack beats a dealer blackjack",
          {1: (1000, {}, ("AS", "KH")), 2: (1000, {}, ("QS", "QD"))}, ("JC", "AD"),
          {1: (1500, {}), 2: (-1000, {})}, game="spanish21", peeked=True,
          dealer_blackjack=True),
    Round("Spanish 21 peeks under a queen", {1: (1000, {}, ("9S", "KH"))}, ("QC", "8D"),
          {1: (1000, {})}, game="spanish21", peeked=True, dealer_blackjack=False),
    Round("Spanish 21 does not peek under a 9", {1: (1000, {}, ("9S", "KH"))}, ("9C", "8D"),
          {1: (1000, {})}, game="spanish21", peeked=False),
    # Dealer soft 17: S17 stands, H17 draws.
    Round("S17 stands on soft 17", {1: (1000, {}, ("TS", "8H"))}, ("AC", "6D"),
          {1: (1000, {})}, peeked=True, extra=("4C",)),
    Round("H17 hits soft 17", {1: (1000, {}, ("TS", "8H"))}, ("AC", "6D", "4C"),
          {1: (-1000, {})}, h17=True, peeked=True),
    Round("a dealer bust pays every standing hand",
          {1: (1000, {}, ("TS", "7H")), 2: (1000, {}, ("9S", "2H"))},
          ("6C", "TD", "QH"), {1: (1000, {}), 2: (1000, {})}),
    Round("a tie pushes", {1: (1000, {}, ("TS", "7H")), 2: (1000, {}, ("9S", "2H"))},
          ("7C", "TD"), {1: (0, {}), 2: (-1000, {})}),
]


def _nets(record: dict[str, object]) -> dict[int, tuple[int, dict[str, int]]]:
    seats = record["seats"]
    assert isinstance(seats, list)
    return {s["seat"]: (sum(h["net"] for h in s["hands"]), s["side_bets"]) for s in seats}


@pytest.mark.parametrize("round_", ROUNDS, ids=[r.name for r in ROUNDS])
def test_hand_worked_round(round_: Round) -> None:
    case = round_.case()
    table = Table(case.game, case.decks, case.h17, case.meter, case.reset, case.increment)
    oracle = play_blackjack_shoe(table, case.seats, case.shoe)
    reference = reference_blackjack_shoe(case)
    assert reference == oracle
    assert len(oracle) == 1
    record = oracle[0]
    assert record["dealer"] == list(round_.dealer)
    assert _nets(record) == round_.expected
    if round_.meter_after is not None:
        assert record["meter"] == round_.meter_after
    if round_.peeked is not None:
        assert record["peeked"] is round_.peeked
    if round_.dealer_blackjack is not None:
        assert record["dealer_blackjack"] is round_.dealer_blackjack


COUPS = [
    # (player, banker cards in dealing order, bets, expected nets) - RULES.md Midi Baccarat.
    # Player 6 and Banker 7 both stand: banker by 1; 5% of 10.01 = 0.5005 -> 0.51.
    ("banker wins, commission rounded up", ("AC", "4D", "5S", "3H"),
     {"banker": 1001, "tie": 100, "dragon-banker": 100},
     {"banker": 1001 - 51, "tie": -100, "dragon-banker": -100}),
    ("natural win pays 1:1 on the Dragon", ("9C", "2D", "KS", "5H"),
     {"player": 1000, "dragon-player": 100, "dragon-banker": 100},
     {"player": 1000, "dragon-player": 100, "dragon-banker": -100}),
    ("natural tie: dragon push, tie 8:1", ("8C", "8D", "KS", "QH"),
     {"banker": 1000, "tie": 100, "dragon-player": 100, "dragon-banker": 100},
     {"banker": 0, "tie": 800, "dragon-player": 0, "dragon-banker": 0}),
    # Player 2 draws 7 -> 9; Banker 0 draws on a player 7 -> 0+K = 0: a non-natural win by 9.
    ("non-natural win by 9 pays 30:1", ("AC", "KD", "AS", "QH", "7D", "KC"),
     {"player": 1000, "dragon-player": 100}, {"player": 1000, "dragon-player": 3000}),
    # Player 6 stands; Banker 3 draws (player stood) 9 -> 2: player by 4.
    ("non-natural win by 4 pays 1:1", ("3C", "2D", "3S", "AH", "9D"),
     {"player": 1000, "dragon-player": 100, "dragon-banker": 100},
     {"player": 1000, "dragon-player": 100, "dragon-banker": -100}),
    # Player 7 stands, Banker 5 draws a 2 -> 7: a non-natural tie loses the Dragon.
    ("non-natural tie loses the Dragon", ("4C", "3D", "3S", "2H", "2D"),
     {"banker": 1000, "tie": 100, "dragon-banker": 100},
     {"banker": 0, "tie": 800, "dragon-banker": -100}),
    # Player 5 draws an 8 -> 3; Banker 3 stands on a player 8; banker 3 v 3 tie.
    ("banker 3 stands on a player third-card 8", ("2C", "AD", "3S", "2H", "8D"),
     {"player": 1000, "tie": 100}, {"player": 0, "tie": 800}),
]


@pytest.mark.parametrize(("name", "shoe", "bets", "expected"), COUPS, ids=[c[0] for c in COUPS])
def test_hand_worked_coup(name: str, shoe: tuple[str, ...], bets: dict[str, int],
                          expected: dict[str, int]) -> None:
    oracle = play_baccarat_shoe({3: bets}, list(shoe))
    assert reference_baccarat_shoe({3: bets}, list(shoe)) == oracle
    assert len(oracle) == 1, name
    assert oracle[0]["seats"] == [{"seat": 3, "bets": expected}]
