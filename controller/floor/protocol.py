"""The floor protocol's topics and messages (docs/floor-protocol.md), as pure values.

Parsing never raises anything but `FloorProtocolError`, whose text names what is wrong, so a
bad message costs one log line and nothing else.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Final

PREFIX: Final = "shoectl/floor"
KINDS: Final = ("boot", "contribution", "hit", "paid", "void")
HIT_KINDS: Final = ("100%", "10%")
_NAME: Final = re.compile(r"[A-Za-z0-9_-]{1,32}")
_BOOT: Final = re.compile(r"[!-~]{1,64}")
_CARD: Final = re.compile(r"[A2-9TJQK][SHDC]")


class FloorProtocolError(ValueError):
    """A message or a name that the floor protocol does not allow."""


def check_name(what: str, name: str) -> str:
    """`name` when it is a valid group or table name, else `FloorProtocolError`."""
    if not _NAME.fullmatch(name):
        raise FloorProtocolError(f"{what} {name!r}: expected 1-32 of A-Z a-z 0-9 _ -")
    return name


@dataclass(frozen=True, slots=True)
class Topics:
    """The topics of one link group."""

    group: str

    def __post_init__(self) -> None:
        check_name("group", self.group)

    @property
    def base(self) -> str:
        """Every topic of the group starts with this."""
        return f"{PREFIX}/{self.group}"

    @property
    def meter(self) -> str:
        """The retained meter every sign shows."""
        return f"{self.base}/meter"

    @property
    def alarms(self) -> str:
        """The controller's retained alarms: tables refused (unknown, too many boots...)."""
        return f"{self.base}/alarms"

    @property
    def controller_status(self) -> str:
        """The controller's retained status and last will."""
        return f"{self.base}/controller/status"

    def table_status(self, table: str) -> str:
        """A table's retained status and last will (`+` for every table)."""
        return f"{self.base}/table/{table}/status"

    def up(self, table: str) -> str:
        """A table's messages to the controller (`+` for every table)."""
        return f"{self.base}/table/{table}/up"

    def down(self, table: str) -> str:
        """The controller's answers to one table."""
        return f"{self.base}/table/{table}/down"

    def table_of(self, topic: str) -> str:
        """The table named by a `table/TABLE/...` topic of this group."""
        parts = topic.split("/")
        if len(parts) != 6 or "/".join(parts[:3]) != self.base or parts[3] != "table":
            raise FloorProtocolError(f"topic {topic!r}: not a table topic of group {self.group}")
        return check_name("table", parts[4])


@dataclass(frozen=True, slots=True)
class MessageId:
    """Who sent a message and where it is in that sender's stream."""

    table: str
    boot: str
    seq: int


@dataclass(frozen=True, slots=True)
class UpMessage:
    """A table's boot announcement, contribution, hit, paid notice or void.

    Attributes:
        kind: "boot", "contribution", "hit", "paid" or "void".
        address: The table, its boot and the message's sequence number.
        round: The table's round number (contribution, hit, void).
        seat: The seat (contribution, hit).
        hit_kind: "100%" or "10%" (hit).
        hit: The paid hit's own seq (paid).
        hit_boot: The boot that sent the paid hit (paid; "" for this message's own boot).
        cards: The seat's first two cards and the dealer's up card, as codes (hit).
    """

    kind: str
    address: MessageId
    round: int = 0
    seat: int = 0
    hit_kind: str = ""
    hit: int = 0
    hit_boot: str = ""
    cards: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The message as the protocol's JSON object."""
        data: dict[str, Any] = {"type": self.kind, "table": self.address.table,
                                "boot": self.address.boot, "seq": self.address.seq}
        if self.kind == "paid":
            return data | {"hit": self.hit, "hit_boot": self.hit_boot or self.address.boot}
        if self.kind == "void":
            return data | {"round": self.round}
        if self.kind == "boot":
            return data
        data |= {"round": self.round, "seat": self.seat}
        if self.kind == "hit":
            data |= {"kind": self.hit_kind, "cards": list(self.cards)}
        return data


def encode(data: dict[str, Any]) -> bytes:
    """One message's payload."""
    return json.dumps(data, sort_keys=True, separators=(",", ":")).encode()


def decode(payload: bytes) -> dict[str, Any]:
    """A payload's JSON object."""
    try:
        data = json.loads(payload.decode("utf-8"))
    except (UnicodeError, ValueError) as exc:
        raise FloorProtocolError(f"payload is not UTF-8 JSON: {exc}") from None
    if not isinstance(data, dict):
        raise FloorProtocolError(f"payload: expected a JSON object, got {type(data).__name__}")
    return data


def _count(data: dict[str, Any], key: str, minimum: int) -> int:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise FloorProtocolError(f"{key}: expected a whole number >= {minimum}, got {value!r}")
    return value


def message_id_of(data: dict[str, Any], table: str) -> MessageId:
    """The (table, boot, seq) of a message received on `table`'s topic."""
    sender = data.get("table")
    if sender != table:
        raise FloorProtocolError(f"table: {sender!r} on the topic of table {table}")
    boot = data.get("boot")
    if not isinstance(boot, str) or not _BOOT.fullmatch(boot):
        raise FloorProtocolError(f"boot: expected 1-64 printable characters, got {boot!r}")
    return MessageId(table, boot, _count(data, "seq", 1))


def parse_up(data: dict[str, Any], address: MessageId) -> UpMessage:
    """The message itself, once its address is known."""
    kind = data.get("type")
    if kind not in KINDS:
        raise FloorProtocolError(f"type: expected one of {', '.join(KINDS)}, got {kind!r}")
    if kind == "paid":
        hit_boot = data.get("hit_boot", address.boot)
        if not isinstance(hit_boot, str) or not _BOOT.fullmatch(hit_boot):
            raise FloorProtocolError(f"hit_boot: expected 1-64 printable characters, got "
                                     f"{hit_boot!r}")
        return UpMessage("paid", address, hit=_count(data, "hit", 1), hit_boot=hit_boot)
    if kind == "void":
        return UpMessage("void", address, _count(data, "round", 1))
    if kind == "boot":
        return UpMessage("boot", address)
    round_no, seat = _count(data, "round", 0), _count(data, "seat", 0)
    if kind == "contribution":
        return UpMessage("contribution", address, round_no, seat)
    hit_kind = data.get("kind")
    if hit_kind not in HIT_KINDS:
        raise FloorProtocolError(f'kind: expected "100%" or "10%", got {hit_kind!r}')
    cards = data.get("cards")
    if (not isinstance(cards, list) or len(cards) != 3
            or not all(isinstance(c, str) and _CARD.fullmatch(c) for c in cards)):
        raise FloorProtocolError("cards: expected the seat's first two cards and the dealer's "
                                 f"up card, three codes such as \"7D\", got {cards!r}")
    return UpMessage("hit", address, round_no, seat, str(hit_kind), cards=tuple(cards))
