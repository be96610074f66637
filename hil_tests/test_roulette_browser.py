"""Roulette in a real browser: the result board on the marquee display (1920x1080 landscape
and 1080x1920 portrait), the dealer's console dealing a spin, and the pit view's wheel-bias
monitor, in the distribution's Chromium driven by its chromedriver, on the emulated rig (the
real wheel driver reading the wheel emulator's pty).

The board must show what the table published (the last 20 numbers in their colours, the
percentages, hot and cold numbers), fill the screen without scrolling at both orientations,
and follow the wheel live; the console must place wagers, the marker, clear and pay as a
dealer's taps say, with touch targets of at least 15 mm.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver

from controller.odds.wheel_bias import bias_report
from controller.rules.roulette import RED, Wheel

from .chromium import browser, tap, tap_text, until
from .roulette_rig import PIT_PASSWORD, RouletteRig, start_roulette_rig
from .test_console_browser import small_buttons

pytestmark = pytest.mark.needs("emulated")

BOARD_SCREENS = [(1920, 1080), (1080, 1920)]


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[RouletteRig]:
    table = start_roulette_rig(tmp_path, seed=21)
    try:
        yield table
    finally:
        table.close()


def rect(driver: WebDriver, css: str) -> dict[str, float]:
    found: dict[str, float] = driver.execute_script(
        "const r = document.querySelector(arguments[0]).getBoundingClientRect();"
        " return {left: r.left, top: r.top, right: r.right, bottom: r.bottom};", css)
    return found


def text(driver: WebDriver, css: str) -> str:
    """The text of the first element `css` finds, read in one go (the page may redraw)."""
    found: str = driver.execute_script(
        "const e = document.querySelector(arguments[0]); return e ? e.textContent : '';", css)
    return found.strip()


def colour_class(element: Any) -> str:
    return next(c for c in (element.get_attribute("class") or "").split()
                if c in ("red", "black", "green"))


def board_on_page(driver: WebDriver) -> dict[str, Any]:
    history = driver.find_elements(By.CSS_SELECTOR, "#history li")
    return {
        "last": [(li.text, colour_class(li)) for li in history],
        "percent": {e.get_attribute("data-group"): e.text
                    for e in driver.find_elements(By.CSS_SELECTOR, ".pct")},
        "hot": [li.text.split()[0] for li in driver.find_elements(By.CSS_SELECTOR, "#hot li")],
        "cold": [li.text.split()[0] for li in driver.find_elements(By.CSS_SELECTOR,
                                                                    "#cold li")],
        "spins": driver.find_element(By.ID, "spins").text,
        "big": driver.find_element(By.ID, "last-number").text,
    }


@pytest.mark.parametrize("screen", BOARD_SCREENS, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_result_board_on_the_marquee_display(rig: RouletteRig,
                                                 screen: tuple[int, int]) -> None:
    rig.play(26)
    assert sum(not s["void"] for s in rig.spins) >= 20
    rig.live()
    driver = browser(*screen)
    try:
        driver.get(rig.board_url)
        until(driver, "20 numbers on the board", lambda d: len(d.find_elements(
            By.CSS_SELECTOR, "#history li")) == 20)
        board = rig.board()
        shown = board_on_page(driver)
        decided = [s["number"] for s in rig.spins if not s["void"]]
        assert [n for n, _ in shown["last"]] == list(reversed(decided))[:20]
        assert shown["last"] == [(n["number"], n["colour"]) for n in board["last"]]
        assert all(c == ("green" if n in ("0", "00") else "red" if n in RED else "black")
                   for n, c in shown["last"])
        assert shown["percent"] == {k: f"{v}%" for k, v in board["percent"].items()}
        assert shown["hot"] == [h["number"] for h in board["hot"]]
        assert shown["cold"] == [c["number"] for c in board["cold"]]
        assert (shown["spins"], shown["big"]) == (str(len(decided)), decided[-1])
        banner = driver.find_element(By.ID, "banner").text
        assert banner in ("PLACE YOUR BETS", "NO SPIN - PLACE YOUR BETS", "NO MORE BETS",
                          "WINNING NUMBER", "TABLE CLOSED")
        width, height = screen
        fits = driver.execute_script(
            "const e = document.documentElement; return [e.scrollWidth, e.scrollHeight,"
            " innerWidth, innerHeight];")
        assert fits == [width, height, width, height]  # no scrolling on a marquee
        for css in ("#latest", "#history-box", "#stats", "#hotcold", "#banner"):
            box = rect(driver, css)
            assert 0 <= box["left"] < box["right"] <= width, css
            assert 0 <= box["top"] < box["bottom"] <= height, css
        clipped = driver.execute_script(
            "return [...document.querySelectorAll('#history li, .percent > *, #hot li,"
            " #cold li')].filter(e => { const r = e.getBoundingClientRect();"
            " const b = e.closest('.box').getBoundingClientRect();"
            " return r.top < b.top || r.bottom > b.bottom || r.left < b.left"
            " || r.right > b.right; }).map(e => e.textContent);")
        assert clipped == []  # every figure shows whole inside its panel
        big = float(driver.execute_script(
            "return parseFloat(getComputedStyle(document.getElementById('last-number'))"
            ".fontSize)"))
        assert big >= 0.2 * min(screen)  # the last number reads across the pit
        latest, history = rect(driver, "#latest"), rect(driver, "#history-box")
        if width > height:
            assert latest["right"] <= history["left"]  # side by side
        else:
            assert latest["bottom"] <= history["top"]  # stacked
        before = rig.board()["spins"]
        while rig.board()["spins"] == before:
            assert rig.step()
        new = rig.board()["last"][0]["number"]
        until(driver, "the new number first", lambda d: text(d, "#history li") == new
              and text(d, "#banner") == "WINNING NUMBER")
    finally:
        driver.quit()


def test_the_dealer_deals_a_spin_at_the_console(tmp_path: Path) -> None:
    rig = start_roulette_rig(tmp_path, seed=5, faults=False)
    driver = browser(1280, 800)
    try:
        rig.live()
        driver.get(rig.kiosk_url)
        while rig.table()["phase"] != "betting":
            assert rig.step()
        until(driver, "betting open", lambda d: text(d, "#phase") == "betting")
        tap(driver, "button.seat[data-seat='1']")
        tap(driver, "#ro-chips .chip[data-chip='2500']")
        tap(driver, "#ro-grid button[data-number='17']")
        tap(driver, "#ro-place")
        until(driver, "the straight on 17", lambda d: "straight 17 25.00" in text(d,
                                                                                 "#ro-wagers"))
        tap(driver, "#ro-outside button[data-bet='red']")
        tap(driver, "#ro-grid button[data-number='8']")
        tap(driver, "#ro-grid button[data-number='9']")
        tap(driver, "#ro-place")  # 8-9: a split
        until(driver, "three wagers", lambda d: len(d.find_elements(
            By.CSS_SELECTOR, "#ro-wagers .wager")) == 3)
        assert small_buttons(driver, 89) == []
        tap_text(driver, "TAKE BACK")  # the straight up is taken back again
        until(driver, "two wagers", lambda d: len(d.find_elements(
            By.CSS_SELECTOR, "#ro-wagers .wager")) == 2)
        tap(driver, "#ro-done")
        assert [w["named"] for w in rig.table()["roulette"]["wagers"]] == ["red", "split 8-9"]
        while rig.table()["phase"] != "marker":
            assert rig.step()
        number = rig.table()["roulette"]["spin"]["number"]
        tap_text(driver, f"MARKER ON {number}")
        until(driver, "clearing", lambda d: text(d, "#phase") == "clearing")
        tap_text(driver, "LOSERS CLEARED")
        until(driver, "paying", lambda d: text(d, "#phase") == "paying")
        tap_text(driver, "WINNERS PAID")
        until(driver, "back to betting", lambda d: text(d, "#phase") == "betting")
        nets = [w["net"] for w in rig.table()["last_round"]["seats"][0]["wagers"]]
        expected = {"red": 2500 if number in RED else -2500,
                    "split": 2500 * 17 if number in ("8", "9") else -2500}
        assert sorted(nets) == sorted(expected.values())
    finally:
        driver.quit()
        rig.close()


def test_the_pit_view_shows_the_wheel_bias_monitor(rig: RouletteRig) -> None:
    rig.play(200)
    rig.live()
    driver = browser(1280, 800)
    try:
        token = base64.b64encode(f"supervisor:{PIT_PASSWORD}".encode()).decode()
        driver.execute_cdp_cmd("Network.enable", {})
        driver.execute_cdp_cmd("Network.setExtraHTTPHeaders",
                               {"headers": {"Authorization": f"Basic {token}"}})
        driver.get(rig.pit_url)
        until(driver, "the bias monitor", lambda d: text(d, "#bias-p") not in ("", "-"))
        assert driver.find_element(By.ID, "bias").is_displayed()
        bias = rig.pit()["wheel_bias"]
        decided = [s["number"] for s in rig.spins if not s["void"]]
        report = bias_report(decided, Wheel.DOUBLE, 1000)
        assert (bias["spins"], bias["p_value"]) == (report.spins, report.p_value)
        assert driver.find_element(By.ID, "bias-spins").text.startswith(
            f"{report.spins} of the last 1000")
        assert driver.find_element(By.ID, "bias-chi").text == (
            f"{report.chi_square:.2f} on 37 degrees of freedom")
        assert float(driver.find_element(By.ID, "bias-p").text) == pytest.approx(
            report.p_value, rel=1e-3)
        verdict = driver.find_element(By.ID, "bias-verdict").text
        assert verdict == ("not enough spins yet" if not report.enough else
                           "UNLIKELY FROM A FAIR WHEEL (p < 1%): check the wheel"
                           if report.p_value < 0.01 else "watch: p < 5%"  # type: ignore[operator]
                           if report.p_value < 0.05 else "consistent with a fair wheel")  # type: ignore[operator]
    finally:
        driver.quit()
