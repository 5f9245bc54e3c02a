"""The explorer notebook in a real browser: JupyterLab on loopback, headless Chromium, Playwright.

Marked ``browser`` (``pytest -m browser`` runs it alone); the shared helpers (JupyterLab on a
free loopback port, the browser, skipping or failing when the tools are missing) are in
``jupyter_browser.py``.

The test writes small task and run files (one answer holding ``<script>``, an
``<img onerror>``, a right-to-left override and a 100 KB answer), copies
``notebooks/07_explorer.ipynb`` beside them with its parameters pointing at them, starts
JupyterLab on a free loopback port without a token, runs all cells in Chromium, changes a
filter, selects the hostile answer and checks what the page shows. A screenshot is saved
to ``out/test-artifacts/`` (ignored by git).
"""

from __future__ import annotations

import contextlib
import json
import re
from pathlib import Path

import pytest
from jupyter_browser import (
    ARTIFACTS,
    CHROMIUM_ARGS,
    ROOT,
    browser_or_skip,
    hide_lab_notices,
    jupyter_lab,
    open_and_run_all,
    parameterized_copy,
)

pytestmark = pytest.mark.browser

NOTEBOOK = ROOT / "notebooks" / "07_explorer.ipynb"
HOSTILE_CELL = "<script>alert(1)</script>"
HOSTILE_PROSE = "<img src=x onerror=alert(1)>"


def _task(task_id: str, domain: str, columns: list[str], rows: list[tuple[str, ...]]) -> dict:
    reference = "|".join(columns) + "\n" + "\n".join("|".join(r) for r in rows)
    return {
        "task_id": task_id, "domain": domain, "oracle_answer": reference, "instruction": "List the records.",
        "output_format": f"Return a pipe-separated table with header {'|'.join(columns)}.",
        "metadata": {"synthetic": True}, "rubric": {"columns": columns, "row_key": [columns[0]]},
    }  # fmt: skip


def write_fixture(folder: Path) -> tuple[Path, Path]:
    """Two base problems in both variants, two systems, one hostile and one 100 KB answer."""
    nvd = (["cve_id", "score"], [("CVE-2024-0001", "9.8"), ("CVE-2024-0002", "7.5"), ("CVE-2024-0003", "5.0")])
    arxiv = (["arxiv_id", "category"], [("2101.00001", "cs.LG"), ("2101.00002", "stat.ML")])
    tasks = [_task("nvd_001", "NVD", *nvd), _task("nvd_001-g", "NVD", *nvd),
             _task("arxiv_001", "ARXIV", *arxiv), _task("arxiv_001-g", "ARXIV", *arxiv)]  # fmt: skip
    hostile = (
        f"Here is the table {HOSTILE_PROSE}\n\ncve_id|score\nCVE-2024-0001|{HOSTILE_CELL}\n"
        "CVE-2024-0002|7.5\u202egnp.exe\nCVE-2024-0009|1.0\n"
    )
    long = "arxiv_id|category\n2101.00001|cs.LG\n2101.00002|cs.CV\n\n" + "lorem ipsum " * 9_000
    runs = [
        ("Alpha", "nvd_001", "cve_id|score\nCVE-2024-0001|9.8\nCVE-2024-0002|7.5\nCVE-2024-0003|5.0"),
        ("Alpha", "nvd_001-g", "cve_id|score\nCVE-2024-0001|9.8\nCVE-2024-0003|4.0"),
        ("Alpha", "arxiv_001", "NONE"),
        ("Alpha", "arxiv_001-g", long),
        ("Beta", "nvd_001", hostile),
        ("Beta", "nvd_001-g", "cve_id|score\nCVE-2024-0001|9.8\nCVE-2024-0001|9.8"),
        ("Beta", "arxiv_001", "arxiv_id|category"),
    ]
    task_file, run_file = folder / "tasks.jsonl", folder / "runs.jsonl"
    task_file.write_text("".join(json.dumps(t) + "\n" for t in tasks), encoding="utf-8")
    run_file.write_text(
        "".join(json.dumps({"system": s, "task_id": t, "answer": a}) + "\n" for s, t, a in runs), encoding="utf-8"
    )
    return task_file, run_file


def test_explorer_in_jupyterlab(tmp_path: Path) -> None:
    chromium = browser_or_skip()
    from playwright.sync_api import expect, sync_playwright

    work = tmp_path / "notebooks"
    work.mkdir()
    tasks, runs = write_fixture(work)
    parameterized_copy(NOTEBOOK, work, tasks_paths=[tasks.name], runs_path=runs.name)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    dialogs: list[str] = []

    with jupyter_lab(work, log=tmp_path / "jupyter.log") as base, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 2000})
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
            open_and_run_all(page, base, NOTEBOOK.name)

            app = page.locator(".widget-vbox.sgr-explorer")
            try:
                app.wait_for(timeout=120_000)
                systems = app.locator(".sgr-filter-systems select")
                expect(systems).to_be_visible(timeout=30_000)
                summary = app.locator(".sgr-summary")
                expect(summary).to_contain_text("8 of 8 answers", timeout=30_000)

                # widgets render as widgets: no placeholder, no text repr of the explorer
                outputs = page.locator(".jp-OutputArea-output")
                shown = " ".join(outputs.all_inner_texts())
                assert "Loading widget" not in shown
                assert "SGR-Bench answer explorer:" not in shown  # the text repr
                assert page.locator(".sgr-fallback").count() == 0  # nor the static view meant for exports
                expect(app.locator(".sgr-banner")).to_contain_text("SYNTHETIC DATA")

                # a filter change reaches the kernel and redraws the list
                listing = app.locator(".sgr-list select")
                options = listing.locator("option")

                def only(system: str) -> list[str]:
                    systems.select_option(value=system)
                    expect(options.first).to_have_attribute("value", re.compile(f"^{system} "), timeout=30_000)
                    expect(options).to_have_count(4, timeout=30_000)
                    return options.evaluate_all("os => os.map(o => o.value)")

                before = app.locator(".sgr-answer h3").inner_text()
                values = only("Beta")
                expect(summary).to_contain_text("4 of 8 answers", timeout=30_000)
                assert all(v.startswith("Beta ") for v in values)

                # selecting the hostile answer changes the answer view; its text shows as text
                answer = app.locator(".sgr-answer")
                hostile = next(v for v in values if " nvd_001 " in v)
                listing.select_option(value=hostile)
                expect(answer.locator("h3")).to_contain_text("Beta · nvd_001 · repeat 0", timeout=30_000)
                assert answer.locator("h3").inner_text() != before
                expect(answer).to_contain_text(HOSTILE_CELL)
                expect(answer).to_contain_text(HOSTILE_PROSE)
                expect(answer).to_contain_text("⟨RLO⟩")
                assert answer.locator("script").count() == 0
                assert page.locator('img[src="x"]').count() == 0
                expect(answer.locator("td.v-wrong").first).to_contain_text("✗")
                expect(answer).to_contain_text("extra row")

                # the 100 KB answer is cut with a visible note
                values = only("Alpha")
                listing.select_option(value=next(v for v in values if " arxiv_001-g " in v))
                expect(answer.locator("h3")).to_contain_text("Alpha · arxiv_001-g", timeout=30_000)
                expect(answer).to_contain_text("more characters)")

                # back to the hostile answer for the screenshot
                values = only("Beta")
                listing.select_option(value=hostile)
                expect(answer.locator("h3")).to_contain_text("Beta · nvd_001 · repeat 0", timeout=30_000)
            finally:  # the artifact, also (and especially) when a check failed
                shot = ARTIFACTS / "explorer-browser-test.png"
                with contextlib.suppress(Exception):  # never hide the failure itself
                    hide_lab_notices(page)
                    if app.count():
                        app.scroll_into_view_if_needed()
                        app.screenshot(path=str(shot))
                    else:
                        page.screenshot(path=str(shot))
            assert dialogs == [], f"the page opened dialog(s): {dialogs}"
        finally:
            browser.close()
