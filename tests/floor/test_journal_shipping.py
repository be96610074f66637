"""Journals on the floor: tables ship their journals through a real Mosquitto to the floor
process (`shoectl floor serve`), into SQLite and a real PostgreSQL, with the same tests.

After every fault the floor holds each table's journal row for row (every field equal),
with no row twice and none missing, and `shoectl floor verify` agrees.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from controller.floor import shipping
from controller.floor.link import TlsFiles
from controller.journal.chain import DB_NAME, GENESIS
from controller.journal.keys import KEY_SUFFIX
from controller.journal.store import JournalStore
from controller.procedure.core.effects import Journal
from tests.support.floor_store_rig import (
    FloorProcess,
    ShippingTable,
    new_store_url,
    shipped,
    wait_for,
)
from tests.support.mosquitto import CEILING_S, Mosquitto, free_port
from tests.support.postgres import Postgres


@pytest.fixture
def floor(tmp_path: Path, broker: Mosquitto, store_url: str) -> Iterator[FloorProcess]:
    process = FloorProcess(tmp_path, broker.url, store_url)
    process.start()
    yield process
    process.stop()


def _verify(floor: FloorProcess, table: ShippingTable) -> tuple[int, str]:
    done = floor.shoectl("verify", "--table", table.name, "--state-dir", str(table.state_dir))
    return done.returncode, (done.stdout + done.stderr).strip()


def test_tables_journals_arrive_row_for_row(
        tmp_path: Path, broker: Mosquitto, floor: FloorProcess) -> None:
    tables = [ShippingTable(tmp_path, name, broker.url) for name in ("T1", "T2")]
    for table in tables:
        table.write(450)  # more than two batches
    for table in tables:
        shipped(floor, table)
        code, said = _verify(floor, table)
        assert code == 0, said
        assert said.endswith(f"agrees with the floor's copy: {table.store.records} records")
        table.close()


def test_a_broker_restart_while_shipping_loses_and_doubles_nothing(
        tmp_path: Path, broker: Mosquitto, floor: FloorProcess) -> None:
    table = ShippingTable(tmp_path, "T1", broker.url)
    writer = threading.Thread(target=table.write, args=(1500,))
    writer.start()
    wait_for(lambda: len(floor.held("T1")) > 0, "the first rows on the floor")
    broker.stop()  # mid-stream: rows in flight, rows journalled while it is down
    table.write(100)
    broker.start()
    writer.join()
    shipped(floor, table)
    table.close()


def test_the_floor_process_killed_and_restarted_loses_and_doubles_nothing(
        tmp_path: Path, broker: Mosquitto, floor: FloorProcess) -> None:
    table = ShippingTable(tmp_path, "T1", broker.url)
    writer = threading.Thread(target=table.write, args=(1500,))
    writer.start()
    wait_for(lambda: len(floor.held("T1")) > 0, "the first rows on the floor")
    floor.kill()  # SIGKILL mid-stream: a transaction cut, acknowledgements never sent
    table.write(100)
    floor.start()
    writer.join()
    shipped(floor, table)
    code, said = _verify(floor, table)
    assert code == 0, said
    table.close()


def test_a_lost_sd_card_leaves_the_history_on_the_floor(
        tmp_path: Path, broker: Mosquitto, floor: FloorProcess) -> None:
    table = ShippingTable(tmp_path, "T1", broker.url)
    table.write(300)
    shipped(floor, table)
    history = table.entries()
    table.close()
    shutil.rmtree(table.state_dir)  # the card is gone
    code, said = _verify(floor, table)
    assert code == 3
    assert said.splitlines()[-1].startswith(f"no journal in {table.state_dir} (its SD card lost?)"
                                            ": the floor holds seq 1-300")
    alone = floor.shoectl("verify", "--table", "T1")
    assert alone.returncode == 0, alone.stdout + alone.stderr
    assert "300 records, seq 1-300 linked" in alone.stdout
    exported = floor.shoectl("export", "--table", "T1")
    assert exported.returncode == 0, exported.stderr
    assert exported.stdout.splitlines() == [_line(e.as_json()) for e in history]
    (tmp_path / f"T1{KEY_SUFFIX}").unlink()  # a new card: a new journal, a new key
    fresh = ShippingTable(tmp_path, "T1", broker.url)
    wait_for(lambda: fresh.shipper.floor is not None, "the floor's word to the new card")
    fresh.write(5)  # after the floor answered: only the head, said again, can reveal them
    wait_for(lambda: fresh.shipper.floor is not None and fresh.shipper.floor.records == 5,
             "the floor takes the new card's journal too")
    assert fresh.shipper.floor is not None
    assert fresh.shipper.floor.conflict_seq == 1  # two versions of record 1: both kept
    assert floor.held("T1") == history  # the old history stays, nothing of the new is mixed in
    assert floor.other_versions("T1") == fresh.entries()
    alone = floor.shoectl("verify", "--table", "T1")
    assert alone.returncode == 3
    assert "two versions of seq 1 kept" in alone.stdout.splitlines()[-1]
    fresh.close()


def _line(row: dict[str, object]) -> str:
    return json.dumps(row, sort_keys=True)


def _forge(table: ShippingTable, changed_seq: int) -> None:
    """Rewrite the table's journal under a key of the forger's own, one record changed.

    Every other record keeps its wall and mono time: the forger recomputes the chain and
    the anchor so that `shoectl journal verify` passes on the card.
    """
    rows = table.entries()
    table.close()
    forged_dir = table.state_dir.parent / "forged"
    walls, monos = iter([e.wall for e in rows]), iter([e.mono for e in rows])
    forged = JournalStore(forged_dir, clock=lambda: next(monos), wall=lambda: next(walls),
                          durable=False)
    for entry in rows:
        data = {**entry.data, "n": -1} if entry.seq == changed_seq else entry.data
        forged.commit([Journal(entry.kind, data)], None)
    forged.close()
    shutil.rmtree(table.state_dir)
    shutil.copytree(forged_dir, table.state_dir)
    key = table.state_dir.parent / (table.state_dir.name + KEY_SUFFIX)
    key.chmod(0o600)
    shutil.copyfile(forged_dir.parent / ("forged" + KEY_SUFFIX), key)


def test_a_forged_local_journal_is_caught_against_the_floors_copy(
        tmp_path: Path, broker: Mosquitto, floor: FloorProcess) -> None:
    table = ShippingTable(tmp_path, "T1", broker.url)
    table.write(50)
    shipped(floor, table)
    _forge(table, changed_seq=37)
    journal = JournalStore(table.state_dir, clock=lambda: 0.0, durable=False)
    assert journal.verdict.ok  # on the card alone the forgery holds
    journal.close()
    code, said = _verify(floor, table)
    assert code == 3, said
    assert said.splitlines()[-1] == ("seq 1: same content, another hash (the local chain was "
                                     "recomputed, under another key); content first differs "
                                     "at seq 37")
    forger = ShippingTable(tmp_path, "T1", broker.url)  # the forged card ships too ...
    wait_for(lambda: forger.shipper.floor is not None and forger.shipper.floor.conflict_seq,
             "the floor keeps the forged journal beside its copy")
    assert forger.shipper.floor is not None
    # ... its anchor's head is no hash the floor holds: it is asked for its rows, and its
    # record 1 is a second version (another key, another hash)
    assert forger.shipper.floor.conflict_seq == 1
    assert "record 1 arrived in two versions" in forger.shipper.floor.conflict_reason
    assert floor.held("T1")[36].data["n"] == 36  # the floor's copy is unchanged
    wait_for(lambda: len(floor.other_versions("T1")) == 50, "the forged rows kept beside it")
    assert floor.other_versions("T1")[36].data["n"] == -1
    forger.close()


def test_a_truncated_local_journal_names_the_first_missing_seq(
        tmp_path: Path, broker: Mosquitto, floor: FloorProcess) -> None:
    table = ShippingTable(tmp_path, "T1", broker.url)
    table.write(80)
    shipped(floor, table)
    table.close()
    db = sqlite3.connect(table.state_dir / DB_NAME)
    db.execute("DROP TRIGGER journal_no_delete")
    db.execute("DELETE FROM journal WHERE seq > 61")
    db.commit()
    db.close()
    code, said = _verify(floor, table)
    assert code == 3, said
    assert said.splitlines()[-1].startswith(
        "seq 62: on the floor, missing from the local journal (the local journal ends at seq 61")


def test_a_record_not_yet_on_the_floor_is_a_disagreement(
        tmp_path: Path, broker: Mosquitto, floor: FloorProcess) -> None:
    table = ShippingTable(tmp_path, "T1", broker.url)
    table.write(20)
    shipped(floor, table)
    table.shipper.stop()  # the link stops; the table goes on journalling
    table.store.commit([Journal("test:row", {"n": 20})], None)
    code, said = _verify(floor, table)
    assert code == 3, said
    assert said.splitlines()[-1].startswith("seq 21: in the local journal, not on the floor")
    table.store.close()


def test_over_tls_a_table_ships_only_its_own_journal(tmp_path: Path, store_url: str) -> None:
    certs, port = tmp_path / "certs", free_port()
    made = subprocess.run([sys.executable, "-m", "controller", "floor", "certs", str(certs),
                           "--tables", "2", "--port", str(port)],
                          capture_output=True, text=True, check=False, timeout=CEILING_S)
    assert made.returncode == 0, made.stderr
    broker = Mosquitto(tmp_path / "broker", (certs / "mosquitto.conf").read_text(), port)
    broker.start()
    url = f"mqtts://127.0.0.1:{port}"
    floor = FloorProcess(tmp_path, url, store_url, tls=(certs / "ca.pem", certs / "floor.pem",
                                                         certs / "floor.key"))
    floor.start()
    table = ShippingTable(tmp_path, "T1", url,
                          TlsFiles(certs / "ca.pem", certs / "T1.pem", certs / "T1.key"))
    table.write(30)
    shipped(floor, table)
    forged = json.dumps({"type": "records", "table": "T2", "anchor": {
        "records": 1, "head": table.entries()[0].hash}, "records": [table.entries()[0].as_json()]})
    done = subprocess.run(["mosquitto_pub", "-h", "127.0.0.1", "-p", str(port), "-q", "1",
                           "--cafile", str(certs / "ca.pem"), "--cert", str(certs / "T1.pem"),
                           "--key", str(certs / "T1.key"), "-t", "shoectl/journal/T2/records",
                           "-m", forged], capture_output=True, text=True, check=False,
                          timeout=CEILING_S)
    assert done.returncode == 0, done.stderr  # the broker takes it and drops it (its ACL)
    table.write(1)  # a fact to wait for: a later row of T1 arrives ...
    shipped(floor, table)
    assert floor.held("T2") == []  # ... and nothing was stored in T2's name
    table.close()
    floor.stop()
    broker.stop()


def test_postgresql_restarted_under_the_floor_loses_nothing(
        tmp_path: Path, broker: Mosquitto) -> None:
    server = Postgres()  # a server of this test's own: it is stopped mid-stream
    server.start()
    floor = FloorProcess(tmp_path, broker.url, new_store_url("postgresql", tmp_path, server))
    floor.start()
    table = ShippingTable(tmp_path, "T1", broker.url)
    try:
        table.write(200)
        shipped(floor, table)
        server.stop()
        table.write(300)  # the floor cannot store them: it retries, and takes nothing after
        wait_for(lambda: "retrying" in floor.log.read_text(), "the floor retrying the store")
        server.start()
        shipped(floor, table)
        code, said = _verify(floor, table)
        assert code == 0, said
    finally:
        table.close()
        floor.stop()
        server.remove()


class _FakeFloor:
    """A floor of the test's own on the broker: it hears rows and says what it holds."""

    def __init__(self, broker: Mosquitto) -> None:
        self.batches: list[list[int]] = []
        self.lock = threading.Lock()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="fake-floor",
                                  protocol=mqtt.MQTTv5)
        self.client.on_message = self._heard
        self.client.connect("127.0.0.1", broker.port)
        self.client.subscribe("shoectl/journal/T1/records", qos=1)
        self.client.loop_start()

    def _heard(self, _client: object, _userdata: object, msg: mqtt.MQTTMessage) -> None:
        with self.lock:
            self.batches.append([row["seq"] for row in json.loads(msg.payload)["records"]])

    def seen(self) -> list[list[int]]:
        with self.lock:
            return list(self.batches)

    def say(self, records: int, head: str, *, gap: bool = False) -> None:
        message = {"type": "stored", "table": "T1", "records": records, "head": head}
        self.client.publish("shoectl/journal/T1/stored",
                            json.dumps(message | ({"gap": True} if gap else {})), qos=1)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def test_a_gap_sends_the_table_back_to_the_floors_next_seq(
        tmp_path: Path, broker: Mosquitto, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shipping, "RESEND_S", 10_000.0)  # only the gap may cause a resend
    fake = _FakeFloor(broker)
    table = ShippingTable(tmp_path, "T1", broker.url)
    try:
        wait_for(lambda: [] in fake.seen(), "the table says where it is")
        table.write(250)
        fake.say(0, GENESIS)
        wait_for(lambda: any(b and b[-1] == 250 for b in fake.seen()), "rows 1-250 sent")
        assert [b[0] for b in fake.seen() if b] == [1, 201]
        hundredth = table.entries()[99].hash
        fake.say(100, hundredth, gap=True)
        wait_for(lambda: [b[0] for b in fake.seen() if b][2:] == [101], "resent from 101")
        assert [b for b in fake.seen() if b][2] == list(range(101, 251))
    finally:
        table.close()
        fake.close()


def test_a_bad_message_costs_one_line_and_nothing_else(
        tmp_path: Path, broker: Mosquitto, floor: FloorProcess) -> None:
    table = ShippingTable(tmp_path, "T1", broker.url)
    table.write(10)
    shipped(floor, table)  # the floor listens
    for topic, payload in (("shoectl/journal/T9/records", "not json"),
                           ("shoectl/journal/T9/records", '{"type": "records", "table": "T8"}'),
                           ("shoectl/journal/T 9/records", "{}")):
        done = subprocess.run(["mosquitto_pub", "-h", "127.0.0.1", "-p", str(broker.port),
                               "-q", "1", "-t", topic, "-m", payload],
                              capture_output=True, text=True, check=False, timeout=CEILING_S)
        assert done.returncode == 0, done.stderr
    table.write(10)
    shipped(floor, table)  # the floor goes on
    table.close()
    log = floor.log.read_text()
    assert "message on shoectl/journal/T9/records ignored: payload is not UTF-8 JSON" in log
    assert "table: 'T8' on the topic of table T9" in log
    assert "Traceback" not in log
    assert floor.held("T9") == []
