"""The annotation notebook in a real browser: label with the keyboard, restart the kernel, resume.

Marked ``browser`` (``pytest -m browser`` runs it alone); the helpers (JupyterLab on a free
loopback port, headless Chromium, skipping or failing when the tools are missing) are in
``jupyter_browser.py``.

The test copies ``notebooks/08_annotate.ipynb`` with a temporary label file (everything else
at its defaults: the SYNTHETIC demo, its trajectories and an audit sample drawn in the
notebook), runs all cells in JupyterLab, clicks into the annotator and labels three answers
with the keys ``1``, ``2`` and ``8`` (``1`` is also JupyterLab's "heading 1" shortcut in command
mode: the notebook's cells must stay as they were), after typing a note holding digits and
``n``/``p`` (text there, never shortcuts). The three labels, and the note with the first, must
be in the file at once. Then it restarts the kernel and runs all cells again from the Kernel menu: the widget
must open at the fourth answer, saying that three are labelled. A screenshot goes to
``out/test-artifacts/`` (ignored by git).
"""

from __future__ import annotations

import contextlib
import csv
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

NOTEBOOK = ROOT / "notebooks" / "08_annotate.ipynb"
ANNOTATOR = "browser-test"
#: Keys pressed, and the labels they must write (the label set's order, 1-8).
PRESSED = (("1", "correct"), ("2", "scope_drift"), ("8", "not_analyzable"))
#: A note typed before the first label: digits and n/p in it must stay text.
NOTE = "3 rows of 8 in 2 pages; n p"


def _labels(path: Path) -> list[dict]:
    if not path.is_file():
        return []
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_label_with_the_keyboard_restart_and_resume(tmp_path: Path) -> None:
    chromium = browser_or_skip()
    from playwright.sync_api import expect, sync_playwright

    work = tmp_path / "notebooks"
    work.mkdir()
    labels = tmp_path / "labels" / f"{ANNOTATOR}.csv"
    parameterized_copy(NOTEBOOK, work, annotator=ANNOTATOR, labels_path=str(labels))
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    dialogs: list[str] = []

    with jupyter_lab(work, log=tmp_path / "jupyter.log") as base, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1500, "height": 2200})
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
            open_and_run_all(page, base, NOTEBOOK.name)
            app = page.locator(".sgr-annotator")
            try:
                progress = app.locator(".sgr-progress")
                expect(progress).to_contain_text(re.compile(r"\b0 of \d+ labelled"), timeout=240_000)
                total = int(re.search(r"0 of (\d+) labelled", progress.inner_text()).group(1))
                assert total > 3
                expect(app.locator(".sgr-banner")).to_contain_text("SYNTHETIC")
                expect(app.locator(".sgr-title")).to_contain_text(f"Answer 1 of {total}")
                expect(app.locator(".sgr-trajectory details").first).to_be_attached()
                expect(app).to_contain_text("earliest non-recoverable root cause")
                markdown_cells = page.locator(".jp-Notebook .jp-MarkdownCell").count()

                # keys typed into the note are text, not shortcuts
                note = app.locator(".sgr-note-field textarea")
                note.click()
                page.keyboard.type(NOTE)
                expect(note).to_have_value(NOTE)
                keys = app.locator(".sgr-keys")
                keys.click()  # leaves the note (which sends it to the kernel) and turns the keyboard on
                expect(keys).to_have_class(re.compile(r"\bsgr-keys-on\b"), timeout=30_000)
                assert _labels(labels) == [] and "0 of" in progress.inner_text()
                for n, (key, _label) in enumerate(PRESSED, start=1):
                    page.keyboard.press(key)
                    expect(progress).to_contain_text(f"{n} of {total} labelled", timeout=30_000)
                    # written at once: the file holds the label before any other action
                    assert len(_labels(labels)) == n
                expect(app.locator(".sgr-title")).to_contain_text(f"Answer 4 of {total}")
                rows = _labels(labels)
                assert [r["label"] for r in rows] == [label for _key, label in PRESSED]
                assert {r["annotator"] for r in rows} == {ANNOTATOR}
                assert [r["note"] for r in rows] == [NOTE, "", ""]
                # the keys reached the annotator only: no cell became a heading
                assert page.locator(".jp-Notebook .jp-MarkdownCell").count() == markdown_cells

                # restart the kernel and run everything again: a new widget resumes at the fourth answer
                app.evaluate("el => el.setAttribute('data-before-restart', '1')")
                page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Kernel$")).click()
                page.locator("li.lm-Menu-item", has_text="Restart Kernel and Run All Cells").first.click()
                page.locator(".jp-Dialog-button.jp-mod-accept").click()
                app = page.locator(".sgr-annotator:not([data-before-restart])")
                progress = app.locator(".sgr-progress")
                expect(progress).to_contain_text(f"3 of {total} labelled", timeout=240_000)
                expect(page.locator(".sgr-annotator")).to_have_count(1)  # the old view is gone
                expect(app.locator(".sgr-title")).to_contain_text(f"Answer 4 of {total}", timeout=30_000)
                expect(app.locator(".sgr-status-line")).to_have_text("")  # a fresh widget, nothing saved yet
                assert [r["label"] for r in _labels(labels)] == [label for _key, label in PRESSED]
                app.locator(".sgr-trajectory details.sgr-first-site").first.scroll_into_view_if_needed()
            finally:  # the artifact, also (and especially) when a check failed
                shot = ARTIFACTS / "annotate-browser-test.png"
                with contextlib.suppress(Exception):  # never hide the failure itself
                    hide_lab_notices(page)
                    if app.count():
                        app.first.screenshot(path=str(shot))
                    else:
                        page.screenshot(path=str(shot))
            assert dialogs == [], f"the page opened dialog(s): {dialogs}"
        finally:
            browser.close()
