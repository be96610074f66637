"""The linked meter over a real Mosquitto: exactly once through broker, link and controller faults.

After each fault the controller's meter equals the seed plus every contribution minus every
payment (plus the reseed of each 100% hit), counted from the tables' journals alone, and
`shoectl progressive verify` passes (no (table, boot, seq) applied twice).
"""

from __future__ import annotations

import threading
from pathlib import Path

from tests.support.floor_rig import RESET, Controller, Table, online, settle, wait_for
from tests.support.mosquitto import Mosquitto


def _tables(tmp_path: Path, broker: Mosquitto, count: int) -> list[Table]:
    tables = [Table(tmp_path, f"T{n}", broker.url) for n in range(1, count + 1)]
    for table in tables:
        wait_for(lambda t=table: online(t), f"table {table.name} online")
    return tables


def test_contributions_applied_once_across_a_broker_restart(
        tmp_path: Path, broker: Mosquitto, controller: Controller) -> None:
    tables = _tables(tmp_path, broker, 2)
    for seat in range(1, 6):
        for table in tables:
            table.link.contribute(1, seat)
    broker.stop()  # mid-round: some of those are not confirmed yet
    for table in tables:
        wait_for(lambda t=table: not t.link.view.up, f"{table.name} sees the link down")
        assert table.link.view.sign_text() == "PROGRESSIVE OFF"
        for seat in range(1, 4):
            table.link.contribute(2, seat)  # journalled while the broker is down
    broker.start()
    settle(tables, controller)
    assert controller.show()["progressive_in"] == 2 * (5 + 3)
    for table in tables:
        table.close()


def test_controller_killed_mid_stream_and_restarted(
        tmp_path: Path, broker: Mosquitto, controller: Controller) -> None:
    tables = _tables(tmp_path, broker, 3)
    for seat in range(1, 8):
        for table in tables:
            table.link.contribute(1, seat)
    controller.kill()
    for table in tables:
        table.link.contribute(2, 1)
    controller.start()
    settle(tables, controller)
    assert controller.show()["progressive_in"] == 3 * 8
    for table in tables:
        table.close()


def test_two_full_hits_at_once_are_paid_in_the_order_received(
        tmp_path: Path, broker: Mosquitto, controller: Controller) -> None:
    tables = _tables(tmp_path, broker, 2)
    for seat in range(1, 11):
        tables[0].link.contribute(1, seat)
    for table in tables:
        table.link.contribute(2, 7)  # the wager each hit is paid for
    settle(tables, controller)
    grown = controller.show()["meter"]
    start = threading.Barrier(2)

    def hit(table: Table) -> None:
        start.wait()
        table.link.hit(2, 7, "100%", ["7D", "7D", "7D"])

    threads = [threading.Thread(target=hit, args=(t,)) for t in tables]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    settle(tables, controller)
    paid = sorted(int(d["answer"]["paid"]) for t in tables
                  for d in t.records("floor:confirmed") if "paid" in d["answer"])
    assert paid == [RESET, grown]  # the second is paid from the reseeded meter
    for table in tables:
        wait_for(lambda t=table: t.link.view.sign_text() == str(RESET),
                 f"{table.name}'s sign back on the reseeded meter once both are paid")
        table.close()


def test_a_ten_percent_hit_comes_off_the_live_meter(
        tmp_path: Path, broker: Mosquitto, controller: Controller) -> None:
    tables = _tables(tmp_path, broker, 1)
    for seat in range(1, 4):
        tables[0].link.contribute(1, seat)
    address = tables[0].link.hit(1, 2, "10%", ["7C", "7C", "7C"])
    settle(tables, controller)
    answer = tables[0].link.view.answers[(address.boot, address.seq)]
    assert answer["paid"] == (RESET + 300) // 10
    assert controller.show()["meter"] == RESET + 300 - (RESET + 300) // 10
    tables[0].close()
