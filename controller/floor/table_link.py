"""A table's side of the floor link: journal every send, resend until the controller answers.

Each contribution and hit is journalled (`floor:send`, with its boot and seq) in the table's
journal before it is published; each answer is journalled (`floor:confirmed`). On every
(re)connect and after a restart everything sent but not confirmed is sent again, in order,
with its original boot and seq (docs/floor-protocol.md "Exactly once"), and while connected
`resend_overdue` sends again whatever has waited `RESEND_S` for its answer since it was last
published (a message the broker dropped for want of a subscriber, an answer lost with a
controller's commit). A hit's answer is followed by the `paid` notice that ends its PENDING
on the signs. Each boot announces itself before its first message (`boot`, seq 1).

The table takes no answer's word for money: a hit's `paid` above the table's ceiling (its
`limit`, else the most the sign shows), or above the meter the table last heard (its amount
and pending awards), is not settled. Above the meter it waits for the next meter (the
controller publishes the hit's award there as pending); if that meter does not bear it out,
or above the ceiling at once, the answer is refused in one journalled line
(`floor:answer_refused`) and the hit stays unconfirmed, to be answered again.

paho's network thread delivers answers; callers publish from their own thread. Journal work
for an answer runs through `execute` (the table's loop thread in the service, so one thread
writes the table's journal; inline by default), and a lock keeps the outbox consistent.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.reasoncodes import ReasonCode

from controller.floor.link import connect, make_client
from controller.floor.protocol import (
    FloorProtocolError,
    MessageId,
    Topics,
    UpMessage,
    check_name,
    decode,
    encode,
)
from controller.floor.settings import LinkSettings
from controller.journal.errors import JournalError
from controller.journal.store import JournalStore
from controller.procedure.core.effects import Journal

_LOG = logging.getLogger(__name__)
KIND_SEND = "floor:send"
KIND_CONFIRMED = "floor:confirmed"
KIND_ANSWER_REFUSED = "floor:answer_refused"
"""An answer the table did not take (`boot`, `seq`, `answer`, `reason`)."""
SIGN_MAX_CENTS = 4_294_967_295
"""The most a sign shows: the ceiling of any amount paid when the table has no `limit`."""
ONLINE = encode({"state": "online"})
OFFLINE = encode({"state": "offline"})
RESEND_S = 10.0
"""How long a send waits for its answer, after its last publication, before it is sent again."""


@dataclass
class LinkView:
    """What the table knows of the link (read by the table and its sign).

    Attributes:
        connected: The broker answers.
        controller_online: The controller's retained status says online.
        meter: The last `meter` message (empty before the first).
        answers: Each confirmed message's answer, by (boot, seq).
    """

    connected: bool = False
    controller_online: bool = False
    meter: dict[str, Any] = field(default_factory=dict)
    answers: dict[tuple[str, int], dict[str, Any]] = field(default_factory=dict)

    @property
    def up(self) -> bool:
        """Progressive wagers may be taken: the broker and the controller answer."""
        return self.connected and self.controller_online

    def sign_text(self) -> str:
        """What the table's sign shows: the meter, PENDING and the locked amount, or OFF."""
        if not self.up or "amount" not in self.meter:
            return "PROGRESSIVE OFF"
        pending = self.meter.get("pending") or []
        if pending:
            return f"PENDING {int(pending[0]['amount'])}"
        return str(int(self.meter["amount"]))


def rounds_sent(store: JournalStore, kind: str) -> set[int]:
    """The rounds of every message of `kind` ("contribution", "void") journalled as sent."""
    return {int(e.data["message"]["round"]) for e in store.entries((KIND_SEND,))
            if e.data["message"]["type"] == kind}


def last_round_sent(store: JournalStore) -> int:
    """The newest round whose contributions were journalled as sent (0: none)."""
    return max(rounds_sent(store, "contribution"), default=0)


_WAIT = "wait"
"""A hit's `paid` above the meter heard: decided by the next meter."""


def _inline(work: Callable[[], None]) -> None:
    work()


Confirmation = tuple[list[Journal], dict[str, Any] | None, Callable[[], None]]
"""Records and critical state committed with a confirmation, and what to do after it."""
OnConfirmed = Callable[[dict[str, Any], dict[str, Any]], Confirmation]
"""(sent message, answer) -> its `Confirmation`."""


def _nothing_more(_sent: dict[str, Any], _answer: dict[str, Any]) -> Confirmation:
    return [], None, lambda: None


def unconfirmed(store: JournalStore) -> list[dict[str, Any]]:
    """The messages journalled as sent and not yet confirmed, in the order they were sent."""
    sent: dict[tuple[str, int], dict[str, Any]] = {}
    for entry in store.entries((KIND_SEND, KIND_CONFIRMED)):
        key = (str(entry.data["boot"]), int(entry.data["seq"]))
        if entry.kind == KIND_SEND:
            sent[key] = dict(entry.data["message"])
        else:
            sent.pop(key, None)
    return list(sent.values())


class TableLink:
    """One table in a link group: sends its contributions and hits, tracks the meter.

    Args:
        link: The broker and the group.
        table: The table's name (its client id is `table-NAME`).
        store: The journal that holds the sends and their confirmations.
        execute: Runs journal work for an answer on the journal's thread (default inline).
        on_change: Called (from paho's thread) with `view.up` whenever it changes, and with
            the meter message's arrival (`None`).
        clock: The monotonic clock `resend_overdue` measures waits on (the loop's).
        on_confirmed: Called with each sent message and its answer, before the confirmation
            is journalled; returns further records and the critical state to commit in the
            same transaction (a hit's settlement at the table), and what to do once that
            commit succeeded (nothing is done when it fails).
        ceiling: The most a hit may pay at this table (its `limit`, else the sign's most).
    """

    def __init__(self, link: LinkSettings, table: str, store: JournalStore,
                 execute: Callable[[Callable[[], None]], object] = _inline,
                 on_change: Callable[[bool | None], None] | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 on_confirmed: OnConfirmed | None = None,
                 ceiling: Callable[[], int] = lambda: SIGN_MAX_CENTS) -> None:
        self.topics = Topics(link.group)
        self.table = check_name("table", table)
        self.boot = uuid.uuid4().hex[:16]
        self.view = LinkView()
        self._link = link
        self._store = store
        self._lock = threading.Lock()
        self._seq = 0
        self._outbox = unconfirmed(store)
        self._clock = clock
        self._on_confirmed = on_confirmed or _nothing_more
        self._published: dict[tuple[str, int], float] = {}
        self._ceiling = ceiling
        self._doubted: list[tuple[dict[str, Any], int]] = []
        """Hit answers paying more than the meter heard, with the meter version then."""
        self.last_round = last_round_sent(store)
        self._execute = execute
        self._on_change = on_change or (lambda _up: None)
        self._listeners: list[tuple[Callable[[], None], Callable[[], None]]] = []
        self.client = make_client(f"table-{table}", link.broker, link.tls,
                                  (self.topics.table_status(table), OFFLINE))
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message

    @property
    def outstanding(self) -> int:
        """How many sends await the controller's answer."""
        with self._lock:
            return len(self._outbox)

    def add_listener(self, connected: Callable[[], None], lost: Callable[[], None]) -> None:
        """Call `connected` after every (re)connect (now too, if connected), `lost` after a loss.

        For another user of this table's one connection (its journal's shipping).
        """
        with self._lock:
            self._listeners.append((connected, lost))
            now = self.view.connected
        if now:
            connected()

    def start(self) -> None:
        """Connect in the background (paho reconnects after any loss)."""
        connect(self.client, self._link.broker)

    def stop(self) -> None:
        """Say offline and disconnect (what is unconfirmed stays in the journal)."""
        self.client.publish(self.topics.table_status(self.table), OFFLINE, qos=1, retain=True)
        self.client.disconnect()
        self.client.loop_stop()

    def contribute(self, round_no: int, seat: int) -> MessageId:
        """Journal and send one accepted wager's contribution."""
        self.last_round = max(self.last_round, round_no)
        return self._send(lambda a: UpMessage("contribution", a, round_no, seat))

    def void(self, round_no: int) -> MessageId:
        """Journal and send a void round: the controller gives back its contributions."""
        return self._send(lambda a: UpMessage("void", a, round_no))

    def hit(self, round_no: int, seat: int, kind: str, cards: list[str]) -> MessageId:
        """Journal and send a meter hit ("100%" or "10%") with the cards that make it.

        `cards`: the seat's first two cards and the dealer's up card. The answer says what it
        won.
        """
        return self._send(lambda a: UpMessage("hit", a, round_no, seat, kind,
                                              cards=tuple(cards)))

    def _send(self, build: Any) -> MessageId:
        with self._lock:
            if self._seq == 0:  # the boot is announced before its first message
                self._journal_and_publish(UpMessage("boot", self._next_address()))
            message: UpMessage = build(self._next_address())
            self._journal_and_publish(message)
            return message.address

    def _next_address(self) -> MessageId:
        self._seq += 1
        return MessageId(self.table, self.boot, self._seq)

    def _journal_and_publish(self, message: UpMessage) -> None:
        data = message.to_json()
        self._store.commit([Journal(KIND_SEND, {"boot": self.boot, "seq": message.address.seq,
                                                "message": data})], None)
        self._outbox.append(data)
        self._publish(data)

    def _publish(self, data: dict[str, Any]) -> None:
        self._published[(str(data["boot"]), int(data["seq"]))] = self._clock()
        self.client.publish(self.topics.up(self.table), encode(data), qos=1)

    def resend_overdue(self) -> int:
        """Send again, in order, what has waited `RESEND_S` for its answer; how many.

        Nothing while the broker is unreachable: the reconnect resends everything.
        """
        with self._lock:
            if not self.view.connected:
                return 0
            due = self._clock() - RESEND_S
            overdue = [d for d in self._outbox
                       if self._published.get((str(d["boot"]), int(d["seq"])), due) <= due]
            for data in overdue:
                self._publish(data)
            return len(overdue)

    def _on_connect(self, client: mqtt.Client, _userdata: Any, _flags: Any,
                    reason: ReasonCode, _properties: Any) -> None:
        if reason.is_failure:
            _LOG.error("floor: broker %s refused table %s: %s", self._link.broker, self.table,
                       reason)
            return
        client.subscribe([(self.topics.down(self.table), 1), (self.topics.meter, 1),
                          (self.topics.controller_status, 1)])
        client.publish(self.topics.table_status(self.table), ONLINE, qos=1, retain=True)
        with self._lock:
            self._set(connected=True)
            for data in self._outbox:
                self._publish(data)
            listeners = list(self._listeners)
        for connected, _lost in listeners:
            connected()

    def _set(self, **state: bool) -> None:
        was = self.view.up
        for name, value in state.items():
            setattr(self.view, name, value)
        if self.view.up != was:
            self._on_change(self.view.up)

    def _on_disconnect(self, _client: mqtt.Client, _userdata: Any, _flags: Any,
                       reason: ReasonCode, _properties: Any) -> None:
        with self._lock:
            self._set(connected=False)
            listeners = list(self._listeners)
        for _connected, lost in listeners:
            lost()
        _LOG.warning("floor: table %s lost the broker (%s): progressive off", self.table, reason)

    def _on_message(self, _client: mqtt.Client, _userdata: Any, msg: mqtt.MQTTMessage) -> None:
        try:
            data = decode(bytes(msg.payload))
            if msg.topic == self.topics.meter:
                if int(data.get("version", -1)) >= int(self.view.meter.get("version", -1)):
                    self.view.meter = data
                    self._on_change(None)
                    if self._doubted:
                        self._execute(self._recheck_logged)
            elif msg.topic == self.topics.controller_status:
                self._set(controller_online=data.get("state") == "online")
            else:
                self._execute(lambda: self._answer_logged(data))
        except (FloorProtocolError, TypeError, ValueError, KeyError) as exc:
            _LOG.warning("floor: message on %s ignored: %s", msg.topic, exc)

    def _answer_logged(self, answer: dict[str, Any]) -> None:
        try:
            self._answer(answer)
        except (TypeError, ValueError, KeyError) as exc:
            _LOG.warning("floor: answer to table %s ignored: %s", self.table, exc)
        except JournalError as exc:  # unconfirmed in the journal: resent on the next start
            _LOG.error("floor: %s", exc)

    def _answer(self, answer: dict[str, Any]) -> None:
        key = (str(answer["boot"]), int(answer["seq"]))
        if answer.get("type") == "gap":
            with self._lock:
                for data in self._outbox:
                    if data["boot"] == key[0] and int(data["seq"]) >= int(answer["expected"]):
                        self._publish(data)
            return
        if answer.get("type") == "refused":  # nothing applied: sent again until taken
            _LOG.warning("floor: the controller refused table %s's message %s/%s: %s",
                         self.table, key[0], key[1], answer.get("reason", ""))
            return
        with self._lock:
            sent = next((d for d in self._outbox if (d["boot"], d["seq"]) == key), None)
            if sent is None:
                self._taken_already(key, answer)
                return
            if sent["type"] == "hit" and answer.get("type") == "ack":
                doubt = self._paid_doubt(answer)
                if doubt == _WAIT:
                    self._doubted.append((answer, int(self.view.meter.get("version", -1))))
                    return
                if doubt:
                    self._refuse_answer(key, answer, doubt)
                    return
            self._confirm(sent, key, answer)
        if sent["type"] == "hit" and answer.get("type") == "ack":
            self._send(lambda a: UpMessage("paid", a, hit=key[1], hit_boot=key[0]))

    def _paid_doubt(self, answer: dict[str, Any]) -> str:
        """"" when a hit's `paid` may be taken, `_WAIT` for the next meter, else why not."""
        paid, ceiling = answer.get("paid"), self._ceiling()
        if isinstance(paid, bool) or not isinstance(paid, int) or paid < 0:
            return f"paid {paid!r}: not an amount of cents"
        if paid > ceiling:
            return f"paid {paid} cents: above the most this table pays, {ceiling} cents"
        meter = self.view.meter
        heard = [meter.get("amount", 0)] + [p.get("amount", 0) for p in
                                            meter.get("pending") or [] if isinstance(p, dict)]
        if paid > max(int(a) for a in heard if isinstance(a, int)):
            return _WAIT
        return ""

    def _refuse_answer(self, key: tuple[str, int], answer: dict[str, Any], reason: str) -> None:
        """One journalled line: the answer is not taken (the hit stays unconfirmed)."""
        self._store.commit([Journal(KIND_ANSWER_REFUSED, {"boot": key[0], "seq": key[1],
                                                          "answer": answer,
                                                          "reason": reason})], None)
        _LOG.error("floor: table %s refused an answer to %s/%s: %s", self.table, key[0],
                   key[1], reason)

    def _taken_already(self, key: tuple[str, int], answer: dict[str, Any]) -> None:
        """An answer to a message confirmed already: a repeat, or another word (refused)."""
        taken = self.view.answers.get(key)
        if taken is not None and "paid" in answer and answer.get("paid") != taken.get("paid"):
            doubt = self._paid_doubt(answer)
            self._refuse_answer(key, answer, doubt if doubt not in ("", _WAIT) else
                                f"paid {answer.get('paid')!r}: the hit was settled already "
                                f"with {taken.get('paid')} cents")

    def _recheck_logged(self) -> None:
        try:
            self._recheck()
        except JournalError as exc:
            _LOG.error("floor: %s", exc)

    def _recheck(self) -> None:
        """A newer meter arrived: take the doubted answers it bears out, refuse the rest."""
        version = int(self.view.meter.get("version", -1))
        with self._lock:
            due = [(a, v) for a, v in self._doubted if version > v]
            self._doubted = [(a, v) for a, v in self._doubted if version <= v]
        for answer, _ in due:
            key = (str(answer["boot"]), int(answer["seq"]))
            with self._lock:
                doubt = self._paid_doubt(answer)
                sent = next((d for d in self._outbox if (d["boot"], d["seq"]) == key), None)
                if sent is None:
                    self._taken_already(key, answer)
                    continue
                if doubt:
                    self._refuse_answer(key, answer, "paid above the meter the table heard "
                                        f"({answer.get('paid')!r} cents; the meter after it "
                                        "does not show it)" if doubt == _WAIT else doubt)
                    continue
                self._confirm(sent, key, answer)
            self._send(lambda a, k=key: UpMessage("paid", a, hit=k[1], hit_boot=k[0]))

    def _confirm(self, sent: dict[str, Any], key: tuple[str, int],
                 answer: dict[str, Any]) -> None:
        """Journal the answer (with what it settles at the table); the lock is held."""
        more, critical, committed = self._on_confirmed(sent, answer)
        self._store.commit([Journal(KIND_CONFIRMED, {"boot": key[0], "seq": key[1],
                                                     "answer": answer}), *more], critical)
        committed()
        self._outbox.remove(sent)
        self._published.pop(key, None)
        self.view.answers[key] = answer
