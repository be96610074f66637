"""Shared helpers of the firmware_bridge tests: catalogues and PROTOCOL.md's fenced blocks."""

import re
from pathlib import Path

from firmware_bridge import Catalogue, parse_catalogue

ROOT = Path(__file__).resolve().parents[2]
PROTOCOL_MD = ROOT / "firmware_bridge" / "PROTOCOL.md"
TABLE_CATALOGUE = ROOT / "drivers" / "catalogue.toml"
FENCE = re.compile(r"^```([\w-]+)(?: ([\w-]+))?\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def fenced_blocks(info: str, tag: str | None = None) -> list[str]:
    """Return the bodies of PROTOCOL.md's fenced blocks with this info string (and tag)."""
    text = PROTOCOL_MD.read_text(encoding="utf-8")
    return [body for kind, label, body in FENCE.findall(text)
            if kind == info and (tag is None or label == tag)]


def example_catalogue() -> Catalogue:
    import tomllib

    (source,) = fenced_blocks("toml", "example-catalogue")
    return parse_catalogue(tomllib.loads(source), "PROTOCOL.md example")
