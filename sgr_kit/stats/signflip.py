"""The sign-flip permutation test of a mean paired difference, exact or Monte Carlo.

Under the null hypothesis that the two members of each pair are exchangeable (for
example the constraint and goal variants of a base problem), every difference is as
likely to have its sign flipped. The p-value is the share of the ``2^k`` sign
patterns of the ``k`` nonzero differences whose sum is at least as far from zero as
the observed sum (two-sided). Zero differences change no sum and are left out.

- **exact** when ``k <= EXACT_MAX`` (30): the sums of both halves of the differences
  are enumerated (``2^(k/2)`` each) and the pairs of half sums beyond the observed
  sum are counted by binary search, so ``2^30`` patterns cost about ``2^15`` sums;
- **Monte Carlo** otherwise: ``n_perm`` random sign patterns from the seeded
  generator and ``p = (b + 1) / (n_perm + 1)``, where ``b`` patterns are at least as
  extreme (Phipson and Smyth 2010), so that p is never 0 and the test keeps its level.

References
----------
Fisher, R. A. (1935). *The Design of Experiments*, section 21.
Phipson, B. and Smyth, G. K. (2010). Permutation p-values should never be zero.
*Statistical Applications in Genetics and Molecular Biology* 9(1), article 39.
"""

from __future__ import annotations

import numpy as np

__all__ = ["signflip_pvalues", "signflip_exact", "smallest_p", "min_p", "min_problems", "EXACT_MAX"]

#: Largest number of nonzero differences tested by complete enumeration.
EXACT_MAX = 30
_REL_TOL = 1e-9


def smallest_p(k: int) -> float:
    """The smallest two-sided p-value an exact sign-flip or Wilcoxon test reaches with ``k`` nonzero differences.

    Only the observed sign pattern and its mirror image are as extreme when every
    difference has the same sign, so ``p >= 2 / 2^k`` (both tests: their null
    distributions are the ``2^k`` equally likely sign patterns). NaN for ``k < 1``.

    Examples
    --------
    >>> smallest_p(2), smallest_p(6)
    (0.5, 0.03125)
    """
    return float(2.0 ** (1 - k)) if k >= 1 else float("nan")


def min_p(k: int, method: str, n_perm: int) -> float:
    """The smallest p-value :func:`signflip_pvalues` can return for ``k`` nonzero differences.

    ``"exact"``: :func:`smallest_p` (``2 / 2^k``); ``"monte carlo"``: the larger of that and
    ``1 / (n_perm + 1)``; NaN when the test is undefined (``method == ""``).

    Examples
    --------
    >>> min_p(3, "exact", 10_000), min_p(40, "monte carlo", 999)
    (0.25, 0.001)
    """
    if method == "exact":
        return smallest_p(k)
    if method == "monte carlo":
        return max(smallest_p(k), 1.0 / (n_perm + 1))
    return float("nan")


def min_problems(level: float) -> int:
    """Fewest base problems for which sgr-kit draws a bootstrap interval of level ``level``: 6 for 95%.

    It is the smallest ``n`` at which an exact two-sided sign-flip test at ``1 - level``
    can reject at all (``2 / 2^n <= 1 - level``, :func:`smallest_p`). Below it an interval
    that excludes 0 would contradict every exact test of the same data, and the
    resampling distribution is too coarse to have quantiles (with ``n`` problems there
    are ``C(2n - 1, n)`` distinct resamples: 3 for 2 problems, 35 for 4); Hesterberg
    (2015, section 3) shows how bootstrap percentile intervals undercover at such ``n``.
    So no interval is drawn (NaN bounds and a note) rather than one labelled unreliable:
    a drawn interval is read as evidence whatever its label.

    Examples
    --------
    >>> min_problems(0.95), min_problems(0.9), min_problems(0.99)
    (6, 5, 8)
    """
    n = 2
    while smallest_p(n) > 1 - level + 1e-12:
        n += 1
    return n


def _half_sums(values: np.ndarray) -> np.ndarray:
    sums = np.zeros(1)
    for v in values:
        sums = np.concatenate([sums + v, sums - v])
    return sums


def signflip_exact(differences) -> float:
    """Exact two-sided sign-flip p-value of the sum of ``differences`` (zeros dropped); NaN when all are zero.

    Examples
    --------
    Five pairs, all differences positive: only the observed pattern and its mirror
    image are as extreme, so p = 2 / 2^5.

    >>> signflip_exact([0.1, 0.2, 0.3, 0.4, 0.5])
    0.0625
    """
    d = np.asarray(differences, dtype=float)
    d = d[d != 0]
    k = len(d)
    if k == 0:
        return np.nan
    a = np.abs(d)
    t = abs(d.sum())
    tol = _REL_TOL * a.sum()
    if t <= tol:
        return 1.0
    left, right = _half_sums(a[: k // 2]), np.sort(_half_sums(a[k // 2 :]))
    upper = len(right) - np.searchsorted(right, t - left - tol, side="left")
    lower = np.searchsorted(right, -t - left + tol, side="right")
    return float((upper.sum() + lower.sum()) / 2.0**k)


def signflip_pvalues(differences: np.ndarray, rng: np.random.Generator, *, n_perm: int):
    """Sign-flip p-values for every column of ``differences`` (shape ``(n, m)``; NaN for absent pairs).

    Returns ``(p, method)``: arrays of length ``m``; ``method`` is ``"exact"`` or
    ``"monte carlo"`` (``""`` where every difference is zero and p is NaN). The random
    sign patterns are drawn once and shared by the columns.
    """
    d = np.nan_to_num(np.asarray(differences, dtype=float), nan=0.0)
    m = d.shape[1]
    k = (d != 0).sum(axis=0)
    p = np.full(m, np.nan)
    method = np.array([""] * m, dtype=object)
    for j in np.flatnonzero((k > 0) & (k <= EXACT_MAX)):
        p[j], method[j] = signflip_exact(d[:, j]), "exact"
    mc = np.flatnonzero(k > EXACT_MAX)
    if len(mc):
        signs = rng.integers(0, 2, size=(n_perm, d.shape[0]), dtype=np.int8) * 2.0 - 1.0
        a = np.abs(d[:, mc])
        t = np.abs(d[:, mc].sum(axis=0))
        sums = np.abs(signs @ a)
        b = (sums >= t - _REL_TOL * a.sum(axis=0)).sum(axis=0)
        p[mc] = (b + 1) / (n_perm + 1)
        method[mc] = "monte carlo"
    return p, method
