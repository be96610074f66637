"""The progressive pays only what was played: every attack on the floor link, from the attacker's
side (docs/journal-threat-model.md, "A stolen table certificate").

The attacker is a raw paho client (`tests.support.attacker`) holding one table's
certificate as `shoectl floor certs` writes it, or none on a plain loopback broker (the one
the README once started). The floor is real: Mosquitto with the ACL and `mosquitto.conf`
that `floor certs` wrote, `shoectl progressive serve` and `shoectl floor serve` in processes
of their own, and an honest linked blackjack table (the real procedure, its link and its
journal shipped over that link, as a service runs them). After every attack the meter is
what the tables' journals say, and `shoectl progressive verify --floor` agrees, or names
the one thing the attacker got applied.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from controller.floor.link import TlsFiles
from controller.journal import audit
from controller.journal.chain import GENESIS
from controller.procedure.core.effects import Journal
from controller.service.floor_link import FloorAttachment
from controller.service.runtime import TableRuntime
from tests.controller.helpers import deal, open_round
from tests.support.attacker import Attacker
from tests.support.floor_rig import GROUP, INCREMENT, RESET, Controller, Table, online
from tests.support.floor_store_rig import FloorProcess, ShippingTable, new_store_url, shipped
from tests.support.linked_table import B7, THREE_7D, TableJournal, confirmed, linked_table, pump
from tests.support.mosquitto import CEILING_S, Mosquitto, free_port, wait_for

NO_HIT = ["TC", "9C", "TH", "8C"]
"""Seat 1 TC TH against the dealer's 9C 8C: seat 1 stands on 20, the dealer on 17."""


def _up(table: str, group: str = GROUP) -> str:
    return f"shoectl/floor/{group}/table/{table}/up"


def _down(table: str, group: str = GROUP) -> str:
    return f"shoectl/floor/{group}/table/{table}/down"


def _certs(directory: Path, port: int, names: str, group: str = GROUP) -> None:
    made = subprocess.run([sys.executable, "-m", "controller", "floor", "certs", str(directory),
                           "--names", names, "--group", group, "--port", str(port)],
                          capture_output=True, text=True, check=False, timeout=CEILING_S)
    assert made.returncode == 0, made.stderr


@dataclass
class TlsFloor:
    """The floor over TLS: certificates, broker, controller of bank-a (T1, T2), floor process."""

    certs: Path
    broker: Mosquitto
    controller: Controller
    floor: FloorProcess

    @property
    def url(self) -> str:
        return f"mqtts://127.0.0.1:{self.broker.port}"

    def files(self, name: str) -> TlsFiles:
        return TlsFiles(self.certs / "ca.pem", self.certs / f"{name}.pem",
                        self.certs / f"{name}.key")


@pytest.fixture
def tls_floor(tmp_path: Path) -> Iterator[TlsFloor]:
    certs, port = tmp_path / "certs", free_port()
    _certs(certs, port, "T1,T2")
    broker = Mosquitto(tmp_path / "broker", (certs / "mosquitto.conf").read_text(), port)
    broker.start()
    url = f"mqtts://127.0.0.1:{port}"
    controller = Controller(tmp_path, url, certs, tables=("T1", "T2"))
    controller.start()
    floor = FloorProcess(tmp_path, url, new_store_url("sqlite", tmp_path, None),
                         tls=(certs / "ca.pem", certs / "floor.pem", certs / "floor.key"))
    floor.start()
    yield TlsFloor(certs, broker, controller, floor)
    floor.stop()
    controller.stop()
    broker.stop()


def play_round(rt: TableRuntime, attachment: FloorAttachment,
               cards: list[str] = NO_HIT) -> None:
    """Seat 1 wagers main and Blazing 7's, is dealt `cards`, stands; everything answered."""
    if rt.model.state == "round_over":
        assert rt.fire("clear_round")
    open_round(rt, {1: B7})
    deal(rt, *cards)
    assert rt.fire("stand")
    assert rt.model.state == "round_over"
    confirmed(rt, attachment)


def on_floor(floor: FloorProcess, rt: TableRuntime, name: str,
             attachment: FloorAttachment) -> None:
    """Wait until the floor holds every row of the table's journal."""
    pump(attachment.loop, lambda: len(floor.held(name)) == rt.journal.records,
         f"the floor holds all of {name}'s journal")


def controller_records(controller: Controller, kind: str) -> list[dict[str, Any]]:
    """The controller's journal records of `kind` (read from a private copy)."""
    found, _report = audit.export_entries(controller.state_dir)
    return [e.data for e in found if e.kind == kind]


def verify_floor(controller: Controller, floor: FloorProcess) -> tuple[int, str]:
    """`shoectl progressive verify --floor FLOOR_CONFIG`: exit status and its last line."""
    done = controller.shoectl("verify", "--floor", str(floor.config))
    lines = (done.stdout + done.stderr).strip().splitlines()
    return done.returncode, lines[-1] if lines else ""


def test_contributions_replayed_under_a_thousand_invented_boots_are_refused(
        tmp_path: Path, tls_floor: TlsFloor) -> None:
    f = tls_floor
    with linked_table(tmp_path / "T2", f.url, "T2", f.files("T2"), ship=True) as (rt, link):
        play_round(rt, link)
        rogue = Attacker(f.broker.port, f.certs, "T1", "rogue")
        for n in range(1000):
            boot = f"invented-{n}"
            rogue.publish(_up("T1"), {"type": "boot", "table": "T1", "boot": boot, "seq": 1})
            rogue.publish(_up("T1"), {"type": "contribution", "table": "T1", "boot": boot,
                                      "seq": 2, "round": 1, "seat": 1})
            rogue.publish(_up("T1"), {"type": "contribution", "table": "T1",
                                      "boot": f"unannounced-{n}", "seq": 1, "round": 2,
                                      "seat": 1})
        rogue.close()
        play_round(rt, link)  # applied after every message the attacker sent before it
        on_floor(f.floor, rt, "T2", link)
    figures = f.controller.show()
    # T2's two wagers, and the first invented one: nothing at apply time tells it from a
    # real one; the reconciliation below names it.
    assert figures["progressive_in"] == 3, figures
    assert figures["meter"] == RESET + 3 * INCREMENT
    boots = [b for b in controller_records(f.controller, "floor:boot") if b["table"] == "T1"]
    assert len(boots) == 10  # [link] max_boots_per_day's default
    refused = {r["why"] for r in controller_records(f.controller, "floor:refused")}
    assert refused == {"too_many_boots", "boot_not_announced"}
    rejected = controller_records(f.controller, "floor:rejected")
    assert [r["reason"] for r in rejected] == ["round 1 seat 1: contributed already"] * 9
    f.floor.stop()  # its identity reads what the floor view shows: the group's alarms
    alarms = Attacker(f.broker.port, f.certs, "floor", "floor")
    alarms.subscribe(f"shoectl/floor/{GROUP}/alarms")
    wait_for(alarms.messages, "the retained alarms")
    shown = alarms.messages()[-1]["alarms"]
    assert {a["why"] for a in shown} == refused
    assert {a["table"] for a in shown} == {"T1"}
    alarms.close()
    code, said = verify_floor(f.controller, f.floor)
    assert code == 3, said
    assert said.startswith("controller record "), said
    assert "table T1's contribution of round 1 seat 1" in said, said
    assert "no Blazing 7's wager" in said, said


def test_a_hit_on_a_round_never_played_is_not_paid_once(
        tmp_path: Path, tls_floor: TlsFloor) -> None:
    f = tls_floor
    with linked_table(tmp_path / "T2", f.url, "T2", f.files("T2"), ship=True) as (rt, link):
        play_round(rt, link)
        rogue = Attacker(f.broker.port, f.certs, "T1", "rogue")
        for boot in ("b1", "b2"):  # the same hit twice, from two boots
            rogue.publish(_up("T1"), {"type": "boot", "table": "T1", "boot": boot, "seq": 1})
            rogue.publish(_up("T1"), {"type": "hit", "table": "T1", "boot": boot, "seq": 2,
                                      "round": 77, "seat": 9, "kind": "100%",
                                      "cards": ["7D", "7D", "7D"]})
        rogue.publish(_up("T1"), {"type": "boot", "table": "T1", "boot": "b3", "seq": 1})
        rogue.publish(_up("T1"), {"type": "contribution", "table": "T1", "boot": "b3",
                                  "seq": 2, "round": 78, "seat": 1})
        for seq, cards, kind in ((3, ["7H", "7H", "7H"], "100%"), (4, ["7D", "7D", "TD"], "10%"),
                                 (5, ["7D", "7D", "7D"], "50%")):
            rogue.publish(_up("T1"), {"type": "hit", "table": "T1", "boot": "b3", "seq": seq,
                                      "round": 78, "seat": 1, "kind": kind, "cards": cards})
        rogue.close()
        play_round(rt, link)
        on_floor(f.floor, rt, "T2", link)
    figures = f.controller.show()
    assert (figures["hits"], figures["cumulative_paid"]) == (0, 0), figures
    reasons = [r["reason"] for r in controller_records(f.controller, "floor:rejected")]
    assert reasons == [
        "round 77 seat 9: this table contributed no Blazing 7's wager there: no meter hit is "
        "paid for it"] * 2 + [
        "cards 7H 7H 7H: the Blazing 7's line is three_suited_7s, not a 100% meter hit",
        "cards 7D 7D TD: the Blazing 7's line is two_7s, not a 10% meter hit",
        'kind: expected "100%" or "10%", got \'50%\'']
    code, said = verify_floor(f.controller, f.floor)
    assert code == 3, said  # the one contribution T1's certificate got applied
    assert "table T1's contribution of round 78 seat 1" in said, said


def test_a_real_hit_is_paid_once_whatever_the_boot(tmp_path: Path, tls_floor: TlsFloor) -> None:
    f = tls_floor
    with linked_table(tmp_path / "T1", f.url, "T1", f.files("T1"), ship=True) as (rt, link):
        play_round(rt, link, THREE_7D)
        [paid] = [e.data for e in rt.journal.entries(("meter:linked_paid",))]
        assert paid["paid"] == RESET + INCREMENT
        [hit] = [e.data["message"] for e in rt.journal.entries(("floor:send",))
                 if e.data["message"]["type"] == "hit"]
        assert hit["cards"] == ["7D", "7D", "7D"]
        on_floor(f.floor, rt, "T1", link)
    rogue = Attacker(f.broker.port, f.certs, "T1", "rogue")  # the hit again, from a new boot
    rogue.publish(_up("T1"), {"type": "boot", "table": "T1", "boot": "again", "seq": 1})
    rogue.publish(_up("T1"), hit | {"boot": "again", "seq": 2})
    wait_for(lambda: len(controller_records(f.controller, "floor:rejected")) == 1,
             "the repeated hit rejected")
    rogue.close()
    [rejected] = controller_records(f.controller, "floor:rejected")
    assert rejected["reason"] == "round 1 seat 1: its meter hit was paid already"
    figures = f.controller.show()
    assert (figures["hits"], figures["cumulative_paid"]) == (1, RESET + INCREMENT)
    code, said = verify_floor(f.controller, f.floor)
    assert code == 0, said


def test_a_table_cannot_publish_into_another_group(tmp_path: Path) -> None:
    certs, port = tmp_path / "certs", free_port()
    _certs(certs, port, "T1,T2")
    _certs(certs, port, "T3", "bank-b")  # the same CA, one more group
    broker = Mosquitto(tmp_path / "broker", (certs / "mosquitto.conf").read_text(), port)
    broker.start()
    url = f"mqtts://127.0.0.1:{port}"
    other = Controller(tmp_path, url, certs, tables=("T3",), group="bank-b", name="bank-b")
    other.start()
    honest = Table(tmp_path, "T3", url, TlsFiles(certs / "ca.pem", certs / "T3.pem",
                                                 certs / "T3.key"), group="bank-b")
    try:
        wait_for(lambda: online(honest), "T3 online in bank-b")
        rogue = Attacker(port, certs, "T1", "rogue")
        for table in ("T1", "T3"):
            rogue.publish(_up(table, "bank-b"), {"type": "boot", "table": table,
                                                 "boot": "x", "seq": 1})
            rogue.publish(_up(table, "bank-b"), {"type": "contribution", "table": table,
                                                 "boot": "x", "seq": 2, "round": 1,
                                                 "seat": 1})
        rogue.close()
        honest.link.contribute(1, 1)
        wait_for(honest.all_confirmed, "T3's contribution confirmed")
        assert other.show()["progressive_in"] == 1
        assert controller_records(other, "floor:refused") == []  # it never got there
    finally:
        honest.close()
        other.stop()
        broker.stop()


def test_a_certificate_cannot_take_another_client_id(tmp_path: Path,
                                                     tls_floor: TlsFloor) -> None:
    f = tls_floor
    with linked_table(tmp_path / "T2", f.url, "T2", f.files("T2"), ship=True) as (rt, link):
        play_round(rt, link)
        downs = len(list(rt.journal.entries(("link:down",))))
        for client_id in ("table-T2", "T2", "progressive-bank-a", "floor"):
            Attacker(f.broker.port, f.certs, "T1", client_id).close()
        play_round(rt, link)
        on_floor(f.floor, rt, "T2", link)
        assert len(list(rt.journal.entries(("link:down",)))) == downs  # T2 never kicked off
    assert "lost (" not in f.controller.log.read_text()  # nor the controller
    assert "lost (" not in f.floor.log.read_text()  # nor the floor
    code, said = verify_floor(f.controller, f.floor)
    assert code == 0, said


def test_only_the_groups_controller_answers_a_table(tmp_path: Path, tls_floor: TlsFloor) -> None:
    f = tls_floor
    _certs(f.certs, f.broker.port, "T3", "bank-b")  # bank-b's controller: another certificate
    f.broker.stop()
    f.broker.start()  # with the ACL of both groups
    forgers = [Attacker(f.broker.port, f.certs, name, f"forger-{name}")
               for name in ("T2", "progressive-bank-b")]
    with linked_table(tmp_path / "T1", f.url, "T1", f.files("T1"), ship=True) as (rt, link):
        open_round(rt, {1: B7})
        confirmed(rt, link)
        deal(rt, *THREE_7D)
        assert rt.fire("stand")  # the hit is sent after the settlement's commit
        [hit] = [e.data["message"] for e in rt.journal.entries(("floor:send",))
                 if e.data["message"]["type"] == "hit"]
        for forger in forgers:  # they know T1's boot and seq: they publish its "answer"
            forger.publish(_down("T1"), {"type": "ack", "boot": hit["boot"], "seq": hit["seq"],
                                         "repeat": False, "meter": 0, "paid": 987_654_321})
        confirmed(rt, link)
        [paid] = [e.data for e in rt.journal.entries(("meter:linked_paid",))]
        assert paid["paid"] == RESET + INCREMENT
        assert list(rt.journal.entries(("floor:answer_refused",))) == []  # none got to T1
        on_floor(f.floor, rt, "T1", link)
    for forger in forgers:
        forger.close()
    code, said = verify_floor(f.controller, f.floor)
    assert code == 0, said


def test_a_forged_answer_on_a_plain_link_is_refused(
        tmp_path: Path, broker: Mosquitto, controller: Controller) -> None:
    floor = FloorProcess(tmp_path, broker.url, new_store_url("sqlite", tmp_path, None))
    floor.start()
    forger = Attacker(broker.port)  # anonymous, on the README's plain loopback broker

    def forge(topic: str, data: dict[str, Any]) -> None:
        if data.get("type") == "hit":
            for amount in (987_654_321, 5_000_000_000):  # the second beyond any sign
                forger.client.publish(_down("T1"), json.dumps(
                    {"type": "ack", "boot": data["boot"], "seq": data["seq"],
                     "repeat": False, "meter": 0, "paid": amount}), qos=1)

    forger.on_heard = forge
    forger.subscribe(_up("T1"))
    try:
        with linked_table(tmp_path / "T1", broker.url, ship=True) as (rt, link):
            play_round(rt, link, THREE_7D)
            [paid] = [e.data for e in rt.journal.entries(("meter:linked_paid",))]
            assert paid["paid"] == RESET + INCREMENT  # the controller's amount, not the forger's
            pump(link.loop, lambda: len(list(rt.journal.entries(("floor:answer_refused",))))
                 == 2, "both forged answers refused")
            refused = {e.data["answer"]["paid"]: e.data["reason"]
                       for e in rt.journal.entries(("floor:answer_refused",))}
            assert sorted(refused) == [987_654_321, 5_000_000_000]
            assert str(987_654_321) in refused[987_654_321]
            assert refused[5_000_000_000] == ("paid 5000000000 cents: above the most this "
                                              "table pays, 4294967295 cents")
            on_floor(floor, rt, "T1", link)
            figures = controller.show()
            assert (figures["hits"], figures["cumulative_paid"]) == (1, RESET + INCREMENT)
            assert TableJournal("T1", rt).records("meter:linked_paid") == [paid]
        code, said = verify_floor(controller, floor)
        assert code == 0, said
    finally:
        forger.close()
        floor.stop()


def test_no_row_of_a_round_in_play_leaves_the_table(tmp_path: Path, broker: Mosquitto) -> None:
    eavesdropper = Attacker(broker.port)  # anonymous, on the plain loopback broker
    eavesdropper.subscribe("shoectl/journal/+/records")
    table = ShippingTable(tmp_path, "T1", broker.url)
    table.write(3)
    before_round = table.store.records
    table.store.commit([Journal("round:open", {"round": 1})], None)
    before_round += 1  # a round open for bets holds no card: it ships
    for to, card in (([1, 1, False], "7S"), ([0, 1, False], "9C"), ([1, 1, False], "8S")):
        table.store.commit([Journal("card:dealt", {"round": 1, "to": to, "card": card})], None)
    table.store.commit([Journal("card:dealt", {"round": 1, "to": [0, 1, True], "card": "KH"})],
                       None)  # the hole card
    table.shipper.wake()
    # The attacker poses as the floor: "I hold nothing of T1, send it all".
    eavesdropper.publish("shoectl/journal/T1/stored", {"type": "stored", "table": "T1",
                                                       "records": 0, "head": GENESIS},
                         retain=True)

    def rows() -> list[dict[str, Any]]:
        return [r for m in eavesdropper.messages() for r in m.get("records", [])]

    def hole_seen() -> bool:
        return any(r["data"].get("card") == "KH" for r in rows())

    wait_for(lambda: hole_seen() or (getattr(table.shipper, "held_back", 0) == 4
                                     and {r["seq"] for r in rows()} == {1, 2, 3, 4}),
             "the rows before the deal shipped, or the hole card")
    assert not hole_seen(), "the hole card was on the wire before it was turned"
    assert max(r["seq"] for r in rows()) == before_round
    table.store.commit([Journal("card:hole_revealed", {"round": 1, "card": "KH"})], None)
    table.store.commit([Journal("round:settled", {"round": 1})], None)
    table.shipper.wake()
    wait_for(hole_seen, "the round's rows shipped once it is settled")
    table.close()
    eavesdropper.close()


@pytest.mark.parametrize("url", ["mqtt://192.0.2.1:1883", "mqtt://203.0.113.9"])
def test_a_plain_link_off_the_machine_is_refused_at_start(tmp_path: Path, url: str) -> None:
    progressive = tmp_path / "progressive.toml"
    progressive.write_text(f'[link]\nbroker = "{url}"\ngroup = "bank-a"\ntables = ["T1"]\n'
                           "[progressive]\nreset = 1000000\nincrement = 100\n")
    floor = tmp_path / "floor.toml"
    floor.write_text(f'[link]\nbroker = "{url}"\n[store]\nurl = "sqlite:floor.sqlite3"\n')
    example = Path(__file__).resolve().parents[2] / "docs" / "examples" / "linked-table.toml"
    table = tmp_path / "table.toml"
    table.write_text(example.read_text().replace('link = "mqtts://127.0.0.1:8883"',
                                                 f'link = "{url}"'))
    for argv, key in ((["progressive", "serve", "--config", str(progressive), "--state-dir",
                        str(tmp_path / "ctl")], "[link] broker"),
                      (["floor", "serve", "--config", str(floor)], "[link] broker"),
                      (["run", "--unverified-software", "--config", str(table), "--state-dir",
                        str(tmp_path / "state")], "[progressive] link"),
                      (["simulate", "--tables", "2", "--link", url], "--link")):
        done = subprocess.run([sys.executable, "-m", "controller", *argv], capture_output=True,
                              text=True, check=False, timeout=20)
        assert done.returncode == 2, (argv, done.stdout, done.stderr)
        assert len(done.stderr.splitlines()) == 1, done.stderr
        assert key in done.stderr, done.stderr
        assert "loopback" in done.stderr, done.stderr
        assert "Traceback" not in done.stderr


def test_a_plain_link_on_loopback_names_is_allowed(tmp_path: Path) -> None:
    from controller.floor.link import BrokerUrl
    from controller.floor.settings import PlainLinkError, require_private

    require_private(BrokerUrl.parse("mqtt://localhost:1883"), "[link] broker")
    require_private(BrokerUrl.parse("mqtt://127.0.0.1:1883"), "[link] broker")
    require_private(BrokerUrl.parse("mqtts://192.0.2.1:8883"), "[link] broker")
    with pytest.raises(PlainLinkError, match=r"\[progressive\] link: .*192.0.2.1"):
        require_private(BrokerUrl.parse("mqtt://192.0.2.1"), "[progressive] link")
    with pytest.raises(PlainLinkError, match="cannot resolve"):
        require_private(BrokerUrl.parse("mqtt://no-such-host.invalid"), "[link] broker")


def test_forged_rows_do_not_silence_the_floor(tmp_path: Path, store_url: str) -> None:
    certs, port = tmp_path / "certs", free_port()
    _certs(certs, port, "T1,T2")
    broker = Mosquitto(tmp_path / "broker", (certs / "mosquitto.conf").read_text(), port)
    broker.start()
    url = f"mqtts://127.0.0.1:{port}"
    floor = FloorProcess(tmp_path, url, store_url, tls=(certs / "ca.pem", certs / "floor.pem",
                                                        certs / "floor.key"))
    floor.start()
    table = ShippingTable(tmp_path, "T1", url,
                          TlsFiles(certs / "ca.pem", certs / "T1.pem", certs / "T1.key"))
    try:
        table.write(20)
        shipped(floor, table)
        head, forged = table.entries()[-1].hash, []
        for seq in (21, 22, 23):  # a fake 999,999.99 hit, linked to the floor's copy
            digest = f"{seq:064x}"
            forged.append({"seq": seq, "wall": "2026-12-06T20:00:00+00:00", "mono": 1.0,
                           "kind": "floor:confirmed", "data": {"answer": {
                               "type": "ack", "boot": "b", "seq": seq, "paid": 99_999_999}},
                           "prev": head, "hash": digest})
            head = digest
        rogue = Attacker(port, certs, "T1", "rogue")
        rogue.publish("shoectl/journal/T1/records", {
            "type": "records", "table": "T1", "anchor": {"records": 23, "head": head},
            "records": forged})
        rogue.close()
        wait_for(lambda: len(floor.held("T1")) == 23, "the forged rows on the floor")
        table.write(10)  # T1's own rows 21-30
        wait_for(lambda: table.shipper.confirmed == 30, "the floor takes T1's own rows")
        table.write(5)
        wait_for(lambda: table.shipper.confirmed == 35, "and goes on taking them")
        floor_word = table.shipper.floor
        assert floor_word is not None
        assert floor_word.refused_seq == 0
        alone = floor.shoectl("verify", "--table", "T1")
        assert alone.returncode == 3, alone.stdout
        assert alone.stdout.strip().splitlines()[-1].startswith(
            "floor copy of T1: two versions of seq 21 kept"), alone.stdout
        assert [e.seq for e in floor.held("T1")] == list(range(1, 24))  # the first copy ...
        assert floor.other_versions("T1") == table.entries()[20:]  # ... and T1's own, kept
    finally:
        table.close()
        floor.stop()
        broker.stop()
