"""Architecture rules import-linter cannot see (its contracts are in pyproject.toml).

- `controller/rules` imports the standard library by an allow-list only (relative imports
  resolved) and the configuration reader `confkeys`, which is held to the same allow-list;
  neither does I/O: no file, console, clock or randomness of its own.
- Only the code that builds vision profiles, the emulated camera and the simulation import
  `vision.build` (the run-time recogniser never does).
- `controller/` holds no module of its own but the package files: every module sits in the
  folder of its concern.
- A public name means one thing: no two product modules define the same class or type alias.
- No code outside the family registry asks a model its class (`isinstance(model,
  BlackjackModel)`): the family's key selects a view, a driver, a rows table, and code so
  chosen takes the model as its family's class with the registry's `model_as`.
- No import cycle among the product's modules: imports under `if TYPE_CHECKING:` and inside
  functions count (the graph is grimp's, import-linter's own). The cycles known today are
  listed, each with why it stays, and the list may only become shorter.
- Each game family's package declares its public surface, the `__all__` of its
  `__init__.py` (its model, state enum, starting state, rows...), and no module outside
  the package imports its other modules (its parts) or a name it does not export.
- No code of `controller/` compares a procedure state with a string literal: a name or
  attribute a state is bound to (`STATE_NAMES`) is compared (`==`, `!=`, `in`, `not in`)
  with a string constant, a tuple, list, set or dict of them, or a module constant made of
  them; nor is it matched (`match state:`) against string cases, nor looked up in such a
  dict (`{...}[state]`, `TEXTS.get(state)`). States are compared with the family's enum
  member (`BJ.BETTING`), or in code several families share with `TableState`'s.

There is no cap on a class's size: what it protected is the cycle and surface rules above, with the
families' layers contracts (a part knows neither its model nor another part, decision 084),
and ruff's complexity limits (pyproject) still bound every function.
"""

import ast
import importlib
import itertools
import subprocess
from collections import defaultdict
from pathlib import Path

import grimp
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


@pytest.mark.parametrize("line", [
    "isinstance(model, BlackjackModel)", "isinstance(m, (RouletteModel, HoldemModel))",
    "isinstance(model, community_model.CommunityModel)", "issubclass(kind, TableModel)"])
def test_the_dispatch_scan_finds_a_planted_check(line: str) -> None:
    source = f"def f(model, m, kind):\n    return {line}\n"
    assert model_class_checks(source, "probe", family_model_names())


# ---------------------------------------------------------------------------- import cycles

KNOWN_CYCLES: dict[frozenset[str], str] = {
    frozenset({"vision.build.generic", "vision.build.learned_combined",
               "vision.build.learned_data"}):
        "generic's `paired` and `check_pair` import learned_combined inside the function "
        "(the shipped pair builds on the perceptrons), while learned_combined and "
        "learned_data import generic's drawing when loaded. Breaking it moves the pair's "
        "build out of generic, whose module is the build's command (`python -m "
        "vision.build.generic`): a change of the build's entry points, for the vision "
        "build's own work, not a fix in passing.",
}
"""The import cycles left, each with why: the list may only become shorter."""


def import_graph(*packages: str) -> grimp.ImportGraph:
    """Every import among `packages`' modules, TYPE_CHECKING and function-level ones too."""
    return grimp.build_graph(*packages, exclude_type_checking_imports=False, cache_dir=None)


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                connect(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1 or node in graph.get(node, ()):
                cycles.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return cycles


def cycles_of(graph: grimp.ImportGraph) -> list[list[str]]:
    """The import cycles of a grimp graph, as groups of modules."""
    return import_cycles({m: set(graph.find_modules_directly_imported_by(m))
                          for m in graph.modules})


def named_cycle(graph: grimp.ImportGraph, group: list[str]) -> str:
    """One loop through `group`'s first module, each import with its line: a -> b -> a."""
    first = group[0]
    loops = [(first, *chain) for nxt in sorted(graph.find_modules_directly_imported_by(first))
             if nxt in group
             for chain in [graph.find_shortest_chain(importer=nxt, imported=first)] if chain]
    loop = min(loops, key=len)
    steps = [loop[0]]
    for importer, imported in itertools.pairwise(loop):
        lines = [d["line_number"] for d in graph.get_import_details(importer=importer,
                                                                   imported=imported)]
        steps.append(f"{imported} (l.{min(lines)})" if lines else imported)
    return " -> ".join(steps)


def test_no_import_cycle_but_the_known_ones() -> None:
    graph = import_graph(*PRODUCT)
    new = [named_cycle(graph, group) for group in cycles_of(graph)
           if frozenset(group) not in KNOWN_CYCLES]
    assert not new, "import cycles: " + "; ".join(new)


def test_the_known_cycles_are_still_there_so_the_list_only_shrinks() -> None:
    found = {frozenset(group) for group in cycles_of(import_graph(*PRODUCT))}
    gone = [sorted(cycle) for cycle in KNOWN_CYCLES if cycle not in found]
    assert not gone, f"no longer a cycle, take it off KNOWN_CYCLES: {gone}"


def planted_package(root: Path, name: str, files: dict[str, str]) -> None:
    """A package `name` under `root` with `files` (module name -> source)."""
    (root / name).mkdir()
    (root / name / "__init__.py").write_text("")
    for module, source in files.items():
        (root / name / f"{module}.py").write_text(source)


@pytest.mark.parametrize(("kind", "deal_source"), [
    ("type_checking", "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                      "    from {pkg}.model import Model\n"),
    ("function", "def card():\n    from {pkg}.model import Model\n"),
    ("load", "from {pkg} import model\n"),
])
def test_the_cycle_check_finds_a_part_importing_its_model(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str, deal_source: str) -> None:
    pkg = f"planted_{kind}"
    monkeypatch.syspath_prepend(str(tmp_path))
    planted_package(tmp_path, pkg, {"model": f"from {pkg}.deal import Deal\n",
                                    "deal": "class Deal:\n    pass\n"})
    assert not cycles_of(import_graph(pkg))
    (tmp_path / pkg / "deal.py").write_text(deal_source.format(pkg=pkg) + "class Deal:\n"
                                            "    pass\n")
    graph = import_graph(pkg)
    assert cycles_of(graph) == [[f"{pkg}.deal", f"{pkg}.model"]]
    assert named_cycle(graph, [f"{pkg}.deal", f"{pkg}.model"]).startswith(
        f"{pkg}.deal -> {pkg}.model (l.")


# ---------------------------------------------------------------------------- public surfaces

FAMILY_PACKAGE = "controller.procedure"
"""Where the game families' packages are (`controller/procedure/<family>/`)."""
SURFACE_SCANNED = (*PRODUCT, "tests", "hil_tests", "bench")
"""Whose imports of a family are checked against its surface."""
KNOWN_PRIVATE_USERS: dict[str, str] = {}
"""Files that still reach into a family's modules, each with why: the list may only shrink."""


def family_packages() -> list[str]:
    """Every built-in family's package."""
    from controller.procedure.families import BUILT_IN

    return sorted(f"{FAMILY_PACKAGE}.{name}" for name in BUILT_IN)


def declared_surface(package: str) -> list[str] | None:
    """The names of `package`'s `__all__` as its `__init__.py` lists them (None: no list)."""
    init = ROOT.joinpath(*package.split(".")) / "__init__.py"
    for node in ast.parse(init.read_text()).body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name) and node.targets[0].id == "__all__"
                and isinstance(node.value, ast.List | ast.Tuple)):
            return [elt.value for elt in node.value.elts
                    if isinstance(elt, ast.Constant) and isinstance(elt.value, str)]
    return None


def surfaces() -> dict[str, frozenset[str]]:
    """Each family package and the names it exports."""
    return {package: frozenset(declared_surface(package) or ()) for package in family_packages()}


def resolved(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    """The absolute module an `import from` names (relative imports resolved)."""
    if not node.level:
        return node.module or ""
    parts = module.split(".") if is_package else module.split(".")[:-1]
    anchor = parts[: len(parts) - (node.level - 1)]
    return ".".join([*anchor, *([node.module] if node.module else [])])


def private_uses(source: str, module: str, surfaces: dict[str, frozenset[str]],
                 is_package: bool = False) -> list[str]:
    """Where `source` (module `module`) uses a family's module or name beyond its surface.

    An import of a family's module (`<family>.deal`), a name imported from the package that
    its `__all__` does not list, and an attribute of the package imported as a module
    (`blackjack.deal`) that it does not list.
    """
    tree = ast.parse(source)
    found: list[str] = []
    aliases: dict[str, str] = {}

    def inside(name: str) -> str | None:
        return next((p for p in surfaces if name.startswith(p + ".")), None)

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if inside(alias.name):
                    found.append(f"{module}:{node.lineno} imports {alias.name}")
                elif alias.name in surfaces and alias.asname:
                    aliases[alias.asname] = alias.name
        elif isinstance(node, ast.ImportFrom):
            base = resolved(node, module, is_package)
            if inside(base):
                found.append(f"{module}:{node.lineno} imports {base}")
            for alias in node.names:
                if base in surfaces and alias.name not in surfaces[base]:
                    found.append(f"{module}:{node.lineno} imports {base}.{alias.name}, "
                                 "not in its __all__")
                elif f"{base}.{alias.name}" in surfaces:
                    aliases[alias.asname or alias.name] = f"{base}.{alias.name}"
    found.extend(f"{module}:{node.lineno} uses {aliases[node.value.id]}.{node.attr}, not in "
                 "its __all__" for node in ast.walk(tree)
                 if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                 and node.value.id in aliases
                 and node.attr not in surfaces[aliases[node.value.id]])
    return found


def scanned_files() -> list[Path]:
    return sorted(p for folder in SURFACE_SCANNED for p in (ROOT / folder).rglob("*.py"))


def private_uses_by_file() -> dict[str, list[str]]:
    """Each scanned file outside the families' packages, and its uses beyond a surface."""
    known = surfaces()
    found = {}
    for path in scanned_files():
        name = module_name(path)
        theirs = {p: names for p, names in known.items()
                  if name != p and not name.startswith(p + ".")}
        hits = private_uses(path.read_text(), name, theirs, path.name == "__init__.py")
        if hits:
            found[str(path.relative_to(ROOT))] = hits
    return found


@pytest.mark.parametrize("package", family_packages())
def test_each_family_declares_its_public_surface(package: str) -> None:
    from controller.procedure.families import FAMILIES

    declared = declared_surface(package)
    assert declared, f"{package}/__init__.py has no __all__: declare the family's surface"
    family = FAMILIES[package.rpartition(".")[2]]
    wanted = {family.model.__name__, family.states.__name__, "ROWS", "INITIAL"}
    assert wanted <= set(declared), f"{package} does not export {sorted(wanted - set(declared))}"
    loaded = importlib.import_module(package)
    missing = [name for name in declared if not hasattr(loaded, name)]
    assert not missing, f"{package}.__all__ lists names it does not have: {missing}"


def test_nothing_outside_a_family_uses_more_than_its_surface() -> None:
    found = {path: hits for path, hits in private_uses_by_file().items()
             if path not in KNOWN_PRIVATE_USERS}
    assert not found, "a family's own modules used from outside (import from the package): " \
        + "; ".join(hit for hits in found.values() for hit in hits)


def test_the_known_private_users_still_are_so_the_list_only_shrinks() -> None:
    found = private_uses_by_file()
    gone = [path for path in KNOWN_PRIVATE_USERS if path not in found]
    assert not gone, f"no longer reaching into a family, take off KNOWN_PRIVATE_USERS: {gone}"


@pytest.mark.parametrize("source", [
    "from controller.procedure.blackjack.deal import DealTracker\n",
    "from controller.procedure.blackjack import deal\n",
    "from controller.procedure.blackjack import DealTracker\n",
    "import controller.procedure.community.credits\n",
    "from controller.procedure import holdem\nplay = holdem.play\n",
    "import controller.procedure.roulette as ro\nfeed = ro.feed\n",
    "from ..blackjack.model import BlackjackModel\n",
    "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
    "    from controller.procedure.baccarat.model import BaccaratModel\n",
    "def f():\n    from controller.procedure.community.play import DECISIONS\n",
])
def test_the_surface_scan_finds_a_planted_private_use(source: str) -> None:
    assert private_uses(source, "controller.procedure.shared.probe", surfaces())


@pytest.mark.parametrize("source", [
    "from controller.procedure.blackjack import BlackjackModel, ROWS\n",
    "from controller.procedure import blackjack\nrows = blackjack.ROWS\n",
    "import controller.procedure.holdem as he\nstage = he.HoldemStage\n",
])
def test_the_surface_scan_lets_the_surface_through(source: str) -> None:
    assert not private_uses(source, "controller.console.probe", surfaces())


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
