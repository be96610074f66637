"""Three linked tables as `shoectl run` processes through the floor's faults.

Three `shoectl run` processes, each over the ptys of three `shoectl emulate` boards of its
own, one `shoectl progressive serve` and a real Mosquitto. Each table reaches the broker
through a TCP proxy of the tests' own (its `[progressive] link` is its proxy's port), which
can let what the table sends through while muting what comes back, or hold the link down.

* The broker stopped after a lock-out at each table whose contribution went up and whose
  answer did not come back (muted by the table's proxy), and started again: every table
  journals its floor link down, its sign says PROGRESSIVE OFF, a Blazing 7's wager is
  refused at its next lock-out; the links come back and every contribution is answered.
* T3's connection held down by its proxy right after such a lock-out: T3 journals its link
  down, refuses a Blazing 7's wager and keeps its unanswered send, while T1 and T2 go on
  playing and contributing; once the proxy lets T3 through, it delivers what it kept.

After each, the controller's meter equals the seed plus every accepted contribution, counted
from the three tables' journals (`exact`: a contribution lost or applied twice breaks it),
`shoectl progressive verify` passes, and every table's sign emulator shows the controller's
meter. Every wait is for a fact, with a ceiling that only ends a stuck test.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.support.floor_rig import INCREMENT, RESET, Controller, wait_for
from tests.support.mosquitto import Mosquitto
from tests.support.tcp_proxy import TcpProxy

from .floor_run_rig import WAIT, RunTable, exact

pytestmark = pytest.mark.needs("shoe", "layout", "sign", "emulated")

ROUND = ["TC", "9C", "TH", "8C"]
"""Seat 1: TC TH under the dealer's 9C (8C in the hole): 20 stands against 17, no meter hit."""
SHOE = ["2C", *ROUND * 8]  # the burn card, then more rounds than a test deals


@contextmanager
def three_tables(tmp_path: Path,
                 broker: Mosquitto) -> Iterator[tuple[list[RunTable], list[TcpProxy]]]:
    """T1, T2 and T3, each through a proxy of its own; each started with its shoe open."""
    proxies = [TcpProxy(broker.port) for _ in range(3)]
    tables = [RunTable(tmp_path, f"T{n}", f"mqtt://127.0.0.1:{proxy.port}", SHOE)
              for n, proxy in enumerate(proxies, start=1)]
    try:
        for table in tables:
            table.start()
        for table in tables:  # up before betting opens: the betting in which it came up is closed
            wait_for(table.link_up, f"{table.name}'s floor link up", WAIT)
            table.open_shoe()
        yield tables, proxies
    finally:
        for table in tables:
            table.close()
        for proxy in proxies:
            proxy.close()


def lock_out_unanswered(table: RunTable, proxy: TcpProxy) -> None:
    """Seat 1's Blazing 7's wager accepted at the lock-out, its contribution journalled sent.

    The table's proxy mutes the broker's side first: the contribution goes up, and no
    answer (not even the broker's acknowledgement) comes back.
    """
    table.place_bets(progressive=True)
    proxy.mute_answers()
    sent = table.count("floor:send")
    assert table.no_more_bets()["accepted_progressive"] == [1]
    wait_for(lambda: table.count("floor:send") > sent, f"{table.name} journals its send", WAIT)


def lock_out_sent(table: RunTable) -> None:
    """Seat 1's Blazing 7's wager accepted at the lock-out, its contribution journalled sent."""
    sent = table.count("floor:send")
    assert table.lock_out()["accepted_progressive"] == [1]
    wait_for(lambda: table.count("floor:send") > sent, f"{table.name} journals its send", WAIT)


def refused_while_down(table: RunTable) -> None:
    """A round whose Blazing 7's wager is refused: the floor link is down."""
    lock_out = table.lock_out()
    assert lock_out["accepted_progressive"] == [], lock_out
    assert lock_out["refused_progressive"] == [1], lock_out
    assert lock_out["closed"] == "floor down", lock_out
    table.deal_and_stand()


def signs_say_off(table: RunTable, group_meter: int | None = None) -> None:
    """The table's sign shows PROGRESSIVE OFF (beside the group's last meter, when given)."""
    wait_for(lambda: table.sign_shows()[::2] == ("fault", "PROGRESSIVE OFF"),
             f"{table.name}'s sign says PROGRESSIVE OFF", WAIT)
    if group_meter is not None:  # never the table's own book of its contributions
        assert table.sign_shows()[1] == group_meter


def signs_converge(controller: Controller, tables: list[RunTable]) -> None:
    """Every table's sign emulator shows the controller's meter amount, and nothing else."""
    def shown() -> list[tuple[str, int, str]]:
        return [t.sign_shows() for t in tables]

    try:
        wait_for(lambda: shown() == [("amount", controller.show()["meter"], "")] * len(tables),
                 "the signs show the controller's meter", WAIT)
    except AssertionError as stuck:
        raise AssertionError(f"{stuck}: meter {controller.show()['meter']}, signs of "
                             f"{[t.name for t in tables]}: {shown()}") from None


def reopen(tables: list[RunTable]) -> None:
    """A round without a Blazing 7's wager: the betting in which a link came back is closed.

    The sign says PROGRESSIVE OFF until the next betting reopens progressive play.
    """
    for table in tables:
        table.lock_out(progressive=False)
        table.deal_and_stand()


def test_three_tables_through_a_broker_restart_mid_round(
        tmp_path: Path, floor: tuple[Mosquitto, Controller]) -> None:
    broker, controller = floor
    with three_tables(tmp_path, broker) as (tables, proxies):
        signs_converge(controller, tables)
        for table, proxy in zip(tables, proxies, strict=True):
            lock_out_unanswered(table, proxy)
        broker.stop()
        for table in tables:
            wait_for(lambda t=table: t.journal.floor_links()[-1:] == ["down"],
                     f"{table.name} journals its floor link down", WAIT)
            assert not table.all_confirmed()  # its contribution waits for the controller
            signs_say_off(table)
            table.deal_and_stand()
            refused_while_down(table)
        broker.start()
        for table in tables:
            wait_for(lambda t=table: t.journal.floor_links()[-2:] == ["down", "up"],
                     f"{table.name} journals its floor link back", WAIT)
        figures = exact(controller, tables)
        assert figures["progressive_in"] == 3  # one a table: none lost, none twice
        assert figures["meter"] == RESET + 3 * INCREMENT
        reopen(tables)
        signs_converge(controller, tables)
        assert [t.stop() for t in tables] == [0, 0, 0]


def test_one_table_held_down_while_two_play_on(
        tmp_path: Path, floor: tuple[Mosquitto, Controller]) -> None:
    broker, controller = floor
    with three_tables(tmp_path, broker) as (tables, proxies):
        t1, t2, t3 = tables
        proxy = proxies[2]
        lock_out_unanswered(t3, proxy)
        proxy.hold_down()
        wait_for(lambda: t3.journal.floor_links()[-1:] == ["down"],
                 "T3 journals its floor link down", WAIT)
        signs_say_off(t3, RESET)  # the last meter T3 heard: its own contribution unanswered
        t3.deal_and_stand()
        refused_while_down(t3)
        for _ in range(2):  # the other two keep playing and contributing meanwhile
            for table in (t1, t2):
                lock_out_sent(table)
                table.deal_and_stand()
            for table in (t1, t2):
                wait_for(table.all_confirmed, f"{table.name}: every send answered", WAIT)
        assert [t.journal.floor_links()[-1:] for t in (t1, t2)] == [["up"], ["up"]]
        assert not t3.all_confirmed()  # it keeps what it had accepted
        signs_converge(controller, [t1, t2])
        proxy.release()
        wait_for(lambda: t3.journal.floor_links()[-2:] == ["down", "up"],
                 "T3 journals its floor link back", WAIT)
        figures = exact(controller, tables)
        assert figures["progressive_in"] == 5  # T1 2, T2 2, T3 1, each once
        assert figures["meter"] == RESET + 5 * INCREMENT
        reopen([t3])
        signs_converge(controller, tables)
        assert [t.stop() for t in tables] == [0, 0, 0]
