"""The floor's pit view in the distribution's Chromium (chromedriver), served by the floor
process (`shoectl floor serve` with `[view]`).

A whole linked table over ptys (T1, `build_app` with `[progressive] link`), a second linked
table of the floor rig (T3: its link and a journal shipper) that hits the meter, the
progressive controller, a real Mosquitto and the floor process with an SQLite store. The
page shows every table's game, status, round, link state and its journal on the floor; the
group's meter and the hit, paid from the table's journalled confirmation; and a table that
goes away turns offline.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver

from controller.floor.link import BrokerUrl
from controller.floor.shipping import JournalShipper
from controller.service.app import TableApp
from controller.sim import rig
from controller.web.credentials import hash_password
from tests.support.floor_rig import (
    GROUP,
    INCREMENT,
    RESET,
    Table,
    broker_and_controller,
    online,
)
from tests.support.floor_store_rig import FloorProcess
from tests.support.mosquitto import free_port, wait_for

from .chromium import browser, until
from .floor_run_rig import linked_rig_table

PASSWORD = "floor-pass"

pytestmark = pytest.mark.needs("shoe", "layout", "sign", "emulated")


def _texts(driver: WebDriver, css: str) -> list[str]:
    """The texts of what `css` finds now ([] if the page redrew it meanwhile: ask again)."""
    try:
        return [element.text for element in driver.find_elements(By.CSS_SELECTOR, css)]
    except StaleElementReferenceException:
        return []


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def _cell(driver: WebDriver, table: str, name: str) -> str:
    found = _texts(driver, f"#tables tr[data-table='{table}'] td.{name}")
    return found[0] if found else ""


def _meter(driver: WebDriver) -> str:
    found = _texts(driver, f"#groups section[data-group='{GROUP}'] h3")
    return found[0] if found else ""


@pytest.fixture
def floor(tmp_path: Path) -> Iterator[dict[str, Any]]:
    with broker_and_controller(tmp_path) as (broker, _):
        port = free_port()
        process = FloorProcess(tmp_path, broker.url, f"sqlite:{tmp_path / 'floor.sqlite3'}")
        with process.config.open("a", encoding="utf-8") as config:
            config.write(f'\n[view]\nlisten = "127.0.0.1:{port}"\nuser = "pit"\n'
                         f'credential = "{hash_password(PASSWORD)}"\n')
        process.start()
        app = linked_rig_table(tmp_path, broker.url)
        rig.wait_for_links(app)
        hitter = Table(tmp_path, "T3", broker.url)
        shipper = JournalShipper(BrokerUrl.parse(broker.url), None, "T3", tmp_path / "T3",
                                 hitter.store.key)
        shipper.start()
        driver = browser()
        state: dict[str, Any] = {"app": app, "hitter": hitter, "shipper": shipper,
                                 "driver": driver, "stopped": False, "port": port,
                                 "url": f"http://pit:{PASSWORD}@127.0.0.1:{port}/"}
        try:
            yield state
        finally:
            driver.quit()
            if not state["stopped"]:
                shipper.stop()
                hitter.link.stop()
            hitter.store.close()
            app.close()
            process.stop()


def test_the_floor_view_shows_every_table_its_journal_and_the_linked_meter(
        floor: dict[str, Any]) -> None:
    app: TableApp = floor["app"]
    hitter: Table = floor["hitter"]
    driver: WebDriver = floor["driver"]
    name = app.table.game.table.name
    wait_for(lambda: online(hitter), "T3 online")
    hitter.link.contribute(1, 2)  # a hit is paid only for a wager played
    hitter.link.hit(1, 2, "10%", ["7H", "7H", "7H"])
    wait_for(hitter.all_confirmed, "T3's hit confirmed")
    paid = next(d["answer"]["paid"] for d in hitter.records("floor:confirmed")
                if "paid" in d["answer"])
    assert paid == (RESET + INCREMENT) // 10
    wait_for(lambda: _listening(floor["port"]), "the floor view listening")
    driver.get(floor["url"])
    until(driver, f"{name} on the page", lambda d: _cell(d, name, "game") == "blackjack")
    assert _cell(driver, name, "round") == "0"
    until(driver, f"{name} linked and shipping", lambda d: (
        _cell(d, name, "link") == "online" and _cell(d, name, "shipping") == "online"))
    assert app.runtime is not None
    journal = app.runtime.journal
    until(driver, f"{name}'s journal on the floor", lambda d: (
        _cell(d, name, "agreement") == "agrees"
        and int(_cell(d, name, "records") or 0) == journal.records))
    assert _cell(driver, name, "head") == journal.head[:16]
    until(driver, "the group's meter after the hit, its controller online", lambda d: (
        _meter(d).startswith(f"{GROUP}: {(RESET + INCREMENT - paid) / 100:.2f}")
        and "controller online" in _meter(d)))
    until(driver, "T3's hit in the group's last hits", lambda d: any(
        "T3" in row and f"{paid / 100:.2f}" in row
        for row in _texts(d, f"#groups section[data-group='{GROUP}'] table.hits tr")))
    floor["stopped"] = True
    floor["shipper"].stop()  # T3's journal link says goodbye ...
    hitter.link.stop()  # ... and so does its progressive link
    until(driver, "T3 offline", lambda d: _cell(d, "T3", "link") == "offline"
           and _cell(d, "T3", "shipping") == "offline")
