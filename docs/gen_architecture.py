"""Generate the layer section of docs/architecture.md from pyproject.toml's import contracts.

The contracts are what `make test` enforces (import-linter); this renders them, with each
package's own one-line docstring, so the document cannot state another order than the code.
`python docs/gen_architecture.py --write` rewrites the section between the markers;
without `--write` it prints it. `tests/test_docs.py` fails when the file is stale.
"""

from __future__ import annotations

import ast
import itertools
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DOCUMENT = REPO / "docs" / "architecture.md"
BEGIN = "<!-- generated from pyproject.toml by docs/gen_architecture.py: do not edit -->"
END = "<!-- end of generated section -->"


def contracts() -> list[dict[str, object]]:
    """The import-linter contracts, in pyproject's order."""
    data = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    found: list[dict[str, object]] = data["tool"]["importlinter"]["contracts"]
    return found


def summary(module: str) -> str:
    """The first paragraph of a package's (or a module's) docstring, or '' when it has none."""
    path = REPO.joinpath(*module.split(".")) / "__init__.py"
    if not path.exists():
        path = REPO.joinpath(*module.split(".")).with_suffix(".py")
    if not path.exists():
        return ""
    docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    return docstring.split("\n\n")[0].replace("\n", " ")


def layer_rows(contract: dict[str, object]) -> list[tuple[str, list[str]]]:
    """(level, the modules of that level) from the top down, containers applied."""
    containers = list(contract.get("containers", [""]))  # type: ignore[call-overload]
    rows = []
    for level, layer in enumerate(contract["layers"], 1):  # type: ignore[arg-type]
        names = [name.strip() for name in str(layer).split("|")]
        modules = [f"{container}.{name}" if container else name
                   for container in containers for name in names]
        rows.append((str(level), modules))
    return rows


def render() -> str:
    """The generated section, markers included."""
    out = [BEGIN, ""]
    for contract in contracts():
        if contract["type"] != "layers":
            continue
        out += [f"**{contract['name']}** (a module imports only from the levels below its own;",
                "modules on one level do not import each other):", "",
                "| level | package | what it holds |", "|---|---|---|"]
        for level, modules in layer_rows(contract):
            for module in modules:
                out.append(f"| {level} | `{module}` | {summary(module)} |")
        out.append("")
        if not inner(contract):
            out += mermaid(contract)
    out += ["Besides the layers, these imports are refused:", ""]
    for contract in contracts():
        if contract["type"] == "forbidden":
            sources = ", ".join(f"`{name}`" for name in contract["source_modules"])  # type: ignore[attr-defined]
            banned = ", ".join(f"`{name}`" for name in contract["forbidden_modules"])  # type: ignore[attr-defined]
            out.append(f"- {contract['name']}: {sources} may not import {banned}.")
    out += ["", END]
    return "\n".join(out) + "\n"


def inner(contract: dict[str, object]) -> bool:
    """True for the layers inside one package of the procedure (a family's): a table suffices."""
    containers = [str(c) for c in contract.get("containers", [])]  # type: ignore[attr-defined]
    return bool(containers) and all(c.count(".") >= 2 for c in containers)


def mermaid(contract: dict[str, object]) -> list[str]:
    """A flowchart of the layers: each level points at the next one down."""
    rows = layer_rows(contract)
    arrows = [f'    {node(top)}["{top}"] --> {node(bottom)}["{bottom}"]'
              for (_, upper), (_, lower) in itertools.pairwise(rows)
              for top in upper for bottom in lower]
    return ["```mermaid", "flowchart TD", *arrows, "```", ""]


def node(module: str) -> str:
    """A mermaid node id for a module name."""
    return module.replace(".", "_")


def splice(document: str, section: str) -> str:
    """`document` with the generated section replaced by `section`."""
    head, _, rest = document.partition(BEGIN)
    _, _, tail = rest.partition(END + "\n")
    return head + section + tail


def main(argv: list[str]) -> int:
    """Print the section, or with `--write` put it into docs/architecture.md."""
    if argv == ["--write"]:
        document = DOCUMENT.read_text(encoding="utf-8")
        DOCUMENT.write_text(splice(document, render()), encoding="utf-8")
        return 0
    if argv:
        print("usage: python docs/gen_architecture.py [--write]", file=sys.stderr)
        return 2
    sys.stdout.write(render())
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
