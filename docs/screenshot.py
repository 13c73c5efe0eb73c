"""Makes docs/screenshot.png: an Intermediate game in progress, in Debian's Chromium.

    .venv/bin/python docs/screenshot.py
"""

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from tests.live import live_server  # noqa: E402
from tests.test_browser import CHROMIUM, CHROMIUM_ARGS, act, analysis, next_cell  # noqa: E402


def main() -> None:
    with tempfile.TemporaryDirectory() as data, live_server(Path(data) / "games.sqlite3") as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        page = browser.new_page(base_url=url, viewport={"width": 900, "height": 860}, device_scale_factor=1)
        page.goto("/")
        page.click("button[value=intermediate]")
        page.wait_for_selector("#grid")
        act(page, lambda: page.click("#c-8-8"))
        for _ in range(25):
            rows = analysis(page)
            mines = [(x, y) for y, row in enumerate(rows) for x, s in enumerate(row) if s == "m"]
            x, y = next_cell(page)
            act(page, lambda: page.click(f"#c-{x}-{y}"))
        for x, y in mines[:6]:
            if "f" not in page.get_attribute(f"#c-{x}-{y}", "class"):
                act(page, lambda: page.click(f"#c-{x}-{y}", button="right"))
        page.keyboard.press("s")
        page.wait_for_selector("#hint")
        page.wait_for_timeout(300)
        page.screenshot(path=str(ROOT / "docs" / "screenshot.png"), full_page=True)
        browser.close()


if __name__ == "__main__":
    main()
