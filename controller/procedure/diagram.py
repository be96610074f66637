"""Draw a procedure from its transition table: mermaid text, or SVG and PNG through graphviz.

Mermaid text needs nothing; SVG and PNG are rendered by graphviz's `dot` program from DOT
text generated from the same table. `controller/procedure/procedure_<family>.mmd` is the committed
mermaid rendering; a test keeps it equal to what this module generates.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from controller.procedure.tables import INITIAL, TABLES


def _edges(family: str) -> list[tuple[str, str, str]]:
    _, table = TABLES[family]
    edges: dict[tuple[str, str], list[str]] = {}
    for row in table:
        sources = row["source"] if isinstance(row["source"], list) else [row["source"]]
        for source in sources:
            dest = row["dest"] or source
            label = row["trigger"]
            conditions = row.get("conditions")
            if conditions:
                names = [conditions] if isinstance(conditions, str) else conditions
                label += " [" + ", ".join(names) + "]"
            edges.setdefault((source, dest), []).append(label)
    return [(s, d, "<br/>".join(dict.fromkeys(labels))) for (s, d), labels in edges.items()]


def mermaid(family: str) -> str:
    """The family's procedure as a mermaid state diagram."""
    states, _ = TABLES[family]
    lines = ["stateDiagram-v2", f"    [*] --> {INITIAL[family]}"]
    lines += [f"    {s}" for s in (str(x) for x in states)]
    lines += [f"    {s} --> {d}: {label}" for s, d, label in _edges(family)]
    return "\n".join(lines) + "\n"


def dot(family: str) -> str:
    """The family's procedure as graphviz DOT text."""
    states, _ = TABLES[family]
    lines = [f'digraph "{family}" {{', "    rankdir=LR;", "    node [shape=box];"]
    lines += [f'    "{s}";' for s in (str(x) for x in states)]
    for source, dest, label in _edges(family):
        text = label.replace("<br/>", "\\n").replace('"', "'")
        lines.append(f'    "{source}" -> "{dest}" [label="{text}"];')
    return "\n".join([*lines, "}"]) + "\n"


def committed_path(family: str) -> Path:
    """Where the committed mermaid file of a family lives."""
    return Path(__file__).with_name(f"procedure_{family}.mmd")


def render(family: str, fmt: str) -> bytes:
    """The diagram in `fmt` (mermaid, svg or png).

    Raises:
        RuntimeError: svg/png asked for but graphviz's `dot` is not installed.
    """
    if fmt == "mermaid":
        return mermaid(family).encode()
    program = shutil.which("dot")
    if program is None:
        raise RuntimeError("graphviz `dot` is not installed (Debian package graphviz; "
                           "`make sysdeps` installs it); --format mermaid needs nothing")
    done = subprocess.run([program, f"-T{fmt}"], input=dot(family).encode(),
                          capture_output=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"dot failed: {done.stderr.decode(errors='replace').strip()}")
    return done.stdout
