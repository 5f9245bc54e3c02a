"""The explorer notebook in a real browser: JupyterLab on loopback, headless Chromium, Playwright.

Marked ``browser`` (``pytest -m browser`` runs it alone). It needs Debian's ``chromium`` on
PATH and Playwright's Python package; ``scripts/install-browser`` installs both. Where they
are missing the test is skipped locally with the reason, and fails under CI (``CI`` set),
so a CI run never passes without having run it.

The test writes small task and run files (one answer holding ``<script>``, an
``<img onerror>``, a right-to-left override and a 100 KB answer), copies
``notebooks/07_explorer.ipynb`` beside them with its parameters pointing at them, starts
JupyterLab on a free loopback port without a token, runs all cells in Chromium, changes a
filter, selects the hostile answer and checks what the page shows. A screenshot is saved
to ``out/test-artifacts/`` (ignored by git). The Jupyter server and its kernels are always
stopped, also when the test fails.
"""

from __future__ import annotations

import contextlib
import http.cookiejar
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Iterator

import pytest

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "07_explorer.ipynb"
ARTIFACTS = ROOT / "out" / "test-artifacts"
#: Chromium flags that work headless as root in a container without a session bus.
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync",
]  # fmt: skip
HOSTILE_CELL = "<script>alert(1)</script>"
HOSTILE_PROSE = "<img src=x onerror=alert(1)>"


def _browser_or_skip() -> str:
    """The chromium executable; skip (locally) or fail (under CI) when the browser tools are missing."""
    missing = []
    chromium = shutil.which("chromium")
    if chromium is None:
        missing.append("Debian's chromium (not on PATH)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing.append("Playwright's Python package")
    if missing:
        message = f"browser test needs {' and '.join(missing)}; run scripts/install-browser"
        if os.environ.get("CI"):
            pytest.fail(message + " (CI must install them: the test may not be skipped there)", pytrace=False)
        pytest.skip(message)
    return chromium


def free_port() -> int:
    """A free TCP port on the loopback interface."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str, *, timeout: float = 5.0) -> bytes:
    with urllib.request.urlopen(url, timeout=timeout) as response:  # noqa: S310 - loopback only
        return response.read()


def _shutdown_kernels(base: str) -> None:
    """Shut down every kernel of the server through its REST API (with the XSRF cookie it sets)."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    opener.open(f"{base}/lab", timeout=5).read()
    token = next((c.value for c in jar if c.name == "_xsrf"), "")
    for kernel in json.loads(opener.open(f"{base}/api/kernels", timeout=5).read()):
        request = urllib.request.Request(
            f"{base}/api/kernels/{kernel['id']}", method="DELETE", headers={"X-XSRFToken": token}
        )
        opener.open(request, timeout=10).read()


@contextlib.contextmanager
def jupyter_lab(notebook_dir: Path, *, log: Path, timeout: float = 90.0) -> Iterator[str]:
    """Run JupyterLab on a free loopback port without a token; yield its base URL; always stop it.

    The server runs in its own process group. On exit its kernels are shut down through
    the REST API, then the group gets SIGTERM (SIGKILL after 15 s).
    """
    port = free_port()
    jupyter = Path(sys.executable).with_name("jupyter")
    runtime = notebook_dir.parent / "jupyter-runtime"
    env = dict(os.environ, JUPYTER_RUNTIME_DIR=str(runtime), JUPYTER_PLATFORM_DIRS="1")
    command = [
        str(jupyter), "lab", "--no-browser", "--ip=127.0.0.1", f"--port={port}", "--port-retries=0",
        "--IdentityProvider.token=", "--ServerApp.password=", "--allow-root",
        f"--notebook-dir={notebook_dir}", f"--LabApp.workspaces_dir={notebook_dir.parent / 'workspaces'}",
    ]  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    with open(log, "wb") as out:
        server = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
        try:
            deadline = time.monotonic() + timeout
            while True:
                if server.poll() is not None:
                    raise RuntimeError(f"jupyter lab exited with {server.returncode}; see {log}")
                try:
                    _get(f"{base}/api/status", timeout=2)
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        raise RuntimeError(f"jupyter lab did not answer within {timeout:.0f} s; see {log}") from None
                    time.sleep(0.3)
            yield base
        finally:
            with contextlib.suppress(Exception):  # a failure here must not keep the server running
                _shutdown_kernels(base)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(server.pid, signal.SIGTERM)
            try:
                server.wait(timeout=15)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(server.pid, signal.SIGKILL)
                server.wait(timeout=5)


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


def parameterized_copy(folder: Path, **parameters: object) -> Path:
    """A copy of the explorer notebook in ``folder`` with ``parameters`` injected (as papermill does)."""
    import nbformat
    from papermill.iorw import load_notebook_node
    from papermill.parameterize import parameterize_notebook

    notebook = parameterize_notebook(load_notebook_node(str(NOTEBOOK)), parameters)
    target = folder / NOTEBOOK.name
    nbformat.write(notebook, target)
    return target


def open_and_run_all(page, base: str, name: str, *, timeout_ms: int = 120_000) -> None:
    """Open ``name`` in JupyterLab, wait for an idle kernel and run all cells from the Run menu."""
    page.goto(f"{base}/lab/tree/{name}?reset", wait_until="domcontentloaded")
    page.locator(".jp-Notebook").first.wait_for(timeout=timeout_ms)
    page.get_by_text(re.compile(r"\|\s*Idle")).first.wait_for(timeout=timeout_ms)
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
    page.locator('li.lm-Menu-item[data-command="runmenu:run-all"]').click()


def test_explorer_in_jupyterlab(tmp_path: Path) -> None:
    chromium = _browser_or_skip()
    from playwright.sync_api import expect, sync_playwright

    work = tmp_path / "notebooks"
    work.mkdir()
    tasks, runs = write_fixture(work)
    parameterized_copy(work, tasks_paths=[tasks.name], runs_path=runs.name)
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
                    page.add_style_tag(content=".Toastify { display: none !important; }")  # Lab's news prompt
                    if app.count():
                        app.scroll_into_view_if_needed()
                        app.screenshot(path=str(shot))
                    else:
                        page.screenshot(path=str(shot))
            assert dialogs == [], f"the page opened dialog(s): {dialogs}"
        finally:
            browser.close()
