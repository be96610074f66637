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
