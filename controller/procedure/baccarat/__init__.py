"""Midi Baccarat: its states, transition rows, model and parts.

Its public surface is what this file exports (`__all__`); its other modules, the model's
parts among them, are the package's own: code outside imports from here only
(`tests/test_architecture.py`).
"""

from __future__ import annotations

from controller.procedure.baccarat.model import BaccaratModel
from controller.procedure.baccarat.outputs import LAMPS
from controller.procedure.baccarat.rows import ROWS
from controller.procedure.baccarat.states import BAC, INITIAL

__all__ = ["BAC", "INITIAL", "LAMPS", "ROWS", "BaccaratModel"]
