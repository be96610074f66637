"""The floor process (`shoectl floor serve`): every table's journal rows into the floor store.

paho's network thread hands each `records` message to one writer thread, in the order the
broker delivered them. The writer applies a message to the store in one transaction
(`FloorStore.apply`), and only then acknowledges it to the broker (manual QoS 1 acks) and
publishes the table's retained `stored`. A kill at any instant therefore loses nothing: the
broker redelivers what was not acknowledged, the table resends what was not confirmed, and
the store ignores what it already holds. While the database is unreachable the writer
retries the same message (one log line a retry) and nothing after it is taken.
"""

from __future__ import annotations

import logging
import queue
import threading
from typing import Any, Final

import paho.mqtt.client as mqtt
from paho.mqtt.reasoncodes import ReasonCode

from controller.floor.floor_settings import FloorSettings
from controller.floor.floor_store import FloorStore, FloorStoreError
from controller.floor.floor_view import VIEW_TOPICS, FloorView
from controller.floor.journal_protocol import (
    parse_records,
    records_topic,
    stored_topic,
    table_of_records_topic,
)
from controller.floor.link import connect, make_client
from controller.floor.protocol import FloorProtocolError, decode, encode
from controller.floor.surveillance import ALERTS_TOPIC, SurveillanceWatch

_LOG = logging.getLogger(__name__)
CLIENT_ID: Final = "floor"
STATUS_TOPIC: Final = "shoectl/floor-store/status"
"""The floor process's retained status and last will."""
RETRY_S: Final = 1.0
"""Wait between two attempts at a message the database refused."""


class FloorReceiver:
    """Receive every table's journal rows and keep them in the store."""

    def __init__(self, settings: FloorSettings, view: FloorView | None = None,
                 surveillance: SurveillanceWatch | None = None) -> None:
        self.settings = settings
        self.store = FloorStore(settings.store)
        self.view = view or FloorView()
        self.surveillance = surveillance or SurveillanceWatch()
        for table in self.store.tables():
            self.view.stored(self.store.copy(table))
            self.surveillance.replay(table, self.view.read_stored(table,
                                                                   self.store.entries(table)))
        self.client = make_client(CLIENT_ID, settings.broker, settings.tls,
                                  (STATUS_TOPIC, encode({"state": "offline"})), manual_ack=True)
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_message
        self.client.on_disconnect = self._on_disconnect
        self._inbox: queue.Queue[mqtt.MQTTMessage | None] = queue.Queue()
        self._stopping = threading.Event()
        self._writer = threading.Thread(target=self._apply_loop, name="floor-writer",
                                        daemon=True)

    def start(self) -> None:
        """Start the writer and connect (in the background; paho reconnects after any loss)."""
        self._writer.start()
        connect(self.client, self.settings.broker)

    def stop(self) -> None:
        """Finish what arrived, say offline, disconnect and close the store."""
        self._stopping.set()
        self._inbox.put(None)
        self._writer.join()
        self.client.publish(STATUS_TOPIC, encode({"state": "offline"}), qos=1, retain=True)
        self.client.disconnect()
        self.client.loop_stop()
        self.store.close()

    def _on_connect(self, client: mqtt.Client, _userdata: Any, _flags: Any,
                    reason: ReasonCode, _properties: Any) -> None:
        if reason.is_failure:
            _LOG.error("floor: broker %s refused the connection: %s", self.settings.broker,
                       reason)
            return
        client.subscribe([(records_topic("+"), 1), *((topic, 1) for topic in VIEW_TOPICS)])
        client.publish(STATUS_TOPIC, encode({"state": "online"}), qos=1, retain=True)
        _LOG.info("floor: online at %s, store %s", self.settings.broker, self.settings.store)

    def _on_disconnect(self, _client: mqtt.Client, _userdata: Any, _flags: Any,
                       reason: ReasonCode, _properties: Any) -> None:
        _LOG.warning("floor: broker %s lost (%s); reconnecting", self.settings.broker, reason)

    def _on_message(self, client: mqtt.Client, _userdata: Any,
                    msg: mqtt.MQTTMessage) -> None:
        if msg.topic.endswith("/records"):
            self._inbox.put(msg)
            return
        try:
            self.view.heard(msg.topic, decode(bytes(msg.payload)))
        except FloorProtocolError as exc:
            _LOG.warning("floor: message on %s ignored: %s", msg.topic, exc)
        client.ack(msg.mid, msg.qos)

    def _apply_loop(self) -> None:
        while True:
            msg = self._inbox.get()
            if msg is None:
                return
            while not self._apply(msg):
                if self._stopping.wait(RETRY_S):
                    return  # unacknowledged: the broker delivers it again after a restart

    def _apply(self, msg: mqtt.MQTTMessage) -> bool:
        """Apply one message; False when the database refused (try it again)."""
        try:
            table = table_of_records_topic(msg.topic)
            message = parse_records(decode(bytes(msg.payload)), table)
        except FloorProtocolError as exc:
            _LOG.warning("floor: message on %s ignored: %s", msg.topic, exc)
            self.client.ack(msg.mid, msg.qos)
            return True
        try:
            before = self.store.copy(table).tip.records
            held, gap = self.store.apply(table, message.records, message.anchor)
        except FloorStoreError as exc:
            _LOG.error("%s; retrying", exc)
            self._reopen()
            return False
        self.client.ack(msg.mid, msg.qos)  # the broker may forget it only now
        new = [e for e in message.records if before < e.seq <= held.tip.records]
        self.view.stored(held, new)
        for alert in self.surveillance.stored(table, new):
            self.client.publish(ALERTS_TOPIC, encode(alert.as_record()), qos=1)
        self.client.publish(stored_topic(table), encode(held.message(gap=gap).to_json()),
                            qos=1, retain=True)
        return True

    def _reopen(self) -> None:
        try:
            self.store.reopen()
        except FloorStoreError as exc:
            _LOG.error("%s", exc)


def serve(settings: FloorSettings, stop: threading.Event, view: FloorView | None = None,
          surveillance: SurveillanceWatch | None = None) -> None:
    """Run the floor process until `stop` is set, feeding the pit view's and surveillance's.

    `view` is the pit view's model, `surveillance` the advantage-play alerts.

    Raises:
        FloorStoreError: the store cannot be opened at the start.
    """
    receiver = FloorReceiver(settings, view, surveillance)
    receiver.start()
    try:
        stop.wait()
    finally:
        receiver.stop()
