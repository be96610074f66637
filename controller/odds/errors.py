"""The one exception family of the par-sheet package."""

from __future__ import annotations


class OddsError(ValueError):
    """A par sheet that cannot be computed as asked: bad deck count, pay table or option."""
