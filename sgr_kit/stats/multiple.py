"""Adjusted p-values for a family of tests: Holm (confirmatory) and Benjamini-Hochberg (exploratory)."""

from __future__ import annotations

import numpy as np

__all__ = ["holm", "benjamini_hochberg"]


def _prepare(pvalues) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    p = np.asarray(pvalues, dtype=float).ravel()
    keep = np.flatnonzero(np.isfinite(p))
    order = keep[np.argsort(p[keep], kind="stable")]
    return p, keep, order


def holm(pvalues) -> np.ndarray:
    """Holm's step-down adjusted p-values (family-wise error rate); NaN entries stay NaN and do not count.

    ``p_holm_(i) = max_{j <= i} min(1, (m - j + 1) p_(j))`` for the sorted p-values of the
    ``m`` defined tests.

    References
    ----------
    Holm, S. (1979). A simple sequentially rejective multiple test procedure.
    *Scandinavian Journal of Statistics* 6(2), 65-70.

    Examples
    --------
    >>> holm([0.01, 0.04, 0.03, np.nan]).round(4).tolist()
    [0.03, 0.06, 0.06, nan]
    """
    p, keep, order = _prepare(pvalues)
    out = np.full(p.shape, np.nan)
    m = len(keep)
    if m:
        scaled = np.minimum(1.0, (m - np.arange(m)) * p[order])
        out[order] = np.maximum.accumulate(scaled)
    return out


def benjamini_hochberg(pvalues) -> np.ndarray:
    """Benjamini-Hochberg adjusted p-values (false discovery rate); NaN entries stay NaN and do not count.

    ``p_bh_(i) = min_{j >= i} min(1, m p_(j) / j)`` for the sorted p-values of the ``m``
    defined tests.

    References
    ----------
    Benjamini, Y. and Hochberg, Y. (1995). Controlling the false discovery rate.
    *Journal of the Royal Statistical Society B* 57(1), 289-300.

    Examples
    --------
    >>> benjamini_hochberg([0.01, 0.04, 0.03]).round(4).tolist()
    [0.03, 0.04, 0.04]
    """
    p, keep, order = _prepare(pvalues)
    out = np.full(p.shape, np.nan)
    m = len(keep)
    if m:
        scaled = np.minimum(1.0, m * p[order] / np.arange(1, m + 1))
        out[order] = np.minimum.accumulate(scaled[::-1])[::-1]
    return out
