"""Means per system, variant and metric with bootstrap intervals clustered by base problem."""

from __future__ import annotations

from typing import Iterable

import numpy as np
import pandas as pd

from ..schema import METRICS, check_failure_policy, check_metrics
from ._resample import intervals, problem_weights, ratio_bootstrap
from ._tables import (
    ALL_SYSTEMS, MEAN_VARIANTS, check_by, check_count, check_level, check_method, check_scores, check_seed,
    is_synthetic, per_task, problem_arrays, system_order,
)  # fmt: skip

__all__ = ["bootstrap_means", "mean_columns"]


def mean_columns(by: str | Iterable[str] = ()) -> tuple[str, ...]:
    """The columns of :func:`bootstrap_means`, in order, for the grouping ``by``.

    Examples
    --------
    >>> mean_columns()
    ('system', 'variant', 'metric', 'value', 'ci_low', 'ci_high', 'n_tasks', 'n_problems', 'method', 'ci',
     'note', 'synthetic')
    >>> mean_columns("bin")[:5]
    ('system', 'variant', 'metric', 'bin', 'value')
    """
    by = (by,) if isinstance(by, str) else tuple(by)
    return ("system", "variant", "metric", *by, "value", "ci_low", "ci_high", "n_tasks", "n_problems",
            "method", "ci", "note", "synthetic")  # fmt: skip


def _columns(arrays, pooled: bool):
    """Per (system, variant) column: labels, per-problem sums and counts, and tasks used (pooled last)."""
    labels, sums, counts, n_tasks = [], [], [], []
    for j, variant in enumerate(MEAN_VARIANTS):
        part = slice(None) if variant == "overall" else slice(j, j + 1)
        s, c = arrays.sums[:, :, part].sum(axis=-1), arrays.counts[:, :, part].sum(axis=-1)
        for i, system in enumerate(arrays.systems):
            labels.append((system, variant))
            sums.append(s[i])
            counts.append(c[i])
            n_tasks.append(c[i].sum())
        if pooled:
            with np.errstate(invalid="ignore", divide="ignore"):
                per_system = np.where(c > 0, s / np.maximum(c, 1), np.nan)
            have = np.isfinite(per_system)
            labels.append((ALL_SYSTEMS, variant))
            sums.append(np.nansum(per_system, axis=0) / np.maximum(have.sum(axis=0), 1))
            counts.append(have.any(axis=0).astype(float))
            n_tasks.append(c.sum())
    return labels, np.column_stack(sums), np.column_stack(counts), np.asarray(n_tasks, dtype="int64")


def bootstrap_means(
    scores: pd.DataFrame,
    *,
    metrics: str | Iterable[str] = METRICS,
    failure_policy: str = "zero",
    ci: float = 0.95,
    n_boot: int = 10_000,
    method: str = "bca",
    seed: int | None = 0,
    by: str | Iterable[str] = (),
    pooled: bool = False,
) -> pd.DataFrame:
    """Mean score per system, variant and metric with a bootstrap interval over base problems.

    The mean is the paper's: the repeats of each (system, task) are averaged first
    (:func:`sgr_kit.aggregate.task_means`, which also applies the failure policy), then
    the tasks of the variant (``overall``: all tasks, as section 4.1's "average across
    all 100 tasks"). The interval resamples **base problems** with replacement: both
    variants of a problem together, and the same resampled problems for every system
    and metric, because the base problem is the unit of independence (section 3.3:
    the two variants share one information need and reference answer).

    Parameters
    ----------
    scores : DataFrame
        The scores table of ``sgr-kit score`` / :func:`sgr_kit.score.score_runs` (needs
        ``system, task_id, base_id, variant, status`` and the metrics).
    metrics : str or sequence of str, default all three
    failure_policy : {"zero", "exclude"}, default "zero"
        How failed answers enter the mean (:mod:`sgr_kit.aggregate`).
    ci : float, default 0.95
        Nominal level of the two-sided interval, strictly between 0 and 1.
    n_boot : int, default 10000
        Resamples (at least 100).
    method : {"bca", "percentile"}, default "bca"
        ``bca``: bias-corrected and accelerated, with the acceleration from the
        jackknife that leaves out one base problem at a time; ``percentile``: the
        plain quantiles. Both use Hesterberg's small-sample expansion of the level
        (``2 Phi(sqrt(n/(n-1)) t_{n-1,(1+ci)/2}) - 1`` for ``n`` problems, 0.9576 for
        ``ci=0.95`` and 50 problems), without which both undercover at 50 problems;
        ``bca`` is the default because it covers closest to the nominal level in
        ``benchmarks/statistical_validity.py``.
    seed : int or None, default 0
        Seed of :func:`numpy.random.default_rng`; the same seed gives the same table.
    by : str or sequence of str, default ()
        Descriptive columns of ``scores`` (e.g. ``"bin"`` or ``"family"``) to break the
        means down by. The resampling is then over the base problems of each group
        (stratified by group), so a group of few problems gets an honestly wide
        interval; a group of fewer problems than :func:`~sgr_kit.stats.min_problems`
        (6 at 95%) gets NaN bounds and a ``note``.
    pooled : bool, default False
        Also give rows with ``system == "all systems"``: per base problem the
        systems' values are averaged first (each system's value on a problem is the
        mean of its tasks there), then the problems; the same resampled problems.

    Returns
    -------
    DataFrame
        Columns, in this order: ``system, variant, metric``, the ``by`` columns (none
        without ``by``), ``value, ci_low, ci_high, n_tasks, n_problems, method, ci,
        note, synthetic`` (see :func:`mean_columns`). One row per system (in the
        order of the input, then ``all systems``), variant (``constraint``, ``goal``,
        ``overall``), metric and group. ``value`` and the bounds are percent points;
        ``n_tasks`` counts the tasks with a value in the mean (all systems' tasks in
        a pooled row), ``n_problems`` the base problems they belong to; ``note`` says
        why an interval is missing or degenerate (empty otherwise); ``synthetic`` is
        True when any input row is synthetic.

    Raises
    ------
    SgrKitError
        A scores table without ``base_id`` or ``variant``, an unknown metric or
        method, ``n_boot`` below 100, ``ci`` outside (0, 1), an unknown ``by`` column.

    References
    ----------
    Efron, B. and Tibshirani, R. (1993). *An Introduction to the Bootstrap*, ch. 14 (BCa).
    Hesterberg, T. (2015). What teachers should know about the bootstrap. *The American
    Statistician* 69(4), 371-386 (the expanded percentile interval).
    SGR-Bench paper, section 4.1 and Table 2 (the means).

    Examples
    --------
    >>> s = pd.DataFrame({"system": "a", "task_id": ["p1", "p1-g", "p2", "p2-g", "p3", "p3-g"],
    ...                   "base_id": ["p1", "p1", "p2", "p2", "p3", "p3"],
    ...                   "variant": ["constraint", "goal"] * 3, "status": "parsed",
    ...                   "item_f1": [1.0, 0.5, 0.5, 0.0, 1.0, 1.0], "row_f1": 0.0, "poa": 1.0})
    >>> m = bootstrap_means(s, metrics="item_f1", n_boot=200)
    >>> m[["variant", "value", "n_tasks", "n_problems"]].to_dict("records")[2]
    {'variant': 'overall', 'value': 66.66..., 'n_tasks': 6, 'n_problems': 3}
    >>> m["note"].iloc[2]  # three problems are too few for an interval
    '3 base problem(s): no interval drawn (too few: 95% intervals from 6 problems on)'

    """
    check_scores(scores)
    metrics = check_metrics(metrics)
    check_failure_policy(failure_policy)
    level = check_level(ci)
    n_boot = check_count(n_boot, name="n_boot", minimum=100)
    method = check_method(method)
    seed = check_seed(seed)
    by = check_by(scores, by)
    tasks = per_task(scores, failure_policy=failure_policy, by=by)
    systems = system_order(tasks)
    rng = np.random.default_rng(seed)
    groups = tasks.groupby(list(by), sort=True, dropna=False) if by else [((), tasks)]
    frames = []
    for rank, (key, part) in enumerate(groups):
        key = key if isinstance(key, tuple) else (key,)
        problems = sorted(pd.unique(part["base_id"].astype(str)))
        weights = problem_weights(rng, len(problems), n_boot)
        for metric in metrics:
            arrays = problem_arrays(part, metric, systems=systems, problems=problems)
            labels, sums, counts, n_tasks = _columns(arrays, pooled)
            theta, boot, jack, n = ratio_bootstrap(sums, counts, weights)
            low, high, notes = intervals(theta, boot, jack, n, level=level, method=method)
            frame = pd.DataFrame({
                "system": [lab[0] for lab in labels], "variant": [lab[1] for lab in labels], "metric": metric,
                **{name: [value] * len(labels) for name, value in zip(by, key)},
                "value": 100 * theta, "ci_low": 100 * low, "ci_high": 100 * high,
                "n_tasks": n_tasks, "n_problems": n.astype("int64"),
                "method": method, "ci": level, "note": notes, "_group": rank,
            })  # fmt: skip
            frames.append(frame)
    out = pd.concat(frames, ignore_index=True)
    order = {name: i for i, name in enumerate([*systems, ALL_SYSTEMS])}
    keys = (out["_group"], out["metric"].map(METRICS.index), out["variant"].map(MEAN_VARIANTS.index),
            out["system"].map(order))  # fmt: skip
    out = out.iloc[np.lexsort(tuple(k.to_numpy() for k in keys))].reset_index(drop=True)
    out["synthetic"] = is_synthetic(scores)
    return out[list(mean_columns(by))]
