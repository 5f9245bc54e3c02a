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

__all__ = ["signflip_pvalues", "signflip_exact", "EXACT_MAX"]

#: Largest number of nonzero differences tested by complete enumeration.
EXACT_MAX = 30
_REL_TOL = 1e-9


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
