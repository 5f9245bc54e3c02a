"""Everything known about one answer, gathered for display.

- :class:`CellIndex`: the cells table (``sgr-kit score --cells``) indexed once by
  ``(system, task_id, repeat)``, so showing an answer never scans the whole table;
- :class:`AnswerDetail`: one answer's scores row, cell records, text, reference rows and
  parse issues;
- :func:`gather_answer`: builds an :class:`AnswerDetail` from whatever is available.

What is available depends on the explorer's inputs. The scores table always gives the
status, its reason and the metrics' counts. The cells table gives every cell's raw,
canonical and reference value and its verdict. Only the runs give the answer's text as
written, and only tasks and runs together allow re-scoring the answer, which gives the
parser's issues (wrong row widths, duplicate and extra rows, ...) and the reference's
cells as written. With scores and cells alone, the answer's text is *reconstructed* from
its cell records (:func:`reconstructed_text`) and labelled as such.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, MutableMapping

import numpy as np
import pandas as pd

from sgr_kit.errors import SgrKitError

from .filters import KEY

__all__ = ["CELL_FIELDS", "CellIndex", "AnswerDetail", "gather_answer", "schema_columns", "reconstructed_text"]

#: Fields of one cell record, in the order of :class:`sgr_kit.score.CellRecord`.
CELL_FIELDS: tuple[str, ...] = ("pred_row", "gold_row", "column", "raw", "canonical", "reference", "verdict")
#: Counts compared between the scores table and a re-score of the same answer.
_COUNTS: tuple[str, ...] = (
    "status", "correct_fields", "gold_fields", "pred_fields", "correct_rows", "pred_rows", "correct_pairs", "pairs",
)  # fmt: skip

Key = tuple  # (system, task_id, repeat)


def _column(frame: pd.DataFrame, name: str) -> np.ndarray:
    """A cells column as an object array with None for absent values (rows as int)."""
    series = frame[name]
    if name in ("pred_row", "gold_row"):
        series = pd.array(series, dtype="Int64")
        return pd.Series(series).to_numpy(dtype=object, na_value=None)
    return series.to_numpy(dtype=object, na_value=None)


class CellIndex:
    """The cells table indexed once by ``(system, task_id, repeat)``.

    Building the index groups the table once (:meth:`pandas.DataFrame.groupby` indices)
    and keeps each column as an array; :meth:`records` then takes one answer's rows by
    position, whatever the size of the table.

    Parameters
    ----------
    cells : DataFrame
        The cells table: ``system, task_id, repeat`` and the fields of
        :data:`CELL_FIELDS` (:data:`sgr_kit.schema.CELL_COLUMNS`).

    Examples
    --------
    >>> cells = pd.DataFrame({"system": ["A", "A"], "task_id": ["t", "t"], "repeat": [0, 0],
    ...     "pred_row": [0, None], "gold_row": [0, 1], "column": ["id", "id"], "raw": ["x", None],
    ...     "canonical": ["x", None], "reference": ["x", "y"], "verdict": ["match", "omitted_row"]})
    >>> index = CellIndex(cells)
    >>> index.records(("A", "t", 0))
    [(0, 0, 'id', 'x', 'x', 'x', 'match'), (None, 1, 'id', None, None, 'y', 'omitted_row')]
    >>> index.records(("B", "t", 0))
    []
    """

    def __init__(self, cells: pd.DataFrame) -> None:
        if not isinstance(cells, pd.DataFrame):
            raise SgrKitError(f"cells: expected a DataFrame (the --cells table of `sgr-kit score`); found "
                              f"{type(cells).__name__}")
        missing = [c for c in (*KEY, *CELL_FIELDS) if c not in cells.columns]
        if missing:
            raise SgrKitError(
                f"cells: missing column(s) {', '.join(missing)}; expected the --cells table of `sgr-kit score`"
            )
        self._arrays = [_column(cells, name) for name in CELL_FIELDS]
        self._positions: dict[Key, np.ndarray] = (
            cells.groupby(list(KEY), sort=False).indices if len(cells) else {}
        )
        self._n = len(cells)

    def __len__(self) -> int:
        return self._n

    def __contains__(self, key: object) -> bool:
        return key in self._positions

    def records(self, key: Key) -> list[tuple]:
        """The cell records of one answer, in the table's order (empty when it has none)."""
        positions = self._positions.get(key)
        if positions is None:
            return []
        return list(zip(*(array[positions] for array in self._arrays)))

    def search_texts(self) -> dict[Key, str]:
        """Each answer's raw cell values joined by spaces (the text search without runs)."""
        raw = self._arrays[CELL_FIELDS.index("raw")]
        return {key: " ".join(v for v in raw[pos] if v) for key, pos in self._positions.items()}


def schema_columns(records: list[tuple]) -> tuple[str, ...]:
    """The schema's columns as the records show them, in order.

    The columns of cells compared with the reference (``match``, ``wrong``, ``missing``,
    ``omitted_row``); when there is none, every column named in the records.

    Examples
    --------
    >>> schema_columns([(0, 0, "id", "a", "a", "a", "match"), (0, 0, "note", "x", None, None, "extra_cell")])
    ('id',)
    """
    compared = dict.fromkeys(r[2] for r in records if r[6] in ("match", "wrong", "missing", "omitted_row"))
    return tuple(compared) if compared else tuple(dict.fromkeys(r[2] for r in records))


def reconstructed_text(records: list[tuple]) -> str:
    """The answer's rows rebuilt from its cell records: raw cells joined by ``" | "``.

    Not the answer as written: prose, headers and formatting are not kept; an absent
    cell is left empty.

    Examples
    --------
    >>> print(reconstructed_text([(0, 0, "id", "a", "a", "a", "match"), (0, 0, "n", "1", "1", "2", "wrong"),
    ...                           (None, 1, "id", None, None, "b", "omitted_row")]))
    a | 1
    """
    rows: dict[int, list[str]] = {}
    for pred_row, _gold, _column, raw, *_ in records:
        if pred_row is not None:
            rows.setdefault(pred_row, []).append("" if raw is None else str(raw))
    return "\n".join(" | ".join(rows[i]) for i in sorted(rows))


@dataclass(frozen=True)
class AnswerDetail:
    """One answer, with everything the explorer can show about it.

    Attributes
    ----------
    key : (str, str, int)
        ``(system, task_id, repeat)``.
    score : mapping
        The answer's row of the scores table.
    records : list of tuple or None
        Its cell records (fields :data:`CELL_FIELDS`); None when neither a cells table nor
        tasks and runs were given.
    columns : tuple of str
        The schema's columns, in order.
    text : str or None
        The answer as written (from the runs); None when unknown or when there is no answer.
    text_source : {"runs", "cells", "none"}
        ``"runs"``: ``text`` is the answer as given (None: the system gave no answer);
        ``"cells"``: only reconstructed text is available (:func:`reconstructed_text`);
        ``"none"``: no text at all.
    reference_rows : tuple of tuple of str, or None
        The reference's cells as written, per reference row (from the task); None when
        the tasks were not given, in which case the canonical reference values of the
        cell records are shown.
    issues : tuple of str, or None
        Parsing issues, then duplicate and extra rows, from re-scoring the answer; None
        when it could not be re-scored (no tasks and runs).
    parse_format : str
        The table format the parser recognized (``"pipe"``, ``"csv"``...), when re-scored.
    notes : tuple of str
        Caveats to show with the answer (e.g. a re-score that disagrees with the table).
    """

    key: tuple
    score: Mapping[str, Any]
    records: list[tuple] | None
    columns: tuple[str, ...]
    text: str | None = None
    text_source: str = "none"
    reference_rows: tuple[tuple[str, ...], ...] | None = None
    issues: tuple[str, ...] | None = None
    parse_format: str = ""
    notes: tuple[str, ...] = field(default=())


def _same_counts(score: Mapping[str, Any], result: Any) -> list[str]:
    differ = []
    for name in _COUNTS:
        if name in score and score[name] is not None and not pd.isna(score[name]):
            mine = getattr(result, name)
            if (str(score[name]) != str(mine)) if name == "status" else int(score[name]) != int(mine):
                differ.append(f"{name} {score[name]} in the table, {mine} re-scored")
    return differ


def gather_answer(
    key: Key,
    score: Mapping[str, Any],
    *,
    cells: CellIndex | None = None,
    task: Any = None,
    texts: Mapping[Key, str | None] | None = None,
    profile: str = "paper",
    rules: Any = None,
    prepared: MutableMapping[str, Any] | None = None,
) -> AnswerDetail:
    """Gather what is known about one answer.

    Parameters
    ----------
    key : (str, str, int)
        ``(system, task_id, repeat)``.
    score : mapping
        The answer's row of the scores table.
    cells : CellIndex, optional
        The indexed cells table.
    task : Task, optional
        The answer's task; with ``texts``, the answer is re-scored (parse issues,
        the reference as written).
    texts : mapping, optional
        ``(system, task_id, repeat)`` -> answer text, from the runs. A key absent from a
        given mapping means the system gave no answer.
    profile : {"paper", "strict"}, default "paper"
        The profile used to re-score.
    rules : Rules, optional
        User rules used to re-score (as when the table was scored).
    prepared : dict, optional
        A cache ``task_id -> PreparedTask`` kept by the caller, so each task's
        reference is prepared once.

    Returns
    -------
    AnswerDetail
        The cells shown come from the cells table when it holds the answer, else from the
        re-score. A re-score whose counts differ from the table's adds a note.
    """
    records = cells.records(key) if cells is not None and key in cells else None
    text: str | None = None
    text_source = "none"
    if texts is not None:
        text, text_source = texts.get(key), "runs"
    elif records is not None:
        text_source = "cells"
    reference_rows = issues = None
    parse_format = ""
    notes: list[str] = []
    columns: tuple[str, ...] = ()
    if task is not None and texts is not None:
        from sgr_kit.score import prepare_task, score_answer

        cache = prepared if prepared is not None else {}
        ready = cache.get(key[1])
        if ready is None:
            ready = cache[key[1]] = prepare_task(task, profile=profile, rules=rules)
        result = score_answer(ready, text)
        issues = tuple(result.issues)
        parse_format = result.parse.format if result.parse is not None else ""
        reference_rows = tuple(tuple(row) for row in ready.reference.rows)
        columns = tuple(ready.schema.columns)
        differ = _same_counts(score, result)
        if differ:
            notes.append(
                f"Re-scoring this answer under profile {profile!r} does not give the table's counts "
                f"({'; '.join(differ)}): the table was scored with another profile or other rules. "
                "Metrics and cells shown are the table's; parse issues are the re-score's."
            )
        if records is None:
            records = [tuple(r) for r in result.cells]
    if task is not None and task.prose:  # the release's rules written as prose: read beside the answer, never applied
        shown = {k: v for k, v in task.prose.items() if k in ("sorting_or_selection", "header_row", "column_notes")}
        if shown:
            notes.append("Task prose (never applied): " + "; ".join(f"{k}: {v}" for k, v in shown.items()))
    if records is not None and not columns:
        columns = schema_columns(records)
    return AnswerDetail(
        key=key, score=dict(score), records=records, columns=columns, text=text, text_source=text_source,
        reference_rows=reference_rows, issues=issues, parse_format=parse_format, notes=tuple(notes),
    )  # fmt: skip
