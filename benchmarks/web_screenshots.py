"""Screenshots of the web app's main views (PNG), for the README and for reviewing the page.

Starts ``chemground serve``'s app on 127.0.0.1 over a KB (the default one, or ``--kb``),
drives the system Chromium headless through Selenium (``chromium`` and ``chromium-driver``
from Debian; nothing is downloaded) and writes one PNG per view into ``--out``
(``docs/img`` by default): the answer view of a reaction question, a compound page, a route,
a tool answer, the review mode, and the answer view at phone width.

    python benchmarks/web_screenshots.py [--kb KB.sqlite] [--out docs/img] [--url
    http://127.0.0.1:8000]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

VIEWS = (  # (file name, path, ready state, window width)
    (
        "answer.png",
        "/?q=" + quote("What forms when benzaldehyde reacts with benzohydrazide?"),
        "answer",
        1280,
    ),
    ("compound.png", "/?compound=aspirin", "compound", 1280),
    ("route.png", "/?q=" + quote("route from nitrobenzene to acetanilide"), "answer", 1280),
    ("tool.png", "/?q=" + quote("What is the logP of caffeine?"), "answer", 1280),
    (
        "answer-mobile.png",
        "/?q=" + quote("What is the molecular weight of aspirin?"),
        "answer",
        390,
    ),
)


def chromium(width: int = 1280, height: int = 900):
    """Headless system Chromium under Selenium (Debian's chromedriver: nothing is downloaded)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        f"--window-size={width},{height}",
        "--hide-scrollbars",
        "--force-device-scale-factor=1",
    ):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def wait_ready(driver, state: str, timeout: float = 60) -> None:
    end = time.time() + timeout
    while time.time() < end:
        if driver.execute_script("return document.body && document.body.dataset.ready") == state:
            return
        time.sleep(0.05)
    raise TimeoutError(f"the page did not reach {state!r} in {timeout} s")


def full_page(driver, path: Path, width: int) -> None:
    height = driver.execute_script("return Math.min(document.documentElement.scrollHeight, 2400)")
    driver.set_window_size(width, height + 100)
    time.sleep(0.2)
    driver.save_screenshot(str(path))


def review_csv(folder: Path) -> Path:
    from chemground.lit.qac.schema import QACRecord, write_qac_csv

    chunk = (
        "Palladium on carbon gave full conversion within two hours at room temperature. "
        "Platinum was slower and gave toluene as a side product through hydrogenolysis."
    )
    split = chunk.index("Platinum")
    records = [
        QACRecord(
            chunk=chunk,
            reasoning_type="Comparative",
            question="Which catalyst was slower?",
            answer="Platinum was slower and gave toluene by hydrogenolysis.",
            difficulty="Easy",
            context=[chunk[split:]],
            spans=[(split, len(chunk))],
            id="demo-1",
        ),
        QACRecord(
            chunk=chunk,
            reasoning_type="Procedural",
            question="How long did Pd/C take?",
            answer="Two hours at room temperature.",
            difficulty="Easy",
            context=[chunk[:split].strip()],
            spans=[(0, split - 1)],
            id="demo-2",
        ),
    ]
    path = folder / "chemlit-demo.csv"
    write_qac_csv(path, records)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--kb", type=Path, help="KB file (default: the configured KB, built on first use)"
    )
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "img")
    parser.add_argument("--url", help="an already running server instead of starting one")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        if args.url:
            run(args.url.rstrip("/"), args.out, Path(tmp))
            return
        from chemground.api.app import create_app
        from chemground.settings import Settings, get_settings
        from tests.support.uvicorn_server import serving

        settings = Settings(kb={"path": args.kb}) if args.kb else get_settings()
        with serving(create_app(settings)) as url:
            run(url, args.out, Path(tmp))


def run(url: str, out: Path, tmp: Path) -> None:
    driver = chromium()
    try:
        for name, path, state, width in VIEWS:
            driver.set_window_size(width, 900)
            driver.get(url + path)
            wait_ready(driver, state)
            full_page(driver, out / name, width)
            render_ms = driver.execute_script("return document.body.dataset.renderMs")
            print(f"{out / name}: {render_ms} ms to render")
        driver.set_window_size(1280, 900)
        driver.get(url + "/review")
        wait_ready(driver, "review")
        driver.find_element("id", "review-file").send_keys(str(review_csv(tmp)))
        time.sleep(0.3)
        full_page(driver, out / "review.png", 1280)
        print(out / "review.png")
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
