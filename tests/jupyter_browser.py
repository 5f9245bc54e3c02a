"""Helpers of the browser tests: JupyterLab on loopback, headless Chromium through Playwright.

Used by ``test_explore_browser.py`` and ``test_annotate_browser.py`` (both marked
``browser``). They need Debian's ``chromium`` on PATH and Playwright's Python package;
``scripts/install-browser`` installs both. Where they are missing a test is skipped locally
with the reason, and fails under CI (``CI`` set), so a CI run never passes without having
run it. The Jupyter server and its kernels are always stopped, also when a test fails.
"""

from __future__ import annotations

import contextlib
import http.cookiejar
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Iterator

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: Where screenshots go (ignored by git).
ARTIFACTS = ROOT / "out" / "test-artifacts"
#: Chromium flags that work headless as root in a container without a session bus.
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync",
]  # fmt: skip


def browser_or_skip() -> str:
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


def _server_url(runtime: Path) -> str | None:
    """The URL the server wrote in its runtime folder (``jpserver-<pid>.json``) once it listens, else None."""
    for info in runtime.glob("jpserver-*.json"):
        try:
            url = json.loads(info.read_text(encoding="utf-8")).get("url")
        except (OSError, ValueError):  # being written
            continue
        if url:
            return url.rstrip("/")
    return None


@contextlib.contextmanager
def jupyter_lab(notebook_dir: Path, *, log: Path, timeout: float = 90.0) -> Iterator[str]:
    """Run JupyterLab on a loopback port of its choosing, without a token; yield its base URL; always stop it.

    The server picks a free port itself (``--port=0``) and names it in the server file it writes
    in a runtime folder of its own, beside ``notebook_dir``: two servers started at once (tests in
    parallel) never race for one port. It runs in its own process group; on exit its kernels are
    shut down through the REST API, then the group gets SIGTERM (SIGKILL after 15 s).
    """
    jupyter = Path(sys.executable).with_name("jupyter")
    runtime = notebook_dir.parent / "jupyter-runtime"
    env = dict(os.environ, JUPYTER_RUNTIME_DIR=str(runtime), JUPYTER_PLATFORM_DIRS="1")
    command = [
        str(jupyter), "lab", "--no-browser", "--ip=127.0.0.1", "--port=0", "--port-retries=0",
        "--IdentityProvider.token=", "--ServerApp.password=", "--allow-root",
        f"--notebook-dir={notebook_dir}", f"--LabApp.workspaces_dir={notebook_dir.parent / 'workspaces'}",
    ]  # fmt: skip
    base = None
    with open(log, "wb") as out:
        server = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
        try:
            deadline = time.monotonic() + timeout
            while True:  # until the server has written where it listens, and answers there
                if server.poll() is not None:
                    raise RuntimeError(f"jupyter lab exited with {server.returncode}; see {log}")
                base = base or _server_url(runtime)
                if base is not None:
                    try:
                        _get(f"{base}/api/status", timeout=2)
                        break
                    except OSError:
                        pass
                if time.monotonic() > deadline:
                    raise RuntimeError(f"jupyter lab did not answer within {timeout:.0f} s; see {log}")
                try:
                    server.wait(timeout=0.2)  # returns early only if the server ends
                except subprocess.TimeoutExpired:
                    pass
            yield base
        finally:
            if base is not None:
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


def parameterized_copy(notebook: Path, folder: Path, **parameters: object) -> Path:
    """A copy of ``notebook`` in ``folder`` with ``parameters`` injected (as papermill does)."""
    import nbformat
    from papermill.iorw import load_notebook_node
    from papermill.parameterize import parameterize_notebook

    parameterized = parameterize_notebook(load_notebook_node(str(notebook)), parameters)
    target = folder / notebook.name
    nbformat.write(parameterized, target)
    return target


def open_and_run_all(page, base: str, name: str, *, timeout_ms: int = 120_000) -> None:
    """Open ``name`` in JupyterLab, wait for an idle kernel and run all cells from the Run menu."""
    page.goto(f"{base}/lab/tree/{name}?reset", wait_until="domcontentloaded")
    page.locator(".jp-Notebook").first.wait_for(timeout=timeout_ms)
    page.get_by_text(re.compile(r"\|\s*Idle")).first.wait_for(timeout=timeout_ms)
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
    page.locator('li.lm-Menu-item[data-command="runmenu:run-all"]').click()


def hide_lab_notices(page) -> None:
    """Hide JupyterLab's news prompt (a toast) before a screenshot."""
    page.add_style_tag(content=".Toastify { display: none !important; }")
