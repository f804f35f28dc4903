"""Pages in a real browser: `mindstream serve` in a child process (real embedder, embedded
model, chroma on disk) with a finished town run beside it, driven by Debian's chromium through
Playwright (`make browser` installs chromium when it is missing)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.service.conftest import ServiceProcess

RUN = Path(__file__).parent.parent / "data" / "town-run"
IMAGES = Path(__file__).parent.parent.parent / "docs" / "images"


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServiceProcess]:
    runs = tmp_path_factory.mktemp("runs")
    shutil.copytree(RUN, runs / "town")  # the service writes beside a store it opens
    running = ServiceProcess(
        tmp_path_factory.mktemp("site") / "data",
        MINDSTREAM_SERVICE__RUNS=str(runs),
        MINDSTREAM_SERVICE__RATE_PER_MINUTE="6000",
    ).start(timeout=120)
    yield running
    running.stop()


@pytest.fixture(scope="package")
def browser() -> Iterator[Any]:
    """Closed when the page tests end: Playwright's sync API keeps an event loop running on
    the main thread while it is open, and every later async test would meet it."""
    from playwright.sync_api import sync_playwright

    executable = shutil.which("chromium") or shutil.which("chromium-browser")
    if executable is None:
        pytest.fail("chromium is not installed: run `make browser` (Debian's chromium package)")
    with sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=executable, headless=True)
        yield launched
        launched.close()


class Console:
    """Errors the page logged or threw (each test asserts there are none)."""

    def __init__(self, page: Any) -> None:
        self.errors: list[str] = []
        page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        page.on("pageerror", lambda e: self.errors.append(str(e)))


@pytest.fixture
def page(browser: Any) -> Iterator[tuple[Any, Console]]:
    context = browser.new_context(viewport={"width": 1360, "height": 900})
    opened = context.new_page()
    yield opened, Console(opened)
    context.close()


def screenshot(page: Any, name: str) -> None:
    IMAGES.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(IMAGES / name), full_page=False)
