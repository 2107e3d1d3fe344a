"""A real browser for the web app: headless system Chromium driven by Selenium.

The browser is Debian's ``chromium`` with its ``chromium-driver`` (``.ci/run`` installs both);
Selenium is told where they are, so it never downloads a browser or a driver. Without them the
tests skip and say so. The app is served on 127.0.0.1 over a copy of the small test KB with
the four test papers added (so the papers channel has something to cite).

Every test gets the browser's console and network logs checked afterwards: no console error,
and no request to anything but this server (the page must work offline).
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest

from tests.conftest import copy_kb
from tests.support.uvicorn_server import serving

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
PATENT_REACTION = {
    "id": "patent-demo-1",
    "source": "US20050123456A1",
    "title": "Knoevenagel condensation: ferulic acid",
    "reactants": ["vanillin", "malonic acid"],
    "products": ["ferulic acid"],
    "solvents": ["pyridine"],
    "catalysts": ["piperidine"],
    "temperature": "90 °C",
    "time": "4 h",
    "yield": "78%",
    "paragraph": "A mixture of vanillin (10 mmol) and malonic acid (20 mmol) in pyridine with a "
    "few drops of piperidine was heated at 90 °C for 4 h; acidification gave ferulic acid (78 %).",
    "doi": "10.1000/demo.123",
}
LOCAL_SCHEMES = ("data:", "blob:", "about:", "chrome-error:", "chrome:", "devtools:")


def _missing() -> str | None:
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[web]')"
    for path in (CHROMIUM, CHROMEDRIVER):
        if not Path(path).exists() and not shutil.which(Path(path).name):
            return f"{path} is missing: apt-get install chromium chromium-driver (.ci/run does)"
    return None


@pytest.fixture(scope="session")
def web_kb(small_kb_path, tmp_path_factory):
    """A copy of the small KB with the test papers added (lit channel), and its cache folder."""
    from chemground.kb.importers import import_file
    from chemground.lit.library import Library
    from chemground.settings import Settings
    from chemground.workspace import Workspace
    from tests.lit.papers import write_corpus

    folder = tmp_path_factory.mktemp("web-kb")
    path = copy_kb(small_kb_path, folder)
    settings = Settings(kb={"path": path}, cache_dir=folder / "cache")
    workspace = Workspace(settings)
    patent = folder / "patent.jsonl"  # a patent reaction with its paragraph and a DOI
    patent.write_text(json.dumps(PATENT_REACTION) + "\n", encoding="utf-8")
    try:
        import_file(workspace.kb, patent, resolver=workspace.resolver)
        Library(workspace, dense=False).add(
            list(write_corpus(folder / "papers").values()), chunk_size=400, overlap=80
        )
    finally:
        workspace.close()
    return settings


@pytest.fixture(scope="session")
def web_url(web_kb):
    from chemground.api.app import create_app

    with serving(create_app(web_kb)) as url:
        yield url


@pytest.fixture(scope="session")
def downloads(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("downloads")


@pytest.fixture(scope="session")
def driver(downloads):
    reason = _missing()
    if reason:
        pytest.skip(f"no browser for the browser tests: {reason}")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium")
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--window-size=1280,900",
        "--disable-extensions",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
    ):
        options.add_argument(flag)
    options.add_experimental_option(
        "prefs",
        {"download.default_directory": str(downloads), "download.prompt_for_download": False},
    )
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    chromedriver = CHROMEDRIVER if Path(CHROMEDRIVER).exists() else shutil.which("chromedriver")
    browser = webdriver.Chrome(service=Service(chromedriver), options=options)
    browser.execute_cdp_cmd(
        "Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)}
    )
    yield browser
    browser.quit()


class Page:
    """The browser on the app: open a path, wait until the page says it is drawn, read the logs."""

    def __init__(self, driver, base: str) -> None:
        self.driver, self.base = driver, base

    def open(self, path: str, ready: str = "answer", width: int = 1280) -> None:
        self.driver.set_window_size(width, 900)
        self.driver.get(self.base + path)
        self.wait_ready(ready)

    def wait_ready(self, ready: str, timeout: float = 60) -> None:
        end = time.time() + timeout
        while time.time() < end:
            state = self.driver.execute_script(
                "return document.body && document.body.dataset.ready"
            )
            if state == ready:
                return
            if state == "error" and ready != "error":
                raise AssertionError(f"the page shows an error: {self.text('main')[:500]}")
            time.sleep(0.03)
        raise AssertionError(f"the page did not become {ready!r} within {timeout} s")

    def js(self, script: str, *args):
        return self.driver.execute_script(script, *args)

    def text(self, css: str) -> str:
        return self.js(
            "const n = document.querySelector(arguments[0]); return n ? n.innerText : null;", css
        )

    def all(self, css: str):
        from selenium.webdriver.common.by import By

        return self.driver.find_elements(By.CSS_SELECTOR, css)

    def broken_images(self, css: str = "main img") -> list[str]:
        return self.js(
            "return [...document.querySelectorAll(arguments[0])]"
            ".filter(i => !i.complete || i.naturalWidth === 0).map(i => i.src)",
            css,
        )

    def console_errors(self) -> list[str]:
        return [e["message"] for e in self.driver.get_log("browser") if e["level"] == "SEVERE"]

    def requested_urls(self) -> list[str]:
        urls = []
        for entry in self.driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            if message.get("method") == "Network.requestWillBeSent":
                urls.append(message["params"]["request"]["url"])
        return urls

    def external(self, urls: list[str]) -> list[str]:
        return [
            u
            for u in urls
            if not (u.startswith(self.base + "/") or u == self.base or u.startswith(LOCAL_SCHEMES))
        ]


@pytest.fixture
def page(driver, web_url):
    """The browser on the app; afterwards: no console errors, no request outside loopback."""
    page = Page(driver, web_url)
    page.console_errors(), page.requested_urls()  # drain what earlier tests left
    yield page
    errors = page.console_errors()
    assert not errors, f"console errors: {errors}"
    urls = page.requested_urls()
    assert not page.external(urls), f"requests outside this server: {page.external(urls)}"
