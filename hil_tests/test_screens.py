"""A person at every screen: each page at its target sizes, in the distribution's Chromium.

For each game and each phase where somebody acts, every enabled control on the page must lie
inside the window with no scrolling (neither the page nor an inner area) and be the element
found at its own centre, so nothing covers it (`hil_tests.screen_check`). One rig and one
browser a game: the same window is resized to each target size at each phase. The dealer's
console at 800x480 (the 7-inch kiosk display) and 1280x800; the player stations at 1280x800
and 1024x768 with the three side wagers of `docs/examples/community-table.toml` offered; the
result board at 1920x1080 and 1080x1920; the pit view at 1280x800 and 1920x1080, logged in.
With `SHOECTL_SCREENS=FOLDER` (`make screens`) each phase's screenshot is written there too.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Final

import pytest
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver

from tests.console.live import ATTENDANT_PASSWORD, KIOSK

from .chromium import browser, until
from .screen_check import Screens, assert_none, resize
from .stations_rig import start_stations_rig

CONSOLE: Final = ((800, 480), (1280, 800))
STATION: Final = ((1280, 800), (1024, 768))
BOARD: Final = ((1920, 1080), (1080, 1920))
PIT: Final = ((1280, 800), (1920, 1080))
STATION_TAPS: Final = ".chip, .side, .bet, #result"
"""The station's own tap targets (`div`s), and the last game's result a player must see."""
REPO: Final = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.needs("shoe", "layout", "sign", "emulated")


def text(driver: WebDriver, css: str) -> str:
    """The text of the first element `css` finds ("" when there is none or it was redrawn)."""
    try:
        found = driver.find_elements(By.CSS_SELECTOR, css)
        return found[0].text if found else ""
    except StaleElementReferenceException:
        return ""


def tap(driver: WebDriver, css: str) -> None:
    """A finger on the first visible element `css` finds (found again if the page redraws)."""
    until(driver, f"tap {css}", lambda d: _tapped(d, By.CSS_SELECTOR, css))


def tap_text(driver: WebDriver, label: str, within: str = "") -> None:
    """A finger on the visible button reading `label` (inside the element with id `within`)."""
    where = f"//*[@id='{within}']//button" if within else "//button"
    until(driver, f"tap {label!r}", lambda d: _tapped(
        d, By.XPATH, f"{where}[normalize-space(.)='{label}']"))


def _tapped(driver: WebDriver, by: str, where: str) -> bool:
    try:
        shown = [e for e in driver.find_elements(by, where) if e.is_displayed()]
        if not shown:
            return False
        shown[0].click()
    except StaleElementReferenceException:
        return False
    return True


class Windows:
    """One browser, a window a page: `at(name)` brings that page forward at its first size."""

    def __init__(self, driver: WebDriver) -> None:
        self.driver = driver
        self.handles: dict[str, str] = {}
        self.sizes: dict[str, tuple[int, int]] = {}

    def open(self, name: str, url: str, size: tuple[int, int]) -> WebDriver:
        if self.handles:
            self.driver.switch_to.new_window("window")
        self.driver.get(url)
        self.handles[name] = self.driver.current_window_handle
        self.sizes[name] = size
        resize(self.driver, *size)
        return self.driver

    def at(self, name: str) -> WebDriver:
        self.driver.switch_to.window(self.handles[name])
        resize(self.driver, *self.sizes[name])
        return self.driver


def _phase(driver: WebDriver) -> str:
    return text(driver, "#phase").lower()


def _log_in_to_pit(driver: WebDriver, user: str, password: str) -> None:
    until(driver, "the pit's login form", lambda d: d.find_elements(By.ID, "user"))
    for field, value in (("user", user), ("password", password)):
        box = driver.find_element(By.ID, field)
        box.clear()
        box.send_keys(value)
    tap(driver, "#log-in")


# Community round: spot 1 TH 9C = 19, spot 2 8D 8S (a pair: SPLIT offered), spot 3 5H 6C = 11
# (DOUBLE offered); the dealer 6D up, TS in the hole: 16, draws 9S and busts.
COMMUNITY_ROUND = ["TH", "8D", "5H", "6D", "9C", "8S", "6C", "TS", "9S"]
COMMUNITY_EXTRA = ["2C", "3C", "4C", "5C", "6H", "7H", "8H", "9D", "2D", "3D"]


def test_stations_the_community_console_and_the_pit_view(tmp_path: Path) -> None:
    demo = tomllib.loads((REPO / "docs/examples/community-table.toml").read_text())
    rig = start_stations_rig(tmp_path, [*COMMUNITY_ROUND, *COMMUNITY_EXTRA], 600)
    offered = rig.app.table.game.community.side_bets  # the guide's table: side wagers offered
    station, console, pit = (Screens("station", STATION), Screens("console-community", CONSOLE),
                             Screens("pit", PIT, page_may_scroll=True))
    driver = browser(*STATION[0])
    pages = Windows(driver)
    kiosk = browser(*CONSOLE[0])  # a browser of its own: the kiosk's session is not a station's
    consoles = Windows(kiosk)
    try:
        assert [str(b) for b in offered] == demo["rules"]["community"]["side_bets"]
        assert rig.request("POST", "/api/command", {"command": "shuffle_done"})[0] == 200
        page = pages.open("pit", rig.web.servers[1].url, PIT[0])
        _log_in_to_pit(page, "A3", ATTENDANT_PASSWORD)
        until(page, "the pit's stations", lambda d: d.find_element(
            By.ID, "stations").is_displayed())
        for n in (1, 2, 3):
            answer = rig.request("POST", f"/api/pit/station/{n}/credits",
                                 {"action": "in", "cents": 100_000}, pit=True)
            assert answer[0] == 200, answer
        page = consoles.open("console", f"{rig.url}#token={KIOSK}", CONSOLE[0])
        until(page, "the console betting", lambda d: _phase(d) == "betting")
        page = pages.open("station", rig.station_url(1), STATION[0])
        until(page, "bets please", lambda d: text(d, "#message") == "BETS PLEASE")
        tap(page, "#chips .chip[data-cents='500']")
        for spot in (1, 2, 3):
            tap(page, f"#spot-{spot} .bet")
            until(page, f"5.00 on spot {spot}", lambda d, s=spot: "5.00" in text(
                d, f"#spot-{s} .bet"))
        tap(page, "#side-1-perfect-pairs")
        until(page, "perfect pairs placed", lambda d: text(
            d, "#side-1-perfect-pairs").startswith("PERFECT PAIRS 5.00"))
        station.check(page, "betting", STATION_TAPS)
        console.check(consoles.at("console"), "betting")
        pit.check(pages.at("pit"), "stations")

        assert rig.request("POST", "/api/command", {"command": "no_more_bets"})[0] == 200
        for _ in range(8):
            rig.shoe.draw()
        rig.call(lambda rt: None)
        page = pages.at("station")
        until(page, "the station decides", lambda d: text(d, "#message") == "MAKE YOUR DECISION")
        until(page, "split and double offered", lambda d: "SPLIT" in text(d, "#spot-2")
              and "DOUBLE" in text(d, "#spot-3"))
        station.check(page, "decisions", STATION_TAPS)
        page = consoles.at("console")
        until(page, "the console waits", lambda d: "station" in text(d, "#prompt"))
        console.check(page, "decisions")

        page = pages.at("station")
        for spot in (1, 2, 3):
            until(page, f"spot {spot} to act", lambda d, s=spot: "STAND" in text(
                d, f"#spot-{s}"))
            tap_text(page, "STAND", f"spot-{spot}")
            until(page, f"spot {spot} stood", lambda d, s=spot: "STAND" not in text(
                d, f"#spot-{s}"))
        for n in (2, 3):  # the other stations have no wager: nothing to wait for
            assert rig.request("GET", f"/api/station/{n}")[0] == 200
        until(page, "the dealer's turn", lambda d: "10S" in text(d, "#dealer-cards"))
        rig.shoe.draw()  # 9S: the dealer busts
        rig.call(lambda rt: None)
        until(page, "the last game won", lambda d: text(d, "#message") == "BETS PLEASE"
              and "LAST GAME WON" in text(d, "#result"))
        station.check(page, "settled", STATION_TAPS)
        page = consoles.at("console")
        until(page, "the console settled", lambda d: _phase(d) == "betting")
        console.check(page, "settled")
    finally:
        driver.quit()
        kiosk.quit()
        rig.close()
    assert_none(station, console, pit)


