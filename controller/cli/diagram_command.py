"""`shoectl diagram GAME --format svg|png|mermaid`: draw a game's procedure.

Exit status: 0 drawn; 1 the renderer (Graphviz) failed; 2 `-o FILE` cannot be written
(its folder missing, not writable, a full disk), named in one line.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from controller.procedure.diagram import VIEWS, render
from controller.procedure.families import FAMILY


def main(argv: list[str]) -> int:
    """Run `shoectl diagram`."""
    parser = argparse.ArgumentParser(prog="shoectl diagram",
                                     description="Draw a game's procedure state machine.")
    parser.add_argument("game", choices=sorted(FAMILY))
    parser.add_argument("--format", choices=["mermaid", "svg", "png"], default="mermaid")
    parser.add_argument("--view", choices=list(VIEWS), default="procedure",
                        help="procedure (default: the dealing procedure), irregularities, "
                             "faults, or all of the table")
    parser.add_argument("-o", "--output", type=Path, default=None,
                        help="write to this file (default: stdout)")
    args = parser.parse_args(argv)
    try:
        data = render(FAMILY[args.game], args.format, args.view)
    except RuntimeError as exc:
        sys.stderr.write(f"shoectl diagram: {exc}\n")
        return 1
    if args.output:
        try:
            args.output.write_bytes(data)
        except OSError as exc:
            sys.stderr.write(f"shoectl diagram: -o {args.output}: cannot write: "
                             f"{exc.strerror or exc}\n")
            return 2
    else:
        sys.stdout.buffer.write(data)
    return 0
