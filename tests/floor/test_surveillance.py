"""Advantage-play alerts reach surveillance alone, from the journals the floor stores.

Real Mosquitto with the ACL and certificates `shoectl floor certs` writes, a real
`shoectl floor serve` process, and a table's real journal shipped by its real shipper. The
table's rounds are a counter's: the main wager follows the Hi-Lo count of the cards dealt.
Every other certificate that tries to read the alerts is refused by the broker.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from controller.floor.link import TlsFiles
from controller.floor.surveillance import ALERTS_TOPIC, SURVEILLANCE_NAME
from tests.support.attacker import Attacker
from tests.support.counter_table import CounterSeat
from tests.support.floor_rig import GROUP
from tests.support.floor_store_rig import FloorProcess, ShippingTable, new_store_url
from tests.support.mosquitto import CEILING_S, Mosquitto, free_port, wait_for


def test_alerts_reach_the_surveillance_certificate_and_nobody_else(tmp_path: Path) -> None:
    certs, port = tmp_path / "certs", free_port()
    made = subprocess.run([sys.executable, "-m", "controller", "floor", "certs", str(certs),
                           "--names", "T1,T2", "--group", GROUP, "--port", str(port)],
                          capture_output=True, text=True, check=False, timeout=CEILING_S)
    assert made.returncode == 0, made.stderr
    broker = Mosquitto(tmp_path / "broker", (certs / "mosquitto.conf").read_text(), port)
    broker.start()
    url = f"mqtts://127.0.0.1:{port}"
    floor = FloorProcess(tmp_path, url, new_store_url("sqlite", tmp_path, None),
                         tls=(certs / "ca.pem", certs / "floor.pem", certs / "floor.key"))
    floor.start()
    watchers = {name: Attacker(port, certs, name, client_id=name)
                for name in (SURVEILLANCE_NAME, "T2", f"progressive-{GROUP}")}
    for watcher in watchers.values():
        watcher.subscribe(ALERTS_TOPIC)  # Mosquitto grants it, and filters what it delivers
    table = ShippingTable(tmp_path, "T1", url, TlsFiles(certs / "ca.pem", certs / "T1.pem",
                                                         certs / "T1.key"))
    try:
        seat = CounterSeat(table)
        seat.play(36)
        wait_for(lambda: watchers[SURVEILLANCE_NAME].messages(ALERTS_TOPIC),
                 "surveillance heard an alert")
        (alert,) = watchers[SURVEILLANCE_NAME].messages(ALERTS_TOPIC)
        assert alert["table"] == "T1"
        assert alert["seat"] == 1
        assert alert["statistic"] == "spearman_rho"
        assert alert["p_value"] < 1e-5
        for name in ("T2", f"progressive-{GROUP}"):
            # The broker answers a client in order: once this second SUBACK is back, the
            # alert (published before surveillance heard it) would have come first.
            watchers[name].subscribe(ALERTS_TOPIC)
            assert watchers[name].messages(ALERTS_TOPIC) == [], name
        # A restarted floor reads the stored rows again: the seat keeps its evidence and is
        # not alerted twice (a floor that forgot it would alert again within 36 rounds).
        floor.stop()
        floor.start()
        seat.play(36)
        wait_for(lambda: len(floor.held("T1")) == table.store.records,
                 "the restarted floor holds every row")
        watchers[SURVEILLANCE_NAME].subscribe(ALERTS_TOPIC)
        assert len(watchers[SURVEILLANCE_NAME].messages(ALERTS_TOPIC)) == 1
    finally:
        table.close()
        for watcher in watchers.values():
            watcher.close()
        floor.stop()
        broker.stop()
