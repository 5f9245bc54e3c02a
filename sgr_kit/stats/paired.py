"""Paired constraint-versus-goal tests over base problems, per system and pooled."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from scipy import stats

from ..schema import METRICS, check_choice, check_failure_policy
from ._resample import intervals, problem_weights, ratio_bootstrap
from ._tables import (
    ALL_SYSTEMS, check_count, check_level, check_method, check_scores, check_seed, is_synthetic, join_notes,
    pair_differences, per_task, problem_arrays, system_order,
)  # fmt: skip
from .multiple import benjamini_hochberg, holm
from .power import MAX_DIFF, detectable_difference
from .signflip import min_p, signflip_pvalues, smallest_p

__all__ = ["paired_tests", "wilcoxon_test", "PAIRED_COLUMNS"]

#: Columns of :func:`paired_tests`, in order.
PAIRED_COLUMNS: tuple[str, ...] = (
    "system", "metric", "n_pairs", "n_tasks", "mean_constraint", "mean_goal", "diff", "ci_low", "ci_high",
    "t", "p_t", "w", "p_wilcoxon", "wilcoxon_method", "p_signflip", "signflip_method", "p_min", "cohens_dz",
    "rank_biserial", "wins", "ties", "losses", "p_holm", "p_bh", "mde", "method", "ci", "note", "synthetic",
)  # fmt: skip
#: Wilcoxon's exact null distribution is used up to this many nonzero differences (without ties).
WILCOXON_EXACT_MAX = 50


def wilcoxon_test(d: np.ndarray) -> tuple[float, float, str, float]:
    """Wilcoxon signed-rank test of paired differences ``d`` as :func:`paired_tests` runs it.

    Zeros are dropped (``zero_method="wilcox"``). With at most 50 nonzero differences
    and no tied absolute values the exact null distribution is used; otherwise the
    normal approximation with the tie-corrected variance and a continuity correction
    of 1/2 (``correction=True``), as R's ``wilcox.test``.

    Returns ``(w, p, method, rank_biserial)``: ``w`` is scipy's statistic ``min(R+, R-)``,
    ``method`` ``"exact"`` or ``"normal"``, and ``rank_biserial = (R+ - R-) / (R+ + R-)``
    over the nonzero differences (Kerby 2014). All NaN when every difference is zero.

    Examples
    --------
    >>> w, p, method, r = wilcoxon_test(np.array([0.5, 0.25, 0.0, -0.125, 1.0]))
    >>> float(w), round(float(p), 4), method, float(r)
    (1.0, 0.25, 'exact', 0.8)
    """
    nonzero = d[d != 0]
    k = len(nonzero)
    if k == 0:
        return np.nan, np.nan, "", np.nan
    ranks = stats.rankdata(np.abs(nonzero))
    r_plus, r_minus = ranks[nonzero > 0].sum(), ranks[nonzero < 0].sum()
    tied = len(np.unique(np.abs(nonzero))) < k
    method = "exact" if k <= WILCOXON_EXACT_MAX and not tied else "normal"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=UserWarning)
        res = stats.wilcoxon(d, zero_method="wilcox", correction=method == "normal",
                             method="exact" if method == "exact" else "asymptotic")  # fmt: skip
    return float(res.statistic), float(res.pvalue), method, float((r_plus - r_minus) / (r_plus + r_minus))


def _tests(d: np.ndarray, *, alpha: float) -> dict:
    """t-test, Wilcoxon, effect sizes, counts and detectable difference for one vector of differences (fractions)."""
    n = len(d)
    out = {"wins": int((d > 0).sum()), "ties": int((d == 0).sum()), "losses": int((d < 0).sum())}
    sd = float(np.std(d, ddof=1)) if n >= 2 else np.nan
    notes = []
    if n >= 2 and sd > 0:
        res = stats.ttest_1samp(d, 0.0)
        out.update(t=float(res.statistic), p_t=float(res.pvalue), cohens_dz=float(np.mean(d) / sd))
    else:
        out.update(t=np.nan, p_t=np.nan, cohens_dz=np.nan)
        if out["ties"] < n:
            notes.append("every difference is the same: t-test and Cohen's dz undefined (no spread)")
    w, p_w, method, rb = wilcoxon_test(d)
    out.update(w=w, p_wilcoxon=p_w, wilcoxon_method=method, rank_biserial=rb)
    if out["ties"] == n:
        notes.append(f"every difference is zero (all {n}): the tests are undefined")
    elif smallest_p(n - out["ties"]) > alpha:
        notes.append(f"{n - out['ties']} nonzero difference(s): the smallest attainable p is "
                     f"{smallest_p(n - out['ties']):.3g}, so no test can reach p < {alpha:g}")
    out["mde"] = 100 * detectable_difference(sd, n, alpha=alpha) if n >= 2 else np.nan
    if out["mde"] > MAX_DIFF:
        notes.append(f"mde not reachable with {n} pairs (above {MAX_DIFF:g} points)")
        out["mde"] = np.nan
    out["_notes"] = notes
    return out


def _untested(metric: str, n_pairs: int, failure_policy: str) -> dict:
    """What a row with fewer than 2 pairs gets: no tests, the reason in ``note``."""
    found = "no base problem" if n_pairs == 0 else "1 base problem"
    return {"wins": 0, "ties": 0, "losses": 0, "wilcoxon_method": "", "signflip_method": "",
            "note": f"{found} with both variants scored on {metric} (failure_policy={failure_policy!r}): "
                    f"a paired test needs at least 2"}


def paired_tests(
    scores: pd.DataFrame,
    *,
    metric: str = "item_f1",
    failure_policy: str = "zero",
    alpha: float = 0.05,
    n_boot: int = 10_000,
    n_perm: int = 10_000,
    method: str = "percentile",
    seed: int | None = 0,
) -> pd.DataFrame:
    """Constraint minus goal per system and pooled, over the base problems that have both variants.

    The unit is the **base problem**: for each system, the difference between its
    (repeat-averaged) score on the constraint task and on the goal task of one base
    problem. A problem enters when both variants have a value under the failure
    policy; a task without its partner is left out (counted in ``note``). The pooled
    row (``system == "all systems"``) averages the differences over the systems first,
    per problem, and tests those ``n`` problem means: its unit is still the base
    problem, not system x problem (systems answer the same problems and are
    correlated on them).

    Tests (all two-sided, ``H0``: the variants are exchangeable within a pair):

    - ``t``, ``p_t``: the paired t-test (:func:`scipy.stats.ttest_1samp` of the differences);
    - ``w``, ``p_wilcoxon``: the Wilcoxon signed-rank test (:func:`wilcoxon_test`): zero
      differences dropped (``zero_method="wilcox"``); exact null distribution for at most
      50 nonzero differences without ties, otherwise the normal approximation with
      tie-corrected variance **and** a continuity correction (``wilcoxon_method`` says which);
    - ``p_signflip``: the sign-flip permutation test of the mean difference
      (:mod:`sgr_kit.stats.signflip`): exact for at most 30 nonzero differences, else
      ``n_perm`` seeded random patterns with ``(b + 1) / (n_perm + 1)``
      (``signflip_method`` says which). It assumes only exchangeability and is the test
      behind ``p_holm`` and ``p_bh``.

    Parameters
    ----------
    scores : DataFrame
        The scores table (needs ``base_id`` and ``variant``).
    metric : {"item_f1", "row_f1", "poa"}, default "item_f1"
    failure_policy : {"zero", "exclude"}, default "zero"
    alpha : float, default 0.05
        Level of the tests; the interval has level ``1 - alpha``.
    n_boot : int, default 10000
        Bootstrap resamples of the base problems for ``ci_low, ci_high`` (at least 100);
        the same resampled problems for every row.
    n_perm : int, default 10000
        Random sign patterns when the sign-flip test is not exact (at least 100).
    method : {"percentile", "bca"}, default "percentile"
        Bootstrap interval, as in :func:`~sgr_kit.stats.bootstrap_means` (both with the
        small-sample expansion). ``percentile`` is the default here: for differences,
        which are close to symmetric, it covers closest to the nominal level in
        ``benchmarks/statistical_validity.py``, while BCa's estimated corrections add noise.
    seed : int or None, default 0

    Returns
    -------
    DataFrame
        :data:`PAIRED_COLUMNS`, one row per system (input order), then ``all systems``:
        ``n_pairs`` (problems with both variants), ``n_tasks`` (tasks used), ``mean_constraint``,
        ``mean_goal``, ``diff`` (their difference over the pairs, percent points) with its
        bootstrap interval ``ci_low, ci_high``; the tests above; ``cohens_dz`` (mean over
        SD of the differences); ``rank_biserial`` (matched-pairs, Kerby 2014, over the
        nonzero differences, positive when constraint scores higher); ``wins, ties,
        losses`` (problems where constraint scores higher, equal, lower); ``p_holm`` and
        ``p_bh``: ``p_signflip`` adjusted by Holm (confirmatory claims) and
        Benjamini-Hochberg (exploratory) across the per-system rows (NaN on the pooled
        row); ``mde``: the smallest difference (points) the paired t-test detects with 80 %
        power at ``alpha`` for the observed SD and ``n_pairs``; ``method``, ``ci``; ``note``:
        why a value is NaN or what was left out; ``synthetic``. An undefined test (every
        difference zero) gives NaN, never p = 1; a system with fewer than 2 pairs gets a
        row of NaN with the reason in ``note``. ``p_min`` is the smallest p the sign-flip
        test can reach with the row's nonzero differences (``2 / 2^k``, also Wilcoxon's
        exact bound); the ``note`` says so when it exceeds ``alpha``. Intervals need
        :func:`~sgr_kit.stats.min_problems` pairs (6 at 95%).

    Raises
    ------
    SgrKitError
        No ``base_id``/``variant`` column, an unknown metric or method, ``n_boot`` or ``n_perm`` below 100, ``alpha``
        outside (0, 1).

    References
    ----------
    Wilcoxon, F. (1945). Individual comparisons by ranking methods. *Biometrics Bulletin* 1(6), 80-83.
    Kerby, D. S. (2014). The simple difference formula: an approach to teaching
    nonparametric correlation. *Comprehensive Psychology* 3, 11.IT.3.1.
    Lakens, D. (2013). Calculating and reporting effect sizes. *Frontiers in Psychology* 4, 863 (d_z).
    SGR-Bench paper, section 3.3 (the paired construction) and section 4.2 (Delta = 1.90).

    Examples
    --------
    >>> s = pd.DataFrame({"system": "a", "base_id": ["p1", "p1", "p2", "p2", "p3", "p3"],
    ...                   "task_id": ["p1", "p1-g", "p2", "p2-g", "p3", "p3-g"],
    ...                   "variant": ["constraint", "goal"] * 3, "status": "parsed",
    ...                   "item_f1": [1.0, 0.5, 0.5, 0.25, 1.0, 1.0], "row_f1": 0.0, "poa": 1.0})
    >>> r = paired_tests(s, n_boot=200, n_perm=200).iloc[0]
    >>> int(r["n_pairs"]), float(r["diff"]), int(r["wins"]), int(r["ties"])
    (3, 25.0, 2, 1)
    >>> float(r["p_signflip"]), r["signflip_method"]
    (0.5, 'exact')
    """
    check_scores(scores)
    metric = check_choice(metric, METRICS, name="metric")
    check_failure_policy(failure_policy)
    alpha = check_level(alpha, name="alpha")
    level = 1 - alpha
    n_boot = check_count(n_boot, name="n_boot", minimum=100)
    n_perm = check_count(n_perm, name="n_perm", minimum=100)
    method = check_method(method)
    rng = np.random.default_rng(check_seed(seed))
    tasks = per_task(scores, failure_policy=failure_policy)
    systems = system_order(tasks)
    arrays = problem_arrays(tasks, metric, systems=systems)
    values, d = arrays.values(), pair_differences(arrays)
    paired = np.isfinite(d)
    unpaired = ((arrays.counts > 0).sum(axis=-1) == 1).sum(axis=1)  # per system: tasks whose partner has no value
    any_pair = paired.any(axis=0)
    with np.errstate(invalid="ignore"):
        pooled = np.where(any_pair, np.where(paired, d, 0.0).sum(axis=0) / np.maximum(paired.sum(axis=0), 1), np.nan)
        both = np.where(paired[..., None], values, 0.0).sum(axis=0)
        pooled_values = both / np.maximum(paired.sum(axis=0), 1)[:, None]  # per problem, variant: mean over systems
    columns = np.column_stack([*d, pooled])  # (problems, systems + 1)
    present = np.isfinite(columns)
    weights = problem_weights(rng, len(arrays.problems), n_boot)
    theta, boot, jack, n = ratio_bootstrap(np.where(present, columns, 0.0), present.astype(float), weights)
    low, high, ci_notes = intervals(theta, boot, jack, n, level=level, method=method)
    p_flip, flip_method = signflip_pvalues(columns, rng, n_perm=n_perm)
    rows = []
    for r, system in enumerate([*systems, ALL_SYSTEMS]):
        ok = present[:, r]
        dd = columns[ok, r]
        if r < len(systems):
            c, g = values[r, ok, 0], values[r, ok, 1]
            n_tasks = int(arrays.counts[r][ok].sum())
            left_out = int(unpaired[r])
        else:
            c, g = pooled_values[ok, 0], pooled_values[ok, 1]
            n_tasks = int(np.where(paired[..., None], arrays.counts, 0).sum())
            left_out = int(unpaired.sum())
        row = {"system": system, "metric": metric, "n_pairs": int(ok.sum()), "n_tasks": n_tasks}
        if len(dd):
            row.update(mean_constraint=100 * c.mean(), mean_goal=100 * g.mean(), diff=100 * theta[r])
        if len(dd) < 2:
            rows.append({**row, **_untested(metric, len(dd), failure_policy)})
            continue
        result = _tests(dd, alpha=alpha)
        result["p_min"] = min_p(int((dd != 0).sum()), flip_method[r], n_perm)
        notes = [ci_notes[r], *result.pop("_notes")]
        if left_out:
            notes.append(f"{left_out} task(s) without a value for the other variant left out")
        rows.append({
            **row, "ci_low": 100 * low[r], "ci_high": 100 * high[r], "p_signflip": p_flip[r],
            "signflip_method": flip_method[r], **result, "note": join_notes(*notes),
        })  # fmt: skip
    out = pd.DataFrame(rows).reindex(columns=[c for c in PAIRED_COLUMNS if c not in ("method", "ci", "synthetic")])
    family = out["p_signflip"].to_numpy()[: len(systems)]  # the pooled row is not part of the family
    out["p_holm"] = np.append(holm(family), np.nan)
    out["p_bh"] = np.append(benjamini_hochberg(family), np.nan)
    out["method"], out["ci"], out["synthetic"] = method, level, is_synthetic(scores)
    return out[list(PAIRED_COLUMNS)]
