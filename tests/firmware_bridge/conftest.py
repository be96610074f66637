"""Fixtures of the firmware_bridge tests: the table's catalogue and PROTOCOL.md's example."""

import pytest

from firmware_bridge import Catalogue, load_catalogue

from .helpers import TABLE_CATALOGUE, example_catalogue


@pytest.fixture(scope="session")
def table_catalogue() -> Catalogue:
    return load_catalogue(TABLE_CATALOGUE)


@pytest.fixture(scope="session")
def demo_catalogue() -> Catalogue:
    return example_catalogue()
