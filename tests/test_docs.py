"""The docs stay a reference: generated parts fresh, sizes bounded, decisions one a file.

Each test reads the tree as a newcomer would: the README's links lead somewhere, the layer
order in docs/architecture.md is the one `make test` enforces, and every decision carries
its status and is listed in the index.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parent.parent
DECISIONS = REPO / "docs" / "decisions"
EXPERIMENTS = REPO / "docs" / "experiments"
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
STATUS = re.compile(r"^Status: (accepted|superseded by (\d{3})\b.*)$", re.M)


def generator() -> ModuleType:
    """docs/gen_architecture.py, loaded from its file (docs/ is no package)."""
    spec = importlib.util.spec_from_file_location("gen_architecture",
                                                  REPO / "docs" / "gen_architecture.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def decision_files() -> list[Path]:
    """Every numbered decision."""
    return sorted(DECISIONS.glob("[0-9][0-9][0-9]-*.md"))


def test_the_architecture_layers_are_generated_from_the_contracts_and_fresh() -> None:
    gen = generator()
    document = gen.DOCUMENT.read_text(encoding="utf-8")
    assert gen.BEGIN in document
    assert gen.END in document
    assert document == gen.splice(document, gen.render()), (
        "docs/architecture.md's layers are stale: run python docs/gen_architecture.py --write")


def test_the_generated_layers_name_every_controller_folder_in_the_contract_order() -> None:
    section = generator().render()
    order = [match.group(1) for match in re.finditer(r"\| \d+ \| `controller\.(\w+)` \|", section)]
    assert order[:3] == ["cli", "sim", "appliance"]
    assert order[-2:] == ["odds", "rules"]
    folders = {path.parent.name for path in (REPO / "controller").glob("*/__init__.py")}
    assert folders <= set(order), f"folders outside the layer contract: {folders - set(order)}"


def test_the_readmes_stay_short() -> None:
    assert len((REPO / "README.md").read_text(encoding="utf-8").splitlines()) <= 250
    assert len((REPO / "vision" / "README.md").read_text(encoding="utf-8").splitlines()) <= 200


def test_every_relative_link_of_the_readme_and_the_indexes_leads_to_a_file() -> None:
    for document in (REPO / "README.md", DECISIONS / "README.md", EXPERIMENTS / "README.md",
                     REPO / "docs" / "architecture.md"):
        for target in LINK.findall(document.read_text(encoding="utf-8")):
            if "://" in target:
                continue
            assert (document.parent / target).exists(), f"{document.name}: {target} is missing"


def test_every_decision_is_numbered_titled_short_with_a_status_and_indexed() -> None:
    index = (DECISIONS / "README.md").read_text(encoding="utf-8")
    numbers = {path.name[:3] for path in decision_files()}
    assert len(numbers) == len(decision_files()), "two decisions share a number"
    for path in decision_files():
        text = path.read_text(encoding="utf-8")
        assert text.startswith(f"# {path.name[:3]}: "), f"{path.name}: title '# NNN: ...'"
        status = STATUS.search(text)
        assert status is not None, f"{path.name}: no 'Status: accepted | superseded by NNN'"
        if status.group(2):
            assert status.group(2) in numbers, f"{path.name}: superseded by a missing decision"
        assert len(text.splitlines()) <= 70, f"{path.name}: over about 60 lines"
        assert f"]({path.name})" in index, f"{path.name} is not in docs/decisions/README.md"


def test_every_experiment_is_indexed() -> None:
    index = (EXPERIMENTS / "README.md").read_text(encoding="utf-8")
    for path in EXPERIMENTS.glob("*.md"):
        if path.name != "README.md":
            assert f"]({path.name})" in index, f"{path.name} is not in the experiments index"


def test_nothing_cites_the_old_decisions_file() -> None:
    citing = []
    for folder in ("controller", "drivers", "vision", "firmware_bridge", "tests", "hil_tests",
                   "docs", "systemd", "bench"):
        for path in (REPO / folder).rglob("*"):
            if path.suffix in {".py", ".md", ".toml", ".service"} and path.is_file():
                text = path.read_text(encoding="utf-8", errors="replace")
                if re.search(r"(?<!old `docs/)decisions\.md", text) and path != Path(__file__):
                    citing.append(str(path.relative_to(REPO)))
    assert not citing, f"cite docs/decisions/NNN-*.md instead: {citing}"
