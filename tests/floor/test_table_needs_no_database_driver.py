"""A table's service never loads the floor store's database driver: a Pi (or the appliance's
container) without libpq runs `shoectl run`, linked or not; only `shoectl floor` needs it."""

from __future__ import annotations

import subprocess
import sys

BLOCK_PSYCOPG = """
import importlib.abc, sys
class NoPsycopg(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "psycopg" or name.startswith("psycopg."):
            raise ImportError("psycopg: no pq wrapper available (no libpq on this machine)")
        return None
sys.meta_path.insert(0, NoPsycopg())
"""


def imports_without_psycopg(*modules: str) -> subprocess.CompletedProcess[str]:
    code = BLOCK_PSYCOPG + "".join(f"import {m}\n" for m in modules)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=False)


def test_the_table_service_and_its_floor_link_load_without_the_driver() -> None:
    done = imports_without_psycopg("controller.cli.run_command", "controller.service.app",
                                   "controller.service.journal_shipping",
                                   "controller.floor.shipping", "controller.cli.shoectl")
    assert done.returncode == 0, done.stderr


def test_the_floor_process_does_need_it() -> None:  # the blocker itself works
    done = imports_without_psycopg("controller.cli.floor_command")
    assert done.returncode != 0
    assert "no pq wrapper available" in done.stderr
