"""The report's pages: notebooks run by papermill in the build's page threads, each exported as an HTML page.

- :func:`run_notebook`: one notebook executed with papermill, in a kernel of its own;
- :class:`Pages`: the page threads of a build, each driving a kernel it keeps between the
  report's own pages (:mod:`sgr_kit.report.kernels`), started as the build starts so that
  their imports run while it scores; :meth:`Pages.stop` kills every kernel the build started;
- :class:`NotebookRun`: how one notebook went (its time, and its failing cell).
"""

from __future__ import annotations

import os
import queue
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

from ..errors import SgrKitError
from ..output import write_text
from .html import _exporter, export_html
from .kernels import keeping
from .notebook import keep_parameters
from .plan import is_own_page, notebook_parameters

__all__ = ["NotebookRun", "Pages", "run_notebook", "slowest_first"]


def run_notebook(
    notebook: str | os.PathLike,
    output: str | os.PathLike,
    *,
    parameters: Mapping[str, Any] | None = None,
    kernel: str = "python3",
    cwd: str | os.PathLike | None = None,
) -> Path:
    """Execute ``notebook`` with papermill and write the executed copy to ``output``.

    Parameters
    ----------
    notebook, output : path
    parameters : mapping, optional
        Values for the notebook's ``parameters`` cell. A name the cell does not
        define is refused (a typo would otherwise be silently ignored).
    kernel : str, default "python3"
    cwd : path, optional
        Working directory of the kernel (default: the folder of ``output``). Only the kernel
        starts there: unlike papermill's own ``cwd``, the calling process's working directory
        never changes, so notebooks can run from several threads at once.

    Returns
    -------
    Path
        ``output``. When a cell fails, papermill still writes the notebook (showing
        the failing cell) and an :class:`SgrKitError` names the notebook and the cell.
    """
    import papermill

    parameters = dict(parameters or {})
    known = notebook_parameters(notebook)
    unknown = sorted(set(parameters) - set(known))
    if unknown:
        raise SgrKitError(
            f"notebook {notebook}: unknown parameter(s) {', '.join(unknown)}; "
            f"its parameters cell defines {', '.join(sorted(known))}"
        )
    out = Path(output).absolute()
    out.parent.mkdir(parents=True, exist_ok=True)
    folder = Path(cwd).absolute() if cwd is not None else out.parent
    try:
        # the kernel starts in `folder` (nbclient's resources path); papermill's cwd= would chdir the process
        papermill.execute_notebook(
            str(notebook), str(out), parameters=parameters, kernel_name=kernel, progress_bar=False,
            log_output=False, resources={"metadata": {"path": str(folder)}},
        )
    except papermill.PapermillExecutionError as exc:
        raise SgrKitError(_failed_cell(exc, notebook, out)) from None
    return out


def _failed_cell(exc: Any, notebook: str | os.PathLike, executed: Path) -> str:
    """What a papermill execution error says: the notebook, the cell, the error, and where the executed copy is."""
    return (f"notebook {Path(notebook).name} failed in cell {exc.exec_count}: {exc.ename}: {exc.evalue} "
            f"(the executed copy with the failing cell is {executed.name})")


@dataclass(frozen=True)
class NotebookRun:
    """How one notebook of a report build went."""

    name: str
    ok: bool
    seconds: float
    error: str = ""


class _PageRunner:
    """The kernel one page thread keeps, and how it hands a kernel to each page.

    The report's own pages share the kept kernel, made as fresh as a new kernel before each
    (:mod:`sgr_kit.report.kernels`); it is kept for the next page only when a page succeeded
    (after a failure it might be left in any state, so the next page gets a new one). Any
    other notebook (a user's ``--notebooks PATH``) gets a kernel of its own, started for it
    and stopped after it, as papermill would. Once the build is ``stopping`` no kernel is started.
    ``kernel``: one an earlier build of this process left (:func:`~sgr_kit.report.kernels.keep_kernels`).
    """

    def __init__(self, folder: str, stopping: threading.Event | None = None, kernel: Any = None) -> None:
        self.folder = folder
        self.kept = kernel
        self.stopping = stopping or threading.Event()

    def _new(self, **options: Any):
        from .kernels import PageKernel

        if self.stopping.is_set():
            raise RuntimeError("the build is stopping")
        return PageKernel(self.folder, **options)

    def start(self) -> None:
        """Start the kept kernel now (its imports run while the build scores); a failure waits for the first page."""
        if self.kept is not None:  # kept from an earlier build
            return
        try:
            self.kept = self._new()
        except Exception:
            self.kept = None

    def kernel_for(self, own: bool):
        if not own:
            return self._new(warm=False)
        kernel, self.kept = self.kept, None
        if kernel is not None:
            try:
                if kernel.alive():
                    kernel.fresh(self.folder)
                    return kernel
            except Exception:  # not restored in time, or gone: replaced below
                pass
            kernel.stop()
        kernel = self._new()
        kernel.ready()
        return kernel

    def done_with(self, kernel, own: bool, ok: bool) -> None:
        kernel.close_clients()  # papermill leaves its client open on a kernel it did not start
        if own and ok:
            self.kept = kernel
        else:
            kernel.stop()

    def stop(self) -> None:
        if self.kept is not None:
            self.kept.stop()
            self.kept = None


_EXPORT = threading.Lock()  # one HTML exporter, used by one page thread at a time


def _execute(job: tuple, runner: _PageRunner,
             stopping: threading.Event) -> NotebookRun:
    """Run one notebook with papermill and export its page (in a page thread); never raises."""
    import papermill

    source, name, folder, parameters, long_names, *rest = job
    rerun = rest[0] if rest else None
    own = is_own_page(source)
    start = time.perf_counter()
    executed = Path(folder) / f"{name}.ipynb"
    error = ""
    kernel = None
    try:
        kernel = runner.kernel_for(own)
        # no cwd: the kernel already runs in the build folder, and papermill's cwd changes the
        # whole process's working directory, which two page threads must not do. The executed copy is
        # written once, at the end (with the failing cell when one fails), not again before and after
        # every cell (a notebook with its images serialized some sixty times per page)
        papermill.execute_notebook(source, str(executed), parameters=parameters, kernel_name="python3",
                                   progress_bar=False, log_output=False, km=kernel.km,
                                   request_save_on_cell_execute=False)
    except papermill.PapermillExecutionError as exc:
        error = _failed_cell(exc, source, executed)
    except Exception as exc:  # a kernel that dies or cannot start is a failed notebook, not a crashed build
        error = f"notebook {name} could not run: {type(exc).__name__}: {exc}"
    finally:
        if kernel is not None:
            runner.done_with(kernel, own, not error)
    if executed.is_file() and not stopping.is_set():
        try:
            _relative_metadata(executed, source)
            # the saved page's parameters cell holds this report's values, but an output folder of its own
            keep_parameters(executed, saved={"output_dir": rerun} if rerun and "output_dir" in parameters else None)
            with _EXPORT:
                export_html(executed, Path(folder) / f"{name}.html", long_names=long_names)
        except Exception as exc:
            error = error or f"page {name} could not be written: {type(exc).__name__}: {exc}"
    return NotebookRun(name, not error, time.perf_counter() - start, error)


def _relative_metadata(executed: Path, source: str) -> None:
    """Papermill records where it read and wrote the notebook: keep names, never the build folder."""
    import nbformat

    nb = nbformat.read(str(executed), as_version=4)
    meta = nb.metadata.get("papermill")
    if meta is None:
        return
    meta["input_path"] = Path(source).name
    meta["output_path"] = executed.name
    write_text(nbformat.writes(nb), executed, force=True)


class Pages:
    """The report's notebooks, run by ``n`` threads of the build, each driving one kernel.

    Started as the build starts (:meth:`start`): each thread starts its kernel right away and sends it the
    pages' imports (:mod:`sgr_kit.report.kernels`), so that they run while the build scores;
    the threads then take pages from a queue, slowest first. papermill and nbconvert run in
    the build's own process: no worker processes to start, none importing them again.
    :meth:`stop` (an interrupted build) kills every kernel the build started and waits for
    the threads before the build folder is removed.

    Where the process keeps kernels between builds (:func:`~sgr_kit.report.kernels.keep_kernels`),
    each thread starts with one an earlier build left, when one fits, and a build that finishes
    gives its kernels back (:meth:`release`); :meth:`stop` kills them as its own.
    """

    def __init__(self, n: int, folder: Path) -> None:
        import psutil

        from .kernels import take_kernel

        taken = [take_kernel() for _ in range(n)]
        theirs = {k.pid for k in taken if k is not None}
        for pid in list(theirs):
            try:
                theirs |= {child.pid for child in psutil.Process(pid).children(recursive=True)}
            except psutil.Error:
                pass
        self.before = {child.pid for child in psutil.Process().children(recursive=True)} - theirs
        self.jobs: queue.Queue = queue.Queue()
        self.done: queue.Queue = queue.Queue()
        self.stopping = threading.Event()
        self.finished: list = []  # the kernels the threads kept when the pages were done (kernels.keep_kernels)
        self.ran = False
        self.threads = [threading.Thread(target=self._work, args=(_PageRunner(str(folder), self.stopping, kernel),),
                                         daemon=True, name=f"sgr-kit page thread {i + 1}")
                        for i, kernel in enumerate(taken)]

    def start(self) -> None:
        """Start the threads (and their kernels); an interrupt in here leaves :meth:`stop` all it must stop."""
        for thread in self.threads:
            thread.start()
        _exporter()  # loads nbconvert's templates while the kernels start

    def _work(self, runner: _PageRunner) -> None:
        try:
            runner.start()
            while not self.stopping.is_set():
                job = self.jobs.get()
                if job is None:
                    break
                self.done.put(_execute(job, runner, self.stopping))
        finally:
            if runner.kept is not None and keeping() and not self.stopping.is_set():
                self.finished.append(runner.kept)  # for release(), once the build has finished
                runner.kept = None
            runner.stop()
            _close_event_loop()

    def release(self) -> None:
        """The build has finished: give the kernels its threads kept to later builds (or stop them)."""
        from .kernels import give_back

        while self.finished:
            give_back(self.finished.pop())

    def refused(self) -> None:
        """The build ends before its first page (its inputs were refused): kernels kept between builds go back.

        The threads end as after their last page; any that does not within 10 s, or when the
        process keeps no kernels, :meth:`stop` as for an interrupted build.
        """
        if self.ran or not keeping():
            self.stop()
            return
        for _ in self.threads:
            self.jobs.put(None)
        if self._join(10):
            self.release()
        else:
            self.stop()

    def run(self, jobs: list[tuple], say: Callable[[str], None]) -> list[NotebookRun]:
        """Run the notebooks (``jobs`` in the order to start them), reporting each as it ends."""
        self.ran = True
        for job in jobs:
            self.jobs.put(job)
        for _ in self.threads:
            self.jobs.put(None)
        done: list[NotebookRun] = []
        while len(done) < len(jobs):
            try:
                run = self.done.get(timeout=0.5)
            except queue.Empty:
                if not any(thread.is_alive() for thread in self.threads) and self.done.empty():
                    raise SgrKitError(f"report build: the page threads ended after {len(done)} of {len(jobs)} "
                                      f"notebooks; this is a bug in sgr-kit") from None
                continue
            done.append(run)
            status = "ok" if run.ok else f"FAILED: {run.error}"
            say(f"{run.name:<28} {run.seconds:6.1f} s  {status}")
        for thread in self.threads:
            thread.join()
        return done

    def stop(self) -> None:
        """Kill every kernel the build started (and what they started), wait a little for the threads, kill again.

        Bounded in time (some 20 s at most): the threads start no kernel once stopping, and a
        kernel one of them was starting as the first kill came is killed by the second.
        """
        self.stopping.set()
        for _ in self.threads:  # threads still waiting for pages end now
            self.jobs.put(None)
        self._kill()
        self._join(10)
        self._kill()
        while self.finished:
            self.finished.pop().stop()

    def _join(self, seconds: float) -> bool:
        """Wait at most ``seconds`` for the started threads to end; whether they all did."""
        deadline = time.monotonic() + seconds
        for thread in self.threads:
            if thread.ident is not None:  # started
                thread.join(timeout=max(0.0, deadline - time.monotonic()))
        return not any(thread.is_alive() for thread in self.threads)

    def _kill(self) -> None:
        import psutil

        procs = [child for child in psutil.Process().children(recursive=True) if child.pid not in self.before]
        for proc in procs:
            try:
                proc.kill()
            except psutil.Error:
                pass
        psutil.wait_procs(procs, timeout=5)


def _close_event_loop() -> None:
    """Close the asyncio event loop jupyter_client made for this thread (else: "unclosed event loop" when it ends)."""
    import asyncio
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            loop = asyncio.get_event_loop()
        except RuntimeError:  # this thread has none
            return
    if not loop.is_running() and not loop.is_closed():
        loop.close()
    asyncio.set_event_loop(None)


def slowest_first(jobs: list[tuple], seconds: Mapping[str, float]) -> list[tuple]:
    """Jobs in longest-processing-time order: by the previous build's time of each notebook, unknown ones first."""
    return sorted(jobs, key=lambda job: -seconds.get(job[1], float("inf")))
