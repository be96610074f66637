"""Fixtures of the floor tests: a real Mosquitto on loopback and the controller process."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.floor_rig import Controller
from tests.support.mosquitto import Mosquitto


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Mosquitto]:
    """A broker of the test's own, on a free loopback port."""
    mosquitto = Mosquitto(tmp_path / "broker")
    mosquitto.start()
    yield mosquitto
    mosquitto.stop()


@pytest.fixture
def controller(tmp_path: Path, broker: Mosquitto) -> Iterator[Controller]:
    """`shoectl progressive serve` for group bank-a on the test's broker."""
    process = Controller(tmp_path, broker.url)
    process.start()
    yield process
    process.stop()
