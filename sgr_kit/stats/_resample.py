"""The clustered bootstrap engine: resampled base problems as weight matrices (not public).

A resample draws ``n`` base problems with replacement out of ``n``. It is stored as a
weight matrix ``W`` of shape ``(n_boot, n)``: ``W[b, p]`` is how many times problem
``p`` was drawn in resample ``b``. Every statistic here is a ratio of sums over
problems (a mean over tasks or over problems), so all resampled statistics of all
systems, variants and metrics are one matrix product ``W @ sums / W @ counts`` with
the same resampled problems for every column.

Intervals (Efron and Tibshirani 1993, ch. 13-14; DiCiccio and Efron 1996):

``percentile``
    the ``(1 - ci) / 2`` and ``(1 + ci) / 2`` quantiles of the resampled statistic;
``bca``
    bias-corrected and accelerated: the quantile levels are shifted by the bias
    ``z0 = Phi^-1(share of resamples below the estimate, ties counted half)`` and the
    acceleration from the jackknife that leaves out one base problem at a time.

Both are widened by the small-sample expansion of Hesterberg (2015): the nominal
level ``ci`` is replaced by ``2 Phi(sqrt(n / (n - 1)) t_{n-1, (1 + ci) / 2}) - 1`` for
``n`` base problems, which corrects the bootstrap's variance (divisor ``n``) and
the normal tails for a Student t tail. Without it both methods undercover at 50
problems in the simulation of ``benchmarks/statistical_validity.py``.
"""

from __future__ import annotations

import numpy as np
from scipy import special, stats

from .signflip import min_problems

__all__ = ["problem_weights", "ratio_bootstrap", "expanded_level", "intervals"]

#: Whether intervals use the expanded level. Always True in use; the simulation sets it
#: to False only to measure the plain intervals for comparison.
EXPAND_LEVEL = True


def problem_weights(rng: np.random.Generator, n_problems: int, n_boot: int) -> np.ndarray:
    """Resampled problems as counts: ``(n_boot, n_problems)`` floats, each row summing to ``n_problems``."""
    if n_problems == 0:
        return np.zeros((n_boot, 0))
    draws = rng.integers(0, n_problems, size=(n_boot, n_problems))
    flat = draws + n_problems * np.arange(n_boot)[:, None]
    return np.bincount(flat.ravel(), minlength=n_boot * n_problems).reshape(n_boot, n_problems).astype(float)


def ratio_bootstrap(sums: np.ndarray, counts: np.ndarray, weights: np.ndarray):
    """Estimate, resampled values and leave-one-problem-out values of ``sum(sums) / sum(counts)``.

    Parameters
    ----------
    sums, counts : ndarray, shape (n_problems, k)
        Per problem and column: the sum of values and how many values (0 where absent).
    weights : ndarray, shape (n_boot, n_problems)
        From :func:`problem_weights`.

    Returns
    -------
    theta : ndarray (k,)
    boot : ndarray (n_boot, k)
        NaN where a resample holds no value of the column.
    jack : ndarray (n_problems, k)
        NaN for problems without a value of the column (they do not enter the jackknife).
    n : ndarray (k,)
        Problems with a value, per column.
    """
    total, n_total = sums.sum(axis=0), counts.sum(axis=0)
    present = counts > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        theta = np.where(n_total > 0, total / n_total, np.nan)
        num, den = weights @ sums, weights @ counts
        boot = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
        left = n_total[None, :] - counts
        jack = np.where(present & (left > 0), (total[None, :] - sums) / np.where(left > 0, left, 1.0), np.nan)
    return theta, boot, jack, present.sum(axis=0)


def expanded_level(level: float, n: np.ndarray) -> np.ndarray:
    """Hesterberg's (2015) expanded level ``2 Phi(sqrt(n/(n-1)) t_{n-1, (1+level)/2}) - 1``; NaN for n < 2.

    Examples
    --------
    >>> round(float(expanded_level(0.95, np.array([50]))[0]), 4)
    0.9576
    """
    n = np.asarray(n, dtype=float)
    out = np.full(n.shape, np.nan)
    ok = n >= 2
    t = stats.t.ppf((1 + level) / 2, n[ok] - 1)
    out[ok] = 2 * special.ndtr(np.sqrt(n[ok] / (n[ok] - 1)) * t) - 1
    return out


def _column_quantiles(ordered: np.ndarray, finite: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Per column k, the linear-interpolation quantile ``q[k]`` of its ``finite[k]`` first sorted values."""
    pos = q * (finite - 1)
    lo = np.clip(np.floor(pos).astype(int), 0, np.maximum(finite - 1, 0))
    hi = np.clip(lo + 1, 0, np.maximum(finite - 1, 0))
    cols = np.arange(ordered.shape[1])
    frac = pos - lo
    return ordered[lo, cols] * (1 - frac) + ordered[hi, cols] * frac


def intervals(
    theta: np.ndarray, boot: np.ndarray, jack: np.ndarray, n: np.ndarray, *, level: float, method: str,
    expand: bool | None = None,
):
    """Two-sided intervals for every column; returns ``low, high, notes`` (notes: one str per column).

    Columns with fewer than :func:`min_problems` problems (6 at 95%) get NaN bounds and a
    note; columns whose resamples all agree get the estimate as both bounds, with a note.
    """
    k = theta.shape[0]
    low, high = np.full(k, np.nan), np.full(k, np.nan)
    notes = [""] * k
    if k == 0:
        return low, high, notes
    expand = EXPAND_LEVEL if expand is None else expand
    level_n = expanded_level(level, n) if expand else np.where(n >= 2, level, np.nan)
    alpha = 1 - level_n
    q_lo, q_hi = alpha / 2, 1 - alpha / 2
    finite = np.isfinite(boot).sum(axis=0)
    ordered = np.sort(boot, axis=0)  # NaN sort last
    if method == "bca":
        with np.errstate(invalid="ignore", divide="ignore"):
            below = (boot < theta).sum(axis=0) + 0.5 * (boot == theta).sum(axis=0)
            z0 = special.ndtri(below / np.maximum(finite, 1))
            used = np.isfinite(jack)
            jm = np.nansum(jack, axis=0) / np.maximum(used.sum(axis=0), 1)
            dev = np.where(used, jm[None, :] - jack, 0.0)
            ss = (dev**2).sum(axis=0)
            accel = np.where(ss > 0, (dev**3).sum(axis=0) / (6 * ss**1.5), 0.0)
            shifted = []
            for q in (q_lo, q_hi):
                z = z0 + special.ndtri(q)
                shifted.append(special.ndtr(z0 + z / (1 - accel * z)))
        ok = np.isfinite(shifted[0]) & np.isfinite(shifted[1])
        q_lo, q_hi = np.where(ok, shifted[0], q_lo), np.where(ok, shifted[1], q_hi)
        for j in np.flatnonzero(~ok & (n >= 2)):
            notes[j] = "bias correction undefined (every resample on one side of the estimate): percentile bounds"
    with np.errstate(invalid="ignore"):
        lo_val = _column_quantiles(ordered, finite, np.nan_to_num(q_lo))
        hi_val = _column_quantiles(ordered, finite, np.nan_to_num(q_hi))
    fewest = min_problems(level)
    ok = (n >= fewest) & (finite >= 2) & np.isfinite(theta)
    low[ok], high[ok] = lo_val[ok], hi_val[ok]
    for j in range(k):
        if not np.isfinite(theta[j]):
            notes[j] = "no task with a value"
        elif n[j] < fewest:
            notes[j] = (f"{int(n[j])} base problem(s): no interval drawn (too few: {level:.0%} intervals from "
                        f"{fewest} problems on)")
        elif finite[j] < boot.shape[0]:
            notes[j] = notes[j] or f"{boot.shape[0] - finite[j]} resample(s) without a value left out"
        if ok[j] and ordered[0, j] == ordered[finite[j] - 1, j]:
            notes[j] = (f"every one of the {int(n[j])} base problems has the same value: the interval is a single "
                        f"point and says nothing about the spread")
    return low, high, notes
