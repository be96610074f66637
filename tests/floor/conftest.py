"""Fixtures of the floor tests: a real Mosquitto on loopback, the controller process, and a
real PostgreSQL server (or an SQLite file) for the floor store."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.floor_rig import Controller
from tests.support.floor_store_rig import new_store_url
from tests.support.mosquitto import Mosquitto
from tests.support.postgres import Postgres


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


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[Postgres]:
    """One PostgreSQL server for the session; each test takes a database of its own."""
    server = Postgres()
    server.start()
    yield server
    server.remove()


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh, empty floor store of each backend (the same tests run on both)."""
    server = (request.getfixturevalue("postgres_server")
              if request.param == "postgresql" else None)
    return new_store_url(request.param, tmp_path, server)
