"""The explorer's selection: a filter state applied to a scores table.

Pure functions over the tidy scores table (one row per system, task and repeat):

- :class:`FilterState`: every filter of the explorer, frozen;
- :func:`filter_options`: the values each filter can take, in a stable order;
- :func:`select`: the rows that pass the filters, sorted;
- :func:`selection_means`: the count and the mean of each metric over a selection;
- :func:`selection_csv`: a selection as CSV text (the explorer's export).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace
from typing import Mapping

import numpy as np
import pandas as pd

from sgr_kit.errors import SgrKitError
from sgr_kit.output import table_csv
from sgr_kit.schema import (
    FAILED_STATUSES,
    METRICS,
    REQUIRED_SCORE_COLUMNS,
    STATUSES,
    UNSCORED_STATUSES,
    VARIANTS,
    check_choice,
    check_failure_policy,
)
from sgr_kit.taxonomy import BINS, FAMILIES

__all__ = [
    "KEY",
    "FILTER_COLUMNS",
    "FilterState",
    "filter_options",
    "check_scores",
    "select",
    "selection_means",
    "selection_csv",
]

#: The columns that name one answer.
KEY: tuple[str, str, str] = ("system", "task_id", "repeat")
#: Filter field of :class:`FilterState` -> scores column it restricts.
FILTER_COLUMNS: dict[str, str] = {
    "systems": "system",
    "variants": "variant",
    "families": "family",
    "domains": "domain",
    "bins": "bin",
    "statuses": "status",
}
#: Known orders of the categorical filters' values (values not listed follow, sorted).
_ORDER: dict[str, tuple[str, ...]] = {"variant": VARIANTS, "family": FAMILIES, "bin": BINS, "status": STATUSES}


@dataclass(frozen=True)
class FilterState:
    """Every filter of the explorer; the defaults select every answer.

    An empty tuple puts no restriction on its column.

    Attributes
    ----------
    systems, variants, families, domains, bins, statuses : tuple of str
        Keep answers whose ``system`` (``variant``, ``family``, ``domain``, ``bin``,
        ``status``) is one of these.
    metric : {"item_f1", "row_f1", "poa"}
        The metric that ``score_range`` restricts.
    score_range : (float, float)
        Inclusive bounds on ``metric``, as fractions in [0, 1]. With the full range
        ``(0, 1)`` answers without metrics (``parse_failure``, ``missing``) are kept;
        any narrower range drops them.
    text : str
        Keep answers whose text contains this, ignoring case (empty: no restriction).
    sort_by : str
        A scores column, or ``""`` for the table's own order.
    ascending : bool
        Sort order; answers without a value in ``sort_by`` come last either way.

    Examples
    --------
    >>> FilterState(systems=("A",), metric="row_f1", score_range=(0.0, 0.5)).score_range
    (0.0, 0.5)
    >>> FilterState(score_range=(0.8, 0.2))
    Traceback (most recent call last):
    ...
    sgr_kit.errors.SgrKitError: score_range must be (low, high) with 0 <= low <= high <= 1; found (0.8, 0.2)
    """

    systems: tuple[str, ...] = ()
    variants: tuple[str, ...] = ()
    families: tuple[str, ...] = ()
    domains: tuple[str, ...] = ()
    bins: tuple[str, ...] = ()
    statuses: tuple[str, ...] = ()
    metric: str = "item_f1"
    score_range: tuple[float, float] = (0.0, 1.0)
    text: str = ""
    sort_by: str = ""
    ascending: bool = True

    def __post_init__(self) -> None:
        for name in FILTER_COLUMNS:
            value = getattr(self, name)
            if isinstance(value, str) or not all(isinstance(v, str) for v in value):
                raise SgrKitError(f"{name} must be a tuple of str; found {value!r}")
            object.__setattr__(self, name, tuple(value))
        check_choice(self.metric, METRICS, name="metric")
        try:
            low, high = (float(v) for v in self.score_range)
        except (TypeError, ValueError):
            raise SgrKitError(f"score_range must be two numbers (low, high); found {self.score_range!r}") from None
        if not (0.0 <= low <= high <= 1.0):
            raise SgrKitError(
                f"score_range must be (low, high) with 0 <= low <= high <= 1; found {tuple(self.score_range)!r}"
            )
        object.__setattr__(self, "score_range", (low, high))
        if not isinstance(self.text, str):
            raise SgrKitError(f"text must be str; found {type(self.text).__name__}")

    @property
    def full_range(self) -> bool:
        """True when ``score_range`` is ``(0, 1)`` (answers without metrics are kept)."""
        return self.score_range == (0.0, 1.0)

    def replace(self, **changes) -> FilterState:
        """A copy with ``changes`` applied (validated again)."""
        unknown = sorted(set(changes) - {f.name for f in fields(self)})
        if unknown:
            raise SgrKitError(f"FilterState has no field(s) {', '.join(unknown)}")
        return replace(self, **changes)


def check_scores(scores: object) -> pd.DataFrame:
    """Return ``scores`` when it is a scores table the explorer can use, else raise.

    Examples
    --------
    >>> check_scores(pd.DataFrame({"system": ["A"]}))
    Traceback (most recent call last):
    ...
    sgr_kit.errors.SgrKitError: scores: missing column(s) task_id, variant, repeat, status, item_f1, row_f1, poa; \
expected a table written by `sgr-kit score`
    """
    if not isinstance(scores, pd.DataFrame):
        raise SgrKitError(
            f"scores: expected a DataFrame (a table written by `sgr-kit score`); found {type(scores).__name__}"
        )
    missing = [c for c in REQUIRED_SCORE_COLUMNS if c not in scores.columns]
    if missing:
        raise SgrKitError(
            f"scores: missing column(s) {', '.join(missing)}; expected a table written by `sgr-kit score`"
        )
    duplicated = scores.duplicated(list(KEY))
    if duplicated.any():
        system, task_id, repeat = scores.loc[duplicated, list(KEY)].iloc[0].tolist()
        raise SgrKitError(
            f"scores: (system, task_id, repeat) must be unique; found ({system!r}, {task_id!r}, {int(repeat)}) twice"
        )
    return scores


def _ordered(values: pd.Series, known: tuple[str, ...] | None) -> tuple[str, ...]:
    present = [v for v in pd.unique(values.dropna()) if str(v) != ""]
    if known is None:
        return tuple(str(v) for v in present)  # first appearance, as the table lists them
    rest = sorted(str(v) for v in present if v not in known)
    return tuple(v for v in known if v in set(present)) + tuple(rest)


def filter_options(scores: pd.DataFrame) -> dict[str, tuple[str, ...]]:
    """The values each categorical filter can take, for the filters whose column exists.

    Systems keep the table's order; variants, families, cardinality bins and statuses the
    paper's order (:data:`sgr_kit.schema.VARIANTS`, :data:`sgr_kit.taxonomy.FAMILIES`,
    :data:`sgr_kit.taxonomy.BINS`, :data:`sgr_kit.schema.STATUSES`); domains are sorted.

    Parameters
    ----------
    scores : DataFrame
        A scores table.

    Returns
    -------
    dict
        :class:`FilterState` field name -> values present in the table.

    Examples
    --------
    >>> table = pd.DataFrame({"system": ["B", "A", "B"], "variant": ["goal", "constraint", "goal"],
    ...                       "status": ["parsed", "missing", "empty"]})
    >>> filter_options(table)
    {'systems': ('B', 'A'), 'variants': ('constraint', 'goal'), 'statuses': ('parsed', 'empty', 'missing')}
    """
    options = {}
    for name, column in FILTER_COLUMNS.items():
        if column in scores.columns:
            known = _ORDER.get(column)
            if column == "domain":
                known = ()
            options[name] = _ordered(scores[column], known)
    return options


def select(scores: pd.DataFrame, state: FilterState, *, text: pd.Series | None = None) -> pd.DataFrame:
    """The answers of ``scores`` that pass every filter of ``state``, sorted.

    Parameters
    ----------
    scores : DataFrame
        A scores table (:data:`sgr_kit.schema.REQUIRED_SCORE_COLUMNS` at least).
    state : FilterState
    text : Series of str, optional
        The searchable text of each answer, indexed like ``scores`` and already folded
        with :meth:`str.casefold` (the explorer passes the answers' text, or their cells'
        raw values when the text is unknown). Needed only when ``state.text`` is set.

    Returns
    -------
    DataFrame
        The passing rows with all of ``scores``' columns and index labels, sorted by
        ``state.sort_by`` (stable; ties keep the table's order; missing values last).

    Raises
    ------
    SgrKitError
        When a filter names a column the table lacks, or a text search has no text.

    Examples
    --------
    >>> table = pd.DataFrame({"system": ["A", "A", "B"], "task_id": ["t1", "t2", "t1"], "variant": "constraint",
    ...                       "repeat": 0, "status": ["parsed", "parse_failure", "parsed"],
    ...                       "item_f1": [0.5, float("nan"), 0.9], "row_f1": [0.0, float("nan"), 1.0],
    ...                       "poa": [1.0, float("nan"), 1.0]})
    >>> select(table, FilterState(sort_by="item_f1", ascending=False))["task_id"].tolist()
    ['t1', 't1', 't2']
    >>> select(table, FilterState(score_range=(0.6, 1.0)))["system"].tolist()
    ['B']
    """
    mask = np.ones(len(scores), dtype=bool)
    for name, column in FILTER_COLUMNS.items():
        wanted = getattr(state, name)
        if not wanted:
            continue
        if column not in scores.columns:
            raise SgrKitError(f"filter {name}: the scores table has no column {column!r}")
        mask &= scores[column].isin(wanted).to_numpy(dtype=bool)
    if not state.full_range:
        values = scores[state.metric].to_numpy(dtype=float)
        low, high = state.score_range
        with np.errstate(invalid="ignore"):
            mask &= (values >= low) & (values <= high)  # NaN (no metrics) fails both
    if state.text:
        if text is None:
            raise SgrKitError("text search: no answer text given (pass text=, a Series indexed like scores)")
        found = text.reindex(scores.index).fillna("").str.contains(state.text.casefold(), regex=False)
        mask &= found.to_numpy(dtype=bool)
    chosen = scores[mask]
    if not state.sort_by:
        return chosen
    if state.sort_by not in scores.columns:
        raise SgrKitError(f"sort_by: the scores table has no column {state.sort_by!r}")
    return chosen.sort_values(state.sort_by, ascending=state.ascending, kind="stable", na_position="last")


def selection_means(selection: pd.DataFrame, *, failure_policy: str = "zero") -> dict[str, float]:
    """The number of answers in a selection and each metric's mean over them.

    Parameters
    ----------
    selection : DataFrame
        Rows of a scores table (e.g. from :func:`select`).
    failure_policy : {"zero", "exclude"}, default "zero"
        How answers without metrics (``parse_failure``, ``missing``) enter the means:
        as 0 (the paper's averages over all tasks) or left out. Answers the scorer could
        not score (:data:`sgr_kit.schema.UNSCORED_STATUSES`) are left out under both.

    Returns
    -------
    dict
        ``answers`` (int), ``failed`` (int: answers without metrics), ``unscored`` (int:
        of those, the scorer's faults) and one float per metric of
        :data:`sgr_kit.schema.METRICS` (NaN when no answer enters the mean). A plain mean
        over answers: repeats are not averaged first.

    Examples
    --------
    >>> table = pd.DataFrame({"status": ["parsed", "missing"], "item_f1": [0.5, float("nan")],
    ...                       "row_f1": [1.0, float("nan")], "poa": [1.0, float("nan")]})
    >>> selection_means(table)
    {'answers': 2, 'failed': 1, 'unscored': 0, 'item_f1': 0.25, 'row_f1': 0.5, 'poa': 0.5}
    >>> selection_means(table, failure_policy="exclude")["item_f1"]
    0.5
    """
    check_failure_policy(failure_policy)
    status = selection["status"]
    unscored = status.isin(UNSCORED_STATUSES).to_numpy(dtype=bool)
    failed = status.isin(FAILED_STATUSES).to_numpy(dtype=bool) | unscored
    out: dict[str, float] = {"answers": int(len(selection)), "failed": int(failed.sum()),
                             "unscored": int(unscored.sum())}  # fmt: skip
    for metric in METRICS:
        values = selection[metric].to_numpy(dtype=float)
        if failure_policy == "zero":
            values = np.where(failed, 0.0, values)[~unscored]
        else:
            values = values[~failed]
        values = values[~np.isnan(values)]
        out[metric] = float(values.mean()) if len(values) else math.nan
    return out


def selection_csv(selection: pd.DataFrame) -> str:
    """A selection as CSV text: its columns as they are, no index, in its row order, formula-safe.

    A text a spreadsheet would run as a formula gets a leading ``'`` (:func:`sgr_kit.output.table_csv`).

    Examples
    --------
    >>> print(selection_csv(pd.DataFrame({"system": ["A", "=1+1"], "item_f1": [0.5, -1.0]})), end="")
    system,item_f1
    A,0.5
    '=1+1,-1.0
    """
    return table_csv(selection)


def scores_text_lookup(scores: pd.DataFrame, texts: Mapping[tuple, str]) -> pd.Series:
    """Each answer's searchable text (lower-cased), indexed like ``scores``; ``""`` when unknown."""
    keys = zip(*(scores[c].tolist() for c in KEY))
    return pd.Series([texts.get((s, t, int(r)), "").casefold() for s, t, r in keys], index=scores.index, dtype=object)
