"""Render a catalogue as the Markdown tables of PROTOCOL.md, and keep them up to date.

    python -m firmware_bridge.docgen CATALOGUE [--write PROTOCOL.md]

prints (or writes between the GENERATED markers of PROTOCOL.md) each board's message
table and catalogue hash. A test compares the committed document with this rendering, so
the document and the catalogue file cannot drift apart.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Final

from firmware_bridge.catalogue import Catalogue, FieldSpec, FieldType, MessageSpec
from firmware_bridge.catalogue_file import load_catalogue
from firmware_bridge.errors import CatalogueError

BEGIN: Final = "<!-- BEGIN GENERATED: catalogue (python -m firmware_bridge.docgen) -->"
END: Final = "<!-- END GENERATED: catalogue -->"
PROTOCOL_MD: Final = Path(__file__).with_name("PROTOCOL.md")


def render(catalogue: Catalogue, source_name: str) -> str:
    """Return the generated Markdown for `catalogue` (without the markers)."""
    lines = [f"Generated from `{source_name}`.", ""]
    for kind, board in sorted(catalogue.boards.items()):
        lines += [f"#### Board `{kind}`", "", board.doc.replace("\n", " "), ""]
        lines += [f"Catalogue hash (SHA-256): `{board.hash().hex()}`", ""]
        lines += ["| id | message | direction | fields (wire order) | meaning |"]
        lines += ["|---|---|---|---|---|"]
        lines += [_row(spec) for spec in board.messages]
        lines.append("")
    return "\n".join(lines)


def _row(spec: MessageSpec) -> str:
    kind = f"{spec.direction}, counted" if spec.counted else str(spec.direction)
    fields = "<br>".join(_field(item) for item in spec.fields) or "(none)"
    meaning = spec.doc.replace("\n", " ").replace("|", "\\|")
    if spec.response:
        meaning += f" Answered by `{spec.response}`."
    return f"| 0x{spec.id:02X} | `{spec.name}` | {kind} | {fields} | {meaning} |"


def _field(spec: FieldSpec) -> str:
    text = f"`{spec.name}` {spec.type}"
    extras = []
    if spec.minimum is not None or spec.maximum is not None:
        low, high = spec.bounds()
        extras.append(f"{low}..{high}")
    if spec.max_len is not None:
        extras.append(f"max {spec.max_len} bytes")
    if spec.type is FieldType.ENUM:
        extras.append(", ".join(f"{index}={name}" for index, name in enumerate(spec.values)))
    if spec.unit:
        extras.append(spec.unit)
    if spec.secret:
        extras.append("secret")
    text += f" ({'; '.join(extras)})" if extras else ""
    return text + (f": {spec.doc}" if spec.doc else "")


def splice(document: str, generated: str) -> str:
    """Return `document` with the text between the GENERATED markers replaced."""
    head, sep, rest = document.partition(BEGIN)
    _, sep2, tail = rest.partition(END)
    if not sep or not sep2:
        raise CatalogueError("PROTOCOL.md has no GENERATED catalogue markers")
    return f"{head}{BEGIN}\n{generated}\n{END}{tail}"


def main(argv: list[str] | None = None) -> int:
    """Print, or write into PROTOCOL.md, the generated catalogue section."""
    parser = argparse.ArgumentParser(prog="python -m firmware_bridge.docgen")
    parser.add_argument("catalogue", type=Path, help="the catalogue TOML file")
    parser.add_argument("--write", type=Path, nargs="?", const=PROTOCOL_MD,
                        help="splice into this PROTOCOL.md (default: the one beside this module)")
    args = parser.parse_args(argv)
    try:
        generated = render(load_catalogue(args.catalogue), args.catalogue.name)
        if args.write is None:
            sys.stdout.write(generated + "\n")
        else:
            args.write.write_text(splice(args.write.read_text(encoding="utf-8"), generated),
                                  encoding="utf-8")
    except (CatalogueError, OSError) as error:
        sys.stderr.write(f"docgen: {error}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
