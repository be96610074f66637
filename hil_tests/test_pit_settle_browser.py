"""The pit view's SETTLE BY HAND form in a real browser (Chromium and its chromedriver).

A linked blackjack table (tests/console/live.py: its loop thread, the real pit server) whose
seat 1 hit the Blazing 7's 100% line; the progressive controller's `reject` is committed as
the floor link commits it (tests/floor/test_manual_hit.py runs that part through the real
link and controller). The supervisor logs in through the form, sees the rejected hit, is
refused a negative amount in one line, then settles it by hand; the journal holds the
settlement once, with the supervisor as `who`. The page's Today section shows the round
settled and draws its hour.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver

from controller.service.runtime import TableRuntime
from tests.console.live import PIT_PASSWORD, LiveTable, start
from tests.controller.helpers import deal, open_round

from .chromium import browser, until
from .test_stations_browser import text

REASON = "round 1: void, its wagers returned: no meter hit is paid for it"

def rejected_hit(rt: TableRuntime) -> None:
    """Seat 1's 100% hit of round 1, and the controller's reject of it (loop thread)."""
    desk = rt.model.progressive
    desk.linked = True
    open_round(rt, {1: {"main": 1000, "blazing7s": 500}})
    deal(rt, "7D", "7D", "7D", "TD")
    assert rt.fire("stand")
    record = desk.reject_linked(1, 1, {"type": "reject", "boot": "b0", "seq": 3,
                                       "reason": REASON})
    assert record is not None
    rt.journal.commit([record], rt.critical_state(rt.model))


@pytest.fixture
def table(tmp_path: Path) -> Iterator[LiveTable]:
    live = start(tmp_path)
    live.call(rejected_hit)
    live.attach()
    try:
        yield live
    finally:
        live.close()


def fill(driver: WebDriver, **fields: str) -> None:
    for element_id, value in fields.items():
        box = driver.find_element(By.ID, element_id.replace("_", "-"))
        box.clear()
        box.send_keys(value)


def settled(table: LiveTable) -> list[dict[str, Any]]:
    return [e.data for e in table.runtime.journal.entries(("meter:linked_paid",))]


def test_the_supervisor_settles_a_rejected_hit_on_the_pit_page(table: LiveTable) -> None:
    driver = browser(1280, 800)
    try:
        pit = f"http://127.0.0.1:{table.pit.port}/"
        driver.get(pit)
        until(driver, "the login page", lambda d: d.current_url == f"{pit}login")
        driver.find_element(By.ID, "password").send_keys(PIT_PASSWORD)
        driver.find_element(By.ID, "log-in").click()
        until(driver, "logged in", lambda d: d.current_url == pit)
        until(driver, "the rejected hits shown", lambda d: d.find_element(
            By.ID, "rejected").is_displayed())
        # Today's figures: the one round settled, and its hour drawn as a bar.
        assert text(driver, "today-rounds") == "1 / 0"
        assert text(driver, "today-dealers") == "kiosk 1"  # no dealer logged in by name
        bars = driver.find_elements(By.CSS_SELECTOR, "#today-chart svg rect")
        assert len(bars) == 24
        assert sum(int(bar.get_attribute("data-rounds") or 0) for bar in bars) == 1
        row = driver.find_element(By.CSS_SELECTOR, "#rejected-hits tbody tr").text
        assert row == f"1 1 100% 5.00 {REASON}"
        assert driver.find_element(By.ID, "settle-round").get_attribute("value") == "1"
        assert driver.find_element(By.ID, "settle-seat").get_attribute("value") == "1"
        fill(driver, settle_amount="-5", settle_reason="paid from the cage")
        driver.find_element(By.ID, "settle").click()
        until(driver, "a negative amount refused", lambda d: text(d, "settle-answer") == (
            "round 1 seat 1: -500 cents is not an amount to pay (0..4294967295 cents)"))
        assert settled(table) == []
        fill(driver, settle_amount="250.00")
        driver.find_element(By.ID, "settle").click()
        until(driver, "settled", lambda d: text(d, "settle-answer") == (
            "round 1 seat 1: paid 250.00 by hand"))
        until(driver, "the rejected hits gone", lambda d: not d.find_element(
            By.ID, "rejected").is_displayed())
    finally:
        driver.quit()
    [paid] = settled(table)
    assert (paid["paid"], paid["manual"], paid["who"], paid["reason"]) == (
        25_000, True, "pit:supervisor", "paid from the cage")
