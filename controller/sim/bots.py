"""The bot players and the auto-dealer's hands on the table: the console's own commands.

A simulated person acts as a real one does: through the dealer console's commands (carried
out on the loop thread by `controller.console.commands.execute`, journalled with
`source: "bot"`), or through the layout's buttons and sensors on the emulated board. A
command the table refuses is the bots' mistake: it is counted, never ignored.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from controller.console.commands import Reply, execute, parse
from controller.procedure.blackjack import BlackjackModel
from controller.procedure.families import FAMILY, model_as
from controller.procedure.shared.table_model import TableModel
from controller.rules import blackjack as bj
from controller.rules.hands import Game
from controller.rules.strategy import PlayerPolicy, Situation
from controller.service.runtime import RuntimeCall, TableRuntime


def bot_move(model: TableModel, policy: PlayerPolicy) -> str | None:
    """The bot players' button now: the policy's insurance answer, else its decision.

    None when no player decision is awaited (baccarat, no round, no hand in turn).
    """
    if FAMILY[str(model.setup.config.table.game)] != "blackjack":
        return None  # baccarat: its players decide nothing
    model = model_as(model, BlackjackModel)
    if model.game is None:
        return None
    asked = model.insurer.seat_asked()
    if asked is not None:
        return _insurance(model.game, asked, policy)
    if model.decision_due() is None:
        return None
    game = model.game
    turn = bj.current_hand(game)
    assert turn is not None
    assert game.up_card is not None
    seat = game.seats[turn[0]]
    hand = seat.hands[turn[1]]
    situation = Situation(seat.seat, turn[1], hand.cards, game.up_card,
                          bj.legal_actions(game), game.rules, hand.stake)
    return policy.decide(situation).action.value


def _insurance(game: bj.BlackjackRound, seat: int, policy: PlayerPolicy) -> str:
    """`insurance` when the policy insures the seat asked, else `no_insurance`."""
    state = next(s for s in game.seats if s.seat == seat)
    assert game.up_card is not None
    choice = policy.insurance(seat, state.hands[0].cards, game.up_card, state.bets.wager)
    return "insurance" if choice.amount or choice.even_money else "no_insurance"


def decision_command(model: TableModel, button: str) -> dict[str, Any]:
    """A bot's button as the console command a person would give."""
    if button in ("insurance", "no_insurance"):  # only a blackjack bot answers insurance
        return {"command": "insurance", "seat": model_as(model, BlackjackModel).insurer
                .seat_asked(), "take": button == "insurance"}
    return {"command": button}


def bet_command(game: Game, seat: int, bet: str, cents: int) -> dict[str, Any]:
    """A seat's wager as a console command: the blackjack main wager puts the seat in play."""
    if bet == "main" and game is not Game.BACCARAT:
        return {"command": "seat", "seat": seat, "in_play": True, "main": cents}
    return {"command": "wager", "seat": seat, "bet": bet, "cents": cents}


class BotHands:
    """Console commands for the loop, and the refusals they met.

    Attributes:
        refused: Each refused command with the table's answer.
    """

    def __init__(self) -> None:
        self.refused: list[tuple[dict[str, Any], Reply]] = []

    def call(self, command: dict[str, Any],
             then: Callable[[], None] | None = None) -> RuntimeCall:
        """The command, for the loop to carry out (a malformed one raises here)."""
        parsed = parse(command)

        def run(runtime: TableRuntime) -> None:
            reply = execute(runtime, parsed, source="bot")
            if reply.status != 200:
                self.refused.append((parsed, reply))
            if then is not None:
                then()
        return RuntimeCall(run)
