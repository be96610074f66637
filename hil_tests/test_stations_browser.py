"""Three player stations in a real browser: Chromium (the distribution's package, driven by
its chromedriver) plays community rounds at three stations at once on the emulated rig.

Each station is a window of its own on its page (`/station/N`), live on its event stream, at
a 1280x800 panel. The attendant logs in to the pit view through its form and credits
the stations. People tap chips and spots, drag a chip onto a spot, clear a chip, stand and
hit; a side wager (Perfect Pairs) goes beside a main wager, is settled with its spot and
placed again by AUTO REPEAT; the cards come from the emulated shoe, as the dealer draws them.
One station is left alone and closed mid-round: reopened, it finds its wager and its cards
(the state is the server's); its timer then runs out (the loop's clock is moved on, so no
step depends on the machine's speed) and every hand of it stands. REPEAT is pressed, and
held for 3 seconds for AUTO REPEAT, which places the wager again at the next round. The hole
card is on no page before it is turned over; every button is a touch target of at least
15 mm.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver

from tests.console.live import ATTENDANT_PASSWORD, KIOSK

from .chromium import browser, tap, until
from .stations_rig import STATIONS, StationsRig, start_stations_rig

DECISION_S = 120
"""The decision limit: long, so people at the pages are never hurried by a busy machine;
the expiry comes from moving the loop's clock on."""
TOUCH_PX = 89
"""15 mm on a 10-inch 1280x800 panel (about 150 px an inch)."""

pytestmark = pytest.mark.needs("shoe", "layout", "sign", "emulated")

# Round 1 (spot 1, 2, 3, up; spot 1, 2, 3, hole): spot 1 TH 9C = 19, spot 2 7D 5S = 12,
# spot 3 5H 6C = 11; the dealer 6D up, TS in the hole. Station 2 hits spot 3: 8H (19); the
# dealer draws 9S to 25 and busts.
ROUND_1 = ["TH", "7D", "5H", "6D", "9C", "5S", "6C", "TS", "8H", "9S"]
HOLE_1 = "TS"
# Round 2: spot 1 TC 8C = 18, spot 3 2S 3S = 5; the dealer 7S up, TD in the hole: 17, stands.
ROUND_2 = ["TC", "9D", "2S", "7S", "8C", "9H", "3S", "TD"]
EXTRA = ["2C", "3C", "4C", "5C", "6H", "7H", "8D", "9D", "2D", "3D"]


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[StationsRig]:
    stations = start_stations_rig(tmp_path, [*ROUND_1, *ROUND_2, *EXTRA], DECISION_S)
    try:
        yield stations
    finally:
        stations.close()


class Stations:
    """One browser, a window a station; `at(n)` brings station n's window forward."""

    def __init__(self, driver: WebDriver, rig: StationsRig) -> None:
        self.driver = driver
        self.rig = rig
        self.windows: dict[int, str] = {}

    def open(self, station: int) -> WebDriver:
        self.driver.switch_to.new_window("window")
        self.driver.get(self.rig.station_url(station))
        self.windows[station] = self.driver.current_window_handle
        until(self.driver, f"station {station} connected",
              lambda d: d.find_element(By.ID, "link").text == "connected")
        return self.driver

    def close(self, station: int) -> None:
        self.at(station).close()
        del self.windows[station]
        self.driver.switch_to.window(next(iter(self.windows.values())))  # the pit's is first

    def at(self, station: int) -> WebDriver:
        self.driver.switch_to.window(self.windows[station])
        return self.driver


def text(driver: WebDriver, element_id: str) -> str:
    """The element's text ("" when the page redrew it while it was read)."""
    try:
        return driver.find_element(By.ID, element_id).text
    except StaleElementReferenceException:
        return ""


def tap_action(driver: WebDriver, spot: int, label: str) -> None:
    until(driver, f"{label} on spot {spot}", lambda d: _tapped_button(d, spot, label))


def _tapped_button(driver: WebDriver, spot: int, label: str) -> bool:
    try:
        for button in driver.find_elements(By.CSS_SELECTOR, f"#spot-{spot} button"):
            if button.text == label:
                button.click()
                return True
    except StaleElementReferenceException:
        return False
    return False


def spot_text(driver: WebDriver, spot: int) -> str:
    try:
        return driver.find_element(By.ID, f"spot-{spot}").text
    except StaleElementReferenceException:
        return ""


def drag_chip(driver: WebDriver, cents: int, spot: int) -> None:
    chip = driver.find_element(By.CSS_SELECTOR, f"#chips .chip[data-cents='{cents}']")
    target = driver.find_element(By.CSS_SELECTOR, f"#spot-{spot} .bet")
    ActionChains(driver).click_and_hold(chip).move_by_offset(20, -20).move_to_element(
        target).release().perform()


def hold(driver: WebDriver, css: str, seconds: float) -> None:
    button = driver.find_element(By.CSS_SELECTOR, css)
    ActionChains(driver).click_and_hold(button).pause(seconds).release().perform()


def small_buttons(driver: WebDriver) -> list[object]:
    sizes = driver.execute_script(
        "return [...document.querySelectorAll('button, .chip, .side')]"
        ".filter(b => b.offsetParent !== null).map(b => { const r = b.getBoundingClientRect();"
        " return [b.textContent.trim(), r.width, r.height]; })")
    return [s for s in sizes if s[1] < TOUCH_PX or s[2] < TOUCH_PX]


def deal(rig: StationsRig, count: int) -> None:
    for _ in range(count):
        rig.shoe.draw()
    rig.call(lambda rt: None)


def table_state(rig: StationsRig) -> dict[str, object]:
    status, body = rig.request("GET", "/api/table")
    assert status == 200
    return body


def station_row(driver: WebDriver, station: int) -> str:
    """The dealer console's line for `station` ("" while it has none)."""
    rows = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "#community-stations "
                                                 ".station-row") if e.is_displayed()]
    return next((r for r in rows if r.startswith(f"STATION {station}:")), "")


def test_three_stations_play_two_rounds_at_once(rig: StationsRig) -> None:
    assert rig.request("POST", "/api/command", {"command": "shuffle_done"})[0] == 200
    driver = browser()
    pages = Stations(driver, rig)
    try:
        # The attendant A3 logs in to the pit view (their credential typed into the login
        # form: never in the address) and gives each station 200.00 of credits.
        pit = rig.web.servers[1].url
        driver.get(pit)
        until(driver, "the login page", lambda d: d.current_url == f"{pit}login")
        user = driver.find_element(By.ID, "user")
        user.clear()
        user.send_keys("A3")
        driver.find_element(By.ID, "password").send_keys("not the password")
        tap(driver, "#log-in")
        until(driver, "a wrong password refused", lambda d: d.find_element(
            By.ID, "failed").is_displayed())
        user = driver.find_element(By.ID, "user")  # the page came back afresh
        user.clear()
        user.send_keys("A3")
        password = driver.find_element(By.ID, "password")
        password.clear()
        password.send_keys(ATTENDANT_PASSWORD)
        tap(driver, "#log-in")
        until(driver, "logged in", lambda d: d.current_url == pit)
        assert ATTENDANT_PASSWORD not in driver.current_url
        session = driver.get_cookie("shoectl_pit")
        assert session is not None
        assert session["httpOnly"] is True
        assert session.get("sameSite") == "Strict"
        assert ATTENDANT_PASSWORD not in session["value"]
        until(driver, "the pit's stations", lambda d: d.find_element(
            By.ID, "stations").is_displayed())
        for station in range(1, STATIONS + 1):
            for field, value in (("credit-station", str(station)), ("credit-amount", "200.00")):
                box = driver.find_element(By.ID, field)
                box.clear()
                box.send_keys(value)
            tap(driver, "#credit-in")
            until(driver, f"station {station} credited", lambda d, n=station: text(
                d, "credit-answer") == f"station {n}: credits 200.00")
        assert rig.request("GET", "/api/pit", pit=True)[1]["stations"][2]["credits"] == 20_000
        for station in range(1, STATIONS + 1):
            page = pages.open(station)
            until(page, "bets please", lambda d: text(d, "message") == "BETS PLEASE")
            assert text(page, "credits") == "200.00"
            assert "MIN 5.00" in text(page, "limits")
        assert small_buttons(driver) == []

        # Station 1: the 5 chip, spot 1 twice, and Perfect Pairs beside it (refused before the
        # main wager). Station 2: the 25 chip dragged onto spot 3. Station 3: the 5 chip on
        # spot 2, cleared, placed again.
        page = pages.at(1)
        assert "SIDE 1.00 to 500.00" in text(page, "limits")
        tap(page, "#chips .chip[data-cents='500']")
        assert text(page, "denom") == "5.00"
        tap(page, "#side-1-perfect-pairs")
        until(page, "no side wager alone", lambda d: "place the main wager first" in text(
            d, "error"))
        tap(page, "#spot-1 .bet")
        until(page, "5.00 on spot 1", lambda d: "5.00" in spot_text(d, 1))
        tap(page, "#spot-1 .bet")
        until(page, "10.00 on spot 1", lambda d: "10.00" in spot_text(d, 1))
        tap(page, "#side-1-perfect-pairs")
        until(page, "perfect pairs 5.00", lambda d: text(
            d, "side-1-perfect-pairs") == "PERFECT PAIRS 5.00")
        # the credits drop by what is on the spots, shown beside them
        until(page, "credits less the wagers", lambda d: text(d, "credits") == "185.00")
        assert text(page, "at-stake") == "BET 15.00"
        page = pages.at(2)
        drag_chip(page, 2500, 3)
        until(page, "25.00 dragged to spot 3", lambda d: "25.00" in spot_text(d, 3))
        assert text(page, "denom") == "25.00"
        page = pages.at(3)
        tap(page, "#chips .chip[data-cents='500']")
        tap(page, "#spot-2 .bet")
        until(page, "5.00 on spot 2", lambda d: "5.00" in spot_text(d, 2))
        tap(page, "#clear-last")
        until(page, "spot 2 cleared", lambda d: "SPOT 2" in spot_text(d, 2))
        tap(page, "#spot-2 .bet")
        until(page, "5.00 on spot 2 again", lambda d: "5.00" in spot_text(d, 2))

        assert rig.request("POST", "/api/command", {"command": "last_bets"})[0] == 200
        until(page, "last bets", lambda d: text(d, "message") == "LAST BETS PLEASE")
        dealer = browser(800, 480)  # the dealer's console: every wager, side wagers too
        try:
            dealer.get(f"{rig.url}#token={KIOSK}")
            until(dealer, "station 1's side wager on the console", lambda d: station_row(
                d, 1) == "STATION 1: spot 1 10.00 (+ PERFECT PAIRS 5.00)")
            assert rig.request("POST", "/api/command", {"command": "no_more_bets"})[0] == 200
            until(dealer, "the stations in play, none finished before a card is dealt",
                  lambda d: [station_row(d, n).split(" · ")[0] for n in (1, 2, 3)] == [
                      f"STATION {n}: IN PLAY" for n in (1, 2, 3)])
            assert "PERFECT PAIRS 5.00" in station_row(dealer, 1)
        finally:
            dealer.quit()
        deal(rig, 8)
        for station in (1, 2, 3):
            page = pages.at(station)
            until(page, f"station {station} decides",
                  lambda d: text(d, "message") == "MAKE YOUR DECISION")
            assert text(page, "dealer-cards") == "6D"  # the hole card (TS) is on no page
            assert HOLE_1 not in page.execute_script("return JSON.stringify(view)")
        assert "120 s" in text(pages.at(1), "timer") or "119 s" in text(pages.at(1), "timer")
        tap_action(pages.at(1), 1, "STAND")
        until(pages.at(1), "station 1 done", lambda d: text(d, "message") == "ALL HANDS STAND")
        tap_action(pages.at(2), 3, "HIT")
        until(pages.at(2), "station 2 waits", lambda d: text(d, "message") == "WAIT FOR THE CARD")

        # Station 3 walks away mid-round; its time runs out while it is away (the loop's clock
        # is moved on): every hand of it stands. Back, it finds that, its wager, its cards.
        pages.close(3)
        assert table_state(rig)["prompt"] == "station 3 deciding (do not draw)"
        rig.skip(DECISION_S)
        assert table_state(rig)["prompt"] == "draw a community card: station 2 spot 3 hand 1"
        page = pages.open(3)
        until(page, "station 3 back, stood", lambda d: text(d, "message") == "ALL HANDS STAND")
        assert "5.00" in spot_text(page, 2)
        assert "7D" in spot_text(page, 2)
        assert "5S" in spot_text(page, 2)

        deal(rig, 1)  # 8H: station 2's spot 3 is 19
        page = pages.at(2)
        until(page, "station 2 decides again",
              lambda d: text(d, "message") == "MAKE YOUR DECISION")
        assert "19" in spot_text(page, 3)
        tap_action(page, 3, "STAND")
        until(page, "the dealer's turn", lambda d: "10S" in text(d, "dealer-cards"))  # TS
        deal(rig, 1)  # 9S: the dealer busts with 25
        until(page, "round 1 settled", lambda d: "WON 25.00" in text(d, "result"))
        until(page, "credits paid", lambda d: text(d, "credits") == "225.00")
        # Station 1's main wager won 10.00; its Perfect Pairs (TH 9C: no pair) lost 5.00.
        assert "WON 5.00" in text(pages.at(1), "result")
        assert text(pages.at(1), "side-1-perfect-pairs") == "PERFECT PAIRS LOSE 5.00"
        assert "WON 5.00" in text(pages.at(3), "result")

        # Round 2: station 1 holds REPEAT for 3 s (AUTO REPEAT: its 10.00 and its Perfect
        # Pairs at once and at every round), station 2 presses REPEAT (its 25.00 again),
        # station 3 sits out.
        page = pages.at(1)
        hold(page, "#repeat", 3.5)
        until(page, "auto repeat on", lambda d: text(d, "repeat") == "AUTO REPEAT ON")
        until(page, "10.00 repeated", lambda d: "10.00" in spot_text(d, 1))
        until(page, "perfect pairs repeated", lambda d: text(
            d, "side-1-perfect-pairs").startswith("PERFECT PAIRS 5.00"))
        page = pages.at(2)
        tap(page, "#repeat")
        until(page, "25.00 repeated", lambda d: "25.00" in spot_text(d, 3))
        assert text(page, "repeat") == "REPEAT LAST BET"
        assert rig.request("POST", "/api/command", {"command": "no_more_bets"})[0] == 200
        deal(rig, 8)
        tap_action(pages.at(1), 1, "STAND")
        tap_action(pages.at(2), 3, "STAND")
        page = pages.at(1)
        until(page, "round 2 settled", lambda d: "WON 5.00" in text(d, "result"))  # 18 v 17
        until(page, "auto repeat placed round 3's wager", lambda d: "10.00" in spot_text(d, 1)
              and text(d, "message") == "BETS PLEASE")
        assert "LOST 25.00" in text(pages.at(2), "result")
        assert text(pages.at(2), "credits") == "200.00"
        assert small_buttons(driver) == []
    finally:
        driver.quit()
    status, shown = rig.request("GET", "/api/station/1")
    assert status == 200
    assert shown["credits"] == 20_000 + (1000 - 500) * 2
    assert shown["auto_repeat"] is True
    assert shown["wagers"] == {"1": 1000}
    assert shown["side_wagers"] == {"1": {"perfect-pairs": 500}}
    settled = [s for r in rig.journal_records("round:settled") for s in r["stations"]
               if s["station"] == 1]
    assert [p["side_bets"] for s in settled for p in s["spots"]] == [
        {"perfect-pairs": -500}, {"perfect-pairs": -500}]
