"""Repeated answers to one task: average and best of n, spread across repeats, variance components."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..aggregate import apply_failure_policy
from ..schema import METRICS, check_choice, check_failure_policy
from ._tables import MEAN_VARIANTS, check_scores, is_synthetic, join_notes, system_order

__all__ = ["repeat_stats", "REPEAT_COLUMNS"]

#: Columns of :func:`repeat_stats`, in order.
REPEAT_COLUMNS: tuple[str, ...] = (
    "system", "variant", "metric", "n_tasks", "repeats_min", "repeats_max", "avg_at_n", "best_at_n",
    "worst_at_n", "sd_within", "sd_between", "share_within", "note", "synthetic",
)  # fmt: skip


def repeat_values(scores: pd.DataFrame, metric: str, *, failure_policy: str) -> pd.DataFrame:
    """The values of ``metric`` of the tasks answered at least twice: ``system, task_id, base_id, variant, value``.

    The failure policy is applied first (``zero``: failed repeats count 0; ``exclude``: they are
    dropped, and a task needs two repeats with a value).
    """
    kept = apply_failure_policy(scores, failure_policy=failure_policy)
    kept = kept.loc[kept[metric].notna(), ["system", "task_id", "base_id", "variant", metric]]
    size = kept.groupby(["system", "task_id"], sort=False)[metric].transform("size")
    return kept.loc[size >= 2].rename(columns={metric: "value"})


def within_variance(values: pd.DataFrame) -> tuple[float, int]:
    """Pooled variance across repeats (divisor: repeats minus one, summed over tasks) and its degrees of freedom."""
    if values.empty:
        return np.nan, 0
    grouped = values.groupby(["system", "task_id"], sort=False)["value"]
    df = int((grouped.size() - 1).sum())
    ss = float(((values["value"] - grouped.transform("mean")) ** 2).sum())
    return (ss / df if df > 0 else np.nan), df


def _components(values: pd.DataFrame) -> tuple[float, float, str]:
    """One-way random-effects variance components (tasks x repeats, unbalanced): within and between."""
    grouped = values.groupby("task_id", sort=False)["value"]
    sizes, means = grouped.size().to_numpy(float), grouped.mean().to_numpy(float)
    k, n_total = len(sizes), sizes.sum()
    within, _ = within_variance(values.assign(system=""))
    if k < 2:
        return within, np.nan, "one repeated task: no between-task variance"
    grand = values["value"].mean()
    ms_between = float((sizes * (means - grand) ** 2).sum() / (k - 1))
    n0 = (n_total - (sizes**2).sum() / n_total) / (k - 1)
    between = max((ms_between - within) / n0, 0.0)
    return within, between, ""


def repeat_stats(scores: pd.DataFrame, *, metric: str = "item_f1", failure_policy: str = "zero") -> pd.DataFrame:
    """Per system and variant: what repeated answers to the same task say about run-to-run noise.

    Only the tasks a system answered at least twice enter (after the failure policy).

    Parameters
    ----------
    scores : DataFrame
        The scores table (``repeat`` distinguishes the answers to one task).
    metric : {"item_f1", "row_f1", "poa"}, default "item_f1"
    failure_policy : {"zero", "exclude"}, default "zero"

    Returns
    -------
    DataFrame
        :data:`REPEAT_COLUMNS`: one row per system (input order) and variant
        (``constraint``, ``goal``, ``overall``) with at least one repeated task; an empty
        table with these columns when no task was answered twice.

        - ``n_tasks``: repeated tasks; ``repeats_min``, ``repeats_max``: their repeats;
        - ``avg_at_n``: mean over those tasks of the mean of their ``n`` repeats;
          ``best_at_n`` / ``worst_at_n``: of the best / worst repeat (percent points);
        - ``sd_within``: the pooled standard deviation across repeats of one task;
        - ``sd_between``: the standard deviation of the tasks' own means (one-way
          random-effects ANOVA estimate, clipped at 0); for ``overall`` it includes the
          difference between the variants;
        - ``share_within``: ``sd_within^2 / (sd_within^2 + sd_between^2)``, the share of
          the score variance that lies between repeats rather than between problems
          (NaN with a ``note`` when undefined).

    References
    ----------
    Searle, S. R., Casella, G. and McCulloch, C. E. (1992). *Variance Components*, ch. 3
    (the unbalanced one-way ANOVA estimator).

    Examples
    --------
    >>> s = pd.DataFrame({"system": "a", "task_id": ["t1", "t1", "t2", "t2"], "base_id": ["t1", "t1", "t2", "t2"],
    ...                   "variant": "constraint", "repeat": [0, 1, 0, 1], "status": "parsed",
    ...                   "item_f1": [0.0, 1.0, 0.5, 0.5], "row_f1": 0.0, "poa": 0.0})
    >>> r = repeat_stats(s)
    >>> r[["variant", "n_tasks", "avg_at_n", "best_at_n", "worst_at_n"]].to_dict("records")[0]
    {'variant': 'constraint', 'n_tasks': 2, 'avg_at_n': 50.0, 'best_at_n': 75.0, 'worst_at_n': 25.0}
    """
    check_scores(scores)
    check_choice(metric, METRICS, name="metric")
    check_failure_policy(failure_policy)
    values = repeat_values(scores, metric, failure_policy=failure_policy)
    rows = []
    for system in system_order(scores):
        mine = values[values["system"].astype(str) == system]
        for variant in MEAN_VARIANTS:
            part = mine if variant == "overall" else mine[mine["variant"] == variant]
            if part.empty:
                continue
            per_task = part.groupby("task_id", sort=False)["value"].agg(["size", "mean", "max", "min"])
            within, between, note = _components(part)
            total = within + between
            share = within / total if np.isfinite(total) and total > 0 else np.nan
            if np.isfinite(total) and total == 0:
                note = join_notes(note, "no variation at all: share undefined")
            sizes, means = per_task["size"], 100 * per_task[["mean", "max", "min"]].mean()
            rows.append((system, variant, metric, len(per_task), int(sizes.min()), int(sizes.max()), means["mean"],
                         means["max"], means["min"], 100 * np.sqrt(within), 100 * np.sqrt(between), share, note))
    out = pd.DataFrame(rows, columns=list(REPEAT_COLUMNS[:-1]))
    out = out.astype({"n_tasks": "int64", "repeats_min": "int64", "repeats_max": "int64"})
    for column in ("avg_at_n", "best_at_n", "worst_at_n", "sd_within", "sd_between", "share_within"):
        out[column] = out[column].astype(float)
    out["synthetic"] = is_synthetic(scores)
    return out[list(REPEAT_COLUMNS)]
