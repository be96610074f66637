"""What a table's procedure is built with besides its meters: the rules' configuration, the burn.

Its own module, below the model and its parts: a part names the setup it reads without
naming the model that holds it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from controller.rules.hands import Game
from controller.rules.options import GameConfig


@dataclass(frozen=True, slots=True)
class Setup:
    """What a procedure needs besides the rules configuration.

    Attributes:
        config: Validated game sections of the table file.
        burn: Burn one card after each shuffle (False for scripted shoes).
        wheel_launch: Roulette: `wheel` when the wheel launches each game itself, `host`
            when it waits for the croupier's SPIN (`[devices.wheel] launch`).
    """

    config: GameConfig
    burn: bool = True
    wheel_launch: str = "wheel"

    @property
    def game(self) -> StrEnum:
        """The game this table deals: a `Game`, or a registered family's own game object."""
        return self.config.table.game

    @property
    def spanish(self) -> bool:
        """True for 48-card Spanish decks."""
        return self.game is Game.SPANISH21
