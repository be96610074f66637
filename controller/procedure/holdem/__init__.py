"""Texas Hold'em Bonus: its states, transition rows, model and parts.

Its public surface is what this file exports (`__all__`); its other modules, the model's
parts among them, are the package's own: code outside imports from here only
(`tests/test_architecture.py`).
"""

from __future__ import annotations

from controller.procedure.holdem.model import HoldemModel
from controller.procedure.holdem.play import SEAT_SPOTS, due_area
from controller.procedure.holdem.round import Area, HoldemRound, HoldemStage, NotRead
from controller.procedure.holdem.rows import ROWS
from controller.procedure.holdem.states import HE, INITIAL

__all__ = ["HE", "INITIAL", "ROWS", "SEAT_SPOTS", "Area", "HoldemModel", "HoldemRound",
           "HoldemStage", "NotRead", "due_area"]
