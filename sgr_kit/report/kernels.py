"""The report's kernels: one per page thread, started ahead, and as fresh as a new kernel for every page.

Starting a Python kernel and importing what a page needs (pandas, SciPy, matplotlib,
seaborn, sgr-kit) costs about 3 s of processor time; paid once per page, it was most of a
report build. Each page thread of the build (:mod:`sgr_kit.report.build`) therefore starts
one :class:`PageKernel` as the build starts, while it is still scoring, and runs the
report's own pages in it one after another. Before each page the kernel is put back in the state a
fresh kernel has right after those imports (:func:`restore`, run inside the kernel):

- the user namespace emptied and the execution count back at 1 (IPython's ``reset``), so a
  page sees no name another page defined and its saved cells are numbered from 1;
- every figure closed, and matplotlib's settings, pandas' options, NumPy's print options and
  floating-point error handling (``np.seterr``, ``np.seterrcall``), IPython's ``%precision``,
  the ``decimal`` context, the recursion limit, the root logger's level, the warning filters
  (with the record of warnings already shown), NumPy's and ``random``'s global generators, the
  environment, the working directory and ``sys.path`` as they were after the imports
  (:func:`remember`).

What this does not undo: changes a page makes to the code or the globals of imported
modules, and modules it imports (they stay imported). Only the report's own pages share a
kernel (known by name and content, :func:`sgr_kit.report.plan.is_own_page`), and they make
none; ``tests/test_report.py`` checks that every saved notebook of a report, run again alone
by papermill in a kernel of its own, shows the same outputs with the same execution counts
and writes every table and figure byte for byte the same
(``test_pages_that_shared_a_kernel_equal_each_page_run_alone_by_papermill``), and that a
page setting pandas' and NumPy's options leaves the next page as it is run alone
(``test_a_page_that_sets_options_leaves_the_next_page_in_its_kernel_as_run_alone``).

A process that builds many reports (a batch script, the test suite) can keep the kernels between
builds (:func:`keep_kernels`): a build then starts with the kernels an earlier one left, when
their environment is its own, restored as before every page and moved to its folder.

A notebook that is not one of the report's own (a user's ``--notebooks PATH``, or any other
notebook placed beside the report's pages in the package's ``notebooks/`` folder) runs in a
kernel of its own, started for it and stopped after it, as does a page after a page that
failed (the kernel might be left in any state).
"""

from __future__ import annotations

import atexit
import functools
import os
import threading
import time
from typing import Any, Iterable, Mapping

#: What a report kernel imports before its first page (what the pages' first cells import).
WARM_IMPORTS = ("sgr_kit.report.notebook", "sgr_kit.breakdowns", "sgr_kit.stats", "sgr_kit.figures",
                "matplotlib.pyplot", "IPython.display")

#: Seconds a kernel may take to be restored between pages before it is replaced by a new one.
RESTORE_TIMEOUT = 60.0

# -- inside the kernel ------------------------------------------------------------------------

_SAVED: dict[str, Any] = {}


def _pandas_options() -> dict[str, Any]:
    """Every pandas option and its value (deprecated ones read without their warning)."""
    import warnings

    import pandas as pd

    def walk(options: Any, prefix: str) -> dict[str, Any]:
        found = {}
        for key in dir(options):
            value = getattr(options, key)
            if type(value) is type(pd.options):  # a group of options (pandas' DictWrapper)
                found.update(walk(value, f"{prefix}{key}."))
            else:
                found[prefix + key] = value
        return found

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return walk(pd.options, "")


def _differs(a: Any, b: Any) -> bool:
    if a is b:
        return False
    try:
        return bool(a != b)
    except Exception:  # values that do not compare (arrays): take them as changed
        return True


def remember(shell: Any = None) -> None:
    """Keep the kernel's state right after its imports (called once, inside the kernel)."""
    import decimal
    import gc
    import logging
    import random
    import sys
    import warnings

    import matplotlib
    import numpy as np

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rc = dict(matplotlib.rcParams)
    plain = shell.display_formatter.formatters["text/plain"] if shell is not None else None
    _SAVED.update(rc=rc, filters=list(warnings.filters), numpy=np.random.get_state(), random=random.getstate(),
                  environ=dict(os.environ), cwd=os.getcwd(), path=list(sys.path),
                  pandas=_pandas_options(), printoptions=np.get_printoptions(), errstate=np.geterr(),
                  errcall=np.geterrcall(), decimal=decimal.getcontext().copy(), recursion=sys.getrecursionlimit(),
                  logging=logging.getLogger().level,
                  precision=None if plain is None else (plain.float_precision, plain.float_format))
    # what the imports made lives as long as the kernel: the garbage collector's full passes (IPython's
    # reset runs one before every page) then walk only what the pages make
    gc.collect()
    gc.freeze()


def restore(shell: Any, cwd: str | None = None, environ: dict[str, str | None] | None = None) -> None:
    """Put the kernel back in the state :func:`remember` kept, with an empty namespace (inside the kernel).

    When the kernel moves to another build (:func:`keep_kernels`): ``cwd``, the working directory
    from now on (``sys.path`` then names it where it named the folder the kernel started in), and
    ``environ``, the values from now on of the variables that may differ between builds (None: unset).
    """
    import decimal
    import logging
    import random
    import sys
    import warnings

    import matplotlib
    import matplotlib.pyplot as plt
    import numpy as np
    import pandas as pd

    if not _SAVED:
        raise RuntimeError("restore() before remember(): this kernel was not started by sgr-kit's report build")
    if cwd is not None and cwd != _SAVED["cwd"]:
        _SAVED["path"] = [cwd if entry == _SAVED["cwd"] else entry for entry in _SAVED["path"]]
        _SAVED["cwd"] = cwd
    for name, value in (environ or {}).items():
        if value is None:
            _SAVED["environ"].pop(name, None)
        else:
            _SAVED["environ"][name] = value
    os.chdir(_SAVED["cwd"])  # before the reset, which records the working directory (IPython's _dh)
    plt.close("all")
    shell.reset(new_session=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        matplotlib.rcParams.update(_SAVED["rc"])
        now = _pandas_options()
        for key, value in _SAVED["pandas"].items():
            if key in now and _differs(now[key], value):
                pd.set_option(key, value)
    warnings.filters[:] = _SAVED["filters"]
    warnings._filters_mutated()  # forgets which warnings were already shown ("default" and "once" filters)
    np.random.set_state(_SAVED["numpy"])
    np.set_printoptions(**_SAVED["printoptions"])
    np.seterr(**_SAVED["errstate"])
    np.seterrcall(_SAVED["errcall"])
    random.setstate(_SAVED["random"])
    decimal.setcontext(_SAVED["decimal"].copy())
    sys.setrecursionlimit(_SAVED["recursion"])
    logging.getLogger().setLevel(_SAVED["logging"])
    if _SAVED["precision"] is not None:  # IPython's %precision
        plain = shell.display_formatter.formatters["text/plain"]
        plain.float_precision, plain.float_format = _SAVED["precision"]
    os.environ.clear()
    os.environ.update(_SAVED["environ"])
    sys.path[:] = _SAVED["path"]


# -- in the build ------------------------------------------------------------------------------

_WARM = (f"[__import__('importlib').import_module(m) for m in {WARM_IMPORTS!r}]\n"
         "__import__('sgr_kit.report.kernels', fromlist=['remember']).remember(get_ipython())")
_RESTORE = "__import__('sgr_kit.report.kernels', fromlist=['restore']).restore(get_ipython(), {cwd!r}, {environ!r})"


class PageKernel:
    """A python3 kernel started in ``folder``, with :data:`WARM_IMPORTS` sent to it (unless ``warm`` is false).

    ``km`` is the kernel manager to hand to papermill (which then leaves the kernel running
    after the notebook, and the client it opened with it: :meth:`close_clients` closes those,
    each holding a ZeroMQ context with its own thread and sockets). The build's own requests
    (the imports, :meth:`fresh`) go through a short-lived blocking client of their own, each
    with a deadline: a kernel that does not answer in time is reported, never waited on forever.
    """

    def __init__(self, folder: str | os.PathLike, *, warm: bool = True) -> None:
        from jupyter_core.utils import run_sync

        self.environ = dict(os.environ)  # what the kernel inherits: it is handed only to builds that have the same
        self.km = _manager_class()(kernel_name="python3")
        # the kernel's own log (its notice that it runs over TCP on this machine) stays out of the build's
        # terminal; a page's errors reach the page, a kernel that does not start fails its page. Its cells
        # are not written to IPython's history database (a write per cell and per page, shared by every kernel)
        run_sync(self.km.start_kernel)(cwd=str(folder), extra_arguments=["--IPKernelApp.log_level=ERROR",
                                                                         "--HistoryManager.enabled=False"])
        self._pending = self._send(_WARM) if warm else None

    def _send(self, code: str) -> tuple[Any, str]:
        from jupyter_client.blocking import BlockingKernelClient

        client = BlockingKernelClient()
        client.load_connection_info(self.km.get_connection_info())
        client.start_channels(shell=True, iopub=False, stdin=False, hb=False, control=False)
        return client, client.execute(code, silent=True, store_history=False)

    def _wait(self, request: tuple[Any, str], timeout: float, what: str) -> None:
        """Wait for the reply to ``request``; a kernel that stops meanwhile (a build interrupted) ends the wait."""
        import queue

        client, msg_id = request
        deadline = time.monotonic() + timeout
        try:
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"the kernel did not finish {what} in {timeout:.0f} s")
                try:
                    reply = client.get_shell_msg(timeout=min(left, 0.5))
                except queue.Empty:
                    if not self.alive():
                        raise RuntimeError(f"the kernel stopped before it finished {what}") from None
                    continue
                if reply.get("parent_header", {}).get("msg_id") == msg_id:
                    break
        finally:
            _close(client)
        content = reply.get("content", {})
        if content.get("status") != "ok":
            raise RuntimeError(f"the kernel failed {what}: {content.get('ename')}: {content.get('evalue')}")

    def ready(self, timeout: float = RESTORE_TIMEOUT) -> None:
        """Wait until the kernel has its imports (raises when they fail or take longer than ``timeout``)."""
        if self._pending is not None:
            request, self._pending = self._pending, None
            self._wait(request, timeout, "its imports")

    def alive(self) -> bool:
        from jupyter_core.utils import run_sync

        try:
            return bool(run_sync(self.km.is_alive)())
        except Exception:
            return False

    @property
    def pid(self) -> int | None:
        """The kernel's process id (None before it starts)."""
        return getattr(self.km.provisioner, "pid", None)

    def fresh(self, folder: str | os.PathLike | None = None, timeout: float = RESTORE_TIMEOUT) -> None:
        """Make the kernel as a new one is after its imports (:func:`restore`), working in ``folder`` when given."""
        self.ready(timeout)
        environ = {name: os.environ.get(name) for name in sorted(_KEEP["varying"])}
        self._wait(self._send(_RESTORE.format(cwd=None if folder is None else str(folder), environ=environ)), timeout,
                   "being restored")

    def close_clients(self) -> None:
        """Close the clients papermill opened on this kernel (call in the thread that ran papermill)."""
        while self.km.clients:
            _close(self.km.clients.pop())

    def stop(self) -> None:
        """Shut the kernel down now (a kernel already gone is fine)."""
        from jupyter_core.utils import run_sync

        self.close_clients()
        if self._pending is not None:
            _close(self._pending[0])
            self._pending = None
        try:
            if run_sync(self.km.is_alive)():
                run_sync(self.km.shutdown_kernel)(now=True)
            run_sync(self.km.cleanup_resources)()
        except Exception:
            pass


def _close(client: Any) -> None:
    """Stop a kernel client's channels and end the ZeroMQ context it created (its thread and sockets)."""
    try:
        client.stop_channels()
        if getattr(client, "_created_context", False) and not client.context.closed:
            client.context.destroy(linger=0)
    except Exception:
        pass


@functools.cache
def _manager_class() -> type:
    """A kernel manager that remembers the clients it hands out (papermill's), so that they can be closed.

    Defined on first use: jupyter_client is imported by the build, never by the kernels,
    which import this module for :func:`remember` and :func:`restore`.
    """
    from jupyter_client.manager import AsyncKernelManager

    class PageKernelManager(AsyncKernelManager):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.clients: list = []

        def client(self, *args: Any, **kwargs: Any) -> Any:
            made = super().client(*args, **kwargs)
            self.clients.append(made)
            return made

    return PageKernelManager


# -- kept between the builds of one process (opt-in) -------------------------------------------

_IDLE: list[PageKernel] = []
_KEEP: dict[str, Any] = {"most": 0, "varying": frozenset()}
_IDLE_LOCK = threading.Lock()


def _forget_in_a_forked_child() -> None:
    global _IDLE_LOCK
    _IDLE_LOCK = threading.Lock()  # another thread may have held it as the process forked
    _IDLE.clear()  # the kernels are the parent's
    _KEEP["most"] = 0


os.register_at_fork(after_in_child=_forget_in_a_forked_child)


def _beyond(most: int) -> list[PageKernel]:
    """Take out of the idle kernels all but the ``most`` kept last (call holding the lock)."""
    over = _IDLE[:max(0, len(_IDLE) - most)]
    del _IDLE[:len(over)]
    return over


def keep_kernels(most: int = 2, *, varying: Iterable[str] = ()) -> None:
    """Keep up to ``most`` report kernels between the report builds of this process (0, the default: none).

    For a process that builds many reports one after another (a batch script, a test run): a
    build then takes the kernels an earlier build left, instead of starting new ones and
    importing the pages' libraries again (about 2 s of processor time each). A kernel is
    handed only to a build whose environment variables are those the kernel was started with
    (but the names in ``varying``: variables that change between builds and that no import
    reads, such as pytest's ``PYTEST_CURRENT_TEST``; the kernel takes the build's values of
    those), and only a build that finished gives its kernels back (a failed or interrupted one
    stops them); before each page it is made as fresh as a new kernel, its working folder moved to the
    new build's (:func:`restore`), so a page shows and writes what it would in a new kernel
    (``tests/test_report.py::test_kernels_kept_between_builds_run_each_page_as_a_new_kernel``).

    Each call sets both ``most`` and ``varying``. Each idle kernel is a Python process holding
    pandas, SciPy and matplotlib (about 230 MB resident, 175 MB of it its own);
    ``keep_kernels(0)`` stops them, as does the end of the process (and a kernel whose parent
    process is gone stops itself); a forked child keeps none of its parent's. ``sgr-kit report``
    builds one report per process and keeps none.
    """
    if isinstance(most, bool) or not isinstance(most, int) or most < 0:
        raise ValueError(f"keep_kernels: expected a whole number of kernels, 0 or more; got {most!r}")
    if isinstance(varying, str) or not all(isinstance(name, str) and name for name in varying):
        raise ValueError(f"keep_kernels: varying: expected names of environment variables; got {varying!r}")
    with _IDLE_LOCK:
        _KEEP["most"] = most
        _KEEP["varying"] = frozenset(varying)
        extra = _beyond(most)
    for kernel in extra:
        kernel.stop()


def keeping() -> bool:
    """Whether this process keeps kernels between builds (:func:`keep_kernels`)."""
    return _KEEP["most"] > 0


def take_kernel() -> PageKernel | None:
    """An idle kernel an earlier build of this process left for one with this environment, or None."""
    with _IDLE_LOCK:
        environ = _compared(os.environ)
        found = next((k for k in reversed(_IDLE) if _compared(k.environ) == environ), None)
        if found is not None:
            _IDLE.remove(found)
    if found is not None and not found.alive():
        found.stop()
        return take_kernel()
    return found


def _compared(environ: Mapping[str, str]) -> dict[str, str]:
    return {name: value for name, value in environ.items() if name not in _KEEP["varying"]}


#: Seconds a build waits, as it ends, for a kernel still importing before it keeps it (else it stops it).
KEEP_WAIT = 15.0


def give_back(kernel: PageKernel) -> None:
    """Keep ``kernel`` for a later build (:func:`keep_kernels`; the one kept longest makes room), or stop it.

    A kernel still importing (a build refused before its first page, a page thread that got no
    page) is waited for first, at most :data:`KEEP_WAIT` seconds, while the folder it started in
    still exists.
    """
    dropped = [kernel]
    try:
        kernel.ready(timeout=KEEP_WAIT)
    except Exception:  # its imports failed or took too long: not kept
        kernel.stop()
        return
    if kernel.alive():
        with _IDLE_LOCK:
            if _KEEP["most"] > 0:
                _IDLE.append(kernel)
                dropped = _beyond(_KEEP["most"])
    for old in dropped:
        old.stop()


@atexit.register
def _stop_idle() -> None:
    keep_kernels(0)
