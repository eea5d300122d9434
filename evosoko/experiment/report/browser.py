"""Opening reports in headless Chromium, for the browser tests and ``benchmarks/bench_report.py``.

Needs Debian's ``chromium`` and ``chromium-driver`` (``apt-get install chromium
chromium-driver``) and the selenium package (in ``.[dev]``); :func:`browser_missing` says what
is missing. Chromium runs headless with a new empty profile and without background
networking, so it neither needs nor tries the network.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
)
BROWSERS = ("chromium", "chromium-browser", "google-chrome")
DRIVERS = ("chromedriver",)


def _first(names: tuple[str, ...], fallback_folder: str = "/usr/bin") -> str | None:
    for name in names:
        found = shutil.which(name) or (
            str(Path(fallback_folder) / name) if (Path(fallback_folder) / name).is_file() else None
        )
        if found:
            return found
    return None


def browser_missing() -> str | None:
    """Why no headless browser can be driven here (None when one can)."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "needs selenium (pip install -e '.[dev]')"
    if _first(BROWSERS) is None or _first(DRIVERS) is None:
        return "needs Chromium and its driver (apt-get install chromium chromium-driver)"
    return None


@contextmanager
def headless_chromium(width: int = 1300, height: int = 1000) -> Iterator[Any]:
    """A selenium WebDriver on headless Chromium with a fresh profile; quits on exit."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = _first(BROWSERS) or "chromium"
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--window-size={width},{height}")
    with tempfile.TemporaryDirectory(prefix="evosoko-chromium-") as profile:
        options.add_argument(f"--user-data-dir={profile}")
        driver = webdriver.Chrome(
            service=Service(_first(DRIVERS) or "chromedriver"), options=options
        )
        try:
            yield driver
        finally:
            driver.quit()


def open_report(driver: Any, path: str | Path, timeout: float = 20.0) -> dict[str, float]:
    """Load ``path`` from disk and wait until its script has drawn the page; returns timings in
    milliseconds from the start of navigation: ``dom_content_loaded``, ``load`` and
    ``drawn`` (the report's script finished: tables, first board and curves on screen)."""
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(Path(path).resolve().as_uri())
    WebDriverWait(driver, timeout).until(
        lambda d: d.execute_script("return document.body && document.body.dataset.ready === '1'")
    )
    WebDriverWait(driver, timeout).until(
        lambda d: d.execute_script("return document.readyState === 'complete'")
    )
    return driver.execute_script(
        """
        const nav = performance.getEntriesByType("navigation")[0];
        return {
          dom_content_loaded: nav.domContentLoadedEventEnd,
          load: nav.loadEventEnd,
          drawn: Number(document.body.dataset.readyMs),
        };
        """
    )
