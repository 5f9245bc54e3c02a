"""Score many answers in batches, in worker processes: the path of ``sgr-kit score --workers N``.

:func:`score_batches` cuts the work (every system, task and repeat, in the order of the scores
table: :func:`~sgr_kit.score.runs.plan_work`) into batches of :data:`BATCH_ANSWERS` answers and
yields, batch by batch and in that order, the batch's rows of the scores table and its per-cell
records as one Arrow record batch (:data:`CELL_SCHEMA`), ready to be streamed to a file. Only a
few batches are in flight at any time, so memory holds the scores rows and a handful of cell
batches, never the whole cells table.

With ``workers=1`` everything runs in this process; otherwise batches are scored by up to
``workers`` processes (started with ``forkserver`` where the platform has it, else
``spawn``) and collected in order, so the output is the same whatever the number of workers.
Every task is prepared once here first, so a task problem is reported (and a warning shown)
once, before any worker starts; each worker prepares the tasks again for itself, silently.
Workers ignore ``Ctrl-C``: the parent stops them when it is interrupted. Starting a worker costs
about a second (a fresh interpreter importing pandas and pyarrow), so a run uses at most one
worker per :data:`MIN_BATCHES_PER_WORKER` batches: a small run is scored in this process.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections import deque
from contextlib import contextmanager
from dataclasses import replace
from typing import TYPE_CHECKING, Iterable, Iterator, Mapping, NamedTuple

import pyarrow as pa

from ..errors import SgrKitError
from ..schema import check_profile
from ..types import Answer, Task
from .answer import PreparedTask, prepare_task
from .runs import CellColumns, WorkItem, cells_frame, plan_work, score_items, score_row

if TYPE_CHECKING:  # pragma: no cover
    from ..rules import Rules

__all__ = ["BATCH_ANSWERS", "BATCH_CHARS", "MIN_BATCHES_PER_WORKER", "CELL_SCHEMA", "ScoredBatch", "default_workers",
           "score_batches"]

#: Answers per batch at most: the unit of work of a worker and of a cells record batch.
BATCH_ANSWERS = 500
#: Characters of answer text per batch at most (a batch holds one answer at least), so that a
#: batch of long answers (1,000 rows each) holds no more cells in memory than one of short ones.
BATCH_CHARS = 1_000_000
#: A worker process is started only for this many batches or more (it costs about a second).
MIN_BATCHES_PER_WORKER = 4
#: The Arrow schema of the cells table (with the pandas metadata that gives its dtypes back).
CELL_SCHEMA: pa.Schema = pa.Schema.from_pandas(cells_frame([]), preserve_index=False)
_STRING = pa.large_string()


class ScoredBatch(NamedTuple):
    """One batch of scored answers.

    Attributes
    ----------
    rows : list of tuple
        Rows of the scores table (:func:`~sgr_kit.score.runs.score_row`), in order.
    cells : pyarrow.RecordBatch or None
        Their per-cell records (:data:`CELL_SCHEMA`); None when cells were not asked for.
    answered : int
        Answers in the batch (rows that are not ``missing`` for want of an answer).
    """

    rows: list[tuple]
    cells: pa.RecordBatch | None
    answered: int


def default_workers() -> int:
    """The number of cores this process may use (at least 1).

    Examples
    --------
    >>> default_workers() >= 1
    True
    """
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - platforms without sched_getaffinity
        return max(1, os.cpu_count() or 1)


def _cells_batch(table: CellColumns) -> pa.RecordBatch:
    arrays = []
    for field in CELL_SCHEMA:
        values = table.columns[field.name]
        if pa.types.is_large_string(field.type):
            arrays.append(pa.array(values, type=_STRING))
        else:
            arrays.append(pa.array(values, type=field.type))
    return pa.RecordBatch.from_arrays(arrays, schema=CELL_SCHEMA)


def _score_items(
    tasks: Mapping[str, Task], prepared: dict[str, PreparedTask], items: Iterable[tuple], *,
    profile: str, rules: Rules | None, with_cells: bool,
) -> ScoredBatch:  # fmt: skip
    rows: list[tuple] = []
    cells = CellColumns() if with_cells else None
    items = list(items)
    answered = sum(item[3] is not None for item in items)
    for scored in score_items(tasks, prepared, items, profile=profile, rules=rules, quiet=True):
        rows.append(score_row(scored))
        if cells is not None:
            cells.add(scored)
    return ScoredBatch(rows, _cells_batch(cells) if cells is not None else None, answered)


# Worker-process state, set once per worker by _init_worker.
_STATE: dict = {}


def _init_worker(tasks: dict[str, Task], profile: str, rules: Rules | None, with_cells: bool) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and stops the workers
    _STATE.update(tasks=tasks, prepared={}, profile=profile, rules=rules, with_cells=with_cells)


def _work(items: list[tuple]) -> tuple[list[tuple], bytes | None, int]:
    scored = _score_items(
        _STATE["tasks"], _STATE["prepared"], items,
        profile=_STATE["profile"], rules=_STATE["rules"], with_cells=_STATE["with_cells"],
    )  # fmt: skip
    return scored.rows, _pack(scored.cells), scored.answered


# A batch's cells travel from a worker as a zstd-compressed Arrow stream: their strings repeat
# (systems, task ids, columns, verdicts), so this is a fifteenth of the pickled batch.
_PACKING = pa.ipc.IpcWriteOptions(compression="zstd")


def _pack(cells: pa.RecordBatch | None) -> bytes | None:
    if cells is None:
        return None
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, cells.schema, options=_PACKING) as writer:
        writer.write_batch(cells)
    return sink.getvalue().to_pybytes()


def _unpack(result: tuple[list[tuple], bytes | None, int]) -> ScoredBatch:
    rows, packed, answered = result
    cells = None if packed is None else pa.ipc.open_stream(packed).read_next_batch()
    return ScoredBatch(rows, cells, answered)


def _portable(task: Task) -> Task:
    """The task with plain dicts for its read-only mappings, so that it can be sent to a worker."""
    fields = {c: replace(r, aliases=dict(r.aliases), units=dict(r.units)) for c, r in task.schema.fields.items()}
    return replace(task, schema=replace(task.schema, fields=fields), metadata=dict(task.metadata),
                   rubric=dict(task.rubric), prose=dict(task.prose))  # fmt: skip


def _payload(item: WorkItem) -> tuple:
    return (item.system, item.task_id, item.repeat, item.answer)


@contextmanager
def _signals_deferred() -> Iterator[None]:
    """Hold Ctrl-C and SIGTERM while worker processes start; deliver them once the pool exists.

    A signal handled in the middle of a start would cut the data sent to the new process, which
    would then print a traceback; after the block the signal is raised again, so the usual
    handler stops the pool cleanly.
    """
    caught: list[int] = []
    try:
        previous = {s: signal.signal(s, lambda signum, frame: caught.append(signum)) for s in _HELD}
    except ValueError:  # not the main thread: signals are not ours to handle
        yield
        return
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        for s in dict.fromkeys(caught):
            signal.raise_signal(s)


_HELD = (signal.SIGINT, signal.SIGTERM)


def _context():
    methods = multiprocessing.get_all_start_methods()
    if "forkserver" in methods:
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload([__name__])
        return context
    return multiprocessing.get_context("spawn")  # pragma: no cover - platforms without forkserver


def score_batches(
    tasks: Mapping[str, Task] | Iterable[Task],
    runs: Iterable[Answer],
    *,
    profile: str = "paper",
    rules: Rules | None = None,
    with_cells: bool = True,
    workers: int = 1,
    batch_answers: int | None = None,
    progress: bool = False,
) -> Iterator[ScoredBatch]:
    """Score every answer of every system, batch by batch, in ``workers`` processes.

    Parameters
    ----------
    tasks : mapping of str to Task, or iterable of Task
    runs : iterable of Answer
    profile : {"paper", "strict"}, default "paper"
    rules : Rules, optional
    with_cells : bool, default True
        Build each batch's per-cell records.
    workers : int, default 1
        Worker processes at most (one per :data:`MIN_BATCHES_PER_WORKER` batches); 1 scores
        in this process, and so does a run of fewer batches than two workers need.
    batch_answers : int, optional
        Items (answers and missing rows) per batch at most; default :data:`BATCH_ANSWERS`. A batch
        also ends before its answers' text passes :data:`BATCH_CHARS` characters. The batches, and so any file written
        from them, are the same whatever ``workers`` is.
    progress : bool, default False
        Show a progress bar.

    Yields
    ------
    ScoredBatch
        In the order of :func:`~sgr_kit.score.runs.score_all`: concatenated, the rows make the
        table of :func:`~sgr_kit.score.score_runs` and the cells that of
        :func:`~sgr_kit.score.score_with_cells`.

    Raises
    ------
    SgrKitError
        As :func:`~sgr_kit.score.score_all` (before anything is yielded), or for ``workers`` < 1.

    Examples
    --------
    >>> from sgr_kit.types import Schema
    >>> task = Task("t_001", "t_001", "constraint", "NVD", "NVD", "vulnerability databases",
    ...             Schema(("id", "v"), ("id",)), "a|1\\nb|2", 2, "1-2")
    >>> runs = [Answer("sys", "t_001", r, "a|1\\nb|3") for r in range(3)]
    >>> [(len(b.rows), b.cells.num_rows) for b in score_batches([task], runs, profile="strict", batch_answers=2)]
    [(2, 8), (1, 4)]
    """
    check_profile(profile)
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise SgrKitError(f"workers must be an integer >= 1; found {workers!r}")
    batch_answers = BATCH_ANSWERS if batch_answers is None else batch_answers
    if isinstance(batch_answers, bool) or not isinstance(batch_answers, int) or batch_answers < 1:
        raise SgrKitError(f"batch_answers must be an integer >= 1; found {batch_answers!r}")
    by_id, items, total = plan_work(tasks, runs)
    prepared: dict[str, PreparedTask] = {}
    for task_id in dict.fromkeys(item.task_id for item in items):  # errors and warnings once, here
        prepared[task_id] = prepare_task(by_id[task_id], profile=profile, rules=rules)
    batches = _cut(items, batch_answers, BATCH_CHARS)
    workers = min(workers, len(batches) // MIN_BATCHES_PER_WORKER) if workers > 1 else 1
    return _batches(by_id, prepared, batches, total, profile=profile, rules=rules, with_cells=with_cells,
                    workers=workers, progress=progress)  # fmt: skip


def _cut(items: list[WorkItem], answers: int, chars: int) -> list[list[WorkItem]]:
    """Consecutive batches of at most ``answers`` items and ``chars`` characters of answer text."""
    batches: list[list[WorkItem]] = []
    current: list[WorkItem] = []
    size = 0
    for item in items:
        n = len(item.answer.text) if item.answer is not None else 0
        if current and (len(current) >= answers or size + n > chars):
            batches.append(current)
            current, size = [], 0
        current.append(item)
        size += n
    if current:
        batches.append(current)
    return batches


def _batches(by_id, prepared, batches, total, *, profile, rules, with_cells, workers, progress) -> Iterator[ScoredBatch]:
    from tqdm.auto import tqdm

    with tqdm(total=total, desc="scoring", unit="answer", disable=not progress) as bar:
        if workers <= 1:
            for batch in batches:
                scored = _score_items(by_id, prepared, batch, profile=profile, rules=rules, with_cells=with_cells)
                bar.update(scored.answered)
                yield scored
            return
        portable = {task_id: _portable(task) for task_id, task in by_id.items()}
        pool = None
        try:
            with _signals_deferred():
                pool = _context().Pool(workers, initializer=_init_worker,
                                       initargs=(portable, profile, rules, with_cells))  # fmt: skip
            pending: deque = deque()
            queue = iter(batches)
            for batch in queue:  # keep two batches per worker in flight, no more
                pending.append(pool.apply_async(_work, ([_payload(item) for item in batch],)))
                if len(pending) >= 2 * workers:
                    break
            while pending:
                scored = _unpack(pending.popleft().get())
                batch = next(queue, None)
                if batch is not None:
                    pending.append(pool.apply_async(_work, ([_payload(item) for item in batch],)))
                bar.update(scored.answered)
                yield scored
            pool.close()
        finally:
            if pool is not None:
                pool.terminate()
                pool.join()
