"""The identify handshake: what the host expects of a board, and the check that refuses it.

After every new session the host sends `identify`; the board answers `identify_response`.
The host compares protocol version, board kind, firmware version and catalogue hash with
what it expects and refuses the board on any difference, naming each field with the
expected and received values (the design guide's "handshake and refuse"; R16 asks that
mismatched software never runs).
"""

from __future__ import annotations

from dataclasses import dataclass

from firmware_bridge.catalogue import BoardCatalogue, Catalogue
from firmware_bridge.codec import Message
from firmware_bridge.errors import CatalogueError, HandshakeMismatch
from firmware_bridge.framing import PROTOCOL_VERSION


@dataclass(frozen=True, slots=True)
class BoardIdentity:
    """What a board reported in `identify_response`."""

    protocol_version: int
    board_kind: str
    firmware_version: str
    catalogue_hash: bytes
    boot_id: int

    @classmethod
    def from_message(cls, message: Message) -> BoardIdentity:
        """Build the identity from a decoded `identify_response`."""
        return cls(
            protocol_version=message.int("protocol_version"),
            board_kind=message.text("board_kind"),
            firmware_version=message.text("firmware_version"),
            catalogue_hash=message.blob("catalogue_hash"),
            boot_id=message.int("boot_id"),
        )

    def describe(self) -> str:
        """Return a one-line summary for logs and the console."""
        return (
            f"board={self.board_kind} firmware={self.firmware_version} "
            f"protocol={self.protocol_version} catalogue={self.catalogue_hash.hex()[:16]} "
            f"boot_id={self.boot_id:08x}"
        )


@dataclass(frozen=True, slots=True)
class Expectation:
    """What the host accepts.

    Attributes:
        board_kind: the kind of board that must answer; None accepts any kind the
            catalogue defines (the console uses this).
        firmware_versions: the firmware versions accepted; None accepts any, an empty set
            none (a configuration that lists no version).
    """

    board_kind: str | None = None
    firmware_versions: frozenset[str] | None = None

    def check(self, identity: BoardIdentity, catalogue: Catalogue, where: str) -> BoardCatalogue:
        """Return the board's catalogue if `identity` is acceptable.

        Raises:
            HandshakeMismatch: naming every field that differs, expected vs got.
        """
        problems = self._problems(identity, catalogue)
        if problems:
            raise HandshakeMismatch(f"{where}: board refused: " + "; ".join(problems))
        return catalogue.board(identity.board_kind)

    def _problems(self, identity: BoardIdentity, catalogue: Catalogue) -> list[str]:
        problems: list[str] = []

        def note(name: str, want: object, got: object) -> None:
            problems.append(f"{name}: expected {want}, got {got}")

        if identity.protocol_version != PROTOCOL_VERSION:
            note("protocol version", PROTOCOL_VERSION, identity.protocol_version)
        if self.board_kind is not None and identity.board_kind != self.board_kind:
            note("board kind", repr(self.board_kind), repr(identity.board_kind))
        versions = self.firmware_versions
        if versions is not None and identity.firmware_version not in versions:
            note("firmware version",
                 " or ".join(map(repr, sorted(versions))) or "a listed version (none is listed)",
                 repr(identity.firmware_version))
        board = self._board(identity.board_kind, catalogue)
        if board is None:
            if self.board_kind is None:
                note("board kind", "one of " + ", ".join(sorted(catalogue.boards)),
                     repr(identity.board_kind))
        elif identity.catalogue_hash != board.hash():
            note(f"catalogue hash of {board.kind!r}", board.hash().hex(),
                 identity.catalogue_hash.hex() or "nothing")
        return problems

    @staticmethod
    def _board(kind: str, catalogue: Catalogue) -> BoardCatalogue | None:
        try:
            return catalogue.board(kind)
        except CatalogueError:
            return None
