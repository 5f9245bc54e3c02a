"""Score one answer: parse -> canonicalize -> align -> metrics, with a record per cell.

:func:`prepare_task` does the per-task work once (parse and canonicalize the
reference, index its keys, compile the column canonicalizers);
:func:`score_answer` scores one answer against a task or a prepared task.

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
``scorer_error``
    scoring this answer failed inside sgr-kit (an unexpected exception, which no
    answer text should cause): no metrics (NaN) and the exception as the reason.
    It is the scorer's fault, never the answer's, so it is never a zero: means
    leave it out (:mod:`sgr_kit.aggregate`). :func:`score_answer` lets no
    exception escape for an answer's text; only a wrong call (a task and an
    answer that do not belong together, a value that is not text) raises.

A column whose type a user rules file declares ``integer`` or ``decimal`` never
lets an invalid cell (not a number there) match, not even the identical invalid
reference cell; see :mod:`sgr_kit.rules`.

A numeric tolerance from user rules (:meth:`sgr_kit.rules.Rules.apply`) is
applied when cells are compared: a predicted value whose canonical string is a
finite decimal within the column's absolute tolerance of the reference's counts
as a match. Without a tolerance, canonical strings are compared with ``==``.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from decimal import Decimal, DecimalException
from operator import itemgetter
from typing import TYPE_CHECKING, Callable, Hashable, Mapping, NamedTuple, Sequence


from ..align import CREDIT, DUPLICATE, align_rows, reference_index
from ..canonicalize import INVALID, INVALID_UNIT, column_canonicalizers
from ..canonicalize.strict import DECIMAL_CONTEXT
from ..errors import SgrKitError
from ..schema import check_profile
from ..metrics import item_f1, ordered_pairs, poa, row_f1
from ..parse import parse_answer, parse_reference
from ..types import Answer, ParsedTable, Schema, Task

if TYPE_CHECKING:  # pragma: no cover
    from ..rules import Rules

__all__ = ["CellRecord", "ScoreResult", "PreparedTask", "prepare_task", "score_answer", "missing_result",
           "scorer_error_result", "answer_label"]

_NAN = math.nan
_new = tuple.__new__
_INVALID_MARKS = (INVALID, INVALID_UNIT)
_NUMERIC = ("integer", "decimal")


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

    def __repr__(self) -> str:
        """One line: the status, the three metrics and the counts (not every cell record).

        Examples
        --------
        >>> from sgr_kit.types import Schema, Task
        >>> task = Task("t_001", "t_001", "constraint", "NVD", "NVD", "vulnerability databases",
        ...             Schema(("id", "v"), ("id",)), "a|1\\nb|2", 2, "1-2")
        >>> score_answer(task, "a|1\\nb|3", profile="strict")
        ScoreResult(task_id='t_001', status='parsed', item_f1=0.75, row_f1=0.5, poa=1.0, fields=3/4/4, rows=1/2/2, pairs=1/1, cells=4)
        """
        reason = f", reason={self.reason!r}" if self.reason else ""
        metrics = ", ".join(f"{name}={round(getattr(self, name), 4)!r}" for name in ("item_f1", "row_f1", "poa"))
        return (
            f"ScoreResult(task_id={self.task_id!r}, status={self.status!r}, {metrics}, "
            f"fields={self.correct_fields}/{self.gold_fields}/{self.pred_fields}, "
            f"rows={self.correct_rows}/{self.gold_rows}/{self.pred_rows}, pairs={self.correct_pairs}/{self.pairs}, "
            f"cells={len(self.cells)}{reason})"
        )


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
    strictly_valid : frozenset of int
        Column positions whose type a user rules file declares numeric: there an
        invalid cell never matches, not even the identical invalid reference cell.
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
    strictly_valid: frozenset[int] = frozenset()


def _finite(value: str | None) -> Decimal | None:
    """The canonical value as a finite decimal, for tolerance checks (a trailing ``%`` allowed)."""
    if not value:
        return None
    try:
        number = Decimal(value.removesuffix("%"))
    except (DecimalException, ValueError):
        return None
    return number if number.is_finite() else None


def _key_function(positions: tuple[int, ...]) -> Callable[[Sequence], tuple]:
    if len(positions) == 1:
        (only,) = positions
        return lambda values: (values[only],)
    return itemgetter(*positions)


def _distinct_keys(task, schema, rows, canonicalizers, key_of, tolerance) -> tuple:
    """Keep distinct reference rows distinct under the paper profile.

    When the paper canonicalization (case-folding, number or punctuation
    rules) would give two reference rows the same key although their strict
    keys differ, the key columns are compared as under ``strict`` for this
    task, with a warning: the profile must never merge distinct entities.
    """
    keys = [key_of(_canonical_row(canonicalizers, cells)) for cells in rows]
    if len(set(keys)) == len(keys):
        return canonicalizers
    strict = column_canonicalizers(schema, profile="strict", reference_rows=rows, tolerance=tolerance)
    strict_keys = [key_of(_canonical_row(strict, cells)) for cells in rows]
    if len(set(strict_keys)) != len(strict_keys):
        return canonicalizers  # the reference itself repeats a key: reported by reference_index
    merged = list(canonicalizers)
    for j in schema.key_index:
        merged[j] = strict[j]
    warnings.warn(
        f"task {task.task_id}: the paper profile's canonical values would merge distinct reference rows "
        f"in key column(s) {', '.join(schema.row_key)}; those columns are compared as in the strict profile "
        f"for this task",
        UserWarning,
        stacklevel=3,
    )
    return tuple(merged)


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
    reference = parse_reference(task.reference, schema, profile=profile)
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
    key_of = _key_function(schema.key_index)
    if profile == "paper":
        canonicalizers = _distinct_keys(task, schema, reference.rows, canonicalizers, key_of, tolerance)
    gold_values = tuple(tuple(_canonical_row(canonicalizers, cells)) for cells in reference.rows)
    gold_keys = tuple(key_of(values) for values in gold_values)
    gold_index = reference_index(gold_keys, task_id=task.task_id)
    tolerant = {
        j: (Decimal(tolerance[c]), tuple(_finite(values[j]) for values in gold_values))
        for j, c in enumerate(schema.columns)
        if c in tolerance
    }
    strictly_valid = frozenset()
    if rules is not None:
        declared = rules.declared_types(task)
        strictly_valid = frozenset(j for j, c in enumerate(schema.columns) if declared.get(c) in _NUMERIC)
        _warn_invalid_reference(task, schema, gold_values, strictly_valid, declared, rules)
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
        strictly_valid=strictly_valid,
    )


def _warn_invalid_reference(task, schema, gold_values, positions, declared, rules) -> None:
    """Warn once per column when user-declared numeric types make reference cells invalid."""
    for j in sorted(positions):
        bad = [(i, v) for i, values in enumerate(gold_values) if (v := values[j]) and v.startswith(_INVALID_MARKS)]
        if bad:
            i, value = bad[0]
            column = schema.columns[j]
            warnings.warn(
                f"task {task.task_id}: {rules.source or 'the rules'} declares column {column!r} "
                f"{declared[column]}, but {len(bad)} reference cell(s) are not numbers there (first: "
                f"{value.split(':', 1)[1]!r} in row {i + 1}); an invalid cell never matches, so no answer can get "
                f"them right",
                UserWarning,
                stacklevel=3,
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


def missing_result(prepared: PreparedTask) -> ScoreResult:
    """The result of a task with no answer: status ``missing``, no metrics."""
    rows = len(prepared.gold_values)
    return ScoreResult(
        prepared.task.task_id, "missing", _NAN, _NAN, _NAN, 0, rows * len(prepared.schema.columns), 0, 0,
        rows, 0, 0, 0, 0, "no answer for this task", (), None, (),
    )  # fmt: skip


def answer_label(answer: Answer) -> str:
    """How an answer is named in error messages: its source (file and line) when known."""
    origin = answer.source or f"system {answer.system!r}, repeat {answer.repeat}"
    return f"answer ({origin})"


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
        return missing_result(prepared)
    if isinstance(answer, Answer):
        if answer.task_id != task_id:
            raise SgrKitError(f"{answer_label(answer)} is for task {answer.task_id!r}; expected task {task_id!r}")
        text = answer.text
    elif isinstance(answer, str):
        text = answer
    else:
        raise SgrKitError(f"task {task_id}: answer must be str, Answer or None; found {type(answer).__name__}")
    try:
        parsed = parse_answer(text, prepared.schema, profile=prepared.profile)
        return _score_parsed(prepared, parsed)
    except Exception as exc:  # noqa: BLE001 - any failure here is the scorer's, reported as a status
        return scorer_error_result(prepared, exc)


def scorer_error_result(prepared: PreparedTask, exc: BaseException) -> ScoreResult:
    """The result of an answer whose scoring failed: status ``scorer_error``, no metrics, the exception as reason."""
    rows = len(prepared.gold_values)
    message = str(exc).replace("\n", " ")[:300]
    reason = f"scoring failed: {type(exc).__name__}" + (f": {message}" if message else "")
    return ScoreResult(
        prepared.task.task_id, "scorer_error", _NAN, _NAN, _NAN, 0, rows * len(prepared.schema.columns), 0, 0,
        rows, 0, 0, 0, 0, reason, (), None, (),
    )  # fmt: skip


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
    strictly_valid = prepared.strictly_valid
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
                elif (value == expected and not (j in strictly_valid and value.startswith(_INVALID_MARKS))) or (
                    j in tolerant and _within(value, tolerant[j][1][target], tolerant[j][0])
                ):
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
