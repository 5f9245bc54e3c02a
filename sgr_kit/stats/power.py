"""Power of a paired comparison over base problems: detectable differences, problems and repeats needed.

Both planned comparisons of :mod:`sgr_kit.stats` reduce to a one-sample test on one
difference per base problem: constraint minus goal of one system
(:func:`~sgr_kit.stats.paired_tests`), or system a minus system b
(:func:`~sgr_kit.stats.system_matrix`). Power is that of the two-sided paired t-test,
from the noncentral t distribution: with ``n`` problems and a standardized difference
``dz = diff / sd``, ``power = P(|T| > t_{n-1, 1 - alpha/2})`` for ``T ~ nct(n - 1, dz sqrt(n))``
(the same as ``statsmodels.stats.power.TTestPower``). It is a good guide for the
sign-flip and Wilcoxon tests too, whose power at these sizes is close to it (see the
simulation in ``benchmarks/statistical_validity.py``).

Repeats shrink only the run-to-run part of the spread. With ``r`` repeats per task the
per-problem difference has variance ``sd_between^2 + k sd_within^2 / r``, where
``sd_within`` is the spread across repeats of one task and ``k`` counts the task means
in the difference (2 for constraint minus goal, or for two systems on one variant; 1
for two systems on ``overall``, each the average of two tasks; ``2 / S`` for the
difference pooled over ``S`` systems).
"""

from __future__ import annotations

import functools
import math
import numbers
from typing import Iterable

import numpy as np
import pandas as pd
from scipy import optimize, special, stats

from ..errors import SgrKitError
from ..schema import METRICS, check_choice, check_failure_policy
from ._tables import (
    ALL_SYSTEMS, check_level, check_scores, is_synthetic, join_notes, pair_differences, per_task, problem_arrays,
    system_differences, system_order,
)  # fmt: skip
from .repeats import repeat_values, within_variance

__all__ = ["power", "t_power", "detectable_difference", "problems_needed", "POWER_COLUMNS", "COMPARISONS"]

#: Columns of :func:`power`, in order.
POWER_COLUMNS: tuple[str, ...] = (
    "comparison", "system", "metric", "diff", "sd", "sd_within", "n_problems", "n_repeats", "power_at_n",
    "n_problems_needed", "n_repeats_needed", "mde", "target_power", "alpha", "note", "synthetic",
)  # fmt: skip
#: Planned comparisons: constraint vs goal within a system, or two systems.
COMPARISONS: tuple[str, ...] = ("paired", "systems")
_MAX_REPEATS = 1000
#: The largest possible difference of two scores in percent points: a detectable difference
#: beyond it is "not reachable" (NaN with a note), never a number off the metric's scale.
MAX_DIFF = 100.0


def t_power(dz: float, n: float, *, alpha: float = 0.05) -> float:
    """Power of the two-sided one-sample (paired) t-test for standardized difference ``dz`` and ``n`` pairs.

    Examples
    --------
    >>> round(t_power(0.5, 34), 3)
    0.808
    """
    if not n >= 2 or not np.isfinite(dz):
        return np.nan
    return float(_t_powers(dz, n, alpha))


def _t_powers(dz, n, alpha: float) -> np.ndarray:
    """:func:`t_power` element by element over arrays (broadcast), for ``n >= 2`` and finite ``dz``.

    One call over many values costs about what one scalar call does (SciPy's per-call checks
    dominate), so searches over ``n`` or over repeats evaluate a whole window at once.
    """
    n = np.asarray(n, dtype=float)
    df = n - 1
    crit = special.stdtrit(df, 1 - alpha / 2)
    nc = np.abs(dz) * np.sqrt(n)
    # upper tail plus lower tail; the lower tail by symmetry, P(T < -c | nc) = P(T > c | -nc)
    # (stats.nct.sf: its far tails are 0, where special.nctdtr and stats.nct.cdf can return NaN)
    return stats.nct.sf(crit, df, nc) + stats.nct.sf(crit, df, -nc)


def detectable_difference(sd: float, n: float, *, alpha: float = 0.05, power: float = 0.8) -> float:
    """Smallest difference (in the unit of ``sd``) the paired t-test detects with ``power`` over ``n`` pairs.

    NaN when ``n < 2`` or ``sd`` is not positive.

    Examples
    --------
    >>> round(detectable_difference(20.0, 50), 2)
    8.08
    """
    if not n >= 2 or not sd > 0 or not np.isfinite(sd):
        return np.nan
    return float(_detectable_dz(float(n), float(alpha), float(power)) * sd)


@functools.lru_cache(maxsize=4096)
def _detectable_dz(n: float, alpha: float, power: float) -> float:
    """The standardized difference detected with ``power``: it depends on n, alpha and power only."""
    return optimize.brentq(lambda x: t_power(x, n, alpha=alpha) - power, 1e-9, 1e3, xtol=1e-12)


def problems_needed(diff: float, sd: float, *, alpha: float = 0.05, power: float = 0.8) -> float:
    """Smallest number of base problems (at least 2) for the paired t-test to detect ``diff`` with ``power``.

    NaN when ``diff`` is 0 or ``sd`` is not a positive finite number.

    Examples
    --------
    >>> problems_needed(5.0, 20.0)
    128.0
    """
    if not diff != 0 or not sd > 0 or not np.isfinite(sd) or not np.isfinite(diff):
        return np.nan
    dz = abs(diff) / sd
    # Start from the normal approximation and step to the smallest n whose t-test power suffices.
    guess = ((stats.norm.isf(alpha / 2) + stats.norm.ppf(power)) / dz) ** 2
    if not guess < 1e12:
        return np.nan
    # Power rises with n: the answer is the first n of a window around the normal approximation
    # (the t-test needs a few more problems than the z-test, never fewer), evaluated at once.
    lo = max(2, math.ceil(guess) - 8)
    window = np.arange(lo, lo + 64, dtype=float)
    ok = _t_powers(dz, window, alpha) >= power
    if ok.any() and not (ok[0] and lo > 2):
        return float(window[np.argmax(ok)])
    if ok[0]:  # the answer lies below the window (n = 1 counts as too few)
        bad, good = 1, lo
    else:  # above it: double until the power suffices
        bad, good = lo + 63, 2 * (lo + 63)
        while t_power(dz, good, alpha=alpha) < power:
            bad, good = good, 2 * good
            if good > 1e13:
                return np.nan
    while good - bad > 1:  # bisect to the first n that suffices
        mid = (bad + good) // 2
        bad, good = (bad, mid) if t_power(dz, mid, alpha=alpha) >= power else (mid, good)
    return float(good)


def _repeats_needed(diff, between_var, within_var, k, n, *, alpha, power) -> tuple[float, str]:
    """Smallest number of repeats per task (at most 1000) that reaches ``power`` with ``n`` problems."""
    if not np.isfinite(within_var):
        return np.nan, "no repeated tasks: the spread across repeats is unknown (give sd_within)"
    if not n >= 2 or not np.isfinite(between_var):
        return np.nan, ""
    if between_var > 0 and t_power(abs(diff) / math.sqrt(between_var), n, alpha=alpha) < power:
        return np.nan, f"repeats alone cannot reach the power with {int(n)} problems; more problems are needed"
    sds = np.sqrt(between_var + k * within_var / np.arange(1, _MAX_REPEATS + 1))
    if t_power(abs(diff) / sds[-1], n, alpha=alpha) < power:
        return np.nan, f"more than {_MAX_REPEATS} repeats needed"
    # Power grows with the repeats: find the first block of 32 that reaches it, then the first repeat in it.
    starts = np.arange(0, _MAX_REPEATS, 32)
    block = starts[np.argmax(_t_powers(abs(diff) / sds[np.minimum(starts + 31, _MAX_REPEATS - 1)], n, alpha) >= power)]
    inside = np.arange(block, min(block + 32, _MAX_REPEATS))
    return float(inside[np.argmax(_t_powers(abs(diff) / sds[inside], n, alpha) >= power)] + 1), ""


def _row(comparison, system, metric, diff, sd, within_var, n, r0, k, *, alpha, target):
    """One result row; ``sd`` is the observed (or assumed) spread at ``r0`` repeats, in points."""
    note = ""
    between_var = np.nan
    if np.isfinite(within_var):
        between_var = sd**2 - k * within_var / r0
        if between_var < 0:  # noisy estimates: let the repeats explain the whole observed spread
            between_var, within_var = 0.0, sd**2 * r0 / k
            note = "spread across repeats exceeds the observed spread: all of it taken as run-to-run noise"
    now = t_power(abs(diff) / sd, n, alpha=alpha) if sd > 0 else np.nan
    needed = problems_needed(diff, sd, alpha=alpha, power=target)
    repeats, why = _repeats_needed(diff, between_var, within_var, k, n, alpha=alpha, power=target)
    if not n >= 2:
        note = join_notes(note, f"{int(n) if np.isfinite(n) else 0} base problem(s): the spread is unknown, "
                                f"power undefined")
    elif not sd > 0:
        note = join_notes(note, "no spread in the differences: power undefined")
    mde = detectable_difference(sd, n, alpha=alpha, power=target)
    if mde > MAX_DIFF:
        note = join_notes(note, f"mde not reachable: with {int(n)} base problems no difference up to {MAX_DIFF:g} "
                                f"points (the whole scale) reaches {target:.0%} power")
        mde = np.nan
    return (comparison, system, metric, float(diff), float(sd), float(np.sqrt(within_var)), n, float(r0), now,
            needed, repeats, mde, target, alpha, join_notes(note, why))  # fmt: skip


def _harmonic(values: np.ndarray) -> float:
    values = values[np.isfinite(values) & (values > 0)]
    return float(len(values) / np.sum(1.0 / values)) if len(values) else 1.0


def _observed(scores, comparison, metric, variant, failure_policy):
    """Per system (paired) or pair of systems: (label, sd in points, n, repeats, within variance in points^2, k)."""
    tasks = per_task(scores, failure_policy=failure_policy)
    systems = system_order(tasks)
    arrays = problem_arrays(tasks, metric, systems=systems)
    reps = problem_arrays(tasks.assign(**{metric: tasks["repeats"].astype(float)}), metric, systems=systems)
    values = repeat_values(scores, metric, failure_policy=failure_policy)
    within = {s: within_variance(values[values["system"].astype(str) == s])[0] * 1e4 for s in systems}
    out = []
    if comparison == "paired":
        d = pair_differences(arrays)
        r = reps.values()
        for i, system in enumerate(systems):
            ok = np.isfinite(d[i])
            out.append((system, d[i, ok], _harmonic(r[i][ok].ravel()), within[system], 2.0))
        have = np.isfinite(d)
        pooled = np.nansum(d, axis=0)[have.any(axis=0)] / have.sum(axis=0)[have.any(axis=0)]
        wv = [w for w in within.values() if np.isfinite(w)]
        out.append((ALL_SYSTEMS, pooled, _harmonic(r[have].ravel()), np.mean(wv) if wv else np.nan,
                    2.0 / len(systems)))  # fmt: skip
    else:
        pairs, d, _ = system_differences(arrays, variant)
        k = 1.0 if variant == "overall" else 2.0
        r = reps.values()
        for (i, j), dij in zip(pairs, d):
            ok = np.isfinite(dij)
            wv = [within[systems[i]], within[systems[j]]]
            wv = float(np.mean(wv)) if all(np.isfinite(wv)) else np.nan
            out.append((f"{systems[i]} vs {systems[j]}", dij[ok], _harmonic(r[[i, j]][:, ok].ravel()), wv, k))
    return [(label, 100 * np.std(dd, ddof=1) if len(dd) >= 2 else np.nan, len(dd), r0, w, k)
            for label, dd, r0, w, k in out]  # fmt: skip


def power(
    scores: pd.DataFrame | None = None,
    *,
    comparison: str = "paired",
    metric: str = "item_f1",
    variant: str = "overall",
    diffs: float | Iterable[float] = (2.0, 5.0, 10.0),
    target_power: float = 0.8,
    alpha: float = 0.05,
    sd: float | None = None,
    sd_within: float | None = None,
    n_problems: int | None = None,
    n_repeats: float | None = None,
    failure_policy: str = "zero",
) -> pd.DataFrame:
    """Problems or repeats needed to detect a difference, and the difference a design can detect.

    With ``scores``, the spread of the per-problem differences is the observed one:
    per system for ``comparison="paired"`` (constraint minus goal; then the difference
    pooled over systems, ``all systems``), per pair of systems for ``"systems"`` (on
    ``variant``; then a ``median pair`` row with the median spread and number of
    problems). Without ``scores``, ``sd`` (and optionally ``sd_within``, ``n_problems``,
    ``n_repeats``) describe an assumed design (``system == "assumed"``).

    Parameters
    ----------
    scores : DataFrame, optional
        The scores table; its repeated tasks give ``sd_within``.
    comparison : {"paired", "systems"}, default "paired"
    metric : {"item_f1", "row_f1", "poa"}, default "item_f1"
    variant : {"overall", "constraint", "goal"}, default "overall"
        Variant of a ``systems`` comparison.
    diffs : float or sequence of float, default (2, 5, 10)
        Differences to detect, in percent points.
    target_power : float, default 0.8
    alpha : float, default 0.05
        Two-sided level of the test.
    sd, sd_within : float, optional
        Assumed standard deviation of the per-problem difference and across repeats
        of one task (percent points); ``sd`` is required without ``scores``.
    n_problems : int, optional
        Base problems of the design (default: the observed pairs).
    n_repeats : float, optional
        Repeats per task at which ``sd`` holds (default: the harmonic mean of the
        observed repeats; 1 for an assumed design).
    failure_policy : {"zero", "exclude"}, default "zero"

    Returns
    -------
    DataFrame
        :data:`POWER_COLUMNS`, one row per compared unit and difference: ``diff``;
        ``sd`` and ``sd_within`` (points); ``n_problems``, ``n_repeats`` of the current
        design; ``power_at_n``: its power for ``diff``; ``n_problems_needed``: problems
        needed at the current repeats; ``n_repeats_needed``: repeats per task needed
        with the current problems (NaN with a ``note`` when unknown or not reachable);
        ``mde``: the minimum detectable difference of the current design at
        ``target_power`` (NaN with a note "not reachable" when it would exceed the
        metric's whole 0-100 scale, e.g. with 2 problems).

    References
    ----------
    Cohen, J. (1988). *Statistical Power Analysis for the Behavioral Sciences*, 2nd ed., ch. 2.

    Examples
    --------
    >>> p = power(sd=20.0, n_problems=50, diffs=(5.0, 10.0))
    >>> p[["diff", "n_problems_needed", "mde"]].round(2).to_dict("records")
    [{'diff': 5.0, 'n_problems_needed': 128.0, 'mde': 8.08}, {'diff': 10.0, 'n_problems_needed': 34.0, 'mde': 8.08}]
    """
    comparison = check_choice(comparison, COMPARISONS, name="comparison")
    metric = check_choice(metric, METRICS, name="metric")
    variant = check_choice(variant, ("overall", "constraint", "goal"), name="variant")
    check_failure_policy(failure_policy)
    target = check_level(target_power, name="target_power")
    alpha = check_level(alpha, name="alpha")
    diffs = (diffs,) if isinstance(diffs, numbers.Real) else tuple(diffs)
    if not diffs or not all(isinstance(x, numbers.Real) and np.isfinite(x) and x != 0 for x in diffs):
        raise SgrKitError(f"diffs: expected non-zero finite differences in percent points; found {diffs!r}")
    for name, value in (("sd", sd), ("sd_within", sd_within), ("n_repeats", n_repeats)):
        if value is not None and (not isinstance(value, numbers.Real) or not value > 0):
            raise SgrKitError(f"{name} must be a positive number; found {value!r}")
    if n_problems is not None and (not isinstance(n_problems, numbers.Integral) or n_problems < 2):
        raise SgrKitError(f"n_problems must be an integer of at least 2; found {n_problems!r}")
    label = "constraint vs goal" if comparison == "paired" else f"system vs system ({variant})"
    if scores is None:
        if sd is None:
            raise SgrKitError("power: give a scores table or an assumed spread sd (percent points)")
        k = 2.0 if comparison == "paired" or variant != "overall" else 1.0
        within = float(sd_within) ** 2 if sd_within is not None else np.nan
        units = [("assumed", float(sd), n_problems if n_problems is not None else np.nan,
                  float(n_repeats or 1.0), within, k)]  # fmt: skip
        synthetic = False
    else:
        check_scores(scores)
        units = _observed(scores, comparison, metric, variant, failure_policy)
        if comparison == "systems" and units:
            sds, ns, r0s, ws = (np.array([u[i] for u in units], dtype=float) for i in (1, 2, 3, 4))
            within = float(np.nanmedian(ws)) if np.isfinite(ws).any() else np.nan
            units.append(("median pair", float(np.nanmedian(sds)), int(np.median(ns)), float(np.median(r0s)),
                          within, units[0][5]))  # fmt: skip
        units = [(lab, sd if sd is not None else s, n_problems if n_problems is not None else n,
                  float(n_repeats) if n_repeats is not None else r0,
                  float(sd_within) ** 2 if sd_within is not None else w, k)
                 for lab, s, n, r0, w, k in units]  # fmt: skip
        synthetic = is_synthetic(scores)
    rows = [_row(label, lab, metric, diff, s, w, n, r0, k, alpha=alpha, target=target)
            for lab, s, n, r0, w, k in units for diff in diffs]  # fmt: skip
    out = pd.DataFrame(rows, columns=list(POWER_COLUMNS[:-1]))
    out["n_problems"] = out["n_problems"].astype(float)
    out["synthetic"] = synthetic
    return out
