"""One table's link held down by a TCP proxy: it goes PROGRESSIVE OFF, keeps what it accepted,
the controller sees it offline (its last will), and on release everything is delivered once."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.support.floor_rig import GROUP, Controller, Table, online, settle, wait_for
from tests.support.mosquitto import CEILING_S, Mosquitto
from tests.support.tcp_proxy import TcpProxy


def _retained(broker: Mosquitto, topic: str) -> dict[str, object]:
    done = subprocess.run(["mosquitto_sub", "-p", str(broker.port), "-h", "127.0.0.1",
                           "-t", topic, "-C", "1", "-W", "10"],
                          capture_output=True, text=True, check=False, timeout=CEILING_S)
    assert done.returncode == 0, done.stderr
    retained: dict[str, object] = json.loads(done.stdout)
    return retained


def test_a_table_cut_off_refuses_then_delivers_everything_once(
        tmp_path: Path, broker: Mosquitto, controller: Controller) -> None:
    proxy = TcpProxy(broker.port)
    cut = Table(tmp_path, "T1", f"mqtt://127.0.0.1:{proxy.port}")
    other = Table(tmp_path, "T2", broker.url)
    tables = [cut, other]
    for table in tables:
        wait_for(lambda t=table: online(t), f"{table.name} online")
    cut.link.contribute(1, 1)
    wait_for(cut.all_confirmed, "T1's first contribution confirmed")
    proxy.hold_down()
    wait_for(lambda: not cut.link.view.up, "T1 sees its link down")
    assert cut.link.view.sign_text() == "PROGRESSIVE OFF"
    status = f"shoectl/floor/{GROUP}/table/T1/status"
    wait_for(lambda: _retained(broker, status) == {"state": "offline"},
             "the broker published T1's last will")
    for seat in range(2, 5):
        cut.link.contribute(1, seat)  # accepted before the cut was seen, kept in the journal
    other.link.contribute(1, 1)  # play goes on at the other table
    wait_for(lambda: other.link.view.meter.get("progressive_in") == 2, "T2's contribution shown")
    assert not cut.all_confirmed()
    proxy.release()
    wait_for(lambda: online(cut), "T1 back online")
    settle(tables, controller)
    assert controller.show()["progressive_in"] == 5
    assert _retained(broker, status) == {"state": "online"}
    wait_for(lambda: cut.link.view.sign_text() == other.link.view.sign_text() == "1000500",
             "both signs converge on the meter")
    for table in tables:
        table.close()
    proxy.close()


def test_a_table_power_cut_with_unsent_contributions_delivers_them_after_restart(
        tmp_path: Path, broker: Mosquitto, controller: Controller) -> None:
    proxy = TcpProxy(broker.port)
    url = f"mqtt://127.0.0.1:{proxy.port}"
    table = Table(tmp_path, "T1", url)
    wait_for(lambda: online(table), "T1 online")
    proxy.hold_down()
    wait_for(lambda: not table.link.view.up, "T1 sees its link down")
    for seat in range(1, 6):
        table.link.contribute(1, seat)  # journalled; never reached the broker
    table.close()  # power cut: only the table's journal knows of them
    proxy.release()
    again = Table(tmp_path, "T1", url)
    settle([again], controller)
    assert controller.show()["progressive_in"] == 5
    again.close()
    proxy.close()


def test_a_full_hit_sent_before_a_power_cut_is_paid_and_unlocked_after_it(
        tmp_path: Path, broker: Mosquitto, controller: Controller) -> None:
    proxy = TcpProxy(broker.port)
    url = f"mqtt://127.0.0.1:{proxy.port}"
    table = Table(tmp_path, "T1", url)
    wait_for(lambda: online(table), "T1 online")
    table.link.contribute(1, 1)
    table.link.contribute(2, 3)
    wait_for(table.all_confirmed, "the contributions confirmed")
    proxy.hold_down()
    wait_for(lambda: not table.link.view.up, "T1 sees its link down")
    table.link.hit(2, 3, "100%", ["7D", "7D", "7D"])  # journalled; the power goes before it
    # reaches the broker
    table.close()
    proxy.release()
    again = Table(tmp_path, "T1", url)
    settle([again], controller)  # the hit (old boot) and its paid notice (new boot)
    assert [d["message"]["type"] for d in again.records("floor:send")] == [
        "boot", "contribution", "contribution", "hit", "boot", "paid"]
    wait_for(lambda: again.link.view.meter.get("pending") == [], "PENDING ends on the sign")
    assert again.link.view.sign_text() == "1000000"
    again.close()
    proxy.close()
