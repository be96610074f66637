"""The state names families share, for the code every family runs.

Each family names its own states (`controller/procedure/<family>/states.py`). Code that
serves several families (the shared parts, the service, the console's common pages, the
simulation's shoe driver) compares a table's state with these members instead, never with
one family's: where a family has a state of one of these names, it is the same state with
the same value (`families.register` refuses a family that disagrees; a test holds the
built-in ones to it).
"""

from __future__ import annotations

from enum import StrEnum


class TableState(StrEnum):
    """States more than one family has, or that shared code asks about by name.

    Which families have them: `betting`, `round_over` and `fault` every family;
    `dealing` and `settlement` every family but roulette; the shoe's `shoe_loading`, `burn`,
    `card_in_error`, `reshuffle_discards` and `shoe_error` blackjack, baccarat and the
    community game; `card_hold` hold'em (the camera's hold, which the console and the
    floor treat as a stop).
    """

    SHOE_LOADING = "shoe_loading"
    BURN = "burn"
    BETTING = "betting"
    DEALING = "dealing"
    SETTLEMENT = "settlement"
    ROUND_OVER = "round_over"
    CARD_IN_ERROR = "card_in_error"
    RESHUFFLE_DISCARDS = "reshuffle_discards"
    CARD_HOLD = "card_hold"
    SHOE_ERROR = "shoe_error"
    FAULT = "fault"


_SHARED_VALUES = frozenset(str(state) for state in TableState)


def disagreements(states: type[StrEnum]) -> list[str]:
    """Where a family's state enum names a shared state otherwise than `TableState` does.

    A member with a shared state's name must have its value, and a member with a shared
    state's value its name: shared code that asks for `TableState.BETTING` then finds the
    family's betting state, and no other.
    """
    found = []
    for member in states:
        if member.name in TableState.__members__:
            shared = TableState[member.name]
            if member.value != shared.value:
                found.append(f"{member.name} is {member.value!r}, not {shared.value!r} "
                             f"(TableState.{shared.name})")
        elif member.value in _SHARED_VALUES:
            found.append(f"{member.name} is {member.value!r}, the value of "
                         f"TableState.{TableState(member.value).name}")
    return found
