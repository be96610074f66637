"""Can a person reach every control on the screen as it stands? One check for every page.

`screen_faults` finds every enabled control the page shows (buttons, inputs, selects, links,
`[role=button]`, and the tap targets a page names in `also`) and reports each one that a person
could not use without scrolling: outside the viewport, clipped by an inner scroll area, or
covered at its centre by another element (`document.elementFromPoint`); and each one shown
although the page hid it (a `display` rule that undoes the `hidden` attribute). Inner scroll areas
are put back at their start first, so a control that is only reachable by scrolling fails.
`Screens` drives one browser through a page's phases at each of its target sizes (the same
window, resized), collects every fault as one line and, when asked, writes a screenshot of
each phase and size.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from selenium.webdriver.remote.webdriver import WebDriver

CONTROLS: Final = ("button, input:not([type=hidden]), select, textarea, [role=button], "
                   "a[href]")
SHOTS_ENV: Final = "SHOECTL_SCREENS"
"""When set, the folder `Screens.check` writes a PNG of each page, game, size and phase to."""

_FAULTS_JS: Final = """
const [selector, outside, pageMayScroll] = arguments;
const faults = [];
const name = e => {
  if (!e) return 'nothing';
  const text = (e.innerText || e.value || e.getAttribute('aria-label') || '')
    .trim().replace(/\\s+/g, ' ').slice(0, 40);
  return e.tagName.toLowerCase() + (e.id ? '#' + e.id : '')
    + (typeof e.className === 'string' && e.className ? '.' + e.className.trim()
       .split(/\\s+/).join('.') : '') + (text ? ` "${text}"` : '');
};
for (const e of document.querySelectorAll('*')) {
  if (e.scrollTop) e.scrollTop = 0;
  if (e.scrollLeft) e.scrollLeft = 0;
}
window.scrollTo(0, 0);
const doc = document.scrollingElement || document.documentElement;
if (!pageMayScroll && (doc.scrollWidth > innerWidth + 1 || doc.scrollHeight > innerHeight + 1))
  faults.push(`the page scrolls: ${doc.scrollWidth}x${doc.scrollHeight} in a `
              + `${innerWidth}x${innerHeight} window`);
const W = innerWidth, H = innerHeight;
const scrolling = new Set();
for (const e of document.querySelectorAll(selector)) {
  if (e.disabled || e.closest('[inert]')) continue;
  const r = e.getBoundingClientRect();
  const style = getComputedStyle(e);
  if (r.width < 1 || r.height < 1 || style.visibility === 'hidden'
      || style.display === 'none' || Number(style.opacity) === 0) continue;
  if (outside && e.closest(outside)) continue;
  const hidden = e.closest('[hidden]');
  if (hidden) {  // a style that sets `display` undoes the attribute: the page shows it anyway
    faults.push(`${name(e)} shows although ${name(hidden).split(' ')[0]} is hidden`);
    continue;
  }
  for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
    const s = getComputedStyle(a);
    const scrolls = (/auto|scroll/.test(s.overflowY) && a.scrollHeight > a.clientHeight + 1)
      || (/auto|scroll/.test(s.overflowX) && a.scrollWidth > a.clientWidth + 1);
    if (scrolls && !scrolling.has(a)) {
      scrolling.add(a);
      faults.push(`${name(a).split(' ')[0]} must be scrolled: ${a.scrollWidth}x${a.scrollHeight}`
                  + ` in ${a.clientWidth}x${a.clientHeight}`);
    }
  }
  if (r.left < -0.5 || r.top < -0.5 || r.right > W + 0.5 || r.bottom > H + 0.5) {
    faults.push(`${name(e)} lies outside the ${W}x${H} window at `
                + `${Math.round(r.left)},${Math.round(r.top)}-`
                + `${Math.round(r.right)},${Math.round(r.bottom)}`);
    continue;
  }
  let clipped = null;
  for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
    const s = getComputedStyle(a);
    if (s.overflowX === 'visible' && s.overflowY === 'visible') continue;
    const b = a.getBoundingClientRect();
    const bottom = b.top + a.clientTop + a.clientHeight, right = b.left + a.clientLeft
      + a.clientWidth;
    if (r.top < b.top - 0.5 || r.left < b.left - 0.5 || r.bottom > bottom + 0.5
        || r.right > right + 0.5) { clipped = a; break; }
  }
  const x = r.left + r.width / 2, y = r.top + r.height / 2;
  const top = document.elementFromPoint(x, y);
  const atCentre = top === e || (top && e.contains(top));
  if (clipped)
    faults.push(`${name(e)} is cut off by ${name(clipped).split(' ')[0]} (it scrolls or clips)`
                + (atCentre ? '' : `; at its centre: ${name(top).split(' ')[0]}`));
  else if (!atCentre)
    faults.push(`${name(e)} is covered at its centre by ${name(top)}`);
}
return faults;
"""


def screen_faults(driver: WebDriver, also: str = "", outside: str = "",
                  page_may_scroll: bool = False) -> list[str]:
    """One line for each control a person cannot use where it stands, [] when all can.

    Args:
        driver: The browser, on the page as it is now.
        also: CSS of the page's own tap targets besides the standard controls (a chip that
            is a `div`), and of what must show whole although nobody taps it.
        outside: CSS of areas whose controls are not needed in this phase (skipped).
        page_may_scroll: A report page (the pit's, the floor's) whose rows may run on below
            the window; its controls must still show without scrolling.
    """
    selector = CONTROLS + (f", {also}" if also else "")
    faults = driver.execute_script(_FAULTS_JS, selector, outside or None, page_may_scroll)
    return [str(fault) for fault in faults]


def resize(driver: WebDriver, width: int, height: int) -> None:
    """The page at `width` x `height` CSS pixels, laid out again before this returns."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
    driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "requestAnimationFrame(() => requestAnimationFrame(() => done(null)));")


class Screens:
    """The faults found on one page through its phases and sizes, and its screenshots."""

    def __init__(self, page: str, sizes: Sequence[tuple[int, int]],
                 page_may_scroll: bool = False) -> None:
        self.page = page
        self.page_may_scroll = page_may_scroll
        self.sizes = tuple(sizes)
        self.faults: list[str] = []
        shots = os.environ.get(SHOTS_ENV, "")
        self.shots = Path(shots) if shots else None

    def check(self, driver: WebDriver, phase: str, also: str = "", outside: str = "") -> None:
        """Check the page as it stands now at every size (it is left at the first size)."""
        for width, height in (*self.sizes[1:], self.sizes[0]):
            resize(driver, width, height)
            size = f"{width}x{height}"
            self.faults += [f"{self.page} {size} {phase}: {fault}"
                            for fault in screen_faults(driver, also, outside,
                                                      self.page_may_scroll)]
            if self.shots is not None:
                self.shots.mkdir(parents=True, exist_ok=True)
                driver.save_screenshot(str(self.shots / f"{self.page}-{size}-{phase}.png"))



def assert_none(*pages: Screens) -> None:
    """Fail listing every fault found on these pages, one a line."""
    faults = [fault for page in pages for fault in page.faults]
    assert not faults, "controls a person cannot reach:\n" + "\n".join(faults)
