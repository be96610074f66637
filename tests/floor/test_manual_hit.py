"""A hit the progressive controller rejects is settled by hand, from the pit view.

The table is the real blackjack procedure wired to the floor as the service wires it
(`tests.support.linked_table`), against a real Mosquitto and `shoectl progressive serve` in
its own process, with the real pit view (uvicorn on loopback, the supervisor's credential).
The controller rejects the hit for a reason of its own: while T1 is off (its hit journalled,
not yet sent), a void of T1's round 1 reaches it from another boot of T1, so at the next start
the hit names a round the controller holds as void. The controller's figures still equal
what the tables' journals say: a payment by hand is the house's, not the linked meter's.
"""

from __future__ import annotations

import base64
import http.client
import json
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from controller.console.hub import ConsoleHub
from controller.console.pit_state import pit_state
from controller.procedure.core.effects import ShowSign
from controller.service.floor_link import FloorAttachment
from controller.service.runtime import RecordingOutputs, TableRuntime
from controller.web.accounts import Accounts
from controller.web.credentials import hash_password
from controller.web.routes import pit_app
from controller.web.server import WebServer
from tests.controller.helpers import deal, open_round
from tests.support.floor_rig import Controller, Table, wait_for
from tests.support.linked_table import (
    B7,
    THREE_7D,
    TableJournal,
    confirmed,
    linked_table,
    pump,
    reconciled,
    sends,
)
from tests.support.mosquitto import Mosquitto

PASSWORD = "floor-secret"
AUTH = "Basic " + base64.b64encode(f"supervisor:{PASSWORD}".encode()).decode()
VOID_REASON = "round 1: void, its wagers returned: no meter hit is paid for it"


def records(rt: TableRuntime, kind: str) -> list[dict[str, Any]]:
    return [e.data for e in rt.journal.entries((kind,))]


class PitView:
    """The table's real pit view on loopback; requests run while the test pumps the loop."""

    def __init__(self, rt: TableRuntime, attachment: FloorAttachment) -> None:
        self.loop = attachment.loop
        self.hub = ConsoleHub(self.loop.post, view=pit_state)
        self.hub.attach(rt)  # this thread is the table's loop thread
        self.server = WebServer(pit_app(self.hub, Accounts(None),
                                        legacy=("supervisor", hash_password(PASSWORD))),
                                ("127.0.0.1", 0), "pit view")
        self.server.start()
        self.pool = ThreadPoolExecutor(1)

    def settle(self, body: object, auth: str = AUTH) -> tuple[int, dict[str, Any]]:
        """`POST /api/pit/progressive/settle`, the loop pumped until it is answered."""
        done: Future[tuple[int, dict[str, Any]]] = self.pool.submit(self._post, body, auth)
        pump(self.loop, done.done, "the pit view's answer")
        return done.result()

    def _post(self, body: object, auth: str) -> tuple[int, dict[str, Any]]:
        conn = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=30)
        headers = {"Content-Type": "application/json"} | ({"Authorization": auth} if auth
                                                           else {})
        conn.request("POST", "/api/pit/progressive/settle", body=json.dumps(body).encode(),
                     headers=headers)
        response = conn.getresponse()
        answer = json.loads(response.read())
        conn.close()
        return response.status, answer

    def pit(self) -> dict[str, Any]:
        published = self.hub.latest
        assert published is not None
        table: dict[str, Any] = json.loads(published.text)
        return table

    def faults(self) -> list[dict[str, str]]:
        found: list[dict[str, str]] = self.pit()["faults"]
        return found

    def close(self) -> None:
        self.server.stop()
        self.pool.shutdown()


def test_a_rejected_hit_is_settled_by_hand_from_the_pit_view_and_the_meter_ignores_it(
        tmp_path: Path, broker: Mosquitto, controller: Controller) -> None:
    with linked_table(tmp_path / "T1", broker.url) as (rt, attachment):
        open_round(rt, {1: B7})
        confirmed(rt, attachment)  # round 1's contribution is in the group's meter
        rt.watchers.clear()  # the power goes right after the settlement's commit
        deal(rt, *THREE_7D)
        assert rt.fire("stand")
    earlier = Table(tmp_path / "earlier-boot", "T1", broker.url)
    wait_for(lambda: earlier.link.view.up, "the other boot of T1 online")
    earlier.link.void(1)
    wait_for(earlier.all_confirmed, "the void of T1's round 1 applied")
    earlier.link.stop()  # gone from the broker; its journal is read below
    with linked_table(tmp_path / "T1", broker.url) as (rt, attachment):
        pump(attachment.loop, lambda: records(rt, "meter:linked_rejected"), "the hit rejected")
        [rejected] = records(rt, "meter:linked_rejected")
        assert (rejected["round"], rejected["seat"], rejected["kind"]) == (1, 1, "100%")
        assert rejected["reason"] == VOID_REASON
        [confirmation] = [e for e in rt.journal.entries(("floor:confirmed",))
                          if e.data["answer"]["type"] == "reject"]
        [together] = list(rt.journal.entries(("meter:linked_rejected",)))
        assert together.seq == confirmation.seq + 1  # one transaction, answer then record
        assert rt.model.progressive.waiting == []
        # The power goes before the supervisor comes: the rejected hit is in the critical state.
    with linked_table(tmp_path / "T1", broker.url) as (rt, attachment):
        attachment.loop.run_until_idle()
        assert [(h["round"], h["seat"]) for h in rt.model.progressive.rejected] == [(1, 1)]
        assert rt.model.progressive.waiting == []
        assert len(sends(rt, "hit")) == 1  # used up: never sent again
        pit = PitView(rt, attachment)
        try:
            kinds = [f["kind"] for f in pit.faults()]
            assert "progressive_rejected" in kinds
            assert "progressive_waiting" not in kinds
            assert pit.pit()["rejected_hits"] == [{"round": 1, "seat": 1, "kind": "100%",
                                                   "stake": 500, "reason": VOID_REASON}]
            hit = {"round": 1, "seat": 1, "reason": "controller rejected: paid from the cage"}
            assert pit.settle({**hit, "cents": 100}, auth="") == (401, {
                "error": "log in first: the supervisor's credential at /login"})
            assert pit.settle({**hit, "cents": 100}, auth="Basic " + base64.b64encode(
                b"supervisor:wrong").decode()) == (401, {
                "error": "log in first: the supervisor's credential at /login"})
            assert pit.settle({**hit, "cents": 2**32}) == (409, {
                "error": "round 1 seat 1: 4294967296 cents is not an amount to pay "
                         "(0..4294967295 cents)"})
            assert pit.settle({**hit, "cents": "10000.00"})[0] == 400
            status, body = pit.settle({**hit, "cents": 1_000_100})
            assert status == 200, body
            assert body["settled"] == {"round": 1, "seat": 1, "kind": "100%", "stake": 500,
                                       "paid": 1_000_100, "net": 1_000_100 - 500,
                                       "manual": True, "who": "pit:supervisor"}
            assert pit.settle({**hit, "cents": 1_000_100}) == (409, {
                "error": "round 1 seat 1: no hit rejected by the progressive controller "
                         "waits to be settled"})
            [paid] = records(rt, "meter:linked_paid")
            assert (paid["paid"], paid["manual"], paid["who"]) == (1_000_100, True,
                                                                   "pit:supervisor")
            assert paid["rejected"]["reason"] == VOID_REASON
            assert "progressive_rejected" not in [f["kind"] for f in pit.faults()]
            assert pit.pit()["rejected_hits"] == []
            assert isinstance(rt.outputs, RecordingOutputs)
            signs = [e for e in rt.outputs.applied if isinstance(e, ShowSign)]
            assert signs[-1].message == "WIN 1 10001.00"
        finally:
            pit.close()
        figures = reconciled(controller, [TableJournal("T1", rt), earlier])
        assert (figures["hits"], figures["cumulative_paid"]) == (0, 0)  # not the meter's
        assert figures["progressive_in"] == 0  # round 1's contribution given back
    with linked_table(tmp_path / "T1", broker.url) as (rt, attachment):
        attachment.loop.run_until_idle()
        assert rt.model.progressive.rejected == []  # settled once, across the restart
        assert len(records(rt, "meter:linked_paid")) == 1
    earlier.store.close()
