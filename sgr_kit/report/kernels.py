"""The report's kernels: one per worker, started ahead, and as fresh as a new kernel for every page.

Starting a Python kernel and importing what a page needs (pandas, SciPy, matplotlib,
seaborn, sgr-kit) costs about 3 s of processor time; paid once per page, it was most of a
report build. A worker of the build (:mod:`sgr_kit.report.build`) therefore starts one
:class:`PageKernel` when it starts, while the build is still scoring, and runs the report's
own pages in it one after another. Before each page the kernel is put back in the state a
fresh kernel has right after those imports (:func:`restore`, run inside the kernel):

- the user namespace emptied and the execution count back at 1 (IPython's ``reset``), so a
  page sees no name another page defined and its saved cells are numbered from 1;
- every figure closed, and matplotlib's settings, the warning filters (with the record of
  warnings already shown), NumPy's and ``random``'s global generators, the environment, the
  working directory and ``sys.path`` as they were after the imports (:func:`remember`).

What this does not undo: changes a page makes to the code of imported modules. The report's
own pages make none; ``tests/test_report.py`` checks that every table, figure and page text
of the demo report is the same byte for byte whether the pages share kernels or each gets
its own. A notebook that is not one of the report's own (a user's ``--notebooks PATH``) runs
in a kernel of its own, started for it and stopped after it, as does a page after a page
that failed (the kernel might be left in any state).

Kernels talk to their worker over Unix sockets in a private folder (``ipc`` transport), so
two workers starting kernels at the same moment can never pick the same TCP port.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

#: What a report kernel imports before its first page (what the pages' first cells import).
WARM_IMPORTS = ("sgr_kit.report.notebook", "sgr_kit.breakdowns", "sgr_kit.stats", "sgr_kit.figures",
                "matplotlib.pyplot", "IPython.display")

#: Seconds a kernel may take to be restored between pages before it is replaced by a new one.
RESTORE_TIMEOUT = 60.0

# -- inside the kernel ------------------------------------------------------------------------

_SAVED: dict[str, Any] = {}


def remember() -> None:
    """Keep the kernel's state right after its imports (called once, inside the kernel)."""
    import random
    import sys
    import warnings

    import matplotlib
    import numpy as np

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rc = dict(matplotlib.rcParams)
    _SAVED.update(rc=rc, filters=list(warnings.filters), numpy=np.random.get_state(), random=random.getstate(),
                  environ=dict(os.environ), cwd=os.getcwd(), path=list(sys.path))


def restore(shell: Any) -> None:
    """Put the kernel back in the state :func:`remember` kept, with an empty namespace (inside the kernel)."""
    import random
    import sys
    import warnings

    import matplotlib
    import matplotlib.pyplot as plt
    import numpy as np

    if not _SAVED:
        raise RuntimeError("restore() before remember(): this kernel was not started by sgr-kit's report build")
    plt.close("all")
    shell.reset(new_session=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        matplotlib.rcParams.update(_SAVED["rc"])
    warnings.filters[:] = _SAVED["filters"]
    warnings._filters_mutated()  # forgets which warnings were already shown ("default" and "once" filters)
    np.random.set_state(_SAVED["numpy"])
    random.setstate(_SAVED["random"])
    os.environ.clear()
    os.environ.update(_SAVED["environ"])
    os.chdir(_SAVED["cwd"])
    sys.path[:] = _SAVED["path"]


# -- in the worker ----------------------------------------------------------------------------

_WARM = (f"[__import__('importlib').import_module(m) for m in {WARM_IMPORTS!r}]\n"
         "__import__('sgr_kit.report.kernels', fromlist=['remember']).remember()")
_RESTORE = "__import__('sgr_kit.report.kernels', fromlist=['restore']).restore(get_ipython())"


class PageKernel:
    """A python3 kernel started in ``folder`` with :data:`WARM_IMPORTS` sent to it (not waited for).

    ``sockets`` is a private folder for its Unix sockets (``ipc`` transport); when that path
    would be too long for a socket, TCP on the loopback is used. ``km`` is the kernel manager
    to hand to papermill (which then leaves the kernel running after the notebook).
    """

    def __init__(self, folder: str | os.PathLike, sockets: str | os.PathLike) -> None:
        from jupyter_client.manager import AsyncKernelManager
        from jupyter_core.utils import run_sync

        prefix = Path(sockets) / f"k{os.getpid()}-{id(self)}"
        ipc = len(str(prefix)) < 90  # AF_UNIX paths hold about 107 bytes; the port number is appended
        self.km = (AsyncKernelManager(kernel_name="python3", transport="ipc", ip=str(prefix)) if ipc
                   else AsyncKernelManager(kernel_name="python3"))
        run_sync(self.km.start_kernel)(cwd=str(folder))
        self.kc = self.km.client()
        self.kc.start_channels(iopub=False, stdin=False, hb=False, control=False)
        self.pages = 0
        self._send(_WARM, wait=False)

    def _send(self, code: str, *, wait: bool, timeout: float = RESTORE_TIMEOUT) -> None:
        from jupyter_core.utils import run_sync

        msg_id = self.kc.execute(code, silent=True, store_history=False)
        if not wait:
            return
        while True:
            reply = run_sync(self.kc.get_shell_msg)(timeout=timeout)
            if reply.get("parent_header", {}).get("msg_id") == msg_id:
                break
        content = reply.get("content", {})
        if content.get("status") != "ok":
            raise RuntimeError(f"the kernel could not be restored: {content.get('ename')}: {content.get('evalue')}")

    def alive(self) -> bool:
        from jupyter_core.utils import run_sync

        try:
            return bool(run_sync(self.km.is_alive)())
        except Exception:
            return False

    def fresh(self) -> None:
        """Make the kernel as a new one is after its imports (:func:`restore`); raises when it cannot."""
        self._send(_RESTORE, wait=True)
        self.pages += 1

    def stop(self) -> None:
        """Shut the kernel down now (a kernel already gone is fine)."""
        from jupyter_core.utils import run_sync

        try:
            self.kc.stop_channels()
            if run_sync(self.km.is_alive)():
                run_sync(self.km.shutdown_kernel)(now=True)
            run_sync(self.km.cleanup_resources)()
        except Exception:
            pass


def socket_folder() -> str:
    """A private folder for kernels' Unix sockets (the caller removes it)."""
    return tempfile.mkdtemp(prefix="sgr-kit-kernels-")
