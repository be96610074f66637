"""A table's journal shipped to the floor store (docs/floor-protocol.md "Journals on the floor").

The shipper reads the table's journal through a connection of its own (the service's
writer is never touched): first the anchor's head, then the rows up to it, and publishes
them in order on `shoectl/journal/TABLE/records`, each batch with that head. The floor
answers on the retained `shoectl/journal/TABLE/stored` with how many records it holds.

Exactly once: after every (re)connect the shipper says where it is (a batch with no rows)
and sends nothing until the floor's `stored` tells it where the floor is; it then sends from
the floor's next seq (it says where it is again every `HELLO_S` until the floor answers). A
`stored` with `gap` sends it back to the floor's next seq, and so does
a floor that confirmed nothing for `RESEND_S` while rows are outstanding. The floor ignores
rows it already holds, so a resend costs bandwidth, never a second copy. A journal that is not
ahead of the floor's copy (a new SD card, a journal rolled back) sends no rows, so its head is
said again whenever it changes: the floor compares it with the record it holds at that seq and
refuses a head that disagrees. A `stored` naming a
refusal (a row that disagrees with the floor's copy) stops the shipping: the next rows could
only be refused too; `shoectl floor verify` names the seq.

Secrets never travel early: no row of a round in play leaves the table. From a round's deal
(its first `round:no_more_bets`, `bet:lock_out` or `card:dealt`) until its `round:settled` or
`round:void` (or the next `round:open`) the rows are held back, so the hole card is on the
wire only once the round is over; the anchor's head, a hash, is still said.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any, Final

import paho.mqtt.client as mqtt
from paho.mqtt.reasoncodes import ReasonCode

from controller.floor.journal_protocol import (
    JOURNAL_PREFIX,
    RecordsMessage,
    StoredMessage,
    parse_stored,
    records_topic,
    stored_topic,
)
from controller.floor.link import BrokerUrl, TlsFiles, connect, make_client
from controller.floor.protocol import FloorProtocolError, check_name, decode, encode
from controller.floor.table_link import TableLink
from controller.journal.anchor import ANCHOR_NAME, Anchor, Tip
from controller.journal.chain import DB_NAME, GENESIS, UnreadableRecordError, entry_of
from controller.journal.errors import JournalError
from controller.journal.keys import JournalKey

_LOG = logging.getLogger(__name__)
BATCH: Final = 200
"""Most rows in one message."""
WINDOW: Final = 5 * BATCH
"""Most rows sent and not yet confirmed by the floor."""
POLL_S: Final = 0.2
"""How often the journal is looked at for new rows (a commit also wakes the shipper)."""
HELLO_S: Final = 2.0
"""While the floor has not answered since the connect, where the table is is said again this
often (a floor that was not subscribed yet never received it, and has no `stored` retained
for a table it never heard of)."""
RESEND_S: Final = 10.0
"""Rows outstanding this long with no word from the floor are sent again."""
ONLINE: Final = encode({"state": "online"})
OFFLINE: Final = encode({"state": "offline"})
DEAL_KINDS: Final = ("round:no_more_bets", "bet:lock_out", "card:dealt")
"""Records that begin a round's deal: from the first, the round is in play."""
ROUND_KINDS: Final = (*DEAL_KINDS, "round:open", "round:settled", "round:void")


def status_topic(table: str) -> str:
    """The shipper's retained status and last will."""
    return f"{JOURNAL_PREFIX}/{table}/status"


def anchored_tip(state_dir: Path, key: JournalKey) -> Tip:
    """(records, head) as the anchor holds them: its newest slot's committed end.

    Raises:
        JournalError: the anchor is missing or unreadable under `key`.
    """
    slots = Anchor.read(state_dir / ANCHOR_NAME, key)
    readable = [s for s in slots or () if s is not None]
    if not readable:
        raise JournalError(f"anchor {state_dir / ANCHOR_NAME}: missing or unreadable")
    newest = max(readable, key=lambda s: s.gen)
    return newest.after if newest.done else newest.before


class JournalReader:
    """The table's journal rows, read through a connection that never writes."""

    def __init__(self, state_dir: Path, key: JournalKey) -> None:
        self.state_dir = state_dir
        self.key = key
        self._db: sqlite3.Connection | None = None

    def tip(self) -> Tip:
        """The anchor's head (an empty journal: 0 records)."""
        try:
            return anchored_tip(self.state_dir, self.key)
        except JournalError:
            if not (self.state_dir / DB_NAME).exists():
                return Tip(0, GENESIS)
            raise

    def rows(self, first: int, last: int) -> list[Any]:
        """Rows `first`..`last` (at most `BATCH`), in order.

        Raises:
            JournalError: the database cannot be read, or a row is not a record.
        """
        try:
            if self._db is None:
                self._db = sqlite3.connect(f"file:{self.state_dir / DB_NAME}?mode=ro",
                                           uri=True, check_same_thread=False)
            found = self._db.execute(
                "SELECT seq, wall, mono, kind, data, prev, hash FROM journal "
                "WHERE seq BETWEEN ? AND ? ORDER BY seq", (first, min(last, first + BATCH - 1)))
            return [entry_of(row) for row in found]
        except (sqlite3.Error, UnreadableRecordError, UnicodeError) as exc:
            self.close()
            raise JournalError(f"journal {self.state_dir / DB_NAME}: cannot read for the "
                               f"floor: {exc}") from None

    def in_play_from(self, after: int, last: int) -> int:
        """The first row of a round in play among rows `after`+1..`last` (0: none).

        A round is in play from its deal (its first `round:no_more_bets`, `bet:lock_out` or
        `card:dealt`: the bets are closed, cards come) until its `round:settled` or
        `round:void`; the next `round:open` ends it too (the round before was not resumed).
        A round open for bets is not in play: its rows hold no card.

        Raises:
            JournalError: the database cannot be read.
        """
        try:
            if self._db is None:
                self._db = sqlite3.connect(f"file:{self.state_dir / DB_NAME}?mode=ro",
                                           uri=True, check_same_thread=False)
            found = self._db.execute(
                "SELECT seq, kind FROM journal WHERE seq > ? AND seq <= ? AND kind IN ("
                + ", ".join("?" * len(ROUND_KINDS)) + ") ORDER BY seq",
                (after, last, *ROUND_KINDS))
            dealt = 0
            for seq, kind in found:  # opened, settled or void: no round is being dealt
                dealt = (dealt or int(seq)) if kind in DEAL_KINDS else 0
            return dealt
        except sqlite3.Error as exc:
            self.close()
            raise JournalError(f"journal {self.state_dir / DB_NAME}: cannot read for the "
                               f"floor: {exc}") from None

    def close(self) -> None:
        """Close the connection (it is opened again when needed)."""
        if self._db is not None:
            self._db.close()
            self._db = None


class JournalShipper:
    """Ship one table's journal to the floor, over a client of its own or the link's.

    Its own client is `journal-TABLE`; a linked table ships over its progressive link's
    connection (`over`): one certificate, one client id.

    Args:
        broker: The broker (the progressive link's).
        tls: The table's certificate files for `mqtts://`.
        table: The table's name.
        state_dir: The table's state directory.
        key: The table's journal key (to read its anchor).
        over: The table's link, whose connection the shipping shares (None: a client of its
            own).
    """

    def __init__(self, broker: BrokerUrl, tls: TlsFiles | None, table: str, state_dir: Path,
                 key: JournalKey, over: TableLink | None = None) -> None:
        self.table = check_name("table", table)
        self.broker = broker
        self.reader = JournalReader(state_dir, key)
        self.floor: StoredMessage | None = None
        """The floor's last word (None: none since the last connect)."""
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._connected = False
        self._sent = 0
        self._heard = time.monotonic()
        self._told: Tip | None = None
        """The last head said to the floor since the connect (in a batch or on its own)."""
        self._refusal_logged = False
        self._conflict_logged = False
        self.held_back = 0
        """Rows not shipped at the last look because a round is in play."""
        self._over = over
        if over is None:
            self.client = make_client(f"journal-{table}", broker, tls,
                                      (status_topic(table), OFFLINE))
            self.client.on_connect = self._on_connect
            self.client.on_disconnect = self._on_disconnect
            self.client.on_message = self._on_message
        else:
            self.client = over.client
            self.client.message_callback_add(stored_topic(table), self._on_message)
        self._thread = threading.Thread(target=self._run, name=f"journal-shipper-{table}",
                                        daemon=True)

    @property
    def confirmed(self) -> int:
        """How many records the floor said it holds (0 before it said)."""
        floor = self.floor
        return floor.records if floor is not None else 0

    def start(self) -> None:
        """Connect in the background (or join the link's connection) and start shipping."""
        self._thread.start()
        if self._over is None:
            connect(self.client, self.broker)
        else:
            self._over.add_listener(self._joined, self._parted)

    def wake(self) -> None:
        """Look at the journal now (called after a commit)."""
        self._wake.set()

    def stop(self) -> None:
        """Stop shipping and disconnect (the floor's copy resumes at the next start)."""
        self._stop.set()
        self._wake.set()
        self._thread.join()
        self.client.publish(status_topic(self.table), OFFLINE, qos=1, retain=True)
        if self._over is None:
            self.client.disconnect()
            self.client.loop_stop()
        self.reader.close()

    def _on_connect(self, client: mqtt.Client, _userdata: Any, _flags: Any,
                    reason: ReasonCode, _properties: Any) -> None:
        if reason.is_failure:
            _LOG.error("floor: broker %s refused the journal link of table %s: %s",
                       self.broker, self.table, reason)
            return
        self._joined()

    def _joined(self) -> None:
        """Connected (again): subscribe, say online and where the table is."""
        self.client.subscribe(stored_topic(self.table), qos=1)
        self.client.publish(status_topic(self.table), ONLINE, qos=1, retain=True)
        with self._lock:
            self._connected, self.floor, self._heard = True, None, time.monotonic()
            self._told = None
        self._announce()

    def _on_disconnect(self, _client: mqtt.Client, _userdata: Any, _flags: Any,
                       reason: ReasonCode, _properties: Any) -> None:
        self._parted()
        _LOG.warning("floor: journal link of table %s lost (%s)", self.table, reason)

    def _parted(self) -> None:
        with self._lock:
            self._connected = False

    def _on_message(self, _client: mqtt.Client, _userdata: Any, msg: mqtt.MQTTMessage) -> None:
        try:
            stored = parse_stored(decode(bytes(msg.payload)))
        except FloorProtocolError as exc:
            _LOG.warning("floor: message on %s ignored: %s", msg.topic, exc)
            return
        with self._lock:
            first_word = self.floor is None
            self.floor, self._heard = stored, time.monotonic()
            if first_word or stored.gap:
                self._sent = stored.records
        if stored.conflict_seq and not self._conflict_logged:
            self._conflict_logged = True
            _LOG.error("floor: the floor store holds two versions of table %s's record %d (%s); "
                       "shipping goes on", self.table, stored.conflict_seq,
                       stored.conflict_reason)
        if stored.refused_seq and not self._refusal_logged:
            self._refusal_logged = True
            _LOG.error("floor: the floor store refused table %s's journal at record %d: %s; "
                       "shipping stopped", self.table, stored.refused_seq, stored.reason)
        self._wake.set()

    def _announce(self) -> None:
        try:
            tip = self.reader.tip()
        except JournalError as exc:
            _LOG.error("floor: %s", exc)
            return
        self._publish(RecordsMessage(self.table, tip, ()))

    def _publish(self, message: RecordsMessage) -> None:
        self.client.publish(records_topic(self.table), encode(message.to_json()), qos=1)
        with self._lock:
            self._told = message.anchor

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(POLL_S)
            self._wake.clear()
            try:
                while not self._stop.is_set() and self._ship_once():
                    pass
            except JournalError as exc:
                _LOG.error("floor: %s", exc)

    def _ship_once(self) -> bool:
        """Send the next batch if one is due; True when one was sent."""
        with self._lock:
            floor, sent, connected = self.floor, self._sent, self._connected
            again = connected and floor is None and time.monotonic() - self._heard > HELLO_S
            if again:
                self._heard = time.monotonic()
        if again:
            self._announce()  # a floor not subscribed yet missed the last one
        with self._lock:
            if not connected or floor is None or floor.refused_seq:
                return False
            if sent > floor.records and time.monotonic() - self._heard > RESEND_S:
                self._sent = sent = floor.records
                self._heard = time.monotonic()
        tip = self.reader.tip()
        if tip.records <= floor.records and tip != self._told:
            self._publish(RecordsMessage(self.table, tip, ()))  # not ahead: the floor checks it
            return False
        opened = self.reader.in_play_from(floor.records, tip.records)
        end = opened - 1 if opened else tip.records  # a round in play stays on the table
        with self._lock:
            self.held_back = tip.records - end
        if end <= sent or sent - floor.records >= WINDOW:
            return False
        rows = self.reader.rows(sent + 1, end)
        if not rows:
            return False
        self._publish(RecordsMessage(self.table, tip, tuple(rows)))
        with self._lock:
            if self._sent == sent:  # else a gap or a reconnect moved it meanwhile
                self._sent = rows[-1].seq
        return True
