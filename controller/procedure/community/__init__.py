"""The community-card multi-hand blackjack: its states, transition rows, model and parts.

Its public surface is what this file exports (`__all__`); its other modules, the model's
parts among them, are the package's own: code outside imports from here only
(`tests/test_architecture.py`).
"""

from __future__ import annotations

from controller.procedure.community.credits import (
    MAX_CREDITS_IN,
    STATION_KINDS,
    reconcile_credits,
    replay_credits,
    stored_credits,
)
from controller.procedure.community.model import CommunityModel
from controller.procedure.community.play import DECISIONS
from controller.procedure.community.round import (
    INITIAL_ORDER,
    SPOTS,
    CommunityRound,
    Stage,
    StationPhase,
)
from controller.procedure.community.rows import ROWS
from controller.procedure.community.states import CC, INITIAL
from controller.procedure.community.wagers import side_json

__all__ = ["CC", "DECISIONS", "INITIAL", "INITIAL_ORDER", "MAX_CREDITS_IN", "ROWS", "SPOTS",
           "STATION_KINDS", "CommunityModel", "CommunityRound", "Stage", "StationPhase",
           "reconcile_credits", "replay_credits", "side_json", "stored_credits"]
