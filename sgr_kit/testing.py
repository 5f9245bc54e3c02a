"""Pause points: where a test holds a running command, to interrupt it at a known step.

A test of what an interrupt leaves behind must send its signal while the command is at a
known step (writing its output, running a page, cleaning up), never after a guessed delay:
on a loaded machine a delay is too short or too long, and the same commit passes or fails by
chance. The commands call :func:`pause` at a few named points (:data:`POINTS`). Only when the
environment variable :data:`PAUSE_DIR` names a folder holding a FIFO (a named pipe) of the
point's name does :func:`pause` do anything: it opens the FIFO and reads from it until the
test closes its end. Otherwise it returns at once, having read one environment variable.

The test's side is :func:`held`: it makes the FIFO, waits until the command has opened it
(its own open for writing succeeds only then), removes the FIFO's name (so that the point
holds the command once), and lets the command go on when its block ends::

    env = {**os.environ, PAUSE_DIR: str(tmp_path)}
    process = subprocess.Popen([...], env=env)
    with held(process, "score-cells-written", tmp_path):
        os.kill(process.pid, signal.SIGINT)    # the command is provably writing its cells

A signal that arrives while the command reads the FIFO is handled as anywhere else (Python
runs its handler in the main thread, which then raises); a command paused where it ignores
signals (the cleanup of an interrupted report build) takes them once it goes on.
"""

from __future__ import annotations

import contextlib
import errno
import os
import select
import stat
import subprocess
import time
from pathlib import Path
from typing import Iterator

__all__ = ["PAUSE_DIR", "POINTS", "pause", "held"]

#: The environment variable naming the folder of the FIFOs (unset: every pause point is inert).
PAUSE_DIR = "SGR_KIT_PAUSE_DIR"

#: The pause points, and the step each marks.
POINTS: dict[str, str] = {
    "score-cells-written": "sgr-kit score --cells: a batch of per-cell records is in the temporary file, "
                           "more are being scored (by the workers, with --workers)",
    "report-scoring": "a report build has claimed its folder, made its build folder and started its page "
                      "threads; it scores next",
    "report-page-running": "a page of a report build runs in its kernel (the page's first call into sgr-kit)",
    "report-cleanup": "an interrupted or failed report build is about to stop its kernels and remove its "
                      "build folder (SIGINT and SIGTERM are ignored until it is done)",
}


def pause(point: str) -> None:
    """Wait at ``point`` while a test holds it (see the module's description); else return at once.

    Parameters
    ----------
    point : str
        One of :data:`POINTS`.

    Examples
    --------
    >>> pause("report-scoring")  # no test holds it: returns at once
    """
    folder = os.environ.get(PAUSE_DIR)
    if not folder:
        return
    fifo = os.path.join(folder, point)
    try:
        if not stat.S_ISFIFO(os.stat(fifo).st_mode):
            return
        # open without waiting (the test's side sees a reader, so the process is here), then wait until the
        # test has opened and closed its end: the FIFO reports a hang-up only once a writer came and went
        end = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:  # not held, or let go meanwhile
        return
    try:
        waiting = select.poll()
        waiting.register(end, select.POLLIN | select.POLLHUP)
        while True:
            # back in Python every 0.1 s: a signal the kernel gave another thread of this process (Python runs
            # its handler in the main thread, which a blocking read here would never let happen) is handled now
            if not waiting.poll(100):
                continue
            try:
                if not os.read(end, 4096):  # the test closed its end
                    return
            except BlockingIOError:
                continue
    finally:
        os.close(end)


@contextlib.contextmanager
def held(process: subprocess.Popen, point: str, folder: str | os.PathLike, *, timeout: float = 300.0) -> Iterator[None]:
    """Hold ``process`` at ``point`` for the ``with`` block (the test's side of :func:`pause`).

    ``process`` must run with :data:`PAUSE_DIR` set to ``folder`` in its environment. The block
    begins once the process has reached the point; it goes on when the block ends.

    Parameters
    ----------
    process : subprocess.Popen
        The command (or a process that starts it, such as a report build starting its kernels).
    point : str
        One of :data:`POINTS`.
    folder : path
        The folder :data:`PAUSE_DIR` names; a FIFO named ``point`` is made in it, unless the test
        made it ahead (``os.mkfifo``): a point the process reaches on its own while the test holds
        it at another must exist before (the cleanup of a build interrupted at a held point).
    timeout : float, default 300
        Seconds to wait for the process to get there.

    Raises
    ------
    AssertionError
        When the process ends, or ``timeout`` passes, before it reaches the point (with what
        the process wrote to its pipes, when it has ended).

    Examples
    --------
    >>> import subprocess, sys, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> code = "from sgr_kit.testing import pause; pause('report-scoring'); print('went on')"
    >>> process = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
    ...                            env={**os.environ, PAUSE_DIR: folder})
    >>> with held(process, "report-scoring", folder):
    ...     process.poll() is None  # there, and waiting
    True
    >>> process.communicate()[0]
    'went on\\n'
    """
    if point not in POINTS:
        raise ValueError(f"unknown pause point {point!r}; expected one of {', '.join(POINTS)}")
    fifo = Path(folder) / point
    if not fifo.exists():  # else made ahead by the test, for a point the process reaches while another is held
        os.mkfifo(fifo)
    deadline = time.monotonic() + timeout
    try:
        while True:
            try:  # succeeds only once the process has the FIFO open for reading
                end = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
                break
            except OSError as exc:
                if exc.errno != errno.ENXIO:
                    raise
            try:
                process.wait(timeout=0.02)  # waits on the process: ended means it never got there
            except subprocess.TimeoutExpired:
                if time.monotonic() > deadline:
                    raise AssertionError(f"the process did not reach the pause point {point!r} "
                                         f"in {timeout:.0f} s") from None
                continue
            out, err = process.communicate()
            raise AssertionError(f"the process ended with status {process.returncode} before it reached the pause "
                                 f"point {point!r}: {out!r} {err!r}"[:5000])
    finally:
        fifo.unlink()  # the point holds the process once; the opened FIFO stays open
    try:
        yield
    finally:
        os.close(end)
