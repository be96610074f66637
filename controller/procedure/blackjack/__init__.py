"""Blackjack and Spanish 21: its states, transition rows, model and parts.

Its public surface is what this file exports (`__all__`); its other modules, the model's
parts among them, are the package's own: code outside imports from here only
(`tests/test_architecture.py`).
"""

from __future__ import annotations

from controller.procedure.blackjack.model import BlackjackModel
from controller.procedure.blackjack.outputs import LAMPS, SEAT_LAMPS
from controller.procedure.blackjack.rows import ROWS
from controller.procedure.blackjack.states import BJ, INITIAL

__all__ = ["BJ", "INITIAL", "LAMPS", "ROWS", "SEAT_LAMPS", "BlackjackModel"]
