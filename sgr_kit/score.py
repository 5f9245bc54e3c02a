"""Score answers: parse -> canonicalize -> align -> metrics, with a record per cell.

:func:`prepare_task` does the per-task work once (parse and canonicalize the
reference, index its keys, compile the column canonicalizers);
:func:`score_answer` scores one answer against a task or a prepared task;
:func:`score_runs` scores many systems' answers into one tidy table, and
:func:`cells_frame` lays out every cell's record.

Every scored answer carries a status (:data:`sgr_kit.types.STATUSES`):

``parsed``
    at least one data row; the three metrics are computed.
``empty``
    the answer is empty or ``NONE``: zero rows, metrics computed (0 for a
    non-empty reference).
``parse_failure``
    text without a data row (e.g. a header only): no metrics (NaN) and a reason.
``missing``
    no answer at all: no metrics (NaN), zero counts except the reference's.

A numeric tolerance from user rules (:meth:`sgr_kit.rules.Rules.apply`) is
applied when cells are compared: a predicted value whose canonical string is a
finite decimal within the column's absolute tolerance of the reference's counts
as a match. Without a tolerance, canonical strings are compared with ``==``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal, DecimalException
from operator import itemgetter
from typing import TYPE_CHECKING, Callable, Hashable, Iterable, Iterator, Mapping, NamedTuple, Sequence

import pandas as pd
import pyarrow as pa

from .align import CREDIT, DUPLICATE, align_rows, reference_index
from .canonicalize import check_profile, column_canonicalizers
from .canonicalize.strict import DECIMAL_CONTEXT
from .errors import SgrKitError
from .metrics import item_f1, ordered_pairs, poa, row_f1
from .parse import parse_answer
from .types import Answer, ParsedTable, Schema, Task

if TYPE_CHECKING:  # pragma: no cover
    from .rules import Rules

__all__ = [
    "VERDICTS",
    "SCORE_COLUMNS",
    "CELL_COLUMNS",
    "CellRecord",
    "ScoreResult",
    "PreparedTask",
    "ScoredAnswer",
    "ScoredRuns",
    "prepare_task",
    "score_answer",
    "score_all",
    "scores_frame",
    "cells_frame",
    "score_runs",
]

#: Verdict of a cell record.
VERDICTS = ("match", "wrong", "missing", "extra_row", "duplicate_row", "omitted_row", "extra_cell")
_NAN = math.nan
_new = tuple.__new__


class CellRecord(NamedTuple):
    """One cell of a scored answer (or of a reference row it never predicted).

    Attributes
    ----------
    pred_row : int or None
        0-based row of the answer; None for an omitted reference row.
    gold_row : int or None
        0-based reference row the cell is compared with (or, for a duplicate
        row, the reference row it repeats); None for extra rows.
    column : str
        Schema column; cells beyond the schema are named after the answer's
        extra column when known, else ``column_<n>`` (1-based position).
    raw : str or None
        The cell as split from the answer; None where the row has no such cell.
    canonical : str or None
        Its canonical string (None for cells beyond the schema and absent cells).
    reference : str or None
        The reference's canonical value.
    verdict : str
        ``match``, ``wrong``, ``missing`` (empty or absent cell), ``extra_cell``
        (beyond the schema), ``extra_row``, ``duplicate_row``, ``omitted_row``.
    """

    pred_row: int | None
    gold_row: int | None
    column: str
    raw: str | None
    canonical: str | None
    reference: str | None
    verdict: str


@dataclass(frozen=True, slots=True)
class ScoreResult:
    """The score of one answer: status, the three metrics, their counts and every cell.

    Attributes
    ----------
    task_id, status : str
        ``status`` is one of :data:`sgr_kit.types.STATUSES`.
    item_f1, row_f1, poa : float
        Fractions in [0, 1]; NaN for ``parse_failure`` and ``missing``.
    correct_fields, gold_fields, pred_fields : int
        ``C_item``, ``N_gold``, ``N_pred`` of Appendix A (see :mod:`sgr_kit.metrics`).
    correct_rows, gold_rows, pred_rows : int
        ``C_row``, ``|R_gold|``, ``|R_pred|``.
    shared_keys, correct_pairs, pairs : int
        ``|S|``, correctly ordered pairs, ``|P(S)|``.
    reason : str
        Why the status is ``empty``, ``parse_failure`` or ``missing``.
    issues : tuple of str
        Parsing issues, then duplicate and extra rows.
    parse : ParsedTable or None
        The parsed answer (None when there was no answer).
    cells : tuple of CellRecord
        Every predicted cell (``max(k, cells)`` per row, so ``pred_fields`` in
        all), then ``k`` records per omitted reference row; empty for ``missing``.
    """

    task_id: str
    status: str
    item_f1: float
    row_f1: float
    poa: float
    correct_fields: int
    gold_fields: int
    pred_fields: int
    correct_rows: int
    gold_rows: int
    pred_rows: int
    shared_keys: int
    correct_pairs: int
    pairs: int
    reason: str
    issues: tuple[str, ...]
    parse: ParsedTable | None
    cells: tuple[CellRecord, ...]


@dataclass(frozen=True, slots=True)
class PreparedTask:
    """A task with everything about its reference computed once (see :func:`prepare_task`).

    Attributes
    ----------
    task : Task
    profile : str
    schema : Schema
        The schema used for scoring (the task's, after user rules).
    tolerance : mapping of str to Decimal
        Absolute numeric tolerance per column (empty when none).
    reference : ParsedTable
        The parsed reference.
    canonicalizers : tuple of callable
        One raw-cell -> canonical-string function per schema column.
    gold_values : tuple of tuple
        Canonical reference rows (k values each, None for an absent cell).
    gold_keys : tuple of tuple
        Row key of each reference row.
    gold_index : mapping
        Row key -> reference row.
    key_of : callable
        Canonical row values -> row key.
    tolerant : mapping of int to (Decimal, tuple)
        Column position -> (tolerance, the reference's value in each row as a
        Decimal, None where not a finite number), for columns with a tolerance.
    """

    task: Task
    profile: str
    schema: Schema
    tolerance: Mapping[str, Decimal]
    reference: ParsedTable
    canonicalizers: tuple[Callable[[str], str], ...]
    gold_values: tuple[tuple[str | None, ...], ...]
    gold_keys: tuple[tuple[str | None, ...], ...]
    gold_index: Mapping[Hashable, int]
    key_of: Callable[[Sequence], tuple]
    tolerant: Mapping[int, tuple[Decimal, tuple[Decimal | None, ...]]]


def _finite(value: str | None) -> Decimal | None:
    if not value:
        return None
    try:
        number = Decimal(value)
    except (DecimalException, ValueError):
        return None
    return number if number.is_finite() else None


def _key_function(positions: tuple[int, ...]) -> Callable[[Sequence], tuple]:
    if len(positions) == 1:
        (only,) = positions
        return lambda values: (values[only],)
    return itemgetter(*positions)


def prepare_task(task: Task, *, profile: str = "paper", rules: Rules | None = None) -> PreparedTask:
    """Parse and canonicalize a task's reference once, for scoring many answers.

    Parameters
    ----------
    task : Task
    profile : {"paper", "strict"}, default "paper"
    rules : Rules, optional
        User overrides (aliases, column types, row key, numeric tolerances).

    Returns
    -------
    PreparedTask

    Raises
    ------
    SgrKitError
        When the reference has no data row, when the row key names an unknown
        column, or when two reference rows share a key.

    Examples
    --------
    >>> from sgr_kit.types import Schema, Task
    >>> task = Task("t_001", "t_001", "constraint", "NVD", "NVD", "vulnerability databases",
    ...             Schema(("id", "score"), ("id",)), "id|score\\nA|1\\nB|2", 2, "1-2")
    >>> prepared = prepare_task(task, profile="strict")
    >>> prepared.gold_keys
    (('A',), ('B',))
    """
    check_profile(profile)
    if not isinstance(task, Task):
        raise SgrKitError(f"expected a Task, found {type(task).__name__}")
    schema, tolerance = rules.apply(task) if rules is not None else (task.schema, {})
    tolerance = dict(tolerance)
    where = f"task {task.task_id}" + (f" ({task.source})" if task.source else "")
    if not schema.columns:
        raise SgrKitError(f"{where}: the schema has no columns")
    unknown = [c for c in schema.row_key if c not in schema.columns]
    if not schema.row_key or unknown:
        raise SgrKitError(
            f"{where}: row_key must name one or more schema columns ({', '.join(schema.columns)}); "
            f"found {list(schema.row_key)}"
        )
    reference = parse_answer(task.reference, schema, profile=profile)
    if reference.status != "parsed":
        raise SgrKitError(
            f"{where}: the reference answer must have at least one data row under profile {profile!r}; "
            f"found status {reference.status} ({reference.reason})"
        )
    canonicalizers = tuple(
        column_canonicalizers(schema, profile=profile, reference_rows=reference.rows, tolerance=tolerance)
    )
    if len(canonicalizers) != len(schema.columns):
        raise SgrKitError(
            f"{where}: expected one canonicalizer per column ({len(schema.columns)}), found {len(canonicalizers)}"
        )
    gold_values = tuple(tuple(_canonical_row(canonicalizers, cells)) for cells in reference.rows)
    key_of = _key_function(schema.key_index)
    gold_keys = tuple(key_of(values) for values in gold_values)
    gold_index = reference_index(gold_keys, task_id=task.task_id)
    tolerant = {
        j: (Decimal(tolerance[c]), tuple(_finite(values[j]) for values in gold_values))
        for j, c in enumerate(schema.columns)
        if c in tolerance
    }
    return PreparedTask(
        task=task,
        profile=profile,
        schema=schema,
        tolerance=tolerance,
        reference=reference,
        canonicalizers=canonicalizers,
        gold_values=gold_values,
        gold_keys=gold_keys,
        gold_index=gold_index,
        key_of=key_of,
        tolerant=tolerant,
    )


def _canonical_row(canonicalizers: tuple[Callable[[str], str], ...], cells: tuple[str, ...]) -> list:
    values = [f(c) for f, c in zip(canonicalizers, cells)]
    if len(values) < len(canonicalizers):
        values.extend([None] * (len(canonicalizers) - len(values)))
    return values


def _within(value: str, gold: Decimal | None, tolerance: Decimal) -> bool:
    number = _finite(value)
    if number is None or gold is None:
        return False
    return DECIMAL_CONTEXT.subtract(number, gold).copy_abs() <= tolerance


def _missing(prepared: PreparedTask) -> ScoreResult:
    rows = len(prepared.gold_values)
    return ScoreResult(
        prepared.task.task_id, "missing", _NAN, _NAN, _NAN, 0, rows * len(prepared.schema.columns), 0, 0,
        rows, 0, 0, 0, 0, "no answer for this task", (), None, (),
    )  # fmt: skip


def score_answer(
    task: Task | PreparedTask,
    answer: str | Answer | None,
    *,
    profile: str | None = None,
    rules: Rules | None = None,
) -> ScoreResult:
    """Score one answer: status, Item-F1, Row-F1, P.O.A., their counts and a record per cell.

    Parameters
    ----------
    task : Task or PreparedTask
        A prepared task (:func:`prepare_task`) keeps its profile and rules.
    answer : str, Answer or None
        The answer text; None means the system gave no answer (status ``missing``).
    profile : {"paper", "strict"}, optional
        Default ``"paper"``; for a prepared task, its own profile (another
        value is an error).
    rules : Rules, optional
        User overrides; not allowed with a prepared task (they are fixed there).

    Returns
    -------
    ScoreResult

    References
    ----------
    SGR-Bench paper, section 3.4 and Appendix A; the benchmark's own scorer
    (profile ``"strict"``).

    Examples
    --------
    The reference scorer's 3x3 case "one non-key field wrong":

    >>> from sgr_kit.types import Schema, Task
    >>> ref = "id|a|b\\n1|x|y\\n2|x|y\\n3|x|y"
    >>> task = Task("t_001", "t_001", "constraint", "NVD", "NVD", "vulnerability databases",
    ...             Schema(("id", "a", "b"), ("id",)), ref, 3, "3-5")
    >>> r = score_answer(task, "1|x|y\\n2|x|WRONG\\n3|x|y", profile="strict")
    >>> r.status, r.item_f1, r.row_f1, r.poa
    ('parsed', 0.888..., 0.666..., 1.0)
    >>> [c.verdict for c in r.cells if c.verdict != "match"]
    ['wrong']
    >>> score_answer(task, "id|a|b", profile="strict").reason
    'no data row: only a header line'
    """
    if isinstance(task, PreparedTask):
        if profile is not None and profile != task.profile:
            raise SgrKitError(
                f"task {task.task.task_id} was prepared with profile {task.profile!r}; found profile={profile!r}"
            )
        if rules is not None:
            raise SgrKitError(f"task {task.task.task_id} is prepared: pass rules to prepare_task, not score_answer")
        prepared = task
    else:
        prepared = prepare_task(task, profile=profile or "paper", rules=rules)
    task_id = prepared.task.task_id
    if answer is None:
        return _missing(prepared)
    if isinstance(answer, Answer):
        if answer.task_id != task_id:
            raise SgrKitError(f"{_label(answer)} is for task {answer.task_id!r}; expected task {task_id!r}")
        text = answer.text
    elif isinstance(answer, str):
        text = answer
    else:
        raise SgrKitError(f"task {task_id}: answer must be str, Answer or None; found {type(answer).__name__}")
    parsed = parse_answer(text, prepared.schema, profile=prepared.profile)
    return _score_parsed(prepared, parsed)


def _score_parsed(prepared: PreparedTask, parsed: ParsedTable) -> ScoreResult:
    columns = prepared.schema.columns
    k = len(columns)
    canonicalizers = prepared.canonicalizers
    gold_values = prepared.gold_values
    key_of = prepared.key_of
    rows = parsed.rows
    values = [_canonical_row(canonicalizers, cells) for cells in rows]
    keys = [key_of(v) for v in values]
    alignment = align_rows(prepared.gold_index, keys)
    tolerant = prepared.tolerant
    extra_names = parsed.extra_columns

    cells: list[CellRecord] = []
    add = cells.append
    issues = list(parsed.issues)
    correct_fields = correct_rows = pred_fields = 0
    for i, (raw, canon, kind, target) in enumerate(zip(rows, values, alignment.kinds, alignment.targets)):
        n = len(raw)
        width = n if n > k else k
        pred_fields += width
        gold = gold_values[target] if target is not None else None
        if kind == CREDIT:
            all_ok = n == k
            for j in range(k):
                value = canon[j]
                expected = gold[j]
                if value is None or value == "":
                    verdict, all_ok = "missing", False
                elif value == expected or (j in tolerant and _within(value, tolerant[j][1][target], tolerant[j][0])):
                    verdict = "match"
                    correct_fields += 1
                else:
                    verdict, all_ok = "wrong", False
                add(_new(CellRecord, (i, target, columns[j], raw[j] if j < n else None, value, expected, verdict)))
            correct_rows += all_ok
            verdict = "extra_cell"
        else:
            verdict = "duplicate_row" if kind == DUPLICATE else "extra_row"
            line = f" (line {parsed.lines[i]})" if i < len(parsed.lines) and parsed.lines[i] else ""
            what = "repeats an earlier row's key" if kind == DUPLICATE else "has a key not in the reference"
            issues.append(f"row {i + 1}{line}: {verdict} ({what}: {keys[i]!r})")
            for j in range(k):
                add(_new(CellRecord, (
                    i, target, columns[j], raw[j] if j < n else None, canon[j], gold[j] if gold else None, verdict,
                )))  # fmt: skip
        for j in range(k, n):
            name = extra_names[j - k] if j - k < len(extra_names) else f"column_{j + 1}"
            add(_new(CellRecord, (i, target, name, raw[j], None, None, verdict)))
    for g in alignment.omitted:
        gold = gold_values[g]
        for j in range(k):
            add(_new(CellRecord, (None, g, columns[j], None, None, gold[j], "omitted_row")))

    gold_rows = len(gold_values)
    gold_fields = gold_rows * k
    pred_rows = len(rows)
    correct_pairs, pairs = ordered_pairs(alignment.positions)
    shared = alignment.shared_keys
    if parsed.status == "parse_failure":
        metrics = (_NAN, _NAN, _NAN)
    else:
        metrics = (
            item_f1(correct_fields, gold_fields, pred_fields),
            row_f1(correct_rows, gold_rows, pred_rows),
            poa(correct_pairs, pairs, shared),
        )
    return ScoreResult(
        prepared.task.task_id, parsed.status, *metrics, correct_fields, gold_fields, pred_fields, correct_rows,
        gold_rows, pred_rows, shared, correct_pairs, pairs, parsed.reason, tuple(issues), parsed, tuple(cells),
    )  # fmt: skip


def _repeat(answer: Answer) -> int:
    return answer.repeat


def _label(answer: Answer) -> str:
    origin = answer.source or f"system {answer.system!r}, repeat {answer.repeat}"
    return f"answer ({origin})"


class ScoredAnswer(NamedTuple):
    """One scored (system, task, repeat): the input of :func:`scores_frame` and :func:`cells_frame`."""

    system: str
    repeat: int
    task: Task
    result: ScoreResult


class ScoredRuns(NamedTuple):
    """:func:`score_runs` with ``with_cells=True``: the scores table and the cells table."""

    scores: pd.DataFrame
    cells: pd.DataFrame


#: Text columns use pandas' default string dtype ("str" from pandas 3, object before).
_TEXT = "str" if int(pd.__version__.split(".")[0]) >= 3 else "object"

#: Columns of the scores table and their dtypes.
SCORE_COLUMNS: dict[str, str] = {
    "system": _TEXT, "task_id": _TEXT, "base_id": _TEXT, "variant": _TEXT, "domain": _TEXT,
    "ecosystem": _TEXT, "family": _TEXT, "gold_rows": "int64", "bin": _TEXT, "repeat": "int64",
    "status": _TEXT, "item_f1": "float64", "row_f1": "float64", "poa": "float64",
    "correct_fields": "int64", "gold_fields": "int64", "pred_fields": "int64", "correct_rows": "int64",
    "pred_rows": "int64", "shared_keys": "int64", "correct_pairs": "int64", "pairs": "int64",
    "reason": _TEXT, "synthetic": "bool",
}  # fmt: skip
#: Columns of the cells table and their dtypes (absent values are missing: NaN / <NA>).
CELL_COLUMNS: dict[str, str] = {
    "system": _TEXT, "task_id": _TEXT, "repeat": "int64", "pred_row": "Int64", "gold_row": "Int64",
    "column": _TEXT, "raw": _TEXT, "canonical": _TEXT, "reference": _TEXT, "verdict": _TEXT,
}  # fmt: skip


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
) -> tuple[dict[str, Task], list[str], dict[tuple[str, str], list[Answer]], int]:
    """Validate tasks and answers; group answers by (system, task)."""
    by_id = _task_list(tasks)
    seen: dict[tuple[str, str, int], Answer] = {}
    by_pair: dict[tuple[str, str], list[Answer]] = {}
    systems: dict[str, None] = {}
    for answer in runs:
        if not isinstance(answer, Answer):
            raise SgrKitError(f"runs: expected Answer objects, found {type(answer).__name__}")
        if answer.task_id not in by_id:
            raise SgrKitError(f"{_label(answer)}: unknown task id {answer.task_id!r}; it is not among the tasks")
        ident = (answer.system, answer.task_id, answer.repeat)
        if ident in seen:
            raise SgrKitError(
                f"{_label(answer)}: a second answer of system {answer.system!r} to task {answer.task_id!r} "
                f"repeat {answer.repeat} (first: {_label(seen[ident])})"
            )
        seen[ident] = answer
        systems.setdefault(answer.system)
        by_pair.setdefault((answer.system, answer.task_id), []).append(answer)
    return by_id, list(systems), by_pair, len(seen)


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
    by_id, systems, by_pair, total = _check_runs(tasks, runs)

    def scored() -> Iterator[ScoredAnswer]:
        prepared: dict[str, PreparedTask] = {}
        with tqdm(total=total, desc="scoring", unit="answer", disable=not progress) as bar:
            for system in systems:
                for task_id, task in by_id.items():
                    if task_id not in prepared:
                        prepared[task_id] = prepare_task(task, profile=profile, rules=rules)
                    ready = prepared[task_id]
                    given = by_pair.get((system, task_id))
                    if not given:
                        yield ScoredAnswer(system, 0, task, _missing(ready))
                        continue
                    for answer in sorted(given, key=_repeat):
                        yield ScoredAnswer(system, answer.repeat, task, score_answer(ready, answer))
                    bar.update(len(given))

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


def _score_row(s: ScoredAnswer) -> tuple:
    t, r = s.task, s.result
    return (
        s.system, t.task_id, t.base_id, t.variant, t.domain, t.ecosystem, t.family, t.gold_rows, t.bin,
        s.repeat, r.status, r.item_f1, r.row_f1, r.poa, r.correct_fields, r.gold_fields, r.pred_fields,
        r.correct_rows, r.pred_rows, r.shared_keys, r.correct_pairs, r.pairs, r.reason, t.synthetic,
    )  # fmt: skip


def _rows_frame(rows: list[tuple]) -> pd.DataFrame:
    columns = zip(*rows) if rows else ([] for _ in SCORE_COLUMNS)
    return _frame(dict(zip(SCORE_COLUMNS, map(list, columns))), SCORE_COLUMNS)


class _CellColumns:
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
        for values, column in zip(zip(*cells), self.fields):
            column.extend(values)

    def frame(self) -> pd.DataFrame:
        return _frame(self.columns, CELL_COLUMNS)


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
    return _rows_frame([_score_row(s) for s in scored])


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
    ['system', 'task_id', 'repeat', 'pred_row', 'gold_row', 'column', 'raw', 'canonical', 'reference', 'verdict']
    """
    table = _CellColumns()
    for s in scored:
        table.add(s)
    return table.frame()


def score_runs(
    tasks: Mapping[str, Task] | Iterable[Task],
    runs: Iterable[Answer],
    *,
    profile: str = "paper",
    rules: Rules | None = None,
    progress: bool = False,
    with_cells: bool = False,
) -> pd.DataFrame | ScoredRuns:
    """Score every system's answers into one tidy table.

    Answers are scored one at a time and only their table rows are kept, so
    memory grows with the tables, not with the scored results.

    Parameters
    ----------
    tasks : mapping of str to Task, or iterable of Task
    runs : iterable of Answer
    profile : {"paper", "strict"}, default "paper"
    rules : Rules, optional
    progress : bool, default False
        Show a progress bar.
    with_cells : bool, default False
        Also return the per-cell records.

    Returns
    -------
    DataFrame or ScoredRuns
        The scores table (:func:`scores_frame`): one row per (system, task_id,
        repeat), with a ``missing`` row (repeat 0) for every task a system did
        not answer. With ``with_cells=True``, ``ScoredRuns(scores, cells)``
        (:func:`cells_frame`).

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
    rows: list[tuple] = []
    cells = _CellColumns() if with_cells else None
    for s in _iter_scored(tasks, runs, profile=profile, rules=rules, progress=progress):
        rows.append(_score_row(s))
        if cells is not None:
            cells.add(s)
    scores = _rows_frame(rows)
    return ScoredRuns(scores, cells.frame()) if cells is not None else scores
