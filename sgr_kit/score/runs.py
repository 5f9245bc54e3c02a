"""Score many systems' answers into tidy tables.

:func:`score_runs` scores every (system, task, repeat) into one table, with a
``missing`` row for every task a system did not answer; :func:`score_with_cells`
also returns every cell's record (:func:`cells_frame`). Each task is prepared once
(:func:`sgr_kit.score.answer.prepare_task`).
"""

from __future__ import annotations

import warnings
from operator import itemgetter
from typing import TYPE_CHECKING, Iterable, Iterator, Mapping, NamedTuple

import pandas as pd
import pyarrow as pa

from ..errors import SgrKitError
from ..load.runs import variant_hint
from ..schema import CELL_COLUMNS, SCORE_COLUMNS, check_profile
from ..types import Answer, Task
from .answer import CellRecord, PreparedTask, ScoreResult, answer_label, missing_result, prepare_task, score_answer

if TYPE_CHECKING:  # pragma: no cover
    from ..rules import Rules

__all__ = ["ScoredAnswer", "ScoredRuns", "WorkItem", "score_all", "scores_frame", "cells_frame", "score_runs",
           "score_with_cells", "plan_work", "score_row", "rows_frame", "CellColumns", "score_items"]


class ScoredAnswer(NamedTuple):
    """One scored (system, task, repeat): the input of :func:`scores_frame` and :func:`cells_frame`."""

    system: str
    repeat: int
    task: Task
    result: ScoreResult


class ScoredRuns(NamedTuple):
    """What :func:`score_with_cells` returns: the scores table and the cells table."""

    scores: pd.DataFrame
    cells: pd.DataFrame


def _series(values: list, dtype: str) -> pd.Series:
    if dtype == "str":
        # through Arrow: pandas' "str" dtype stores Arrow strings, and this is the fast path
        try:
            return pd.Series(pa.array(values, type=pa.large_string()), dtype="str")
        except (pa.ArrowTypeError, pa.ArrowInvalid):  # values that are not all str or None
            pass
    return pd.Series(values, dtype=dtype)


def _frame(columns: Mapping[str, list], dtypes: Mapping[str, str]) -> pd.DataFrame:
    return pd.DataFrame({name: _series(columns[name], dtype) for name, dtype in dtypes.items()}, copy=False)


def _task_list(tasks: Mapping[str, Task] | Iterable[Task]) -> dict[str, Task]:
    items = tasks.values() if isinstance(tasks, Mapping) else tasks
    out: dict[str, Task] = {}
    for task in items:
        if not isinstance(task, Task):
            raise SgrKitError(f"tasks: expected Task objects, found {type(task).__name__}")
        if task.task_id in out:
            first = out[task.task_id].source or "?"
            raise SgrKitError(f"tasks: task id {task.task_id!r} appears twice ({first} and {task.source or '?'})")
        out[task.task_id] = task
    return out


def _check_runs(
    tasks: Mapping[str, Task] | Iterable[Task], runs: Iterable[Answer]
) -> tuple[dict[str, Task], list[str], dict[tuple[str, str], list[tuple[int, Answer | None]]], int]:
    """Validate tasks and answers; group ``(repeat, answer)`` by (system, task).

    A null answer that the loader kept (``RunSet.nulls``) is grouped as
    ``(repeat, None)`` and scored ``missing`` at its own repeat.
    """
    by_id = _task_list(tasks)
    seen: dict[tuple[str, str, int], Answer] = {}
    by_pair: dict[tuple[str, str], list[tuple[int, Answer | None]]] = {}
    systems: dict[str, None] = {}
    for answer in runs:
        if not isinstance(answer, Answer):
            raise SgrKitError(f"runs: expected Answer objects, found {type(answer).__name__}")
        if answer.task_id not in by_id:
            raise SgrKitError(f"{answer_label(answer)}: unknown task id {answer.task_id!r}; it is not among the tasks"
                              f"{variant_hint(answer.task_id, by_id)}")
        if answer.language != by_id[answer.task_id].language:
            raise SgrKitError(
                f"{answer_label(answer)}: the answer names language {answer.language!r}, but task "
                f"{answer.task_id} was loaded in {by_id[answer.task_id].language!r}; a run is scored against the "
                f"tasks of its own language (load them with language={answer.language!r})"
            )
        ident = (answer.system, answer.task_id, answer.repeat)
        if ident in seen:
            raise SgrKitError(
                f"{answer_label(answer)}: a second answer of system {answer.system!r} to task {answer.task_id!r} "
                f"repeat {answer.repeat} (first: {answer_label(seen[ident])})"
            )
        seen[ident] = answer
        systems.setdefault(answer.system)
        by_pair.setdefault((answer.system, answer.task_id), []).append((answer.repeat, answer))
    total = len(seen)
    # Null answers (kept by the loader's RunSet) are `missing` at their repeat, and a
    # system whose every answer was null still gets a `missing` row for every task.
    for system, task_id, repeat, *_ in getattr(runs, "nulls", ()):
        systems.setdefault(system)
        if task_id in by_id and (system, task_id, repeat) not in seen:
            by_pair.setdefault((system, task_id), []).append((repeat, None))
    for system in getattr(runs, "systems", ()):
        systems.setdefault(system)
    return by_id, list(systems), by_pair, total


class WorkItem(NamedTuple):
    """One (system, task, repeat) to score, in the order of the scores table; ``answer`` None: missing."""

    system: str
    task_id: str
    repeat: int
    answer: Answer | None


def plan_work(
    tasks: Mapping[str, Task] | Iterable[Task], runs: Iterable[Answer]
) -> tuple[dict[str, Task], list[WorkItem], int]:
    """Validate tasks and answers and list every (system, task, repeat) in output order.

    Returns
    -------
    tasks : dict of str to Task
    items : list of WorkItem
        Ordered by system (first appearance), task (order of ``tasks``) and repeat; a
        ``missing`` item (repeat 0) for every system and task without an answer.
    answered : int
        The number of answers (items with an answer).

    Raises
    ------
    SgrKitError
        As :func:`score_all`.
    """
    by_id, systems, by_pair, total = _check_runs(tasks, runs)
    items: list[WorkItem] = []
    for system in systems:
        for task_id in by_id:
            given = by_pair.get((system, task_id))
            if not given:
                items.append(WorkItem(system, task_id, 0, None))
                continue
            items.extend(WorkItem(system, task_id, repeat, answer) for repeat, answer in sorted(given, key=itemgetter(0)))
    return by_id, items, total


def score_items(
    tasks: Mapping[str, Task],
    prepared: dict[str, PreparedTask],
    items: Iterable[WorkItem | tuple],
    *,
    profile: str,
    rules: Rules | None,
    quiet: bool = False,
) -> Iterator[ScoredAnswer]:
    """The one scoring loop: score ``(system, task_id, repeat, answer)`` items in order.

    Used by :func:`score_all` / :func:`score_runs` here and by the batches of
    :func:`sgr_kit.score.parallel.score_batches` (in this process or a worker). Each task is
    prepared once, into ``prepared`` (shared across calls); an item without an answer is
    ``missing``.

    Parameters
    ----------
    tasks : mapping of task_id to Task
    prepared : dict of task_id to PreparedTask
        Filled as tasks are first met.
    items : iterable of WorkItem or (system, task_id, repeat, answer) tuples
    profile : {"paper", "strict"}
    rules : Rules, optional
    quiet : bool, default False
        Silence the warnings of preparing a task (shown once elsewhere, e.g. by the parent of
        worker processes).

    Yields
    ------
    ScoredAnswer
    """
    for system, task_id, repeat, answer in items:
        task = tasks[task_id]
        ready = prepared.get(task_id)
        if ready is None:
            with warnings.catch_warnings():
                if quiet:
                    warnings.simplefilter("ignore")
                ready = prepared[task_id] = prepare_task(task, profile=profile, rules=rules)
        result = missing_result(ready) if answer is None else score_answer(ready, answer)
        yield ScoredAnswer(system, repeat, task, result)


def _iter_scored(
    tasks: Mapping[str, Task] | Iterable[Task],
    runs: Iterable[Answer],
    *,
    profile: str,
    rules: Rules | None,
    progress: bool,
) -> Iterator[ScoredAnswer]:
    """Validate everything first, then yield the scored answers one by one (see :func:`score_all`)."""
    from tqdm.auto import tqdm

    check_profile(profile)
    for name, given, hint in (("tasks", tasks, "sgr_kit.load_tasks(...)"), ("runs", runs, "sgr_kit.load_runs(...)")):
        if given is None or isinstance(given, (str, bytes)) or not hasattr(given, "__iter__"):
            raise SgrKitError(f"score_runs: {name} must be what {hint} returns (or a list of its items); "
                              f"found {type(given).__name__}"
                              + (" (a path: load it first)" if isinstance(given, str) else ""))
    by_id, items, total = plan_work(tasks, runs)

    def scored() -> Iterator[ScoredAnswer]:
        with tqdm(total=total, desc="scoring", unit="answer", disable=not progress) as bar:
            for item, s in zip(items, score_items(by_id, {}, items, profile=profile, rules=rules)):
                if item.answer is not None:
                    bar.update(1)
                yield s

    return scored()


def score_all(
    tasks: Mapping[str, Task] | Iterable[Task],
    runs: Iterable[Answer],
    *,
    profile: str = "paper",
    rules: Rules | None = None,
    progress: bool = False,
) -> list[ScoredAnswer]:
    """Score every answer of every system; tasks a system did not answer are ``missing``.

    Parameters
    ----------
    tasks : mapping of str to Task, or iterable of Task
        E.g. the loader's ``TaskSet``.
    runs : iterable of Answer
    profile : {"paper", "strict"}, default "paper"
    rules : Rules, optional
    progress : bool, default False
        Show a progress bar.

    Returns
    -------
    list of ScoredAnswer
        Ordered by system (first appearance in ``runs``), task (order of
        ``tasks``) and repeat; one ``missing`` entry (repeat 0) for every
        system and task without an answer. Each task is prepared once.

    Raises
    ------
    SgrKitError
        For an answer to an unknown task (naming the answer's source) or two
        answers with the same system, task and repeat.
    """
    return list(_iter_scored(tasks, runs, profile=profile, rules=rules, progress=progress))


def score_row(s: ScoredAnswer) -> tuple:
    """The row of the scores table (:data:`SCORE_COLUMNS` order) of one scored answer."""
    t, r = s.task, s.result
    return (
        s.system, t.task_id, t.base_id, t.variant, t.domain, t.ecosystem, t.family, t.gold_rows, t.bin,
        s.repeat, r.status, r.item_f1, r.row_f1, r.poa, r.correct_fields, r.gold_fields, r.pred_fields,
        r.correct_rows, r.pred_rows, r.shared_keys, r.correct_pairs, r.pairs, r.reason, t.synthetic, t.language,
    )  # fmt: skip


def rows_frame(rows: list[tuple]) -> pd.DataFrame:
    """The scores table from rows made by :func:`score_row`."""
    columns = zip(*rows) if rows else ([] for _ in SCORE_COLUMNS)
    return _frame(dict(zip(SCORE_COLUMNS, map(list, columns))), SCORE_COLUMNS)


class CellColumns:
    """The cells table, column by column, filled one scored answer at a time."""

    def __init__(self) -> None:
        self.columns: dict[str, list] = {name: [] for name in CELL_COLUMNS}
        self.fields = [self.columns[name] for name in CellRecord._fields]

    def add(self, s: ScoredAnswer) -> None:
        cells = s.result.cells
        n = len(cells)
        if not n:
            return
        self.columns["system"].extend([s.system] * n)
        self.columns["task_id"].extend([s.task.task_id] * n)
        self.columns["repeat"].extend([s.repeat] * n)
        self.columns["language"].extend([s.task.language] * n)
        for values, column in zip(zip(*cells), self.fields):
            column.extend(values)

    def frame(self) -> pd.DataFrame:
        """The cells table (:data:`CELL_COLUMNS`)."""
        return _frame(self.columns, CELL_COLUMNS)

    def __len__(self) -> int:
        return len(self.columns["verdict"])


def scores_frame(scored: Iterable[ScoredAnswer]) -> pd.DataFrame:
    """One row per scored answer with the columns of :data:`SCORE_COLUMNS`.

    Parameters
    ----------
    scored : iterable of ScoredAnswer
        Output of :func:`score_all`.

    Returns
    -------
    DataFrame
        Same columns and dtypes whatever the input, also when empty.

    Examples
    --------
    >>> list(scores_frame([]).columns)[:4]
    ['system', 'task_id', 'base_id', 'variant']
    """
    return rows_frame([score_row(s) for s in scored])


def cells_frame(scored: Iterable[ScoredAnswer]) -> pd.DataFrame:
    """One row per cell record of every scored answer (:data:`CELL_COLUMNS`).

    Parameters
    ----------
    scored : iterable of ScoredAnswer
        Output of :func:`score_all`.

    Returns
    -------
    DataFrame
        Columns ``system, task_id, repeat`` then the fields of
        :class:`CellRecord`; ``pred_row``/``gold_row`` are nullable integers.

    Examples
    --------
    >>> list(cells_frame([]).columns)
    ['system', 'task_id', 'repeat', 'pred_row', 'gold_row', 'column', 'raw', 'canonical', 'reference', 'verdict', 'language']
    """
    table = CellColumns()
    for s in scored:
        table.add(s)
    return table.frame()


def _score_tables(tasks, runs, *, profile: str, rules: Rules | None, progress: bool, with_cells: bool):
    rows: list[tuple] = []
    cells = CellColumns() if with_cells else None
    for s in _iter_scored(tasks, runs, profile=profile, rules=rules, progress=progress):
        rows.append(score_row(s))
        if cells is not None:
            cells.add(s)
    return rows_frame(rows), (cells.frame() if cells is not None else None)


def score_runs(
    tasks: Mapping[str, Task] | Iterable[Task],
    runs: Iterable[Answer],
    *,
    profile: str = "paper",
    rules: Rules | None = None,
    progress: bool = False,
) -> pd.DataFrame:
    """Score every system's answers into one tidy table.

    Answers are scored one at a time and only their table rows are kept, so
    memory grows with the table, not with the scored results.

    Parameters
    ----------
    tasks : mapping of str to Task, or iterable of Task
    runs : iterable of Answer
    profile : {"paper", "strict"}, default "paper"
    rules : Rules, optional
    progress : bool, default False
        Show a progress bar.

    Returns
    -------
    DataFrame
        The scores table (:func:`scores_frame`, columns
        :data:`sgr_kit.schema.SCORE_COLUMNS`): one row per (system, task_id,
        repeat), with a ``missing`` row (repeat 0) for every task a system did
        not answer. :func:`score_with_cells` also returns the per-cell records.

    Raises
    ------
    SgrKitError
        As :func:`score_all`.

    Examples
    --------
    >>> from sgr_kit.types import Answer, Schema, Task
    >>> task = Task("t_001", "t_001", "constraint", "NVD", "NVD", "vulnerability databases",
    ...             Schema(("id", "v"), ("id",)), "a|1\\nb|2", 2, "1-2")
    >>> runs = [Answer("sys", "t_001", 0, "a|1\\nb|3")]
    >>> score_runs([task], runs, profile="strict")[["system", "status", "item_f1", "row_f1", "poa"]]
      system  status  item_f1  row_f1  poa
    0    sys  parsed     0.75     0.5  1.0
    """
    return _score_tables(tasks, runs, profile=profile, rules=rules, progress=progress, with_cells=False)[0]


def score_with_cells(
    tasks: Mapping[str, Task] | Iterable[Task],
    runs: Iterable[Answer],
    *,
    profile: str = "paper",
    rules: Rules | None = None,
    progress: bool = False,
) -> ScoredRuns:
    """Score every system's answers into the scores table and the per-cell records.

    Parameters
    ----------
    As :func:`score_runs`.

    Returns
    -------
    ScoredRuns
        ``(scores, cells)``: the table of :func:`score_runs` and the cells table
        (:func:`cells_frame`, columns :data:`sgr_kit.schema.CELL_COLUMNS`).

    Examples
    --------
    >>> from sgr_kit.types import Answer, Schema, Task
    >>> task = Task("t_001", "t_001", "constraint", "NVD", "NVD", "vulnerability databases",
    ...             Schema(("id", "v"), ("id",)), "a|1\\nb|2", 2, "1-2")
    >>> scores, cells = score_with_cells([task], [Answer("sys", "t_001", 0, "a|1\\nb|3")], profile="strict")
    >>> cells["verdict"].tolist()
    ['match', 'match', 'match', 'wrong']
    """
    scores, cells = _score_tables(tasks, runs, profile=profile, rules=rules, progress=progress, with_cells=True)
    return ScoredRuns(scores, cells)
