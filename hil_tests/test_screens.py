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

import base64
import http.client
import json
import tomllib
import urllib.parse
from pathlib import Path
from typing import Any, Final

import pytest
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver

from controller.service.app import TableApp
from tests.console.live import ATTENDANT_PASSWORD, KIOSK

from .chromium import browser, tap, tap_text, until
from .console_rig import ConsoleRig, start_console_rig
from .holdem_rig import SPOTS, start_holdem_rig
from .roulette_rig import PIT_PASSWORD as ROULETTE_PIT_PASSWORD
from .roulette_rig import RouletteRig, start_roulette_rig
from .screen_check import Screens, assert_none, resize, screen_faults
from .stations_rig import start_stations_rig
from .test_floor_browser import _cell as floor_cell
from .test_floor_browser import _listening as floor_listening
from .test_floor_browser import floor  # noqa: F401 (a fixture: the floor's rig and a browser)
from .test_holdem_console_browser import DEALER, FLOP, RIVER, SEAT_1, TURN
from .test_holdem_console_browser import decide as holdem_decide
from .test_holdem_console_browser import key_on_keypad as holdem_key
from .test_holdem_console_browser import read as holdem_read

CONSOLE: Final = ((800, 480), (1280, 800))
STATION: Final = ((1280, 800), (1024, 768))
BOARD: Final = ((1920, 1080), (1080, 1920))
PIT: Final = ((1280, 800), (1920, 1080))
STATION_TAPS: Final = ".chip, .side, .bet, #result"
"""The station's own tap targets (`div`s), and the last game's result a player must see."""
BEHIND_PANEL: Final = "body > :not(.panel)"
"""Everything but the console's open panel: covered by it, not needed while it is open."""
REPO: Final = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.needs("shoe", "layout", "sign", "emulated")


def text(driver: WebDriver, css: str) -> str:
    """The text of the first element `css` finds ("" when there is none or it was redrawn)."""
    try:
        found = driver.find_elements(By.CSS_SELECTOR, css)
        return found[0].text if found else ""
    except StaleElementReferenceException:
        return ""


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


FAULTY_PAGE: Final = """<!doctype html><html><body style="margin:0">
<button id="fine" style="width:90px;height:90px">FINE</button>
<button id="covered" style="position:absolute;top:100px;width:90px;height:90px">COVERED</button>
<footer id="bar" style="position:fixed;top:120px;left:0;width:300px;height:40px;
  background:#333">BAR</footer>
<button id="away" style="position:absolute;left:500px;top:10px;width:90px">AWAY</button>
<div id="inner" style="position:absolute;top:150px;height:80px;width:200px;overflow:auto">
  <div style="height:70px"></div><button id="clipped" style="height:60px">CLIPPED</button>
</div>
<button id="gone" hidden>GONE</button><button id="off" disabled>OFF</button>
<div id="shut" hidden style="display:flex"><button id="shown">SHOWN</button></div>
</body></html>"""
"""One control of each fault the check must name, and two it must leave alone."""


def test_the_check_names_each_control_a_person_cannot_reach() -> None:
    driver = browser(400, 300)
    try:
        driver.get("data:text/html;charset=utf-8," + urllib.parse.quote(FAULTY_PAGE))
        faults = screen_faults(driver)
    finally:
        driver.quit()
    assert faults == [
        "the page scrolls: 590x285 in a 400x300 window",
        'button#covered "COVERED" is covered at its centre by footer#bar "BAR"',
        'button#away "AWAY" lies outside the 400x300 window at 500,10-590,31',
        "div#inner must be scrolled: 185x130 in 185x80",
        'button#clipped "CLIPPED" is cut off by div#inner (it scrolls or clips); '
        "at its centre: html",
        'button#shown "SHOWN" shows although div#shut is hidden',
    ], faults


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
                             Screens("pit-community", PIT, page_may_scroll=True))
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




def _command(url: str, body: dict[str, object]) -> None:
    """A dealer's command to the console's API, as the kiosk (which must accept it)."""
    address = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(address.hostname or "", address.port, timeout=60)
    conn.request("POST", "/api/command", body=json.dumps(body).encode(), headers={
        "Authorization": f"Bearer {KIOSK}", "Content-Type": "application/json"})
    answer = conn.getresponse()
    assert answer.status == 200, answer.read().decode()
    conn.close()


def _seq(driver: WebDriver) -> str | None:
    return driver.find_element(By.TAG_NAME, "body").get_attribute("data-seq")


def _draw(rig: ConsoleRig, driver: WebDriver, count: int) -> None:
    """Cards out of the emulated shoe, each one on the page before the next."""
    for _ in range(count):
        before = _seq(driver)
        rig.shoe.draw()
        until(driver, "the card on the page", lambda d, was=before: _seq(d) != was)


def _seat(driver: WebDriver, seat: int, chips: list[int]) -> None:
    tap(driver, f"button.seat[data-seat='{seat}']")
    for chip in chips:
        tap(driver, f"#chips .chip[data-chip='{chip}']")
    tap(driver, "#panel-done")
    until(driver, f"seat {seat} in play", lambda d: "in-play" in (d.find_element(
        By.CSS_SELECTOR, f"button.seat[data-seat='{seat}']").get_attribute("class") or ""))


# Round 1, seats 1 and 3: seat 1 AS KH blackjack, seat 3 TC 7H; the dealer 6D, TD in the
# hole, draws 9C. Round 2, seats 1 and 2: the dealer shows AC (insurance).
BLACKJACK = ["AS", "TC", "6D", "KH", "7H", "TD", "9C",
             "5S", "8D", "AC", "QS", "9H", "4S", "3D", "2C", "2D", "2H", "3C", "3H", "5D"]


def test_the_blackjack_console(tmp_path: Path) -> None:
    rig = start_console_rig(tmp_path, BLACKJACK)
    console = Screens("console-blackjack", CONSOLE)
    driver = browser(*CONSOLE[0])
    try:
        driver.get(rig.kiosk_url)
        until(driver, "the shoe to load", lambda d: _phase(d) == "shoe loading")
        console.check(driver, "shuffle")
        tap_text(driver, "SHUFFLE DONE")
        until(driver, "betting open", lambda d: _phase(d) == "betting")
        tap(driver, "button.seat[data-seat='1']")
        until(driver, "the seat's panel", lambda d: d.find_element(By.ID, "panel-done")
              .is_displayed())
        console.check(driver, "seat-panel", outside=BEHIND_PANEL)
        for chip in (500, 500):
            tap(driver, f"#chips .chip[data-chip='{chip}']")
        tap(driver, "#panel-done")
        _seat(driver, 3, [2500])
        console.check(driver, "betting")
        _draw(rig, driver, 6)
        until(driver, "seat 3 to decide", lambda d: _phase(d) == "players")
        console.check(driver, "decisions")
        tap_text(driver, "STAND SEAT 3")  # the decisions name the seat due
        until(driver, "the dealer to draw", lambda d: _phase(d) == "dealer")
        console.check(driver, "dealer")
        _draw(rig, driver, 1)
        until(driver, "settled, betting again", lambda d: _phase(d) == "betting"
              and "pay seat 1" in text(d, "#prompt"))
        console.check(driver, "settled")
        tap(driver, "button.seat[data-seat='1']")
        tap(driver, "#panel-same")
        tap(driver, "button.seat[data-seat='2']")
        tap(driver, "#panel-unknown")
        until(driver, "seats 1 and 2 in play", lambda d: len(d.find_elements(
            By.CSS_SELECTOR, "button.seat.in-play")) == 2)
        _draw(rig, driver, 6)
        until(driver, "insurance", lambda d: _phase(d) == "insurance")
        console.check(driver, "insurance")
    finally:
        driver.quit()
        rig.close()
    assert_none(console)


# Player 4H 5D = 9, banker 3C 5S = 8: naturals, no third card.
BACCARAT = ["4H", "3C", "5D", "5S", "2C", "2D", "2H", "3D", "3H", "4C", "4D", "5C"]


def test_the_baccarat_console(tmp_path: Path) -> None:
    rig = start_console_rig(tmp_path, BACCARAT, game="baccarat")
    console = Screens("console-baccarat", CONSOLE)
    driver = browser(*CONSOLE[0])
    try:
        driver.get(rig.kiosk_url)
        until(driver, "the shoe to load", lambda d: _phase(d) == "shoe loading")
        tap_text(driver, "SHUFFLE DONE")
        until(driver, "betting open", lambda d: _phase(d) == "betting")
        console.check(driver, "bets-open")
        for bet in ("banker", "player"):  # the wagers the layout's spots carry: by command
            _command(rig.url, {"command": "wager", "seat": 1, "bet": bet, "cents": 1000})
        until(driver, "the wagers on the page", lambda d: "10.00" in text(d, "#seats"))
        console.check(driver, "betting")
        _draw(rig, driver, 1)
        until(driver, "dealing", lambda d: _phase(d) == "dealing")
        until(driver, "the Player's first card", lambda d: "4H" in text(d, "#dealer-cards"))
        assert text(driver, "#coup-player-total") == "4"
        console.check(driver, "dealing")
        _draw(rig, driver, 3)
        until(driver, "settled, betting again", lambda d: _phase(d) == "betting"
              and bool(rig.web.hubs[0].latest and rig.web.hubs[0].latest.table["last_round"]))
        # the settled coup stays on screen while the next is bet: 4H 5D (9) against 3C 5S (8)
        until(driver, "the last coup", lambda d: text(d, "#coup-result") == "PLAYER WINS")
        assert (text(driver, "#coup-player-total"), text(driver, "#coup-banker-total")) == (
            "9", "8")
        assert text(driver, "#dealer .label") == "COUP 1"
        console.check(driver, "settled")
    finally:
        driver.quit()
        rig.close()
    assert_none(console)


BOARD_PANELS: Final = ("#banner, #latest, #history-box, #stats, #hotcold, #history li, "
                       "#hot li, #cold li, .percent > *")
"""What the result board must show whole and uncovered (it has no controls)."""


def _roulette_phase(rig: RouletteRig, phase: str) -> None:
    while rig.table()["phase"] != phase:
        assert rig.step(), f"the wheel's script ended before {phase}"


def test_the_roulette_console_result_board_and_pit_view(tmp_path: Path) -> None:
    rig = start_roulette_rig(tmp_path, seed=5, faults=False)
    console = Screens("console-roulette", CONSOLE)
    board = Screens("board", BOARD)
    pit = Screens("pit-roulette", PIT, page_may_scroll=True)
    driver = browser(*CONSOLE[0])
    marquee = browser(*BOARD[0])  # the board's own session: not the kiosk's
    pages = Windows(marquee)
    try:
        rig.play(20)  # numbers on the board, spins for the pit's bias monitor
        rig.live()
        driver.get(rig.kiosk_url)
        page = pages.open("board", rig.board_url, BOARD[0])
        until(page, "numbers on the board", lambda d: len(d.find_elements(
            By.CSS_SELECTOR, "#history li")) >= 15)
        token = base64.b64encode(f"supervisor:{ROULETTE_PIT_PASSWORD}".encode()).decode()
        page = pages.open("pit", "about:blank", PIT[0])
        page.execute_cdp_cmd("Network.enable", {})  # the supervisor's credential, as sent
        page.execute_cdp_cmd("Network.setExtraHTTPHeaders",
                             {"headers": {"Authorization": f"Basic {token}"}})
        page.get(rig.pit_url)
        until(page, "the bias monitor", lambda d: text(d, "#bias-spins") != "")
        # roulette offers no progressive wager: no meters, hits or progressive row
        assert not page.find_element(By.ID, "progressive-section").is_displayed()
        assert not page.find_element(By.ID, "progressive-row").is_displayed()
        pit.check(page, "betting")

        _roulette_phase(rig, "betting")
        until(driver, "betting open", lambda d: _phase(d) == "betting")
        console.check(driver, "bets-open")
        board.check(pages.at("board"), "betting", BOARD_PANELS)
        tap(driver, "button.seat[data-seat='1']")
        tap(driver, "#ro-chips .chip[data-chip='2500']")
        tap(driver, "#ro-grid button[data-number='17']")
        tap(driver, "#ro-place")
        until(driver, "the straight on 17", lambda d: "straight 17 25.00" in text(
            d, "#ro-wagers"))
        console.check(driver, "betting", outside=BEHIND_PANEL)
        tap(driver, "#ro-done")
        _roulette_phase(rig, "marker")
        number = rig.table()["roulette"]["spin"]["number"]
        until(driver, "the marker asked for", lambda d: f"MARKER ON {number}" in text(
            d, "#actions"))
        console.check(driver, "marker")
        board.check(pages.at("board"), "result", BOARD_PANELS)
        tap_text(driver, f"MARKER ON {number}")
        until(driver, "clearing", lambda d: _phase(d) == "clearing")
        tap_text(driver, "LOSERS CLEARED")
        until(driver, "paying", lambda d: _phase(d) == "paying")
        console.check(driver, "paying")
        tap_text(driver, "WINNERS PAID")
        until(driver, "back to betting", lambda d: _phase(d) == "betting")
        console.check(driver, "settled")
    finally:
        driver.quit()
        marquee.quit()
        rig.close()
    assert_none(console, board, pit)


def test_the_holdem_console(tmp_path: Path) -> None:
    rig = start_holdem_rig(tmp_path)
    console = Screens("console-holdem", CONSOLE)
    driver = browser(*CONSOLE[0])
    try:
        driver.get(rig.kiosk_url)
        until(driver, "the shuffle", lambda d: _phase(d) == "shuffling")
        console.check(driver, "shuffle")
        tap_text(driver, "SHUFFLE DONE")
        until(driver, "betting open", lambda d: _phase(d) == "betting")
        tap(driver, "button.he-seat[data-seat='1']")
        tap(driver, "#hp-chips .chip[data-chip='500']")
        console.check(driver, "seat-panel", outside=BEHIND_PANEL)
        tap(driver, "#hp-done")  # the ante; the panel goes on to the bonus at once
        tap(driver, "#hp-chips .chip[data-chip='500']")
        tap(driver, "#hp-done")
        until(driver, "seat 1's wagers", lambda d: "BONUS 5.00" in text(
            d, "button.he-seat[data-seat='1']"))
        rig.layout.place_chip(SPOTS["seat2.ante"])
        until(driver, "seat 2's sensed ante", lambda d: "(chips)" in text(
            d, "button.he-seat[data-seat='2']"))
        console.check(driver, "betting")
        tap_text(driver, "NO MORE BETS")
        until(driver, "the deal", lambda d: _phase(d) == "dealing")
        tap_text(driver, "HOLE CARDS DEALT")
        until(driver, "decisions", lambda d: _phase(d) == "decisions")
        console.check(driver, "decisions")
        holdem_decide(driver, "SEAT 1 BET")
        holdem_decide(driver, "SEAT 2 FOLD")
        until(driver, "the flop asked for", lambda d: text(d, "#prompt") == (
            "burn, turn up the flop"))
        holdem_read(rig, driver, "flop", FLOP, "he-board")
        until(driver, "seat 1 to decide", lambda d: text(d, "#prompt") == "bet or check: seat 1")
        holdem_decide(driver, "SEAT 1 CHECK")
        tap(driver, "#he-key-open")
        until(driver, "the keypad", lambda d: d.find_element(By.ID, "kp-key").is_displayed())
        console.check(driver, "keypad", outside=BEHIND_PANEL)
        tap(driver, f"#kp-ranks button[data-rank='{TURN[0][0]}']")
        tap(driver, f"#kp-suits button[data-suit='{TURN[0][1]}']")
        tap(driver, "#kp-key")
        until(driver, "the turn keyed", lambda d: "2H" in text(d, "#he-board"))
        holdem_decide(driver, "SEAT 1 BET")
        holdem_key(driver, RIVER[0])
        until(driver, "the dealer's cards due",
              lambda d: text(d, "#prompt") == "expose the dealer's two cards")
        holdem_read(rig, driver, "dealer", DEALER, "dealer-cards")
        holdem_read(rig, driver, "seat1", SEAT_1, "he-results")
        until(driver, "the next shuffle", lambda d: _phase(d) == "shuffling")
        console.check(driver, "settled")
    finally:
        driver.quit()
        rig.close()
    assert_none(console)


def test_the_floor_view(floor: dict[str, Any]) -> None:  # noqa: F811 (the fixture)
    app: TableApp = floor["app"]
    driver: WebDriver = floor["driver"]
    view = Screens("floor", PIT, page_may_scroll=True)
    name = app.table.game.table.name
    until(driver, "the floor view listening", lambda d: floor_listening(floor["port"]))
    driver.get(floor["url"])
    until(driver, f"{name} linked and shipping", lambda d: (
        floor_cell(d, name, "link") == "online" and floor_cell(d, name, "shipping") == "online"))
    view.check(driver, "tables")
    assert_none(view)
