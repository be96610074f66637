"""Draw a procedure from its transition table: mermaid text, or SVG and PNG through graphviz.

Three views of one table, so that each picture can be read on a screen: `procedure` (the
dealing procedure a round follows, the states and the steps between them), `irregularities`
(the irregularities of RULES.md and the shoe running out or being changed) and `faults`
(holds, link and camera faults, the supervisor's key). Mermaid text needs nothing; SVG and
PNG are rendered by graphviz's `dot` program from DOT text generated from the same rows.
`controller/procedure/<family>/procedure_<family>[_<view>].mmd` are the committed renderings; a test
keeps them equal to what this module generates.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any, Final

from controller.procedure.core.model import HOLD_STATES
from controller.procedure.core.states import TableState
from controller.procedure.families import FAMILIES

VIEWS: Final = ("procedure", "irregularities", "faults", "all")

_FAULT_TRIGGERS: Final = frozenset({
    "fault", "camera_fault", "card_unreadable", "wrong_back", "shoe_error", "link_down",
    "link_up", "camera_status", "meter_correction", "meter_params", "key_off",
    "supervisor_clear"})
_IRREGULAR_TRIGGERS: Final = frozenset({
    "face_up_card", "seat_no_card", "seat_one_card", "dealer_missed_card", "error_exposed",
    "error_unexposed", "cut_card", "shoe_empty", "out_of_cards", "void_round", "new_shoe"})
_IRREGULAR_STATES: Final = frozenset({str(TableState.CARD_IN_ERROR),
                                      str(TableState.RESHUFFLE_DISCARDS)})
_QUIET_TRIGGERS: Final = frozenset({"bet_sensor"})
"""Rows that change nothing a reader of the procedure needs (sensors are journalled only)."""


def view_of(row: dict[str, Any]) -> str:
    """Which view a transition row belongs to."""
    sources = row["source"] if isinstance(row["source"], list) else [row["source"]]
    places = {*sources, row["dest"] or ""}
    conditions = row.get("conditions") or []
    conditions = [conditions] if isinstance(conditions, str) else conditions
    if row["trigger"] in _FAULT_TRIGGERS or places & HOLD_STATES or (
            "shoe.card_is_impossible" in conditions):
        return "faults"
    if row["trigger"] in _IRREGULAR_TRIGGERS or places & _IRREGULAR_STATES or (
            "deal.dealer_stood_17_21" in conditions):
        return "irregularities"
    return "procedure"


def _rows(family: str, view: str) -> list[dict[str, Any]]:
    table = FAMILIES[family].rows
    if view == "all":
        return list(table)
    return [row for row in table if view_of(row) == view
            and not (view == "procedure" and row["trigger"] in _QUIET_TRIGGERS)]


def _edges(family: str, view: str = "all") -> list[tuple[str, str, str]]:
    edges: dict[tuple[str, str], list[str]] = {}
    for row in _rows(family, view):
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


def _states(family: str, view: str) -> list[str]:
    states = FAMILIES[family].states
    used = {place for s, d, _ in _edges(family, view) for place in (s, d)}
    return [str(x) for x in states if view == "all" or str(x) in used]


def mermaid(family: str, view: str = "procedure") -> str:
    """One view of the family's procedure as a mermaid state diagram."""
    lines = ["stateDiagram-v2", f"    [*] --> {FAMILIES[family].initial}"]
    lines += [f"    {s}" for s in _states(family, view)]
    lines += [f"    {s} --> {d}: {label}" for s, d, label in _edges(family, view)]
    return "\n".join(lines) + "\n"


def dot(family: str, view: str = "procedure") -> str:
    """One view of the family's procedure as graphviz DOT text."""
    rank = "TB" if view == "procedure" else "LR"
    lines = [f'digraph "{family}" {{', f"    rankdir={rank};", "    node [shape=box];"]
    lines += [f'    "{s}";' for s in _states(family, view)]
    for source, dest, label in _edges(family, view):
        text = label.replace("<br/>", "\\n").replace('"', "'")
        lines.append(f'    "{source}" -> "{dest}" [label="{text}"];')
    return "\n".join([*lines, "}"]) + "\n"


def committed_path(family: str, view: str = "procedure") -> Path:
    """Where the committed mermaid file of one view of a family lives."""
    suffix = "" if view == "procedure" else f"_{view}"
    return Path(__file__).parent / family / f"procedure_{family}{suffix}.mmd"


def render(family: str, fmt: str, view: str = "procedure") -> bytes:
    """The diagram in `fmt` (mermaid, svg or png).

    Raises:
        RuntimeError: svg/png asked for but graphviz's `dot` is not installed.
    """
    if fmt == "mermaid":
        return mermaid(family, view).encode()
    program = shutil.which("dot")
    if program is None:
        raise RuntimeError("graphviz `dot` is not installed (Debian package graphviz; "
                           "`make sysdeps` installs it); --format mermaid needs nothing")
    done = subprocess.run([program, f"-T{fmt}"], input=dot(family, view).encode(),
                          capture_output=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"dot failed: {done.stderr.decode(errors='replace').strip()}")
    return done.stdout
