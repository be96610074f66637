"""The journal's errors: one that may pass with a restart, one that never does."""

from __future__ import annotations


class JournalError(RuntimeError):
    """The journal or the critical state cannot be read, written or trusted."""


class JournalTrustError(JournalError):
    """The journal cannot be trusted, and a restart cannot fix it.

    It is damaged, forged, truncated or replaced, or its key is missing or unusable
    (`shoectl run` exits 4, which systemd does not retry).
    """


class JournalKeyError(JournalTrustError):
    """The journal key is missing, unreadable, too open, or not a key file."""
