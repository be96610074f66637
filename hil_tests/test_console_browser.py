"""The dealer console in a real browser: Chromium (the distribution's package, driven by its
chromedriver) deals whole rounds on the emulated rig through the console page.

At both screens the console is made for (the official 7-inch display, 800x480, and a 10-inch
1280x800 panel) a person's taps put seats in play, answer insurance and stand; the cards come
from the emulated shoe, as a dealer draws them. The settled rounds must be what the
independent oracle dealer says; the hole card must be on no page before it is turned over;
every button must be a touch target of at least 15 mm on that screen.
"""

from __future__ import annotations

import http.server
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver

from tests.console.live import DEALER_PASSWORD, KIOSK
from tests.oracle.dealer import Seat, Table, play_blackjack

from .chromium import browser, tap, tap_text, until
from .console_rig import ConsoleRig, start_console_rig

pytestmark = pytest.mark.needs("shoe", "layout", "sign", "emulated")

# Round 1, seats 1 (10.00) and 3 (25.00): seat 1 AS KH blackjack, seat 3 TC 7H stands on 17;
# the dealer shows 6D, has TD in the hole and draws 9C: bust.
ROUND_1 = ["AS", "TC", "6D", "KH", "7H", "TD", "9C"]
# Round 2, seat 1 (same as last round) and seat 2 (in play, amount not known): the dealer shows
# AC (insurance, both decline), 4S in the hole (no blackjack), draws 3D to a soft 18.
ROUND_2 = ["5S", "8D", "AC", "QS", "9H", "4S", "3D"]
HOLE_2 = "4S"
EXTRA = ["2C", "2D", "2H", "3C", "3H", "5D"]
TOUCH_PX = {(800, 480): 79, (1280, 800): 89}
"""15 mm in pixels: about 133 px an inch on the 7-inch display, 150 on the 10-inch panel."""


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[ConsoleRig]:
    console = start_console_rig(tmp_path, [*ROUND_1, *ROUND_2, *EXTRA])
    try:
        yield console
    finally:
        console.close()


def phase(driver: WebDriver) -> str:
    return driver.find_element(By.ID, "phase").text.lower()  # shown in capitals


def shuffle_and_open_betting(driver: WebDriver) -> None:
    """The dealer taps SHUFFLE DONE once the shoe waits to load; betting opens."""
    until(driver, "the shoe to load", lambda d: phase(d) == "shoe loading")
    tap_text(driver, "SHUFFLE DONE")
    until(driver, "betting open", lambda d: phase(d) == "betting")


def seat_amount(driver: WebDriver, seat: int, chips: list[int]) -> None:
    tap(driver, f"button.seat[data-seat='{seat}']")
    for chip in chips:
        tap(driver, f"#chips .chip[data-chip='{chip}']")
    tap(driver, "#panel-done")
    until(driver, f"seat {seat} in play", lambda d: "in-play" in d.find_element(
        By.CSS_SELECTOR, f"button.seat[data-seat='{seat}']").get_attribute("class"))


def seq(driver: WebDriver) -> str | None:
    return driver.find_element(By.TAG_NAME, "body").get_attribute("data-seq")


def draw(rig: ConsoleRig, driver: WebDriver, count: int) -> None:
    for _ in range(count):
        before = seq(driver)
        rig.shoe.draw()
        until(driver, "the card on the page", lambda d, was=before: seq(d) != was)


def small_buttons(driver: WebDriver, least: int) -> list:
    sizes = driver.execute_script(
        "return [...document.querySelectorAll('button')].filter(b => b.offsetParent !== null)"
        ".map(b => { const r = b.getBoundingClientRect();"
        " return [b.textContent.trim(), r.width, r.height]; })")
    return [s for s in sizes if s[1] < least or s[2] < least]


def table_json(rig: ConsoleRig) -> dict:
    latest = rig.web.hubs[0].latest
    assert latest is not None
    return latest.table


@pytest.mark.parametrize("screen", sorted(TOUCH_PX), ids=lambda s: f"{s[0]}x{s[1]}")
def test_chromium_deals_two_rounds_through_the_console(rig: ConsoleRig,
                                                       screen: tuple[int, int]) -> None:
    driver = browser(*screen)
    try:
        if screen == (1280, 800):  # a dealer at a console of their own: the login form
            by = "dealer:D17"
            driver.get(rig.url)
            log_in(driver, "D17", "not the password")
            until(driver, "a wrong password refused", lambda d: d.find_element(
                By.ID, "login-failed").is_displayed())
            log_in(driver, "D17", DEALER_PASSWORD)
        else:  # the kiosk: its token in the address, exchanged for a session at once
            by = "kiosk"
            driver.get(rig.kiosk_url)
            until(driver, "the token out of the address", lambda d: "#" not in d.current_url)
        shuffle_and_open_betting(driver)
        seat_amount(driver, 1, [500, 500])
        seat_amount(driver, 3, [2500])
        assert small_buttons(driver, TOUCH_PX[screen]) == []
        draw(rig, driver, 6)
        until(driver, "seat 3 to decide", lambda d: phase(d) == "players")
        assert "seat 3" in driver.find_element(By.ID, "prompt").text
        assert small_buttons(driver, TOUCH_PX[screen]) == []
        tap_text(driver, "STAND SEAT 3")
        until(driver, "the dealer to draw", lambda d: phase(d) == "dealer")
        draw(rig, driver, 1)
        until(driver, "back to betting", lambda d: phase(d) == "betting")
        expected = play_blackjack(Table(), [Seat(1, 1000), Seat(3, 2500)], iter(ROUND_1), 1)
        assert table_json(rig)["last_round"] == expected
        prompt = driver.find_element(By.ID, "prompt").text
        assert "pay seat 1 3:2" in prompt
        assert "pay seat 3 1:1" in prompt

        tap(driver, "button.seat[data-seat='1']")
        tap(driver, "#panel-same")  # 10.00, as last round
        tap(driver, "button.seat[data-seat='2']")
        tap(driver, "#panel-unknown")
        until(driver, "seats 1 and 2 in play", lambda d: len(d.find_elements(
            By.CSS_SELECTOR, "button.seat.in-play")) == 2)
        draw(rig, driver, 5)
        assert HOLE_2 not in driver.find_element(By.TAG_NAME, "body").text
        draw(rig, driver, 1)  # the hole card, face down
        until(driver, "insurance", lambda d: phase(d) == "insurance")
        page = driver.find_element(By.TAG_NAME, "body").text
        assert HOLE_2 not in page
        assert "INSURANCE" in page
        tap_text(driver, "SEAT 1 INSURANCE NO")
        tap(driver, "button.seat[data-seat='2']")  # any order: seat 2 through its panel
        tap(driver, "#panel-ins-no")
        until(driver, "decisions", lambda d: phase(d) == "players")
        assert HOLE_2 not in driver.find_element(By.TAG_NAME, "body").text
        tap_text(driver, "STAND SEAT 1")
        until(driver, "seat 2 to decide", lambda d: "seat 2" in d.find_element(
            By.ID, "prompt").text)
        assert HOLE_2 not in driver.find_element(By.TAG_NAME, "body").text
        tap_text(driver, "STAND SEAT 2")
        until(driver, "the dealer to draw", lambda d: phase(d) == "dealer")
        assert HOLE_2 in driver.find_element(By.ID, "dealer-cards").text  # turned over now
        draw(rig, driver, 1)
        until(driver, "back to betting", lambda d: phase(d) == "betting")
        record = table_json(rig)["last_round"]
        assert record["dealer"] == ["AC", "4S", "3D"]
        assert record["seats"][0]["hands"][0]["net"] == -1000
        assert record["seats"][1]["hands"][0]["net"] is None  # amount not known: by ratio
        assert "collect seat 2" in driver.find_element(By.ID, "prompt").text
        given = rig.journal_records("console:command")
        assert given
        assert {record["by"] for record in given} == {by}
    finally:
        driver.quit()


def log_in(driver: WebDriver, user: str, password: str) -> None:
    """Type a user and password into the console's login form and send it."""
    until(driver, "the login form", lambda d: d.find_elements(By.ID, "login-user"))
    for field, text in (("login-user", user), ("login-password", password)):
        element = driver.find_element(By.ID, field)
        element.clear()
        element.send_keys(text)
    driver.find_element(By.ID, "login-go").click()


class _Elsewhere(http.server.BaseHTTPRequestHandler):
    """Another site's page that tries to deal at the console the browser is logged in to."""

    target = ""

    def do_GET(self) -> None:
        page = f"""<!doctype html><title>elsewhere</title><script>
        const body = JSON.stringify({{command: "shuffle_done"}});
        Promise.allSettled([
          fetch("{self.target}api/command", {{method: "POST", mode: "no-cors",
                credentials: "include", headers: {{"Content-Type": "text/plain"}}, body}}),
          fetch("{self.target}api/command", {{method: "POST", credentials: "include",
                headers: {{"Content-Type": "application/json"}}, body}}),
        ]).then(() => {{ document.title = "sent"; }});
        </script>""".encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(page)))
        self.end_headers()
        self.wfile.write(page)

    def log_message(self, *_args: object) -> None:
        pass


def test_a_page_of_another_origin_cannot_deal_at_the_console(rig: ConsoleRig) -> None:
    """Chromium logged in to the console (the kiosk) opens a page of another site that
    POSTs a command to it, as a plain form would and as a script would: both refused."""
    _Elsewhere.target = rig.url
    elsewhere = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Elsewhere)
    serving = threading.Thread(target=elsewhere.serve_forever, daemon=True)
    serving.start()
    driver = browser(800, 480)
    try:
        driver.get(rig.kiosk_url)
        until(driver, "the shoe to load", lambda d: phase(d) == "shoe loading")
        driver.get(f"http://127.0.0.1:{elsewhere.server_port}/")
        until(driver, "the other site's requests sent", lambda d: d.title == "sent")
        assert table_json(rig)["phase"] == "shoe_loading"  # nothing was carried out
        assert rig.journal_records("console:command") == []
        refused = rig.journal_records("console:refused")
        assert refused == []  # refused by the guard, before any credential was looked at
    finally:
        driver.quit()
        elsewhere.shutdown()
        elsewhere.server_close()


_RECORD_URL = ("import pathlib, sys; pathlib.Path(sys.argv[1]).write_text("
               "sys.argv[2].removeprefix('--app='))")


def test_the_kiosk_s_launcher_opens_the_console_logged_in(rig: ConsoleRig,
                                                          tmp_path: Path) -> None:
    """The kiosk unit's path: `shoectl console kiosk` reads the token from systemd's
    credentials directory and hands the browser only a one-time code, which the page trades
    for its session; when that session ends, or the code is refused, the page closes its
    window (the unit starts the launcher again with a fresh code)."""
    secrets = tmp_path / "credentials"
    secrets.mkdir()
    (secrets / "kiosk-token").write_text(KIOSK + "\n")
    record = tmp_path / "url"
    done = subprocess.run(
        [str(Path(sys.executable).with_name("shoectl")), "console", "kiosk", "--console",
         rig.url, "--", sys.executable, "-c", _RECORD_URL, str(record), "--app={url}"],
        env={"PATH": "/usr/bin:/bin", "CREDENTIALS_DIRECTORY": str(secrets)},
        capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    url = record.read_text()
    assert "#code=" in url
    assert KIOSK not in url
    driver = browser(800, 480, app=url)
    try:
        until(driver, "the code out of the address", lambda d: "#" not in d.current_url)
        until(driver, "the shoe to load", lambda d: phase(d) == "shoe loading")
        assert driver.find_elements(By.ID, "login-form") == []
        assert driver.execute_script(  # the code was used up by the page
            "return fetch('/api/login', {method: 'POST', headers: {'Content-Type': "
            "'application/json'}, body: JSON.stringify({code: arguments[0]})})"
            ".then(r => r.status)", url.partition("#code=")[2]) == 401
        tap_text(driver, "SHUFFLE DONE")
        until(driver, "betting open", lambda d: phase(d) == "betting")
        assert rig.journal_records("console:command")[-1]["by"] == "kiosk"
        driver.execute_script(
            "return fetch('/api/logout', {method: 'POST', headers: {'Content-Type': "
            "'application/json'}, body: '{}'}).then(() => location.reload())")
        until(driver, "the window closed for a fresh code", lambda d: d.window_handles == [])
    finally:
        driver.quit()
    again = browser(800, 480, app=url)  # the same code again: used up, so a fresh one
    try:
        until(again, "the window closed on a used code", lambda d: d.window_handles == [])
    finally:
        again.quit()


# ---------------------------------------------------------------- the settled round
ROUND_1_SEATS = {1: (["AS", "KH"], "soft 21", "MAIN BLACKJACK · PAY 15.00"),
                 3: (["TC", "7H"], "17", "MAIN WIN · PAY 25.00")}
"""Round 1 as the settled round shows it: each seat's cards, total and main result."""
SIDE_3 = "PERFECT PAIRS LOSE · COLLECT 5.00"
"""Seat 3's Perfect Pairs (TC 7H: no pair), on a line of its own under the main result."""


def shown_whole(driver: WebDriver, css: str) -> bool:
    """`css` finds an element drawn wholly inside the viewport, neither covered nor cut off
    by a scrolling box at its centre and its corners (what a finger there would touch is the
    element, or inside it)."""
    return bool(driver.execute_script(
        "const el = document.querySelector(arguments[0]); if (!el) return false;"
        "const r = el.getBoundingClientRect();"
        "if (r.width === 0 || r.height === 0 || r.left < 0 || r.top < 0"
        " || r.right > innerWidth || r.bottom > innerHeight) return false;"
        "const x = r.width * 0.2, y = r.height * 0.2;"  # inside rounded corners
        "const points = [[r.left + r.width / 2, r.top + r.height / 2], [r.left + x, r.top + y],"
        " [r.right - x, r.top + y], [r.left + x, r.bottom - y], [r.right - x, r.bottom - y]];"
        "return points.every(([x, y]) => { const hit = document.elementFromPoint(x, y);"
        " return hit !== null && (el === hit || el.contains(hit)); });", css))


def texts(driver: WebDriver, css: str) -> list[str]:
    return [e.text for e in driver.find_elements(By.CSS_SELECTOR, css) if e.is_displayed()]


def settled_missing(driver: WebDriver) -> list[str]:
    """What of settled round 1 is not on screen whole (empty: all of it is)."""
    missing = []
    seen = {"#settled": "the settled banner", "#dealer-cards": "the dealer's cards",
            "#dealer-cards .dealer-total": "the dealer's total",
            "button[data-command='next_round']": "NEXT ROUND"}
    for seat in ROUND_1_SEATS:
        seen[f"button.seat[data-seat='{seat}'] .hand"] = f"seat {seat}'s hand"
        seen[f"button.seat[data-seat='{seat}'] .result"] = f"seat {seat}'s result"
    seen["button.seat[data-seat='3'] .side"] = "seat 3's Perfect Pairs"
    missing += [what for css, what in seen.items() if not shown_whole(driver, css)]
    if texts(driver, "#dealer-cards .card") != ["6D", "10D", "9C"]:
        missing.append("the dealer's three cards")
    if texts(driver, "#dealer-cards .dealer-total") != ["25 BUST"]:
        missing.append("the dealer's 25, bust")
    for seat, (cards, total, result) in ROUND_1_SEATS.items():
        where = f"button.seat[data-seat='{seat}']"
        if [c.replace("10", "T") for c in texts(driver, f"{where} .hand .card")] != cards:
            missing.append(f"seat {seat}'s cards")
        if texts(driver, f"{where} .total") != [total]:
            missing.append(f"seat {seat}'s total")
        if texts(driver, f"{where} .result") != [result]:
            missing.append(f"seat {seat}'s result")
    if texts(driver, "button.seat[data-seat='3'] .side") != [SIDE_3]:
        missing.append("seat 3's Perfect Pairs apart from its main result")
    if "pay seat 1 3:2; pay seat 3 1:1" not in driver.find_element(By.ID, "prompt").text:
        missing.append("the pay line")
    return missing


def settled_gone(driver: WebDriver) -> bool:
    """Nothing of the settled round is left: no hand, no dealer card, no pay line."""
    return (not driver.find_elements(By.CSS_SELECTOR, "button.seat .hand")
            and not driver.find_elements(By.CSS_SELECTOR, "#dealer-cards .card")
            and not driver.find_element(By.ID, "settled").is_displayed()
            and "pay seat" not in driver.find_element(By.ID, "prompt").text
            and not driver.find_elements(By.CSS_SELECTOR, "button[data-command='next_round']"))


def wager(driver: WebDriver, seat: int, bet: str, cents: int) -> None:
    """A side wager entered as the console's API takes it (the page has no side-bet keys)."""
    status = driver.execute_script(
        "return fetch('api/command', {method: 'POST', headers: {'Content-Type': "
        "'application/json'}, body: JSON.stringify({command: 'wager', seat: arguments[0], "
        "bet: arguments[1], cents: arguments[2]})}).then(r => r.status)", seat, bet, cents)
    assert status == 200


def deal_round_1(rig: ConsoleRig, driver: WebDriver) -> None:
    """Round 1 dealt through the console; the hole card face down until it is turned."""
    driver.get(rig.kiosk_url)
    shuffle_and_open_betting(driver)
    seat_amount(driver, 1, [500, 500])
    seat_amount(driver, 3, [2500])
    wager(driver, 3, "perfect-pairs", 500)
    draw(rig, driver, 6)
    until(driver, "seat 3 to decide", lambda d: phase(d) == "players")
    assert texts(driver, "#dealer-cards .card:not(.back)") == ["6D"]
    assert len(driver.find_elements(By.CSS_SELECTOR, "#dealer-cards .card.back")) == 1
    assert shown_whole(driver, "#dealer-cards .card.back")
    assert texts(driver, "#dealer-cards .dealer-total") == ["showing 6"]
    assert "10D" not in driver.find_element(By.TAG_NAME, "body").text  # the hole card, TD
    decisions = driver.find_elements(By.CSS_SELECTOR, "#actions button[data-command]")
    named = {b.get_attribute("data-command"): b.text for b in decisions}
    assert named["stand"] == "STAND SEAT 3"
    assert named.get("hit", "HIT SEAT 3") == "HIT SEAT 3"
    tap_text(driver, "STAND SEAT 3")
    until(driver, "the dealer to draw", lambda d: phase(d) == "dealer")
    draw(rig, driver, 1)
    until(driver, "back to betting", lambda d: phase(d) == "betting")


@pytest.mark.parametrize(("screen", "ended_by"), [
    ((800, 480), "first_bet"), ((1280, 800), "next_round"), ((800, 480), "jam"),
    ((1280, 800), "card_in_error")], ids=lambda v: f"{v[0]}x{v[1]}" if isinstance(v, tuple)
    else v)
def test_the_settled_round_stays_on_screen_until_the_next_round(
        rig: ConsoleRig, screen: tuple[int, int], ended_by: str) -> None:
    """Hands, the dealer's cards and total, each seat's result (its side wager apart) and the
    pay line stay on screen, whole, after settlement; the first chip of the next round, NEXT
    ROUND, a jam or a card in error takes them off, and they do not come back."""
    driver = browser(*screen)
    try:
        deal_round_1(rig, driver)
        assert settled_missing(driver) == []
        assert small_buttons(driver, TOUCH_PX[screen]) == []
        layout = rig.app.devices.emulators["layout"]
        if ended_by == "first_bet":
            seat_amount(driver, 2, [500])
        elif ended_by == "next_round":
            tap_text(driver, "NEXT ROUND")
        elif ended_by == "jam":
            rig.shoe.jam()
            until(driver, "the table stopped", lambda d: phase(d) == "shoe error")
            assert settled_gone(driver)
            rig.shoe.clear_jam()
            # the shoe and the layout are two lines: the key only once the jam is cleared
            until(driver, "the jam cleared", lambda _d: rig.journal_records("shoe:cleared"))
            layout.turn_key("supervisor")
            until(driver, "back to betting", lambda d: phase(d) == "betting")
            layout.turn_key("normal")
        else:
            draw(rig, driver, 1)  # no seat in play: a card drawn in error
            until(driver, "a card in error", lambda d: phase(d) == "card in error")
            assert settled_gone(driver)
            tap_text(driver, "NOT EXPOSED")
            until(driver, "back to betting", lambda d: phase(d) == "betting")
        until(driver, "the settled round off the screen", settled_gone)
        assert phase(driver) == "betting"
        assert table_json(rig)["settled"] is None
    finally:
        driver.quit()


def test_the_seat_panel_shows_no_insurance_while_betting_and_done_is_whole(rig: ConsoleRig
                                                                           ) -> None:
    """At 800x480, a seat tapped while betting opens its wager panel: the insurance buttons
    are not displayed (their computed style), and DONE lies wholly inside the screen, clear
    of its bottom edge, with nothing over it."""
    driver = browser(800, 480)
    try:
        driver.get(rig.kiosk_url)
        shuffle_and_open_betting(driver)
        tap(driver, "button.seat[data-seat='5']")
        until(driver, "the seat panel", lambda d: d.find_element(By.ID, "seat-panel")
              .is_displayed())
        for button in ("panel-insurance", "panel-ins-yes", "panel-ins-no", "panel-ins-close"):
            element = driver.find_element(By.ID, button)
            assert not element.is_displayed(), button
        assert driver.execute_script(
            "return getComputedStyle(document.getElementById('panel-insurance')).display"
        ) == "none"
        assert shown_whole(driver, "#panel-done")
        assert shown_whole(driver, "#seat-panel")  # its frame too: DONE not on the edge
        assert driver.execute_script(
            "return innerHeight - document.getElementById('panel-done')"
            ".getBoundingClientRect().bottom") >= 8
        assert small_buttons(driver, TOUCH_PX[(800, 480)]) == []
        tap(driver, "#chips .chip[data-chip='500']")
        tap(driver, "#panel-done")
        until(driver, "seat 5 in play", lambda d: "in-play" in d.find_element(
            By.CSS_SELECTOR, "button.seat[data-seat='5']").get_attribute("class"))
        assert not driver.find_element(By.ID, "toast").is_displayed()  # no error
    finally:
        driver.quit()


# Five seats at 25.00 each stand on 17 (seat 5 on 9C 8C); the dealer 6D TD draws 9S: bust.
FIVE_SEATS = ["TC", "TD", "TH", "TS", "9C", "6D", "7C", "7D", "7H", "7S", "8C", "TD", "9S"]


def test_five_settled_seats_with_side_wagers_fit_the_7_inch_display(tmp_path: Path) -> None:
    """At 800x480 five seats settled, two with a side wager, and the two idle seats: every
    hand, result, side wager and seat net whole on screen, nothing to scroll to."""
    rig = start_console_rig(tmp_path, [*FIVE_SEATS, *EXTRA], seats=7)
    driver = browser(800, 480)
    try:
        driver.get(rig.kiosk_url)
        shuffle_and_open_betting(driver)
        for seat in range(1, 6):
            seat_amount(driver, seat, [2500])
        wager(driver, 1, "perfect-pairs", 500)
        wager(driver, 4, "lucky-ladies", 500)
        draw(rig, driver, 12)
        for seat in range(1, 6):
            tap_text(driver, f"STAND SEAT {seat}")
            until(driver, f"seat {seat} stood", lambda d, s=seat: f"STAND SEAT {s}" not in d
                  .find_element(By.ID, "actions").text)
        until(driver, "the dealer to draw", lambda d: phase(d) == "dealer")
        draw(rig, driver, 1)
        until(driver, "back to betting", lambda d: phase(d) == "betting")
        parts = [f"button.seat[data-seat='{n}'] {part}" for n in range(1, 6)
                 for part in (".hand", ".result")]
        parts += ["button.seat[data-seat='1'] .side", "button.seat[data-seat='1'] .seat-net",
                  "button.seat[data-seat='4'] .side", "button.seat[data-seat='4'] .seat-net",
                  "button.seat[data-seat='6']", "button.seat[data-seat='7']",
                  "#dealer-cards .dealer-total", "button[data-command='next_round']"]
        assert [part for part in parts if not shown_whole(driver, part)] == []
        assert small_buttons(driver, TOUCH_PX[(800, 480)]) == []
    finally:
        driver.quit()
        rig.close()
