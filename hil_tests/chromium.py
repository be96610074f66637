"""Chromium for the browser tests: the distribution's package, driven by its chromedriver.

`.ci/sysdeps` installs both (Debian's `chromium` and `chromium-driver`); without them a
browser test fails saying so, rather than passing unseen.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from typing import Final

import pytest
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait

CHROMIUM: Final = "/usr/bin/chromium"
CHROMEDRIVER: Final = "/usr/bin/chromedriver"
WAIT_S: Final = 60
"""How long a page may take to show a change (generous: the machine may be busy)."""
_FLAGS: Final = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
                 # several windows (the stations) keep running while one is in front
                 "--disable-background-timer-throttling", "--disable-renderer-backgrounding")


def browser(width: int = 1280, height: int = 800, app: str = "") -> WebDriver:
    """A headless Chromium whose page is `width` x `height` CSS pixels at scale 1.

    With `app`, Chromium opens that address as the kiosk does (`--app=URL`): its first page,
    with no history before it.
    """
    if shutil.which("chromium") is None or shutil.which("chromedriver") is None:
        pytest.fail("Debian's chromium and chromium-driver are not installed "
                    "(.ci/sysdeps installs them)", pytrace=False)
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (*_FLAGS, f"--window-size={width},{height}", *([f"--app={app}"] if app else [])):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
    return driver


def until(driver: WebDriver, what: str, check: Callable[[WebDriver], object]) -> None:
    """Wait for `check` to hold on the page; fail naming `what` if it has not in WAIT_S."""
    # a page that redraws may replace an element between finding it and reading it: try again
    WebDriverWait(driver, WAIT_S, ignored_exceptions=(StaleElementReferenceException,)).until(
        check, message=what)


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
