"""The link's authentication: seal every frame sent, admit only authentic, fresh frames.

`FrameGuard` is the part of one link end that holds keys. It seals each outgoing frame
(frame counter and tag, `firmware_bridge.auth`) and checks each incoming one before the
link layer looks at its sequence numbers: a frame whose tag is wrong (`bad_macs`), whose
counter is not above the last one admitted in the session (`replayed`), or whose auth mode
is not this end's (`auth_mismatches`) is counted and dropped, so it never takes a sequence
slot, never acknowledges anything and never counts for liveness. PROTOCOL.md,
"Authentication", is the normative description.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Final, Protocol

from firmware_bridge.auth import (
    AuthMode,
    PairingKey,
    SessionKeys,
    derive_session_keys,
    frame_tag,
    mode_of,
    secret_of,
    tag_matches,
)
from firmware_bridge.framing import Frame, FrameKind, covered_bytes


class AuthCounts(Protocol):
    """What the authentication checks read of a link's statistics (`link.LinkStats`).

    Declared here, so the guard, which the link is built on, does not import the link.
    """

    @property
    def sessions(self) -> int:
        """Sessions opened since the link was made."""
        ...

    @property
    def auth(self) -> AuthMode:
        """This end's auth mode."""
        ...

    @property
    def peer_auth(self) -> AuthMode | None:
        """The auth mode the other end announces (None: not heard yet)."""
        ...

    @property
    def bad_macs(self) -> int:
        """Frames whose tag was wrong."""
        ...

    @property
    def auth_mismatches(self) -> int:
        """Frames whose auth mode was not this end's."""
        ...

AUTH_FAILURES_TO_REFUSE: Final = 3
"""Frames failing authentication, with no session since the link went down, after which a
board that was authenticated before is refused: a wrong board sends a NO_SESSION every
200 ms, so this takes about 0.6 s after the link timeout."""
COUNTER_LIMIT: Final = 0xFFFF_0000
"""No frame carries this counter or a higher one: a sender whose next counter would reach it
sends no more DATA or ACK in the session and ends it at its next poll; a receiver refuses a
frame carrying one (`counter_errors`). So no value is ever used twice with the same key."""


@dataclass(frozen=True, slots=True)
class GuardStats:
    """What the guard refused, and what it learnt of the peer.

    Attributes:
        mode: this end's auth mode.
        bad_macs: frames whose tag did not match (forged, or another key).
        replayed: authentic frames whose counter was not fresh (a replay).
        auth_mismatches: RESET or NO_SESSION frames announcing another auth mode.
        peer_mode: the auth mode the peer last announced (None: not seen yet).
        counter_errors: authentic frames carrying a counter at or above `COUNTER_LIMIT`,
            which no sender may use.
    """

    mode: AuthMode
    bad_macs: int = 0
    replayed: int = 0
    auth_mismatches: int = 0
    peer_mode: AuthMode | None = None
    counter_errors: int = 0


class FrameGuard:
    """Keys, frame counters and checks of one link end; its link's owner serialises calls.

    Args:
        host: True for the host end (it sends host-to-board frames), False for a board.
        key: the pairing key; None for auth mode `none` (the all-zero key).
    """

    def __init__(self, *, host: bool, key: PairingKey | None) -> None:
        self._host = host
        self._secret = secret_of(key)
        self._keys: SessionKeys | None = None
        self._tx = 1
        self._rx = 0
        self._stats = GuardStats(mode_of(key))

    @property
    def mode(self) -> AuthMode:
        """This end's auth mode."""
        return self._stats.mode

    @property
    def exhausted(self) -> bool:
        """True when the session must end: its next counter would reach `COUNTER_LIMIT`."""
        return self._tx >= COUNTER_LIMIT

    def stats(self) -> GuardStats:
        """A snapshot of the counters."""
        return self._stats

    def open(self, keys: SessionKeys) -> None:
        """Start a session with these keys: counters from 1 (sent) and 0 (last admitted)."""
        self._keys, self._tx, self._rx = keys, 1, 0

    def session_keys(self, host_nonce: bytes, board_nonce: bytes) -> SessionKeys:
        """The keys of the session these two nonces open."""
        return derive_session_keys(self._key_or_none(), host_nonce, board_nonce)

    def seal(self, frame: Frame) -> Frame:
        """Return `frame` with its counter and tag set (DATA and ACK use up one counter)."""
        if frame.kind in (FrameKind.RESET, FrameKind.NO_SESSION):
            return self._tagged(replace(frame, counter=0), self._secret)
        keys = self._keys
        assert keys is not None, "session frames need an open session"
        if frame.kind is FrameKind.RESET_ACK:
            return self._tagged(replace(frame, counter=0), keys.board_to_host)
        counter, self._tx = self._tx, self._tx + 1
        own = keys.host_to_board if self._host else keys.board_to_host
        return self._tagged(replace(frame, counter=counter), own)

    def admit_beacon(self, frame: Frame) -> bool:
        """Check a RESET (at a board) or NO_SESSION (at the host): auth mode, then tag."""
        if not self._same_mode(frame):
            return False
        return self._verified(frame, self._secret)

    def admit_reset_ack(self, frame: Frame) -> SessionKeys | None:
        """Check a RESET_ACK answering this host's RESET; its session keys when authentic."""
        if not self._same_mode(frame):
            return None
        keys = self.session_keys(frame.host_nonce, frame.board_nonce)
        return keys if self._verified(frame, keys.board_to_host) else None

    def admit(self, frame: Frame) -> bool:
        """Check a DATA or ACK frame of the open session: tag, then a fresh counter."""
        keys = self._keys
        if keys is None:
            return False
        peer = keys.board_to_host if self._host else keys.host_to_board
        if not self._verified(frame, peer):
            return False
        if frame.counter >= COUNTER_LIMIT:
            self._stats = replace(self._stats, counter_errors=self._stats.counter_errors + 1)
            return False
        if frame.counter <= self._rx:
            self._stats = replace(self._stats, replayed=self._stats.replayed + 1)
            return False
        self._rx = frame.counter
        return True

    def _same_mode(self, frame: Frame) -> bool:
        try:
            announced = AuthMode(frame.auth_mode)
        except ValueError:
            announced = None
        if announced is not None:
            self._stats = replace(self._stats, peer_mode=announced)
        if announced is self.mode:
            return True
        self._stats = replace(self._stats, auth_mismatches=self._stats.auth_mismatches + 1)
        return False

    def _verified(self, frame: Frame, key: bytes) -> bool:
        if tag_matches(key, covered_bytes(frame), frame.tag):
            return True
        self._stats = replace(self._stats, bad_macs=self._stats.bad_macs + 1)
        return False

    def _key_or_none(self) -> PairingKey | None:
        return None if self.mode is AuthMode.NONE else PairingKey(self._secret)

    @staticmethod
    def _tagged(frame: Frame, key: bytes) -> Frame:
        return replace(frame, tag=frame_tag(key, covered_bytes(frame)))


def authentication_problem(link: AuthCounts, key: PairingKey | None) -> str | None:
    """Why a host's link opened no session, if authentication is the reason (else None).

    Args:
        link: the host link's statistics.
        key: the key the host uses for the board (None: auth mode `none`).
    """
    peer, own = link.peer_auth, link.auth
    if link.auth_mismatches and peer is not None and peer is not own:
        if own is AuthMode.PAIRED:
            return ("the board has no pairing key (it announces auth mode 'none'); pair it, "
                    "or accept it unauthenticated where that is configured")
        return ("the board is paired (it announces auth mode 'paired'), but no pairing key "
                "is configured for it")
    if link.bad_macs and link.sessions == 0:
        return (f"{link.bad_macs} frames from the board failed authentication: it is not "
                f"paired with this host's key {key.key_id if key else 'none'}")
    return None


class LiveLinkWatch:
    """Refuses a board that stopped proving the key since its link (up before) went down.

    PROTOCOL.md 4.4, "On a running link": after `AUTH_FAILURES_TO_REFUSE` frames failing
    authentication with no session since the session went down, the board is refused, once
    per outage. A cold start (no session yet) is refused by `authentication_problem` instead.
    """

    def __init__(self) -> None:
        self._base: int | None = None  # failures counted when the session went down
        self._reported = False

    def session_up(self) -> None:
        """A session opened: nothing to watch until it goes down."""
        self._base = None

    def session_down(self, link: AuthCounts) -> None:
        """The session went down: count the failures from now."""
        self._base, self._reported = _failures(link), False

    def refusal(self, link: AuthCounts, key: PairingKey | None, last_board: str) -> str | None:
        """The refusal line when the board is to be refused now (once per outage), else None.

        Args:
            link: the host link's statistics.
            key: the key the host uses for the board (None: auth mode `none`).
            last_board: what the board that last passed the handshake here reported.
        """
        if self._base is None or self._reported:
            return None
        failed = _failures(link) - self._base
        if failed < AUTH_FAILURES_TO_REFUSE:
            return None
        self._reported = True
        peer = link.peer_auth.name.lower() if link.peer_auth is not None else "unknown"
        own = f"this host's key {key.key_id}" if key else "auth mode 'none'"
        return (f"board refused: {failed} frames from the board failed authentication since "
                f"its link went down (it announces auth mode '{peer}'): it is not paired "
                f"with {own}; the board last authenticated here: {last_board or 'none'}")


def _failures(link: AuthCounts) -> int:
    return link.bad_macs + link.auth_mismatches
