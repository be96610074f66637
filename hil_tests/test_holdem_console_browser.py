"""The hold'em panel of the dealer console in a real browser (the distribution's Chromium).

A round of Texas Hold'em Bonus on the emulated rig, the dealer's part done by taps on the
console page: seat 1's ante and bonus entered on its panel, seat 2's ante sensed on the
layout board (its fixed amount), no more bets, the hole cards dealt, each seat's decision,
the flop and the dealer's cards read by the camera off the emulated overhead camera's
frames, the turn laid face down (the camera asks for it: keyed on the console's keypad),
the river keyed before the camera reads it, seat 1's cards at the showdown. The page must
show the board as read, the wagers, the dealer's cards only once exposed, each wager's
result, and what to do next; the round journalled must be what the rules say; every button
must be a touch target of at least 15 mm.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver

from controller.odds.holdem import holdem_bonus_line
from controller.odds.poker_rank import best_hand
from controller.rules.cards import parse_cards
from controller.rules.holdem import HoldemWagers, settle_showdown
from controller.rules.paytables import HoldemBonusPays
from vision import load_generic_profile
from vision.build.synth import BACK
from vision.profile import save_profile

from .chromium import browser, tap, tap_text, until
from .holdem_rig import SPOTS, HoldemRig, start_holdem_rig
from .test_console_browser import TOUCH_PX, phase, small_buttons

pytestmark = pytest.mark.needs("layout", "emulated")

FLOP, TURN, RIVER = ["AS", "KD", "7C"], ["2H"], ["9S"]
DEALER = ["QH", "QS"]
SEAT_1 = ["AH", "AC"]


@pytest.fixture
def he_rig(tmp_path: Path) -> Iterator[HoldemRig]:
    rig = start_holdem_rig(tmp_path)
    try:
        yield rig
    finally:
        rig.close()


def table_json(rig: HoldemRig) -> dict[str, Any]:
    latest = rig.web.hubs[0].latest
    assert latest is not None
    return latest.table


def text(driver: WebDriver, element_id: str) -> str:
    return driver.find_element(By.ID, element_id).text


def seat_text(driver: WebDriver, seat: int) -> str:
    return driver.find_element(By.CSS_SELECTOR, f"button.he-seat[data-seat='{seat}']").text


def result_text(driver: WebDriver, seat: int) -> str:
    row = driver.find_element(By.CSS_SELECTOR, f"#he-results .he-result[data-seat='{seat}']")
    return " ".join(row.text.split())


def key_on_keypad(driver: WebDriver, code: str) -> None:
    """The dealer keys `code` on the console's keypad (rank, then suit, then KEY)."""
    tap(driver, "#he-key-open")
    tap(driver, f"#kp-ranks button[data-rank='{code[0]}']")
    tap(driver, f"#kp-suits button[data-suit='{code[1]}']")
    tap(driver, "#kp-key")


def read(rig: HoldemRig, driver: WebDriver, zone: str, cards: list[str], shown: str) -> None:
    """Cards turned up in a camera area; the page must show them where `shown` says.

    A card the camera is unsure of is asked for on the page: the dealer keys the true card
    (the emulated frames are clean, so this is rare; the test plays on either way).
    """
    rig.turn_up(zone, cards)

    def done(d: WebDriver) -> bool:
        asked = table_json(rig)["holdem"]["asked"]
        if asked is not None and d.find_elements(By.ID, "he-key-open"):
            wanted = [c for c in cards if c.replace("T", "10") not in text(d, shown)]
            key_on_keypad(d, wanted[0])
            return False
        return all(c.replace("T", "10") in text(d, shown) for c in cards)

    until(driver, f"the {zone} cards on the page", done)


def decide(driver: WebDriver, label: str) -> None:
    before = text(driver, "prompt")
    tap_text(driver, label)
    until(driver, f"{label} taken", lambda d: text(d, "prompt") != before)


def expected_nets() -> dict[str, int]:
    board = parse_cards(" ".join(FLOP + TURN + RIVER))
    hole, dealer = parse_cards(" ".join(SEAT_1)), parse_cards(" ".join(DEALER))
    line = holdem_bonus_line((hole[0], hole[1]), (dealer[0], dealer[1]))
    odds = None if line is None else HoldemBonusPays().odds(line)
    nets = settle_showdown(HoldemWagers(1000, 500, 1000, 0, 1000), best_hand([*hole, *board]),
                           best_hand([*dealer, *board]), odds)
    return {"ante": nets.ante, "bonus": nets.bonus, "flop": nets.flop, "turn": nets.turn,
            "river": nets.river}


@pytest.mark.parametrize("screen", sorted(TOUCH_PX), ids=lambda s: f"{s[0]}x{s[1]}")
def test_chromium_deals_a_holdem_round_through_the_console(he_rig: HoldemRig,
                                                           screen: tuple[int, int]) -> None:
    driver = browser(*screen)
    try:
        driver.get(he_rig.kiosk_url)
        until(driver, "the shuffle", lambda d: phase(d) == "shuffling")
        tap_text(driver, "SHUFFLE DONE")
        until(driver, "betting open", lambda d: phase(d) == "betting")
        tap(driver, "button.he-seat[data-seat='1']")
        assert small_buttons(driver, TOUCH_PX[screen]) == []
        tap(driver, "#hp-chips .chip[data-chip='500']")
        tap(driver, "#hp-chips .chip[data-chip='500']")
        tap(driver, "#hp-done")  # the ante; the panel goes on to the bonus at once
        assert text(driver, "hp-bet") == "BONUS"
        tap(driver, "#hp-chips .chip[data-chip='500']")
        tap(driver, "#hp-done")
        until(driver, "seat 1's wagers", lambda d: "ANTE 10.00 · BONUS 5.00" in seat_text(d, 1))
        he_rig.layout.place_chip(SPOTS["seat2.ante"])  # chips on seat 2's ante spot
        until(driver, "seat 2's sensed ante", lambda d: "ANTE 25.00 (chips)" in seat_text(d, 2))
        assert small_buttons(driver, TOUCH_PX[screen]) == []
        tap_text(driver, "NO MORE BETS")
        until(driver, "the deal", lambda d: phase(d) == "dealing")
        tap_text(driver, "HOLE CARDS DEALT")
        until(driver, "decisions", lambda d: phase(d) == "decisions")
        assert text(driver, "prompt") == "bet or fold: seat 1, 2"
        assert small_buttons(driver, TOUCH_PX[screen]) == []
        decide(driver, "SEAT 1 BET")
        decide(driver, "SEAT 2 FOLD")
        until(driver, "the flop asked for", lambda d: text(d, "prompt") == "burn, turn up the flop")
        assert "FOLDED" in seat_text(driver, 2)
        read(he_rig, driver, "flop", FLOP, "he-board")
        until(driver, "seat 1 to decide", lambda d: text(d, "prompt") == "bet or check: seat 1")
        decide(driver, "SEAT 1 CHECK")
        # The turn card lies face down (a card the camera cannot read): it is asked for.
        he_rig.turn_up("turn", [BACK])
        until(driver, "the turn card asked for", lambda d: text(d, "he-ask") == (
            "THE CAMERA ASKS FOR THE TURN CARD: confirm or key it"))
        assert text(driver, "he-key-open") == "KEY THE CARD"
        key_on_keypad(driver, TURN[0])
        until(driver, "the turn keyed", lambda d: "2H" in text(d, "he-board"))
        assert not driver.find_element(By.ID, "he-ask").is_displayed()
        decide(driver, "SEAT 1 BET")
        until(driver, "the river due",
              lambda d: text(d, "prompt") == "burn, turn up the river card")
        assert small_buttons(driver, TOUCH_PX[screen]) == []
        assert text(driver, "he-key-open") == "KEY A CARD"
        key_on_keypad(driver, RIVER[0])  # keyed before the camera reads it
        until(driver, "the dealer's cards due",
              lambda d: text(d, "prompt") == "expose the dealer's two cards")
        assert "9" in text(driver, "he-board")
        assert text(driver, "dealer-cards") == ""  # face down: never on the page
        read(he_rig, driver, "dealer", DEALER, "dealer-cards")
        until(driver, "seat 1's cards due", lambda d: text(d, "prompt") == "expose seat 1's cards")
        read(he_rig, driver, "seat1", SEAT_1, "he-results")
        until(driver, "the next shuffle", lambda d: phase(d) == "shuffling")
        record = table_json(he_rig)["last_round"]
        nets = expected_nets()
        assert record["seats"]["1"]["nets"] == nets
        assert record["seats"]["2"]["nets"] == {"ante": -2500, "bonus": 0, "flop": 0,
                                                "turn": 0, "river": 0}
        # The camera reads the three flop cards in the order it finds them in one frame.
        assert sorted(record["board"][:3]) == sorted(FLOP)
        assert record["board"][3:] == TURN + RIVER
        assert sorted(record["dealer"]) == sorted(DEALER)
        seat_1 = result_text(driver, 1)
        assert seat_1.startswith("LAST ROUND SEAT 1")
        cards = driver.find_elements(By.CSS_SELECTOR, "#he-results [data-seat='1'] .card")
        assert sorted(card.text for card in cards) == sorted(SEAT_1)
        assert (f"ANTE 0.00 · BONUS +{nets['bonus'] // 100:,}.00 · FLOP +10.00 · "
                "RIVER +10.00") in seat_1
        assert seat_1.endswith(f"NET +{sum(nets.values()) // 100:,}.00")
        assert result_text(driver, 2) == "LAST ROUND SEAT 2 FOLDED ANTE -25.00 NET -25.00"
        assert text(driver, "prompt") == "shuffle the deck, then press SHUFFLE DONE"
        assert sorted(text(driver, "dealer-cards").split()) == sorted(DEALER)  # the last round's
    finally:
        driver.quit()
    runtime = he_rig.app.runtime
    assert runtime is not None
    reads = [e.data for e in runtime.journal.entries() if e.kind == "card:read"]
    assert len(reads) == 9
    keyed = [r for r in reads if r["area"] in ("turn", "river")]
    assert [(r["card"], r["by"], r["confirmed"], r["source"]) for r in keyed] == [
        ("2H", "keyed", False, "console"), ("9S", "keyed", False, "console")]
    asked = [e.data for e in runtime.journal.entries() if e.kind == "card:asked"]
    assert {"area": "turn", "guess": None}.items() <= asked[0].items()


def doubtful_profile(folder: Path) -> Path:
    """The generic profile demanding certainty: every clean reading stays a guess.

    Its unsure threshold is 1, which no reading of the emulated frames reaches (they peak
    near 0.9999), so each card the camera sees is asked for with its guess, as a real
    camera's worn or badly lit card is.
    """
    path = folder / "doubtful.npz"
    save_profile(replace(load_generic_profile(), unsure_below=1.0), path)
    return path


@pytest.fixture
def doubtful_rig(tmp_path: Path) -> Iterator[HoldemRig]:
    rig = start_holdem_rig(tmp_path, vision={"profile": str(doubtful_profile(tmp_path))})
    try:
        yield rig
    finally:
        rig.close()


def test_chromium_dealer_confirms_the_cameras_guess(doubtful_rig: HoldemRig) -> None:
    """The camera's guess of the one card left unread is offered on CONFIRM; one tap takes it."""
    rig = doubtful_rig
    driver = browser(800, 480)
    try:
        driver.get(rig.kiosk_url)
        until(driver, "the shuffle", lambda d: phase(d) == "shuffling")
        tap_text(driver, "SHUFFLE DONE")
        until(driver, "betting open", lambda d: phase(d) == "betting")
        rig.layout.place_chip(SPOTS["seat2.ante"])
        until(driver, "seat 2's sensed ante", lambda d: "ANTE 25.00 (chips)" in seat_text(d, 2))
        tap_text(driver, "NO MORE BETS")
        tap_text(driver, "HOLE CARDS DEALT")
        decide(driver, "SEAT 2 BET")
        until(driver, "the flop asked for", lambda d: text(d, "prompt") == "burn, turn up the flop")
        rig.turn_up("flop", FLOP)
        # Three cards unread, each guessed: no single guess to offer until two are keyed.
        until(driver, "the flop card asked for", lambda d: d.find_element(
            By.ID, "he-ask").is_displayed())
        assert not driver.find_elements(By.XPATH, "//button[starts-with(., 'CONFIRM')]")
        key_on_keypad(driver, FLOP[0])
        key_on_keypad(driver, FLOP[1])
        tap_text(driver, f"CONFIRM {FLOP[2]}")
        until(driver, "seat 2 to decide", lambda d: text(d, "prompt") == "bet or check: seat 2")
        assert all(card in text(driver, "he-board") for card in FLOP)
        decide(driver, "SEAT 2 CHECK")
        rig.turn_up("turn", TURN)
        until(driver, "the turn's guess asked", lambda d: text(d, "he-ask") == (
            f"THE CAMERA ASKS FOR THE TURN CARD (camera: {TURN[0]}?): confirm or key it"))
        tap_text(driver, f"CONFIRM {TURN[0]}")
        until(driver, "the turn taken", lambda d: TURN[0] in text(d, "he-board"))
        assert not driver.find_element(By.ID, "he-ask").is_displayed()
    finally:
        driver.quit()
    runtime = rig.app.runtime
    assert runtime is not None
    reads = [(e.data["area"], e.data["card"], e.data["by"], e.data["confirmed"])
             for e in runtime.journal.entries() if e.kind == "card:read"]
    assert reads == [("flop", FLOP[0], "keyed", False), ("flop", FLOP[1], "keyed", False),
                     ("flop", FLOP[2], "keyed", True), ("turn", TURN[0], "keyed", True)]
