"""The progressive controller: the one writer of a link group's meter (`progressive serve`).

Table messages are handed from paho's network thread to one writer thread, in the order
the broker delivered them; the writer takes every message waiting (up to `BATCH`), changes
the books by `ledger.receive` message by message, commits the records and the new books to
the controller's own journal in one transaction, and only then acknowledges the messages to
the broker (manual QoS 1 acks), answers the tables and republishes the retained meter. A
crash at any instant therefore loses nothing that was answered and applies nothing twice:
the broker redelivers what was not acknowledged, the table resends what was not answered,
and a repeat is answered again without being applied.

A refused message (a table not in `[link] tables`, a boot not announced, a boot beyond
`[link] max_boots_per_day`) applies nothing: it is answered with the reason, journalled
(`floor:refused`, the first of each table and refusal since the start; the rest are counted
in the log) and raised as an alarm on the group's retained `alarms` topic, which the floor
view shows.
"""

from __future__ import annotations

import datetime
import logging
import queue
import threading
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.reasoncodes import ReasonCode

from controller.floor import ledger
from controller.floor.link import connect, make_client
from controller.floor.protocol import (
    FloorProtocolError,
    MessageId,
    Topics,
    decode,
    encode,
    message_id_of,
)
from controller.floor.settings import ServerSettings
from controller.journal.errors import JournalError
from controller.journal.store import JournalStore
from controller.procedure.core.effects import Journal

_LOG = logging.getLogger(__name__)
BATCH = 500
"""Most messages applied in one journal transaction (one commit, one wait for the disk)."""
METER_EVERY_S = 0.2
"""Least time between two publications of the meter: a busy group's changes are coalesced
(each sign gets the newest meter within this much of a change, not every step of it)."""
ONLINE = encode({"state": "online"})
OFFLINE = encode({"state": "offline"})
ALARMS_SHOWN = 20
"""How many of the newest alarms the retained `alarms` topic keeps."""


def utc_day() -> str:
    """Today's date, UTC, as the books count boots (`YYYY-MM-DD`)."""
    return datetime.datetime.now(datetime.UTC).date().isoformat()


def open_books(store: JournalStore, settings: ServerSettings) -> ledger.FloorBook:
    """The books from the journal's critical state; a new journal starts a new meter."""
    critical = store.load_critical()
    if critical is not None:
        try:
            return ledger.FloorBook.from_json(critical)
        except (KeyError, TypeError, ValueError) as exc:
            raise JournalError(f"journal {store.path}: the floor's books are unreadable: "
                               f"{exc}") from None
    book, record = ledger.open_book(settings.progressive)
    store.commit([record], book.to_json())
    return book


class ProgressiveAuthority:
    """Serve one link group: apply table messages, answer them, publish the meter."""

    def __init__(self, settings: ServerSettings, state_dir: Path) -> None:
        self.settings = settings
        self.topics = Topics(settings.link.group)
        self.store = JournalStore(state_dir, clock=time.monotonic)
        self.book = open_books(self.store, settings)
        self.policy = ledger.Policy(frozenset(settings.tables), settings.max_boots_per_day)
        self._alarms: dict[tuple[str, str], dict[str, Any]] = {}
        self._alarms_published: bytes = b""
        self.client = make_client(f"progressive-{self.topics.group}", settings.link.broker,
                                  settings.link.tls, (self.topics.controller_status, OFFLINE),
                                  manual_ack=True)
        self._inbox: queue.Queue[mqtt.MQTTMessage | None] = queue.Queue()
        self._writer = threading.Thread(target=self._apply_loop, name="progressive-writer",
                                        daemon=True)
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_message
        self.client.on_disconnect = self._on_disconnect
        self._meter_lock = threading.Lock()
        self._meter_timer: threading.Timer | None = None
        self._last_meter = 0.0

    def start(self) -> None:
        """Start the writer and connect (in the background; paho reconnects after any loss)."""
        self._writer.start()
        connect(self.client, self.settings.link.broker)

    def stop(self) -> None:
        """Finish what arrived, say offline, disconnect and close the journal."""
        self._inbox.put(None)
        self._writer.join()
        with self._meter_lock:
            if self._meter_timer is not None:
                self._meter_timer.cancel()
        self.client.publish(self.topics.controller_status, OFFLINE, qos=1, retain=True)
        self.client.disconnect()
        self.client.loop_stop()
        self.store.close()

    def _on_connect(self, client: mqtt.Client, _userdata: Any, _flags: Any,
                    reason: ReasonCode, _properties: Any) -> None:
        if reason.is_failure:
            _LOG.error("progressive: broker %s refused the connection: %s",
                       self.settings.link.broker, reason)
            return
        client.subscribe(self.topics.up("+"), qos=1)
        client.publish(self.topics.controller_status, ONLINE, qos=1, retain=True)
        self._publish_meter()
        _LOG.info("progressive: group %s online at %s, meter %d", self.topics.group,
                  self.settings.link.broker, self.book.meters.amount)

    def _on_disconnect(self, _client: mqtt.Client, _userdata: Any, _flags: Any,
                       reason: ReasonCode, _properties: Any) -> None:
        _LOG.warning("progressive: broker %s lost (%s); reconnecting",
                     self.settings.link.broker, reason)

    def _on_message(self, _client: mqtt.Client, _userdata: Any,
                    msg: mqtt.MQTTMessage) -> None:
        self._inbox.put(msg)

    def _apply_loop(self) -> None:
        """The one writer: drain what arrived, apply it in order, commit once, then answer."""
        while True:
            batch = [self._inbox.get()]
            while len(batch) < BATCH and not self._inbox.empty():
                batch.append(self._inbox.get_nowait())
            if any(m is None for m in batch):
                return
            self._apply_batch([m for m in batch if m is not None])

    def _apply_batch(self, batch: list[mqtt.MQTTMessage]) -> None:
        book = self.book
        records: list[Journal] = []
        answers: list[tuple[str, dict[str, Any]]] = []
        day = utc_day()
        for msg in batch:
            found = self._read(msg)
            if found is None:
                continue
            outcome = ledger.receive(book, found[1], found[2], self.policy, day)
            book = outcome.book
            if outcome.refused:
                records += self._refusal(found[0], outcome)
            else:
                records += outcome.records
            answers.append((found[0], outcome.answer))
        if records:
            try:
                self.store.commit(records, book.to_json())
            except JournalError as exc:  # unanswered and unacknowledged: delivered again
                _LOG.error("progressive: %s; %d messages not applied", exc, len(batch))
                return
        changed = book.version != self.book.version
        self.book = book
        for msg in batch:  # the broker may forget them only now
            self.client.ack(msg.mid, msg.qos)
        for table, answer in answers:
            self.client.publish(self.topics.down(table), encode(answer), qos=1)
        if changed:
            self._meter_changed()
        self._publish_alarms()

    def _refusal(self, table: str, outcome: ledger.BookChange) -> tuple[Journal, ...]:
        """The alarm of a refusal; its record, the first time of its table and kind."""
        key = (table, outcome.refused)
        reason = str(outcome.answer.get("reason", ""))
        now = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
        alarm = self._alarms.get(key)
        if alarm is not None:
            alarm.update(count=int(alarm["count"]) + 1, last=now, reason=reason)
            _LOG.warning("progressive: table %s refused again (%d times): %s", table,
                         alarm["count"], reason)
            return ()
        self._alarms[key] = {"table": table, "why": outcome.refused, "reason": reason,
                             "count": 1, "first": now, "last": now}
        _LOG.error("progressive: table %s refused: %s", table, reason)
        return outcome.records

    def _publish_alarms(self) -> None:
        newest = sorted(self._alarms.values(), key=lambda a: str(a["last"]), reverse=True)
        payload = encode({"group": self.topics.group, "alarms": newest[:ALARMS_SHOWN]})
        if payload != self._alarms_published:
            self._alarms_published = payload
            self.client.publish(self.topics.alarms, payload, qos=1, retain=True)

    def _read(self, msg: mqtt.MQTTMessage) -> tuple[str, dict[str, Any], MessageId] | None:
        try:
            table = self.topics.table_of(msg.topic)
            data = decode(bytes(msg.payload))
            return table, data, message_id_of(data, table)
        except FloorProtocolError as exc:
            _LOG.warning("progressive: message on %s ignored: %s", msg.topic, exc)
            return None

    def _meter_changed(self) -> None:
        """Publish now, or once METER_EVERY_S after the last publication (one timer)."""
        with self._meter_lock:
            if self._meter_timer is not None:
                return  # the pending publication will carry this change too
            wait = self._last_meter + METER_EVERY_S - time.monotonic()
            if wait > 0:
                self._meter_timer = threading.Timer(wait, self._publish_meter)
                self._meter_timer.daemon = True
                self._meter_timer.start()
                return
        self._publish_meter()

    def _publish_meter(self) -> None:
        with self._meter_lock:
            self._meter_timer = None
            self._last_meter = time.monotonic()
            payload = encode(self.book.meter_message(self.topics.group))
        self.client.publish(self.topics.meter, payload, qos=1, retain=True)


def serve(settings: ServerSettings, state_dir: Path, stop: threading.Event) -> None:
    """Run the controller until `stop` is set."""
    authority = ProgressiveAuthority(settings, state_dir)
    authority.start()
    try:
        stop.wait()
    finally:
        authority.stop()
