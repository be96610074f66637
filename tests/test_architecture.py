"""Architecture rules import-linter cannot see (its contracts are in pyproject.toml).

- `controller/rules` imports the standard library by an allow-list only (relative imports
  resolved) and the configuration reader `confkeys`, which is held to the same allow-list;
  neither does I/O: no file, console, clock or randomness of its own.
- Only the code that builds vision profiles, the emulated camera and the simulation import
  `vision.build` (the run-time recogniser never does).
- `controller/` holds no module of its own but the package files: every module sits in the
  folder of its concern.
- A public name means one thing: no two product modules define the same class or type alias.
- No class over 300 lines or 30 methods.
- No code outside the family registry asks a model its class (`isinstance(model,
  BlackjackModel)`): the family's key selects a view, a driver, a rows table. The checks
  still made through the registry's `is_model` may only become fewer.
- No module of `controller/procedure` imports itself back when it is loaded (imports under
  `if TYPE_CHECKING:` aside: the parts still name their model's type).
- No code of `controller/` compares a procedure state with a string literal: a name or
  attribute a state is bound to (`STATE_NAMES`) is compared (`==`, `!=`, `in`, `not in`)
  with a string constant, a tuple, list, set or dict of them, or a module constant made of
  them; nor is it matched (`match state:`) against string cases, nor looked up in such a
  dict (`{...}[state]`, `TEXTS.get(state)`). States are compared with the family's enum
  member (`BJ.BETTING`), or in code several families share with `TableState`'s.
"""

import ast
import subprocess
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PRODUCT = ("controller", "drivers", "vision", "firmware_bridge", "confkeys")
RULES = ROOT / "controller" / "rules"
CONFKEYS = ROOT / "confkeys"

RULES_MAY_IMPORT = frozenset({
    "__future__", "abc", "collections", "collections.abc", "dataclasses", "enum", "fractions",
    "functools", "itertools", "math", "operator", "re", "string", "typing",
})
"""Pure standard-library modules: no files, sockets, processes, clocks or random sources."""

NO_IO_BUILTINS = frozenset({"open", "print", "input", "exec", "eval", "compile", "__import__",
                            "breakpoint", "globals", "vars"})

MAY_IMPORT_VISION_BUILD = ("vision.build", "controller.camera.emulated", "controller.sim")
"""Profile building, the emulated camera's renderer and the simulation (which lays cards)."""

SAME_MEANING = {"Image": {"drivers.camera.source", "vision.edges"}}
"""One name defined twice with one meaning, in packages that may not import each other."""

MAX_CLASS_LINES = 300
MAX_CLASS_METHODS = 30


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, module: str | None = None) -> set[str]:
    """Every module `path` (module `module`) imports, relative imports resolved."""
    tree = ast.parse(path.read_text(), filename=str(path))
    module = module or module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, *([base] if base else [])])
            found.add(base)
            found |= {f"{base}.{alias.name}" for alias in node.names}
    return found


def product_files() -> list[Path]:
    return sorted(p for pkg in PRODUCT for p in (ROOT / pkg).rglob("*.py"))


RULE_FILES = sorted(RULES.rglob("*.py"))
PURE_FILES = RULE_FILES + sorted(CONFKEYS.rglob("*.py"))
"""The rules and the reader they use: pure standard library, no I/O."""


def not_allowed_in_rules(names: set[str]) -> list[str]:
    """The imported names that are neither the rules' own nor on their allow-list."""
    # `from collections.abc import Mapping` is seen as both the module and the name.
    return sorted(n for n in names if not n.startswith(("controller.rules", "confkeys"))
                  and n not in RULES_MAY_IMPORT and n.rpartition(".")[0] not in RULES_MAY_IMPORT)


@pytest.mark.parametrize("path", PURE_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_rules_import_only_allowed_standard_library(path: Path) -> None:
    bad = not_allowed_in_rules(imports_of(path))
    assert not bad, f"{path.name} imports {bad[0]}: not on the rules' allow-list"


@pytest.mark.parametrize("line", ["from ..journal import store", "from ..journal.store import x",
                                  "import time", "from os import path", "import random"])
def test_the_allow_list_refuses_relative_and_impure_imports(tmp_path: Path, line: str) -> None:
    probe = tmp_path / "money.py"
    probe.write_text((RULES / "money.py").read_text() + f"\n{line}\n")
    assert not_allowed_in_rules(imports_of(probe, "controller.rules.money"))


@pytest.mark.parametrize("path", PURE_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_rules_do_no_io(path: Path) -> None:
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            assert node.func.id not in NO_IO_BUILTINS, (
                f"{path.name}:{node.lineno} calls {node.func.id}(): rules do no I/O")
        if isinstance(node, ast.Name) and node.id == "__builtins__":
            pytest.fail(f"{path.name}:{node.lineno} reaches for __builtins__")


@pytest.mark.parametrize("path", product_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_only_builders_emulation_and_simulation_import_vision_build(path: Path) -> None:
    name = module_name(path)
    if name.startswith(MAY_IMPORT_VISION_BUILD):
        return
    used = sorted(m for m in imports_of(path)
                  if m == "vision.build" or m.startswith("vision.build."))
    assert not used, f"{name} imports {used[0]}: build-time code"


def test_controller_holds_no_module_of_its_own() -> None:
    listed = subprocess.run(["git", "ls-files", "controller"], cwd=ROOT, capture_output=True,
                            text=True, check=True).stdout.split()
    loose = [p for p in listed if p.count("/") == 1 and p.endswith(".py")
             and Path(p).name not in ("__init__.py", "__main__.py")]
    assert not loose, f"modules directly in controller/: {loose}"


def public_definitions(path: Path) -> list[tuple[str, int]]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            found.append((node.name, node.lineno))
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            target = node.targets[0] if isinstance(node, ast.Assign) else node.target
            # Type aliases are CamelCase names (constants are UPPER_CASE).
            if isinstance(target, ast.Name) and target.id[:1].isupper() and not target.id.isupper():
                found.append((target.id, node.lineno))
    return [(name, line) for name, line in found if not name.startswith("_")]


def test_every_public_name_means_one_thing() -> None:
    where: dict[str, set[str]] = defaultdict(set)
    for path in product_files():
        for name, _line in public_definitions(path):
            where[name].add(module_name(path))
    twice = {name: mods for name, mods in where.items()
             if len(mods) > 1 and SAME_MEANING.get(name) != mods}
    assert not twice, f"defined in more than one module: {twice}"


def test_no_class_is_too_big() -> None:
    big = []
    for path in product_files():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                methods = sum(isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
                              for n in node.body)
                if lines > MAX_CLASS_LINES or methods > MAX_CLASS_METHODS:
                    big.append(f"{module_name(path)}.{node.name}: {lines} lines, {methods} methods")
    assert not big, big


FAMILY_REGISTRY = "controller.procedure.families"


def family_model_names() -> frozenset[str]:
    """The classes a table's model may be: each family's, and their bases."""
    from controller.procedure.families import FAMILIES

    return frozenset({f.model.__name__ for f in FAMILIES.values()}
                     | {"TableModel", "ProcedureModel"})


def model_class_checks(source: str, where: str, models: frozenset[str]) -> list[str]:
    """Every `isinstance(x, <a family's model class>)` (or a tuple of them) in `source`."""
    found = []
    for node in ast.walk(ast.parse(source, filename=where)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in ("isinstance", "issubclass") and len(node.args) == 2):
            continue
        kinds = node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [node.args[1]]
        for kind in kinds:
            name = kind.attr if isinstance(kind, ast.Attribute) else getattr(kind, "id", "")
            if name in models:
                found.append(f"{where}:{node.lineno} {node.func.id}(..., {name})")
    return found


def test_no_dispatch_on_a_models_class_outside_the_registry() -> None:
    models = family_model_names()
    found = [hit for path in product_files() if module_name(path) != FAMILY_REGISTRY
             for hit in model_class_checks(path.read_text(), module_name(path), models)]
    assert not found, "dispatch on a model's class (use the family's key): " + "; ".join(found)


FAMILY_CHECKS_LEFT = 22
"""`is_model(model, XModel)` calls outside the registry: a command or a part that only one
family has still asks whether the table is that family's. Lower this as they go."""


def is_model_calls(source: str) -> int:
    return sum(isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
               and node.func.id == "is_model" for node in ast.walk(ast.parse(source)))


def test_checks_of_a_models_family_only_become_fewer() -> None:
    calls = sum(is_model_calls(path.read_text()) for path in product_files()
                if module_name(path) != FAMILY_REGISTRY)
    assert calls <= FAMILY_CHECKS_LEFT, (
        f"{calls} is_model() checks, at most {FAMILY_CHECKS_LEFT}: select the family's code "
        "by its key (controller.console.views, controller.sim.games) instead")


@pytest.mark.parametrize("line", [
    "isinstance(model, BlackjackModel)", "isinstance(m, (RouletteModel, HoldemModel))",
    "isinstance(model, community_model.CommunityModel)", "issubclass(kind, TableModel)"])
def test_the_dispatch_scan_finds_a_planted_check(line: str) -> None:
    source = f"def f(model, m, kind):\n    return {line}\n"
    assert model_class_checks(source, "probe", family_model_names())


PROCEDURE = ROOT / "controller" / "procedure"


def runtime_imports(source: str, module: str, package: str) -> set[str]:
    """The modules `source` imports when it is loaded (not under `if TYPE_CHECKING:`)."""
    found: set[str] = set()

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.If):
                guard = node.test
                if isinstance(guard, ast.Name) and guard.id == "TYPE_CHECKING":
                    visit(node.orelse)
                    continue
                visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                visit(node.body)
                for handler in node.handlers:
                    visit(handler.body)
            elif isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    anchor = parts[: len(parts) - (node.level - 1)]
                    base = ".".join([*anchor, *([base] if base else [])])
                found.add(base)
                found.update(f"{base}.{alias.name}" for alias in node.names)

    visit(ast.parse(source, filename=module).body)
    return found


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                connect(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1 or node in graph.get(node, ()):
                cycles.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return cycles


def procedure_graph(sources: dict[str, tuple[str, bool]]) -> dict[str, set[str]]:
    """Each module's load-time imports among `sources` (module -> (text, is a package))."""
    graph = {}
    for module, (text, is_package) in sources.items():
        package = module if is_package else module.rpartition(".")[0]
        graph[module] = {m for m in runtime_imports(text, module, package)
                         if m in sources and m != module}
    return graph


def test_no_module_of_the_procedure_imports_itself_back_when_loaded() -> None:
    sources = {module_name(p): (p.read_text(), p.name == "__init__.py")
               for p in PROCEDURE.rglob("*.py")}
    cycles = import_cycles(procedure_graph(sources))
    assert not cycles, f"import cycles at load time: {cycles}"


def test_the_cycle_check_finds_a_part_importing_its_model() -> None:
    sources = {
        "pkg.model": ("from pkg.deal import Deal\n", False),
        "pkg.deal": ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                     "    from pkg.model import Model\n", False),
    }
    assert not import_cycles(procedure_graph(sources))
    sources["pkg.deal"] = ("from pkg.model import Model\n", False)
    assert import_cycles(procedure_graph(sources)) == [["pkg.deal", "pkg.model"]]


STATE_NAMES = frozenset({"state", "initial", "resume_state", "error_return",
                         "reshuffle_return"})
"""What a procedure state is bound to in `controller/`: the model's `state`, a local copy
of it, the state a model starts in, and where a hold, a card in error or a reshuffle
returns to. Things that merely have a state of another kind are named otherwise
(`lamp_state`, `wheel_phase`)."""

_COLLECTIONS = ("frozenset", "set", "tuple", "list", "dict")


def _is_state(node: ast.expr) -> bool:
    if isinstance(node, ast.Name):
        return node.id in STATE_NAMES
    return isinstance(node, ast.Attribute) and node.attr in STATE_NAMES


def _names_a_string(node: ast.expr | None, constants: frozenset[str]) -> bool:
    """A non-empty string constant, a collection holding one, or a module constant of them."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and node.value != ""
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return any(_names_a_string(e, constants) for e in node.elts)
    if isinstance(node, ast.Dict):
        return any(_names_a_string(k, constants) for k in node.keys)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return node.func.id in _COLLECTIONS and any(_names_a_string(a, constants)
                                                    for a in node.args)
    return isinstance(node, ast.Name) and node.id in constants


def _string_constants(tree: ast.Module) -> frozenset[str]:
    """Module-level names bound to string literals or collections of them."""
    found: set[str] = set()
    for node in tree.body:
        target, value = None, None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign):
            target, value = node.target, node.value
        if isinstance(target, ast.Name) and _names_a_string(value, frozenset()):
            found.add(target.id)
    return frozenset(found)


def _string_case(pattern: ast.pattern) -> bool:
    if isinstance(pattern, ast.MatchValue):
        return isinstance(pattern.value, ast.Constant) and isinstance(pattern.value.value, str)
    if isinstance(pattern, ast.MatchOr):
        return any(_string_case(p) for p in pattern.patterns)
    return isinstance(pattern, ast.MatchAs) and pattern.pattern is not None and _string_case(
        pattern.pattern)


def state_string_comparisons(source: str, where: str) -> list[str]:
    """Every comparison, match or dict lookup of a state with string literals in `source`."""
    tree = ast.parse(source, filename=where)
    constants = _string_constants(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            if any(map(_is_state, operands)) and any(
                    _names_a_string(o, constants) for o in operands if not _is_state(o)):
                found.append(f"{where}:{node.lineno} {ast.unparse(node)}")
        elif isinstance(node, ast.Match):
            if _is_state(node.subject) and any(_string_case(c.pattern) for c in node.cases):
                found.append(f"{where}:{node.lineno} match {ast.unparse(node.subject)}")
        elif isinstance(node, ast.Subscript):
            if _is_state(node.slice) and _names_a_string(node.value, constants):
                found.append(f"{where}:{node.lineno} {ast.unparse(node)}")
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr == "get" and node.args and _is_state(node.args[0])
              and _names_a_string(node.func.value, constants)):
            found.append(f"{where}:{node.lineno} {ast.unparse(node)}")
    return found


def test_no_state_is_compared_with_a_string() -> None:
    found = [hit for path in sorted((ROOT / "controller").rglob("*.py"))
             for hit in state_string_comparisons(path.read_text(),
                                                 str(path.relative_to(ROOT)))]
    assert not found, ("a state compared with a string (use the family's enum member, or "
                       "TableState's in shared code): " + "; ".join(found))


@pytest.mark.parametrize("line", [
    'model.state == "betting"', '"betting" != self.model.state', 'state in ("a", "b")',
    'self.state not in ["dealing", B.X]', 'state in {"fault"}', 'initial == "shoe_loading"',
    'model.resume_state == "cards"', 'model.state in KEPT', 'model.state in frozenset({"x"})',
    '{"dealing": "DEALING"}.get(model.state, "")', 'TEXTS.get(state)', 'TEXTS[model.state]'])
def test_the_state_scan_finds_a_planted_comparison(line: str) -> None:
    source = (f'KEPT = frozenset({{"round_over", "burn"}})\nTEXTS = {{"burn": "BURN"}}\n'
              f"def f(model, state, initial):\n    return {line}\n")
    assert state_string_comparisons(source, "probe"), line


def test_the_state_scan_finds_a_match_on_string_cases() -> None:
    source = ('def f(state):\n    match state:\n        case "betting" | "dealing":\n'
              "            return 1\n    return 0\n")
    assert state_string_comparisons(source, "probe") == ["probe:2 match state"]


@pytest.mark.parametrize("line", [
    "model.state == BJ.BETTING", "state in (TableState.SHOE_LOADING, TableState.BURN)",
    "model.state in HOLD_STATES", 'lamp_state == "on"', 'model.resume_state == ""',
    "TEXTS.get(model.state)", 'model.phase == "deciding"'])
def test_the_state_scan_passes_enum_members(line: str) -> None:
    source = (f"TEXTS = {{BJ.BURN: 'BURN'}}\nHOLD_STATES = frozenset({{str(S.FAULT)}})\n"
              f"def f(model, state, lamp_state):\n    return {line}\n")
    assert not state_string_comparisons(source, "probe"), line
