"""Architecture rules that import-linter cannot see: controller/rules uses only the
standard library, and no module there does I/O or reads a clock or a random source."""

import ast
import sys
from pathlib import Path

import pytest

RULES = Path(__file__).resolve().parents[1] / "controller" / "rules"
FORBIDDEN_STDLIB = {
    "os", "io", "sys", "time", "datetime", "random", "secrets", "logging", "socket",
    "subprocess", "threading", "sqlite3", "pathlib", "shutil", "tempfile", "select",
}


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


RULE_FILES = sorted(RULES.rglob("*.py"))


@pytest.mark.parametrize("path", RULE_FILES, ids=lambda p: str(p.relative_to(RULES)))
def test_rules_import_only_pure_standard_library(path: Path) -> None:
    for name in imported_modules(path):
        top = name.split(".")[0]
        if name.startswith("controller.rules") or top == "__future__":
            continue
        assert top in sys.stdlib_module_names, f"{path.name} imports {name}: not stdlib"
        assert top not in FORBIDDEN_STDLIB, f"{path.name} imports {name}: rules do no I/O"


def test_rules_package_is_not_empty() -> None:
    assert len(RULE_FILES) >= 2
