"""The report's pages in a real browser: headless Chromium at 1,400 px, through Playwright.

Marked ``browser`` (``pytest -m browser`` runs it alone; the browser helpers are in
``jupyter_browser.py``). Two reports are built: the demo's, and one of three systems (one
perfect, one that drops rows, one whose answers are no table) on the real release tasks
in ``../shared/fixtures/release-original/``. On the index and on every page:

- the page does not scroll sideways;
- every figure is at least 600 px wide on screen, and its smallest text (the theme's 6 pt
  ticks at the figure's 300 dpi) at least 10 px;
- no figure is drawn twice on one page.

Screenshots of the index and of two pages go to ``out/test-artifacts/`` (ignored by git).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jupyter_browser import ARTIFACTS, CHROMIUM_ARGS, browser_or_skip

from sgr_kit.report import build_report

pytestmark = pytest.mark.browser

RELEASE_ORIGINAL_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "fixtures" / "release-original"
#: Saved figures' resolution, and the theme's smallest text (ticks, legends) in points.
FIGURE_DPI, SMALLEST_PT = 300, 6.0

_MEASURE = """() => {
  const doc = document.documentElement;
  const images = [...document.querySelectorAll('.jp-OutputArea-output img, figure img')].map(img => {
    const r = img.getBoundingClientRect();
    return {src: img.currentSrc || img.src, width: r.width, natural: img.naturalWidth};
  });
  return {scroll: doc.scrollWidth, client: doc.clientWidth, images};
}"""


def _release_inputs(folder: Path) -> tuple[list[str], list[str]]:
    """Three systems' answers to the release tasks: the reference, the reference without its last rows, no table."""
    if not RELEASE_ORIGINAL_DIR.is_dir():
        pytest.skip("release-original fixtures absent: expected ../shared/fixtures/release-original")
    runs = []
    for path in sorted(RELEASE_ORIGINAL_DIR.glob("*.json")):
        task = json.loads(path.read_text(encoding="utf-8"))
        reference = task["oracle_answer"]
        lines = reference.strip().splitlines()
        runs += [{"system": "Perfect agent", "task_id": task["task_id"], "answer": reference},
                 {"system": "Half agent", "task_id": task["task_id"],
                  "answer": "\n".join(lines[: max(2, len(lines) // 2)])},
                 {"system": "Lost agent", "task_id": task["task_id"], "answer": "I could not find the records."}]
    folder.mkdir(parents=True, exist_ok=True)
    run_file = folder / "runs.jsonl"
    run_file.write_text("".join(json.dumps(r) + "\n" for r in runs), encoding="utf-8")
    return [str(RELEASE_ORIGINAL_DIR)], [str(run_file)]


@pytest.fixture(scope="module", params=["demo", "release"])
def report(request, tmp_path_factory) -> tuple[str, Path]:
    if request.param == "demo":  # the session's demo report (tests/built_once.py), every page, n_boot 200
        return request.param, request.getfixturevalue("demo_report")
    folder = tmp_path_factory.mktemp(f"layout-{request.param}")
    tasks, runs = (None, None) if request.param == "demo" else _release_inputs(folder / "inputs")
    result = build_report(tasks, runs, folder / "report", parameters={"n_boot": 200}, progress=False)
    assert result.ok, [r.error for r in result.notebooks if not r.ok]
    return request.param, result.folder


def test_pages_fit_the_window_and_figures_read(report) -> None:
    chromium = browser_or_skip()
    from playwright.sync_api import sync_playwright

    name, folder = report
    pages = [folder / "index.html", *sorted(folder.glob("0*.html"))]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    problems: list[str] = []
    figures = 0
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            for html in pages:
                page.goto(html.as_uri())
                page.wait_for_load_state("load")
                seen = page.evaluate(_MEASURE)
                if seen["scroll"] > seen["client"]:
                    problems.append(f"{html.name}: scrolls sideways ({seen['scroll']} > {seen['client']} px)")
                sources = [img["src"] for img in seen["images"]]
                if len(set(sources)) < len(sources):
                    problems.append(f"{html.name}: a figure is drawn twice")
                for img in seen["images"]:
                    figures += 1
                    if img["width"] < 600:
                        problems.append(f"{html.name}: a figure {img['width']:.0f} px wide on screen")
                    if img["natural"]:
                        smallest = SMALLEST_PT / 72 * FIGURE_DPI * img["width"] / img["natural"]
                        if smallest < 10:
                            problems.append(f"{html.name}: figure text {smallest:.1f} px on screen")
                if html.name in ("index.html", "01_main_table.html", "09_site_reach.html"):
                    page.screenshot(path=str(ARTIFACTS / f"report-{name}-{html.stem}.png"), full_page=True)
        finally:
            browser.close()
    assert figures > 0
    assert not problems, "\n".join(problems)
