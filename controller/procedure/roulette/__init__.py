"""Roulette: its states, transition rows, model and parts.

Its public surface is what this file exports (`__all__`); its other modules, the model's
parts among them, are the package's own: code outside imports from here only
(`tests/test_architecture.py`).
"""

from __future__ import annotations

from controller.procedure.roulette.model import RouletteModel
from controller.procedure.roulette.rows import ROWS
from controller.procedure.roulette.spin import wager_record
from controller.procedure.roulette.states import INITIAL, RO

__all__ = ["INITIAL", "RO", "ROWS", "RouletteModel", "wager_record"]
