"""Surveillance's page of the floor view in the distribution's Chromium.

A real Mosquitto, the floor process (`shoectl floor serve` with `[view]` and a credentials
file beside its configuration holding a surveillance user and an attendant), and a table
whose seat 1 bets by the count, its journal shipped by its real shipper. Surveillance sees
the seat flagged on its page; the attendant gets no alert on that page and none on the
floor's, where today's figures and the rounds by hour are drawn.
"""

from __future__ import annotations

import json
from pathlib import Path

from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver

from controller.web.credentials import hash_password
from tests.support.counter_table import CounterSeat
from tests.support.floor_store_rig import FloorProcess, ShippingTable
from tests.support.mosquitto import Mosquitto, free_port, wait_for

from .chromium import browser, until

PASSWORD = "floor-pass-2026"


def _rows(driver: WebDriver) -> list[str]:
    return [row.text for row in driver.find_elements(By.CSS_SELECTOR, "#alerts tbody tr")]


def test_surveillance_sees_the_counter_and_the_attendant_does_not(tmp_path: Path) -> None:
    broker = Mosquitto(tmp_path / "broker")
    broker.start()
    port = free_port()
    floor = FloorProcess(tmp_path, broker.url, f"sqlite:{tmp_path / 'floor.sqlite3'}")
    with floor.config.open("a", encoding="utf-8") as config:
        config.write(f'\n[view]\nlisten = "127.0.0.1:{port}"\nuser = "pit"\n'
                     f'credential = "{hash_password(PASSWORD)}"\n')
    users = {"sue": "surveillance", "ann": "attendant"}
    floor.config.with_name("floor.credentials.json").write_text(json.dumps({
        "users": {name: {"role": role, "credential": hash_password(PASSWORD)}
                  for name, role in users.items()}, "tokens": {}}), encoding="utf-8")
    floor.start()
    table = ShippingTable(tmp_path, "T1", broker.url)
    driver = browser()
    try:
        CounterSeat(table).play(36)
        wait_for(lambda: len(floor.held("T1")) == table.store.records, "T1 on the floor")
        driver.get(f"http://sue:{PASSWORD}@127.0.0.1:{port}/surveillance")
        until(driver, "seat 1 of T1 flagged", lambda d: any(
            row.startswith("T1 1 ") for row in _rows(d)))
        assert driver.find_element(By.ID, "none").is_displayed() is False
        driver.get(f"http://ann:{PASSWORD}@127.0.0.1:{port}/surveillance")
        until(driver, "the attendant refused", lambda d: "may not see this page"
              in d.find_element(By.TAG_NAME, "body").text)
        assert _rows(driver) == []
        driver.get(f"http://ann:{PASSWORD}@127.0.0.1:{port}/")
        until(driver, "T1 on the attendant's floor page", lambda d: any(
            cell.text == "T1" for cell in d.find_elements(By.CSS_SELECTOR, "#tables td.name")))
        assert "spearman" not in driver.page_source
        assert "rho" not in driver.find_element(By.TAG_NAME, "body").text
        # Today's figures, and the rounds by hour drawn by the page as bars.
        until(driver, "T1's 36 rounds today", lambda d: [
            c.text for c in d.find_elements(By.CSS_SELECTOR,
                                            "#today tr[data-table='T1'] td.rounds")] == ["36"])
        assert driver.find_element(By.CSS_SELECTOR,
                                   "#today tr[data-table='T1'] td.dealers").text == "kiosk 36"
        bars = driver.find_elements(By.CSS_SELECTOR, "#today tr[data-table='T1'] svg rect")
        assert len(bars) == 24
        assert sum(int(bar.get_attribute("data-rounds") or 0) for bar in bars) == 36
    finally:
        driver.quit()
        table.close()
        floor.stop()
        broker.stop()
