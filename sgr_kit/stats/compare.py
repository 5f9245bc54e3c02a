"""System-versus-system differences over the base problems both systems answered."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import InsufficientDataError
from ..schema import METRICS, check_choice, check_failure_policy
from ._resample import intervals, problem_weights, ratio_bootstrap
from ._tables import (
    MEAN_VARIANTS, check_count, check_level, check_method, check_scores, check_seed, is_synthetic, join_notes,
    per_task, problem_arrays, system_differences, system_order,
)  # fmt: skip
from .multiple import holm
from .signflip import min_p, signflip_pvalues

__all__ = ["system_matrix", "MATRIX_COLUMNS"]

#: Columns of :func:`system_matrix`, in order.
MATRIX_COLUMNS: tuple[str, ...] = (
    "system_a", "system_b", "metric", "variant", "n_tasks", "n_problems", "diff", "ci_low", "ci_high", "p",
    "signflip_method", "p_min", "p_holm", "method", "ci", "note", "synthetic",
)  # fmt: skip


def system_matrix(
    scores: pd.DataFrame,
    *,
    metric: str = "item_f1",
    variant: str = "overall",
    failure_policy: str = "zero",
    ci: float = 0.95,
    n_boot: int = 10_000,
    n_perm: int = 10_000,
    method: str = "percentile",
    seed: int | None = 0,
) -> pd.DataFrame:
    """Every ordered pair of systems: the difference a minus b, its interval and test, over shared problems.

    The unit is the **base problem**: per problem, each system's value is the mean of
    its tasks of ``variant`` (``overall``: the mean of the problem's two variants)
    among the tasks both systems have a value for, and ``diff`` is the mean over
    problems of a minus b. The interval resamples the base problems (the same
    resampled problems for every pair); ``p`` is the two-sided **sign-flip
    permutation test** of the mean difference (exact for at most 30 nonzero
    differences, else ``n_perm`` seeded patterns with ``(b + 1) / (n_perm + 1)``; see
    :mod:`sgr_kit.stats.signflip`), which assumes only that the two systems'
    values on a problem are exchangeable under the null; its type-I error and power
    are checked in ``benchmarks/statistical_validity.py``.

    Parameters
    ----------
    scores : DataFrame
        The scores table (needs ``base_id`` and ``variant``; at least two systems).
    metric : {"item_f1", "row_f1", "poa"}, default "item_f1"
    variant : {"overall", "constraint", "goal"}, default "overall"
    failure_policy : {"zero", "exclude"}, default "zero"
    ci : float, default 0.95
    n_boot, n_perm : int, default 10000
        Bootstrap resamples and random sign patterns (each at least 100).
    method : {"percentile", "bca"}, default "percentile"
        Bootstrap interval, as in :func:`~sgr_kit.stats.bootstrap_means` (both with the
        small-sample expansion); ``percentile`` is the default for differences, as in
        :func:`~sgr_kit.stats.paired_tests`.
    seed : int or None, default 0

    Returns
    -------
    DataFrame
        :data:`MATRIX_COLUMNS`, one row per ordered pair (``system_a`` in input order,
        then ``system_b``): ``n_tasks`` and ``n_problems`` shared by the two systems,
        ``diff`` (a minus b, percent points), ``ci_low, ci_high``, ``p``,
        ``signflip_method``, ``p_min`` (the smallest p the test can reach with the pair's
        nonzero differences, :func:`~sgr_kit.stats.signflip.min_p`), ``p_holm`` (Holm across the distinct comparisons, each
        unordered pair counted once: both orders carry the same p and ``p_holm``),
        ``method``, ``ci``, ``note``, ``synthetic``. Fewer than 2 shared problems,
        or all differences zero, give NaN with a ``note``.

    Raises
    ------
    SgrKitError
        No ``base_id``/``variant`` column, an unknown metric,
        variant or method, ``n_boot``/``n_perm`` below 100, ``ci`` outside (0, 1).
    InsufficientDataError
        Fewer than two systems (a :class:`SgrKitError`).

    References
    ----------
    Fisher, R. A. (1935). *The Design of Experiments*, section 21 (the sign-flip test).
    Holm, S. (1979). *Scandinavian Journal of Statistics* 6(2), 65-70.

    Examples
    --------
    >>> s = pd.DataFrame({"system": ["a"] * 4 + ["b"] * 4, "base_id": ["p1", "p1", "p2", "p2"] * 2,
    ...                   "task_id": ["p1", "p1-g", "p2", "p2-g"] * 2, "variant": ["constraint", "goal"] * 4,
    ...                   "status": "parsed", "item_f1": [1.0, 0.5, 0.5, 0.5, 0.5, 0.5, 0.0, 0.0],
    ...                   "row_f1": 0.0, "poa": 1.0})
    >>> m = system_matrix(s, n_boot=100, n_perm=100)
    >>> m[["system_a", "system_b", "n_tasks", "diff", "p"]].to_dict("records")
    [{'system_a': 'a', 'system_b': 'b', 'n_tasks': 4, 'diff': 37.5, 'p': 0.5},
     {'system_a': 'b', 'system_b': 'a', 'n_tasks': 4, 'diff': -37.5, 'p': 0.5}]
    """
    check_scores(scores)
    metric = check_choice(metric, METRICS, name="metric")
    variant = check_choice(variant, MEAN_VARIANTS, name="variant")
    check_failure_policy(failure_policy)
    level = check_level(ci)
    n_boot = check_count(n_boot, name="n_boot", minimum=100)
    n_perm = check_count(n_perm, name="n_perm", minimum=100)
    method = check_method(method)
    rng = np.random.default_rng(check_seed(seed))
    tasks = per_task(scores, failure_policy=failure_policy)
    systems = system_order(tasks)
    if len(systems) < 2:
        raise InsufficientDataError(f"system_matrix compares systems; the scores table holds {len(systems)}: "
                                    f"{', '.join(systems)} (at least 2 are needed)")
    arrays = problem_arrays(tasks, metric, systems=systems)
    pairs, d, n_tasks = system_differences(arrays, variant)
    columns = d.T  # (problems, pairs)
    present = np.isfinite(columns)
    weights = problem_weights(rng, len(arrays.problems), n_boot)
    theta, boot, jack, n = ratio_bootstrap(np.where(present, columns, 0.0), present.astype(float), weights)
    low, high, notes = intervals(theta, boot, jack, n, level=level, method=method)
    p, flip_method = signflip_pvalues(columns, rng, n_perm=n_perm)
    nonzero = (np.nan_to_num(columns) != 0).sum(axis=0)
    p_min = np.array([min_p(int(nonzero[k]), flip_method[k], n_perm) for k in range(len(pairs))])
    for k in range(len(pairs)):
        if n[k] < 2:
            p[k], flip_method[k], p_min[k] = np.nan, "", np.nan
            notes[k] = join_notes(notes[k], "fewer than 2 shared base problems: no test")
        elif np.isnan(p[k]):
            notes[k] = join_notes(notes[k], f"every difference is zero (all {int(n[k])}): the test is undefined")
        elif p_min[k] > 1 - level:
            notes[k] = join_notes(notes[k], f"{int(nonzero[k])} nonzero difference(s): the smallest attainable p "
                                            f"is {p_min[k]:.3g}, so the test cannot reach p < {1 - level:.2g}")
    p_holm = holm(p)
    index = {pair: k for k, pair in enumerate(pairs)}
    rows = []
    for a in range(len(systems)):
        for b in range(len(systems)):
            if a == b:
                continue
            k, sign = (index[(a, b)], 1.0) if a < b else (index[(b, a)], -1.0)
            lo, hi = (low[k], high[k]) if sign > 0 else (-high[k], -low[k])
            rows.append((systems[a], systems[b], metric, variant, int(n_tasks[k]), int(n[k]), 100 * sign * theta[k],
                         100 * lo, 100 * hi, p[k], flip_method[k], p_min[k], p_holm[k], method, level, notes[k]))  # fmt: skip
    out = pd.DataFrame(rows, columns=list(MATRIX_COLUMNS[:-1]))
    out["diff"] = out["diff"] + 0.0  # no negative zero
    out["synthetic"] = is_synthetic(scores)
    return out
