"""Built once, read many times: the demo report, the wheel, its environment and the manual, shared by a whole session.

Each is built by the first test that asks for it and then read by every other, in this
process and in every pytest-xdist worker of the session: the pytest-xdist documentation's
pattern, a lock (``filelock.FileLock``) and a JSON marker in the temporary folder that the
session's workers share (``tmp_path_factory.getbasetemp().parent`` under xdist; the session's
own temporary folder without it). A build that fails is recorded in the marker, and every
test that asks for it fails with the same message, without building again. The builds made
by other programs (pip, sphinx) that the selected tests use start ahead, as the session starts,
in threads of the first worker (:func:`build_ahead`); a test then takes the build as before.

The fixtures (registered in ``conftest.py``):

- ``demo_report``: the demo's report, every page, as ``sgr-kit report --out R -p n_boot 200
  --quiet --no-progress`` builds it;
- ``wheel``: the wheel of this checkout, built from a copy of the files it is made of (so
  that no ``build/`` folder is left in the checkout, nor an old one read);
- ``installed_wheel``: a new virtual environment with the wheel and its dependencies installed
  by pip, as a user installs sgr-kit (what a report imports compiled once);
- ``manual``: the manual (docs/) built as HTML with warnings as errors (it executes the
  notebooks), with its doctrees beside it.

A test that only reads a shared build uses its folder as it is; a test that changes anything
works on a copy (``shutil.copytree(demo_report, tmp_path / "report")``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Callable

import pytest
from filelock import FileLock

from sgr_kit.report.kernels import WARM_IMPORTS

ROOT = Path(__file__).resolve().parents[1]

#: The fixtures of the shared builds (registered in conftest.py, which also orders the tests by them).
SHARED_BUILDS = frozenset({"demo_report", "wheel", "installed_wheel", "manual"})


def _shared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The session's temporary folder that every worker sees (under pytest-xdist, above each worker's own)."""
    root = tmp_path_factory.getbasetemp()
    return root.parent if os.environ.get("PYTEST_XDIST_WORKER") else root


def built_once(tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], None]) -> Path:
    """The folder ``name``, filled by ``build(folder)`` once per test session and shared by its workers."""
    root = _shared(tmp_path_factory)
    folder, marker = root / f"built-once-{name}", root / f"built-once-{name}.json"
    with FileLock(str(root / f"built-once-{name}.lock")):
        if not marker.is_file():
            start = time.perf_counter()
            try:
                build(folder)
                record = {"outcome": "built"}
            except pytest.skip.Exception as skipped:
                record = {"outcome": "skipped", "reason": str(skipped.msg)}
            except pytest.fail.Exception as failed:
                record = {"outcome": "failed", "reason": str(failed.msg)[-8000:]}
            except Exception as error:  # recorded: the other tests fail with it instead of building again
                record = {"outcome": "failed", "reason": f"{type(error).__name__}: {error}"[-8000:]}
            record["seconds"] = round(time.perf_counter() - start, 1)
            record["by"] = os.environ.get("PYTEST_XDIST_WORKER", "the only process")
            marker.write_text(json.dumps(record), encoding="utf-8")
        record = json.loads(marker.read_text(encoding="utf-8"))
    if record["outcome"] == "skipped":
        pytest.skip(record["reason"])
    if record["outcome"] == "failed":
        pytest.fail(f"the shared {name} could not be built ({record['by']}): {record['reason']}", pytrace=False)
    return folder


def _run(command: list[str], what: str, *, timeout: float, **options) -> None:
    """Run a build's command; a failure names the command's last words."""
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, **options)
    assert done.returncode == 0, f"{what} failed ({done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-5000:]}"


def _build_demo_report(folder: Path) -> None:
    """``sgr-kit report --out FOLDER -p n_boot 200 --quiet --no-progress`` on the demo, in this process."""
    from sgr_kit.cli import main

    status = main(["report", "--out", str(folder), "-p", "n_boot", "200", "--quiet", "--no-progress"])
    assert status == 0, f"sgr-kit report exited with status {status}"


#: What the wheel is made of (pyproject.toml's packages, package-dir and readme).
WHEEL_SOURCES = ("pyproject.toml", "README.md", "sgr_kit", "notebooks", "data")


def _build_wheel(folder: Path) -> None:
    """The wheel (``pip wheel --no-deps``) from a copy of the files it is made of."""
    source = folder / "source"
    for name in WHEEL_SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            source.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(folder), str(source)], "pip wheel",
         timeout=900, cwd=folder)
    shutil.rmtree(source)


#: Modules a report imports: its build's own, and what its kernels import before their first page.
WARMED = ("sgr_kit.cli", "sgr_kit.report.build", "papermill", "nbconvert", "ipykernel.kernelapp", *WARM_IMPORTS)


def _install(wheel: Path, folder: Path) -> None:
    """A new virtual environment with the wheel and its dependencies installed (pip, as a user installs it)."""
    _run([sys.executable, "-m", "venv", "--clear", str(folder)], "python -m venv", timeout=600, cwd=folder.parent)
    # --no-compile: modules are compiled as they are imported (a fifth of the install's time otherwise)
    _run([str(folder / "bin" / "python"), "-m", "pip", "install", "--quiet", "--no-compile", str(wheel)],
         "pip install", timeout=1800, cwd=folder)
    # what a report imports, compiled once here rather than by each of a report's processes at once;
    # nothing else of the environment is compiled. Written even where PYTHONDONTWRITEBYTECODE is set (some
    # environments set it for every process): every process of the release tests would otherwise compile pandas, SciPy and
    # matplotlib from source again (2 s of processor time each)
    writes = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    _run([str(folder / "bin" / "python"), "-c", f"import importlib; [importlib.import_module(m) for m in {WARMED!r}]"],
         "the installed package's imports", timeout=600, cwd=folder, env=writes)


def _build_manual(report: Path, folder: Path) -> None:
    """The manual (sphinx -W --keep-going -E), its notebook pages taken from ``report``'s build."""
    _run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-E", "-q", "-b", "html", "-d",
          str(folder / "doctrees"), str(ROOT / "docs"), str(folder / "html")], "the manual's build (sphinx)",
         timeout=3000, cwd=ROOT, env={**os.environ, "SGR_KIT_DOCS_EXECUTED": str(report)})


def _the_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    wheels = sorted(built_once(tmp_path_factory, "wheel", _build_wheel).glob("sgr_kit-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def _the_environment(tmp_path_factory: pytest.TempPathFactory, wheel: Path) -> Path:
    return built_once(tmp_path_factory, "installed-wheel", lambda folder: _install(wheel, folder))


def _the_manual(tmp_path_factory: pytest.TempPathFactory, report: Path) -> Path:
    pytest.importorskip("sphinx")
    return built_once(tmp_path_factory, "manual", lambda folder: _build_manual(report, folder))


def _ahead_manual(tmp_path_factory: pytest.TempPathFactory, stop: threading.Event) -> None:
    # the manual takes its pages from the demo report, which a test builds in its own process (its kernels are
    # that process's): waited for here, never built; a report that could not be built leaves the manual to its test
    report = _shared(tmp_path_factory) / "built-once-demo-report"
    marker = report.with_name(f"{report.name}.json")
    while not stop.wait(0.5):
        if marker.is_file():
            if json.loads(marker.read_text(encoding="utf-8"))["outcome"] == "built":
                _the_manual(tmp_path_factory, report)
            return


def build_ahead(session: pytest.Session, tmp_path_factory: pytest.TempPathFactory) -> Callable[[], None]:
    """Start the long builds made by other programs that the session's tests ask for; returns what ends them.

    The wheel and its environment (pip) start at once, the manual (sphinx) as soon as the demo report
    is there, each in a thread of this process (of the first pytest-xdist worker), while the tests run:
    a test that asks for one finds it built, or waits for its build as for any other. A long build
    then never starts in the run's last minute, nor keeps one worker waiting while the other builds.
    Only what the selected tests use is built; the returned function waits for the builds to end.
    """
    if os.environ.get("PYTEST_XDIST_WORKER", "gw0") != "gw0":
        return lambda: None
    used = set().union(*(getattr(item, "fixturenames", ()) for item in session.items))
    stop, threads = threading.Event(), []

    def start(build: Callable[[], object]) -> None:
        def run() -> None:
            try:
                build()
            except BaseException:  # noqa: BLE001 - the test that asks for the build reports it
                pass
        threads.append(threading.Thread(target=run, name="build-ahead", daemon=True))
        threads[-1].start()

    if "installed_wheel" in used:
        start(lambda: _the_environment(tmp_path_factory, _the_wheel(tmp_path_factory)))
    elif "wheel" in used:
        start(lambda: _the_wheel(tmp_path_factory))
    if "manual" in used:
        start(lambda: _ahead_manual(tmp_path_factory, stop))

    def end() -> None:
        stop.set()
        for thread in threads:
            thread.join()
    return end


def clear_away(config: pytest.Config) -> None:
    """At the end of the session (its main process), remove the wheel's environment in a process of its own.

    pytest removes a session's temporary folder three sessions later, inside that later session's
    time; the environment's tens of thousands of files made that some 4 s. Renamed first, so that
    nothing reads a half-removed environment; the removal is not waited for.
    """
    factory = getattr(config, "_tmp_path_factory", None)  # pytest's own; without it, pytest removes it later
    root = getattr(factory, "_basetemp", None)
    if os.environ.get("PYTEST_XDIST_WORKER") or root is None:
        return
    folder = Path(root) / "built-once-installed-wheel"
    if folder.is_dir():
        gone = folder.with_name(f"{folder.name}.removing")
        folder.rename(gone)
        subprocess.Popen([sys.executable, "-c", "import shutil, sys; shutil.rmtree(sys.argv[1], ignore_errors=True)",
                          str(gone)], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True)  # fmt: skip


@pytest.fixture(scope="session")
def demo_report(tmp_path_factory) -> Path:
    """The demo's report folder (every page, ``n_boot`` 200), built once per session; read it, never change it."""
    return built_once(tmp_path_factory, "demo-report", _build_demo_report)


@pytest.fixture(scope="session")
def wheel(tmp_path_factory) -> Path:
    """The wheel of this checkout (``pip wheel --no-deps``), built once per session from a copy of its sources."""
    return _the_wheel(tmp_path_factory)


@pytest.fixture(scope="session")
def installed_wheel(tmp_path_factory, wheel) -> Path:
    """A virtual environment (its folder) holding the wheel and its dependencies, as ``pip install`` gives them."""
    return _the_environment(tmp_path_factory, wheel)


@pytest.fixture(scope="session")
def manual(tmp_path_factory, demo_report) -> Path:
    """The manual's HTML folder, built once per session with warnings as errors (``html/`` beside ``doctrees/``).

    Its notebook pages are the demo report's, as that build ran them (``SGR_KIT_DOCS_EXECUTED``,
    docs/conf.py): the notebooks run once per session, not twice; the explorer and the annotator,
    which are no report pages, run in the manual's build. ``make docs`` runs every notebook.
    """
    return _the_manual(tmp_path_factory, demo_report) / "html"
