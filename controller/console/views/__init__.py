"""Each game family's view on the dealer's console, chosen by the family's key.

`VIEWS[family]` says, for the table object of the console API (`controller/console/API.md`),
who the next card goes to, the seats, the dealer's cards, the seats asked about insurance,
the hand due to decide, the settled round kept on screen, the family's own object
(`roulette`, `holdem`, `community`, `baccarat`) and the dealer's next step in words; and
which console commands only its family takes, each with its check (`commands`); the
result board's figures of a wheel (`board`), the pit view's parts only its family has
(`pit`: `wheel_bias`, `stations`) and whether it is played at the player stations
(`stations`: their screens, commands and credits, `controller/console/STATIONS.md`). A family
without an entry here has no console; a test keeps the keys equal to the procedure's families
(`controller.procedure.families`). A family registered from outside puts its view here under
its name; a key its `own` names joins the table object (`own_parts`), null at the other
families' tables.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any, Final

from controller.console.views import baccarat, blackjack, community, holdem, roulette
from controller.console.views.common import CommandCheck, JsonObject, no_dealer, wager_seats
from controller.procedure.community import CommunityModel
from controller.procedure.families import FAMILY, model_as
from controller.procedure.shared.table_model import TableModel
from controller.service.runtime import TableRuntime

OWN_PARTS: Final = ("roulette", "holdem", "community", "baccarat")
"""The table object's keys that belong to one built-in family (null at the others), in their
order."""


def _nobody(_model: TableModel) -> JsonObject | None:
    return None


def _no_insurance(_model: TableModel) -> list[int]:
    return []


def _no_words(_model: TableModel) -> str:
    return ""


def _no_wheel(_model: TableModel) -> JsonObject:
    return {"wheel": None, "last": [], "spins": 0, "window": 0, "percent": {}, "counts": {},
            "hot": [], "cold": [], "spin": None}


def _state_words(model: TableModel) -> str:
    return model.state.replace("_", " ")


@dataclass(frozen=True)
class FamilyView:
    """One family's parts of the console's table object, and its prompt.

    Attributes:
        prompt: The dealer's next step in words, once no hold and no shared step says it.
        next_card: Who the next card out of the shoe goes to (None: nobody named).
        seats: Every seat of the table.
        dealer: The dealer's public cards and the peek's bit.
        insurance: The seats still to answer insurance.
        turn: The hand due to decide (None: none).
        settled: The settled round the console keeps on screen (None: none).
        pay_words: Whom to pay, said before the next step while `settled` is shown.
        own: The family's own object, by its key in the table object.
        commands: The console commands this family takes that others refuse, or checks its
            own way: name -> why it cannot be taken now ("" when it can). At a table whose
            family does not name a command, `controller.console.commands.COMMANDS` says
            why (its `refusal`).
        board: The result board's figures past the table's own (`GET /api/board`): a
            wheel's, or none.
        pit: The pit view's parts only this family has, by their key there
            (`controller.console.pit_state.PIT_PARTS`), null at the other families' tables.
        stations: Played at the player stations (the community game's model drives them);
            at the other families' tables every station says `NO_STATIONS`.
    """

    prompt: Callable[[TableModel], str] = _state_words
    next_card: Callable[[TableModel], JsonObject | None] = _nobody
    seats: Callable[[TableModel], list[JsonObject]] = wager_seats
    dealer: Callable[[TableModel], JsonObject] = no_dealer
    insurance: Callable[[TableModel], list[int]] = _no_insurance
    turn: Callable[[TableModel], JsonObject | None] = _nobody
    settled: Callable[[TableModel], JsonObject | None] = _nobody
    pay_words: Callable[[TableModel], str] = _no_words
    own: dict[str, Callable[[TableModel], JsonObject]] = field(default_factory=dict)
    commands: dict[str, CommandCheck] = field(default_factory=dict)
    board: Callable[[TableModel], JsonObject] = _no_wheel
    pit: dict[str, Callable[[TableModel], Any]] = field(default_factory=dict)
    stations: bool = False


VIEWS: Final[dict[str, FamilyView]] = {
    "blackjack": FamilyView(blackjack.blackjack_prompt, blackjack.next_card, blackjack.seats,
                            blackjack.dealer, blackjack.insurance, blackjack.turn,
                            blackjack.settled_round, blackjack.pay_words,
                            commands=blackjack.COMMAND_CHECKS),
    "baccarat": FamilyView(baccarat.baccarat_prompt, baccarat.next_card,
                           own={"baccarat": baccarat.coup}),
    "roulette": FamilyView(roulette.roulette_prompt, own={"roulette": roulette.roulette_table},
                           commands=roulette.COMMAND_CHECKS, board=roulette.board,
                           pit={"wheel_bias": roulette.wheel_bias}),
    "community": FamilyView(community.community_prompt,
                            own={"community": community.community_table},
                            pit={"stations": community.stations}, stations=True),
    "holdem": FamilyView(holdem.holdem_prompt, own={"holdem": holdem.holdem_table},
                         commands=holdem.COMMAND_CHECKS),
}
"""Every family's view by the family's key."""


def view_of(model: TableModel) -> FamilyView:
    """The view of the family that deals the model's game."""
    return VIEWS[FAMILY[model.setup.config.table.game.value]]


NO_STATIONS: Final = "this table plays no community game"
"""What a station's screen, command or credits say at a table not played at the stations."""


def station_model(model: TableModel) -> CommunityModel | None:
    """The model that drives the player stations; None where the table's family has none.

    Chosen by the family key (its view's `stations`), not by asking the model its class.

    Raises:
        TypeError: a family said to be played at the stations has not the community game's
            model (a bug in the family's view).
    """
    return model_as(model, CommunityModel) if view_of(model).stations else None


def board_state(runtime: TableRuntime) -> JsonObject:
    """The result board's object (`GET /api/board`; API.md, "The result board")."""
    model = runtime.model
    table = model.setup.config.table
    return {"table": table.name, "game": table.game.value, "phase": model.state,
            "min_wager": table.min_wager, "max_wager": table.max_wager,
            **view_of(model).board(model)}


def own_parts(taken: Collection[str] = ()) -> tuple[str, ...]:
    """The table object's keys that belong to one family, null at the other families' tables.

    `OWN_PARTS`, then the keys the other views name in their `own` (a family registered from
    outside), in the order of `VIEWS`.

    Args:
        taken: The keys every table object has, which no view may name.

    Raises:
        ValueError: a view names a key of `taken`, or one another view names (one line
            naming the view and the key).
    """
    owner: dict[str, str] = {}
    for family, view in VIEWS.items():
        for key in view.own:
            if key in taken:
                raise ValueError(f"the {family} view's own part {key} is a key every table "
                                 "object has")
            if key in owner:
                raise ValueError(f"the {family} view's own part {key} is the {owner[key]} "
                                 "view's already")
            owner[key] = family
    return (*OWN_PARTS, *(key for key in owner if key not in OWN_PARTS))
