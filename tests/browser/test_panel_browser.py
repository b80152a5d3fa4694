"""The room panel in the real JupyterLab, driven by headless Chromium: nbval cannot see widgets; this can.

A copy of notebook 01 trimmed to the cells the panel needs (``conftest.PANEL_CELLS``: the models, the
room, the reopened room, the panel) is opened in JupyterLab and run with Run > Run All Cells; the test waits for the panel widget, picks a speaker in its dropdown, types a message, presses Send and
checks that every user's feed column in the rendered widget shows the delivery (the original in the
sender's own column, one more line from the sender in every other column). It saves a screenshot of
the page; ``AYA_LAB_PANEL_SCREENSHOT=docs/panel.png`` copies it there (the README's image).
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]

NOTEBOOK = "01_chat_room.ipynb"
USERS = {"amara", "lena", "kofi", "sophie"}
SPEAKER = "lena"  # not the dropdown's first entry, so the selection matters
MESSAGE = "Guten Morgen! Ich bringe heute Kuchen mit."
PAGE_TIMEOUT_S = 120
RUN_ALL_TIMEOUT_S = 1500  # model load plus every cell (replayed, or generated where the cache misses)
DELIVERY_TIMEOUT_S = 900  # one live generation per language on the CPU
T = TypeVar("T")

# every feed column as [user, [[sender, paragraph text], ...]], read in one go (no stale elements)
_FEEDS_JS = """
return Array.from(document.querySelectorAll('.aya-feed')).map(f => [
  f.querySelector('h4').textContent.split(' (')[0],
  Array.from(f.querySelectorAll('p')).map(p => [(p.querySelector('b') || {}).textContent || '', p.textContent]),
]);
"""
_STATUS_JS = """
const feed = document.querySelector('.aya-feed');  // absent for a moment while the columns re-render
return feed ? feed.closest('.widget-vbox').lastElementChild.textContent : '';
"""
_SCROLL_TO_PANEL_JS = """
const cell = document.querySelector('.aya-feed').closest('.jp-Cell');
(cell.previousElementSibling || cell).scrollIntoView({block: 'start'});
"""
_CELLS_STARTED_JS = """
return Array.from(document.querySelectorAll('.jp-CodeCell .jp-InputPrompt'))
  .some(p => /\\[(\\*|\\d+)\\]/.test(p.textContent));
"""
RUN_ALL_ATTEMPTS, RUN_ALL_START_S = 3, 60
_TRACEBACKS_JS = """
return Array.from(document.querySelectorAll('.jp-OutputArea-output'))
  .map(o => o.textContent).filter(t => t.includes('Traceback (most recent call last)'));
"""


def poll(what: str, timeout_s: float, check: Callable[[], T | None], interval_s: float = 2.0) -> T:
    """Call ``check`` until it returns something truthy (returned); fail naming ``what`` on timeout."""
    deadline = time.monotonic() + timeout_s
    while True:
        got = check()
        if got:
            return got
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout_s} s waiting for {what}")
        time.sleep(interval_s)


def feeds(driver: Any) -> dict[str, list[tuple[str, str]]]:
    """User -> the (sender, paragraph text) lines of their column in the rendered panel."""
    return {user: [tuple(p) for p in paragraphs] for user, paragraphs in driver.execute_script(_FEEDS_JS)}


def kernel_idle(driver: Any) -> bool:
    found = driver.find_elements("css selector", ".jp-Notebook-ExecutionIndicator[data-status='idle']")
    return bool(found)


def settle(driver: Any) -> None:
    """Wait until the kernel has been idle on two polls in a row (widget updates delivered)."""
    poll("the kernel to be idle", DELIVERY_TIMEOUT_S, lambda: kernel_idle(driver))
    time.sleep(1.5)
    poll("the kernel to be idle", DELIVERY_TIMEOUT_S, lambda: kernel_idle(driver))


def click_labelled(driver: Any, css: str, label: str) -> None:
    """Click the element matching ``css`` whose visible text is ``label`` (waiting for it to appear)."""

    def find() -> list[Any]:
        return [e for e in driver.find_elements("css selector", css) if e.text.strip().startswith(label)]

    element = poll(f"{label!r} ({css})", PAGE_TIMEOUT_S, find)[0]
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", element)
    element.click()


def run_all_cells(driver: Any) -> None:
    """JupyterLab's Run > Run All Cells, once the notebook's kernel is up and idle; the left sidebar is
    closed first, to give the notebook the width of the window."""
    poll("the notebook's kernel", PAGE_TIMEOUT_S, lambda: kernel_idle(driver))
    for tab in driver.find_elements("css selector", ".jp-SideBar.jp-mod-left .lm-TabBar-tab.lm-mod-current"):
        tab.click()
    for _attempt in range(RUN_ALL_ATTEMPTS):  # a menu click can be lost while the page is busy (CI, 2026-12-02)
        click_labelled(driver, ".lm-MenuBar-item", "Run")
        click_labelled(driver, ".lm-Menu-item[data-type='command']", "Run All Cells")
        deadline = time.monotonic() + RUN_ALL_START_S
        while time.monotonic() < deadline:
            if driver.execute_script(_CELLS_STARTED_JS):
                return
            time.sleep(1)
    pytest.fail(f"Run All Cells started no cell of {NOTEBOOK} in {RUN_ALL_ATTEMPTS} tries")


def wait_for_panel(driver: Any, lab: Any) -> dict[str, list[tuple[str, str]]]:
    """The panel's feeds once it has rendered with its Send button; fail early on a traceback."""

    def ready() -> dict[str, list[tuple[str, str]]] | None:
        errors = driver.execute_script(_TRACEBACKS_JS)
        if errors:
            pytest.fail(f"a cell of {NOTEBOOK} failed in JupyterLab:\n{errors[0][-3000:]}\n{lab.log_tail(1500)}")
        sends = [b for b in driver.find_elements("css selector", "button.jupyter-button") if b.text == "Send"]
        return feeds(driver) if sends else None

    return poll("the panel widget after Run All", RUN_ALL_TIMEOUT_S, ready, interval_s=5)


def send_as(driver: Any, speaker: str, text: str) -> None:
    """Pick ``speaker`` in the panel's dropdown, type ``text``, press Send (as a user would)."""
    from selenium.webdriver.support.ui import Select

    Select(driver.find_element("css selector", ".widget-dropdown select")).select_by_visible_text(speaker)
    box = driver.find_element("css selector", ".widget-text input")
    box.clear()
    box.send_keys(text)
    settle(driver)  # the kernel holds the speaker and the text before the click arrives
    sends = [b for b in driver.find_elements("css selector", "button.jupyter-button") if b.text == "Send"]
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", sends[0])
    sends[0].click()


def save_screenshot(driver: Any, tmp_path: Path) -> Path:
    """Screenshot with the panel's section (heading, code, widget) at the top of the window; copied to
    ``$AYA_LAB_PANEL_SCREENSHOT`` when that is set."""
    driver.execute_script(_SCROLL_TO_PANEL_JS)
    time.sleep(1)
    shot = tmp_path / "panel.png"
    assert driver.save_screenshot(str(shot)), "Chromium took no screenshot"
    target = os.environ.get("AYA_LAB_PANEL_SCREENSHOT")
    if target:
        shutil.copyfile(shot, target)
    return shot


def test_panel_send_in_jupyterlab_reaches_every_feed(lab, browser, tmp_path):
    browser.get(lab.notebook_url(NOTEBOOK))
    run_all_cells(browser)
    before = wait_for_panel(browser, lab)
    assert set(before) == USERS, f"panel columns {sorted(before)}, expected {sorted(USERS)}"
    settle(browser)
    status_before = browser.execute_script(_STATUS_JS)

    send_as(browser, SPEAKER, MESSAGE)

    def delivered() -> dict[str, list[tuple[str, str]]] | None:
        status = browser.execute_script(_STATUS_JS)
        if status.startswith("error"):
            pytest.fail(f"the panel refused the message: {status}")
        now = feeds(browser)
        if set(now) != USERS:  # the columns are being re-rendered
            return None
        grown = all(sum(s == SPEAKER for s, _ in now[u]) == sum(s == SPEAKER for s, _ in before[u]) + 1 for u in USERS)
        return now if grown else None

    after = poll(f"{SPEAKER}'s message in every feed column", DELIVERY_TIMEOUT_S, delivered)
    for user in USERS:
        assert after[user][: len(before[user])] == before[user], f"{user}'s earlier feed changed"
        sender, line = after[user][-1]
        assert sender == SPEAKER, f"{user}'s newest line is from {sender!r}: {line!r}"
        assert line.strip() != f"{SPEAKER}:", f"{user} received an empty delivery"
    assert after[SPEAKER][-1][1] == f"{SPEAKER}: {MESSAGE}"  # the sender reads the original

    def new_status() -> str | None:
        text = browser.execute_script(_STATUS_JS)
        return text if text != status_before else None

    status = poll("the panel's status line of the new run", PAGE_TIMEOUT_S, new_status)
    assert status.startswith("run ") and status != status_before, f"status {status!r} (before: {status_before!r})"
    assert save_screenshot(browser, tmp_path).stat().st_size > 10_000
