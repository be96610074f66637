"""The pit object says whether the table offers the progressive, so the page shows meters
only where there are some (a roulette or baccarat table has none)."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.console.pit_state import pit_state
from tests.controller.helpers import runtime


@pytest.mark.parametrize(("game", "offered"), [("blackjack", True), ("roulette", False),
                                               ("baccarat", False)])
def test_the_pit_object_says_whether_the_progressive_is_offered(
        tmp_path: Path, game: str, offered: bool) -> None:
    shown = pit_state(runtime(tmp_path, game))
    assert shown["progressive_offered"] is offered
