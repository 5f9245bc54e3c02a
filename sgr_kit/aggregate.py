"""Aggregate per-answer scores into per-system means.

Scoring never hides a failure: a ``parse_failure`` or ``missing`` answer has
no metrics (NaN). How such answers enter a mean is decided here, by the
failure policy:

``"zero"`` (default)
    they count as 0 on every metric, as the paper's averages over all 100
    tasks imply (section 4.1: "Overall denotes the average Item-F1 across all
    100 tasks");
``"exclude"``
    they are left out of the mean (and counted in ``n_failed``).

A ``scorer_error`` answer (scoring itself failed: the scorer's fault, not the answer's;
:data:`~sgr_kit.schema.UNSCORED_STATUSES`) is left out of every mean under both policies,
never counted as a zero; it is counted in ``n_failed``.

Repeats of one (system, task) are averaged first, so that every task weighs
the same whatever its number of repeats.

Languages: the release's tasks exist in English and Chinese under the same ids. A scores table
carries a ``language`` column; repeats are averaged per (system, language, task), never across
languages, and :func:`by_language` labels each system with its language when a table holds
both, so that every per-system analysis keeps them apart.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .errors import SgrKitError
from .load.scores import by_language
from .schema import FAILED_STATUSES, METRICS, UNSCORED_STATUSES, check_failure_policy

__all__ = ["apply_failure_policy", "by_language", "task_means", "system_means"]

_REQUIRED = ("system", "task_id", "variant", "status", *METRICS)
_TASK_COLUMNS = ("base_id", "variant", "domain", "ecosystem", "family", "gold_rows", "bin", "synthetic")


def _check(scores: pd.DataFrame, failure_policy: str) -> None:
    check_failure_policy(failure_policy)
    missing = [c for c in _REQUIRED if c not in scores.columns]
    if missing:
        raise SgrKitError(
            f"scores table lacks column(s) {', '.join(missing)}; expected the output of "
            f"`sgr-kit score` / sgr_kit.score_runs with columns {', '.join(_REQUIRED)}"
        )


def apply_failure_policy(scores: pd.DataFrame, *, failure_policy: str = "zero") -> pd.DataFrame:
    """Return a copy of ``scores`` with the failure policy applied to the metric columns.

    Parameters
    ----------
    scores : DataFrame
        Output of :func:`sgr_kit.score.score_runs`.
    failure_policy : {"zero", "exclude"}
        ``zero`` sets the metrics of failed answers to 0; ``exclude`` drops those rows.
        Answers whose scoring failed (``scorer_error``) are dropped under both policies.

    Returns
    -------
    DataFrame

    Examples
    --------
    >>> s = pd.DataFrame({"system": ["a", "a"], "task_id": ["t1", "t2"], "variant": ["constraint"] * 2,
    ...                   "status": ["parsed", "parse_failure"], "item_f1": [0.5, np.nan],
    ...                   "row_f1": [0.0, np.nan], "poa": [1.0, np.nan]})
    >>> apply_failure_policy(s)["item_f1"].tolist()
    [0.5, 0.0]
    >>> len(apply_failure_policy(s, failure_policy="exclude"))
    1
    """
    _check(scores, failure_policy)
    status = scores["status"]
    failed = status.isin(FAILED_STATUSES)
    unscored = status.isin(UNSCORED_STATUSES)
    if failure_policy == "zero":
        out = scores.loc[~unscored].copy()
        out.loc[failed[~unscored], list(METRICS)] = 0.0
        return out
    return scores.loc[~failed].copy()


def task_means(scores: pd.DataFrame, *, failure_policy: str = "zero") -> pd.DataFrame:
    """Average the repeats of each (system, task): one row per (system, task_id).

    Returns
    -------
    DataFrame
        ``system, task_id``, the task's descriptive columns present in ``scores``
        (``base_id, variant, domain, ecosystem, family, gold_rows, bin``),
        ``repeats``, ``failed`` (every repeat failed) and the three metrics
        (fractions in [0, 1]; NaN when excluded by the ``exclude`` policy).

    Examples
    --------
    >>> s = pd.DataFrame({"system": ["a", "a"], "task_id": ["t1", "t1"], "variant": ["goal"] * 2,
    ...                   "repeat": [0, 1], "status": ["parsed", "missing"],
    ...                   "item_f1": [0.5, np.nan], "row_f1": [0.5, np.nan], "poa": [1.0, np.nan]})
    >>> task_means(s)[["repeats", "failed", "item_f1"]].to_dict("records")
    [{'repeats': 2, 'failed': False, 'item_f1': 0.25}]
    """
    _check(scores, failure_policy)
    keys = ["system", "language", "task_id"] if "language" in scores.columns else ["system", "task_id"]
    descriptive = [c for c in _TASK_COLUMNS if c in scores.columns]
    marked = scores.assign(failed=scores["status"].isin(FAILED_STATUSES))
    grouped = marked.groupby(keys, sort=False)
    out = grouped[descriptive].first()
    out["repeats"] = grouped.size()
    out["failed"] = grouped["failed"].all()
    kept = apply_failure_policy(scores, failure_policy=failure_policy)
    out = out.join(kept.groupby(keys, sort=False)[list(METRICS)].mean())
    return out.reset_index()


def system_means(scores: pd.DataFrame, *, failure_policy: str = "zero") -> pd.DataFrame:
    """Per-system means by variant and overall, as a tidy table.

    Parameters
    ----------
    scores : DataFrame
        Output of :func:`sgr_kit.score.score_runs` (metrics as fractions).
    failure_policy : {"zero", "exclude"}
        See the module docstring.

    Returns
    -------
    DataFrame
        Columns ``system, variant, metric, value, n_tasks, n_failed``; ``variant``
        is ``constraint``, ``goal`` or ``overall``; ``value`` is in percent points
        (like the paper's tables) and NaN when no task is left; ``n_tasks`` counts
        the tasks in the mean, ``n_failed`` the tasks whose every repeat failed.

    Examples
    --------
    >>> s = pd.DataFrame({"system": ["a"] * 3, "task_id": ["t1", "t1-g", "t1"],
    ...                   "variant": ["constraint", "goal", "constraint"], "repeat": [0, 0, 1],
    ...                   "status": ["parsed"] * 3, "item_f1": [1.0, 0.5, 0.0],
    ...                   "row_f1": [1.0, 0.0, 0.0], "poa": [1.0, 1.0, 1.0]})
    >>> m = system_means(s)
    >>> m.query("metric == 'item_f1'")[["variant", "value"]].to_dict("records")
    [{'variant': 'constraint', 'value': 50.0}, {'variant': 'goal', 'value': 50.0}, {'variant': 'overall', 'value': 50.0}]
    """
    per_task = task_means(scores, failure_policy=failure_policy)
    rows = []
    for system, mine in per_task.groupby("system", sort=False):
        for variant in ("constraint", "goal", "overall"):
            part = mine if variant == "overall" else mine[mine["variant"] == variant]
            n_failed = int(part["failed"].sum())
            for metric in METRICS:
                values = part[metric].dropna()
                value = float(values.mean() * 100) if len(values) else np.nan
                rows.append((system, variant, metric, value, int(len(values)), n_failed))
    return pd.DataFrame(rows, columns=["system", "variant", "metric", "value", "n_tasks", "n_failed"])
