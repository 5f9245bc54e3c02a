"""Figures of the statistical comparisons: the constraint-minus-goal forest plot and the
system-versus-system matrix.

They take the tables of :mod:`sgr_kit.stats` (differences in percent points):

- :func:`sgr_kit.stats.paired_tests`: ``system, diff, ci_low, ci_high, p_holm, n_pairs,
  synthetic``, one row per system and a pooled row ``system == "all systems"``;
- :func:`sgr_kit.stats.system_matrix`: ``system_a, system_b, n_tasks, diff, ci_low, ci_high,
  p, p_holm``, one row per ordered pair (``diff`` = ``system_a`` - ``system_b``).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.transforms import blended_transform_factory

from ._base import ALL_SYSTEMS, axes, figure, finish, heatmap, nonempty, require, scale, system_label, text_size
from ..schema import METRIC_LABELS
from .theme import COLUMN_WIDTH, DIFF_CMAP, OKABE_ITO

__all__ = ["plot_forest", "plot_system_matrix", "figure_forest", "figure_system_matrix", "matrix_limit"]

#: The system matrix's colour scale reaches at least this many points either side of 0, so a
#: difference of a point or two stays pale instead of saturating the colour.
MATRIX_MIN_LIMIT = 10.0


def matrix_limit(differences) -> float:
    """The symmetric colour limit of the system matrix: the largest ``|difference|`` rounded up to 10, at least 10.

    Examples
    --------
    >>> matrix_limit([1.4, -1.4]), matrix_limit([23.0, -7.5]), matrix_limit([float("nan")])
    (10.0, 30.0, 10.0)
    """
    values = np.abs(np.asarray(differences, dtype=float))
    largest = float(np.nanmax(values)) if np.isfinite(values).any() else 0.0
    return max(MATRIX_MIN_LIMIT, float(np.ceil(largest / 10.0) * 10.0))


def _p_text(p: float) -> str:
    if not np.isfinite(p):
        return ""
    return "p<0.001" if p < 0.001 else f"p={p:.3f}"


def _row_text(row: pd.Series, p: float, alpha: float, has_interval: bool) -> str:
    """The text at the right of a forest-plot row: its p, and why a value is missing or bounded.

    Examples
    --------
    >>> _row_text(pd.Series({"diff": 75.0, "n_pairs": 2, "p_min": 0.5}), 1.0, 0.05, False)
    'p=1.000 (p≥0.5 with 2 pairs); no interval, n=2'
    """
    n = int(row["n_pairs"]) if "n_pairs" in row.index and np.isfinite(row["n_pairs"]) else None
    if not np.isfinite(row["diff"]):
        return "no pairs"
    text = _p_text(p) if np.isfinite(p) else "no test"
    p_min = float(row["p_min"]) if "p_min" in row.index else np.nan
    if np.isfinite(p_min) and p_min > alpha:
        text += f" (p≥{p_min:.3g} with {n} pairs)" if n is not None else f" (p≥{p_min:.3g})"
    if not has_interval:
        text += f"; no interval, n={n}" if n is not None else "; no interval"
    return text


def plot_forest(
    table: pd.DataFrame,
    *,
    metric: str = "item_f1",
    alpha: float = 0.05,
    ax: Axes | None = None,
    synthetic: bool | None = None,
    annotate: bool = True,
) -> Axes:
    """Constraint-minus-goal differences per system with their intervals (a forest plot).

    Parameters
    ----------
    table : DataFrame
        :func:`sgr_kit.stats.paired_tests`: ``system, diff, ci_low, ci_high, p_holm``
        (percent points), optionally ``metric``, ``p_signflip`` and ``synthetic``.
    metric : str, default "item_f1"
        The rows drawn when the table has a ``metric`` column.
    alpha : float, default 0.05
        A filled marker means ``p_holm < alpha`` (for the pooled row, whose ``p_holm``
        is missing, its unadjusted ``p_signflip``); an open one, not.
    ax : Axes, optional
    synthetic : bool, optional
    annotate : bool, default True
        Write each row's p-value (Holm-adjusted; the pooled row's unadjusted) at the right,
        with the smallest attainable p when it exceeds ``alpha`` (``p_min``, few pairs) and
        "no interval" where the table has none (too few problems).

    Returns
    -------
    Axes
        One row per system in the table's order, the pooled row (a diamond) last.

    Examples
    --------
    >>> t = pd.DataFrame({"system": ["a", "b", "all systems"], "diff": [2.0, -1.0, 0.5],
    ...                   "ci_low": [0.5, -4.0, -1.0], "ci_high": [3.5, 2.0, 2.0], "p_holm": [0.01, 0.6, 0.4],
    ...                   "n_pairs": 50, "synthetic": False})
    >>> ax = plot_forest(t)
    >>> [t.get_text() for t in ax.get_yticklabels()]
    ['a', 'b', 'All systems']
    >>> plt.close("all")
    """
    name = "plot_forest"
    require(table, ("system", "diff", "ci_low", "ci_high", "p_holm"), name=name,
            source="sgr_kit.stats paired_tests")  # fmt: skip
    part = table[table["metric"] == metric] if "metric" in table.columns else table
    nonempty(part, name=name, what=f"metric {metric!r}")
    systems = [s for s in pd.unique(part["system"]) if s != ALL_SYSTEMS]
    rows = part.drop_duplicates("system").set_index("system")
    order = systems + ([ALL_SYSTEMS] if ALL_SYSTEMS in rows.index else [])
    y = np.array([float(i) for i in range(len(systems))] + ([len(systems) + 0.4] if ALL_SYSTEMS in rows.index else []))
    ax = axes(ax, COLUMN_WIDTH, 0.9 + 0.2 * len(order))
    ax.axvline(0, color="0.5", lw=0.7, ls="--", zorder=1)
    color = OKABE_ITO["blue"]
    for yi, system in zip(y, order):
        row = rows.loc[system]
        pooled = system == ALL_SYSTEMS
        p = float(row["p_holm"])
        if not np.isfinite(p) and "p_signflip" in row.index:
            p = float(row["p_signflip"])
        significant = bool(np.isfinite(p) and p < alpha)
        ink = "black" if pooled else color
        has_interval = bool(np.isfinite(row["ci_low"]) and np.isfinite(row["ci_high"]))
        if has_interval:
            ax.plot([row["ci_low"], row["ci_high"]], [yi, yi], color=ink, lw=1.0, zorder=2)
        size = plt.rcParams["lines.markersize"] * (1.3 if pooled else 1)
        if np.isfinite(row["diff"]):
            ax.plot(row["diff"], yi, marker="D" if pooled else "o", ms=size,
                    color=ink, mfc=ink if significant else "white", mew=0.9, zorder=3)  # fmt: skip
        if annotate:
            trans = blended_transform_factory(ax.transAxes, ax.transData)
            ax.text(1.02, yi, _row_text(row, p, alpha, has_interval), transform=trans, va="center", ha="left",
                    fontsize=text_size(0.9))  # fmt: skip
    if ALL_SYSTEMS in rows.index and systems:
        ax.axhline(len(systems) - 0.3, color="0.8", lw=0.6)
    ax.set_yticks(y, [system_label(s) for s in order])
    ax.invert_yaxis()
    ax.set_xlabel("constraint − goal (percent points)")
    ax.margins(x=0.06)  # a difference or interval end at the extremes is drawn whole
    ax.tick_params(axis="y", length=0)
    if annotate:
        ax.text(1.02, 1.0, "p (Holm)", transform=ax.transAxes, va="bottom", ha="left",
                fontsize=text_size(0.9))  # fmt: skip
    return finish(ax, table, synthetic)


def plot_system_matrix(
    table: pd.DataFrame,
    *,
    metric: str = "item_f1",
    variant: str = "overall",
    alpha: float = 0.05,
    ax: Axes | None = None,
    synthetic: bool | None = None,
    annotate: bool = True,
    cbar: bool = True,
) -> Axes:
    """The system-versus-system matrix of mean differences (row system minus column system).

    Parameters
    ----------
    table : DataFrame
        :func:`sgr_kit.stats.system_matrix`: ``system_a, system_b, diff, p_holm``
        (percent points), optionally ``metric`` and ``variant``; a pair given in one
        order only is mirrored (``-diff``).
    metric, variant : str, default "item_f1", "overall"
        The rows drawn when the table has ``metric`` / ``variant`` columns.
    alpha : float, default 0.05
        Cells with ``p_holm < alpha`` carry an asterisk (explained under the matrix).
    ax : Axes, optional
    synthetic : bool, optional
    annotate : bool, default True
        Write each difference (whole points).
    cbar : bool, default True

    Returns
    -------
    Axes
        Titled with the metric and variant; the colour scale is symmetric around 0 and
        reaches :func:`matrix_limit` (at least 10 points), so a 1.4-point gap stays pale.

    Examples
    --------
    >>> t = pd.DataFrame({"system_a": ["a"], "system_b": ["b"], "n_tasks": [100], "diff": [5.0],
    ...                   "ci_low": [1.0], "ci_high": [9.0], "p": [0.01], "p_holm": [0.01]})
    >>> ax = plot_system_matrix(t)
    >>> sorted(t.get_text() for t in ax.texts)
    ['+5*', '-5*']
    >>> print(ax.get_title())
    Item-F1 (overall)
    * Holm-adjusted p < 0.05

    >>> plt.close("all")
    """
    name = "plot_system_matrix"
    require(table, ("system_a", "system_b", "diff", "p_holm"), name=name, source="sgr_kit.stats system_matrix")
    for column, wanted in (("metric", metric), ("variant", variant)):
        if column in table.columns:
            table = table[table[column] == wanted]
    nonempty(table, name=name, what=f"metric {metric!r}, variant {variant!r}")
    pairs = table[["system_a", "system_b", "diff", "p_holm"]]
    mirrored = pairs.rename(columns={"system_a": "system_b", "system_b": "system_a"}).assign(diff=-pairs["diff"])
    both = pd.concat([pairs, mirrored], ignore_index=True).drop_duplicates(["system_a", "system_b"])
    systems = list(pd.unique(pd.concat([table["system_a"], table["system_b"]])))
    diff = both.pivot(index="system_a", columns="system_b", values="diff").reindex(index=systems, columns=systems)
    p = both.pivot(index="system_a", columns="system_b", values="p_holm").reindex(index=systems, columns=systems)
    limit = matrix_limit(diff.to_numpy())
    size = max(COLUMN_WIDTH, 0.3 * len(systems) + 1.2)
    ax = axes(ax, size, size * 0.85)
    labels = diff.map(lambda v: "" if not np.isfinite(v) else ("0" if round(v) == 0 else f"{round(v):+d}"))
    stars = p.map(lambda v: "*" if np.isfinite(v) and v < alpha else "")
    label = METRIC_LABELS.get(metric, metric)
    heatmap(ax, diff, cmap=DIFF_CMAP, vmin=-limit, vmax=limit, labels=(labels + stars).to_numpy() if annotate else None,
            cbar=cbar, cbar_label=f"{label}, row − column (points)")  # fmt: skip
    title = f"{label} ({variant})" + (f"\n* Holm-adjusted p < {alpha:g}" if annotate else "")
    ax.set_title(title, fontsize=text_size(0.85))
    ax.set_aspect("equal")
    ax.set_xticklabels([system_label(s) for s in systems], rotation=45, ha="right", rotation_mode="anchor")
    ax.set_yticklabels([system_label(s) for s in systems], rotation=0)
    ax.set(xlabel="", ylabel="")
    ax.tick_params(length=0)
    return finish(ax, table, synthetic)


def figure_forest(table: pd.DataFrame, *, width: float | None = None, synthetic: bool | None = None,
                  **kwargs) -> Figure:  # fmt: skip
    """The forest plot as a Figure; ``kwargs`` go to :func:`plot_forest`.

    Examples
    --------
    >>> t = pd.DataFrame({"system": ["a"], "diff": [2.0], "ci_low": [0.5], "ci_high": [3.5], "p_holm": [0.01]})
    >>> figure_forest(t).axes[0].get_xlabel()
    'constraint − goal (percent points)'
    >>> plt.close("all")
    """
    n = table["system"].nunique() if "system" in table.columns else 1
    return figure(plot_forest, table, width=width, height=1.0 + 0.2 * n, synthetic=synthetic, **kwargs)


def figure_system_matrix(table: pd.DataFrame, *, width: float | None = None, synthetic: bool | None = None,
                         **kwargs) -> Figure:  # fmt: skip
    """The system-versus-system matrix as a Figure; ``kwargs`` go to :func:`plot_system_matrix`.

    Examples
    --------
    >>> t = pd.DataFrame({"system_a": ["a"], "system_b": ["b"], "diff": [5.0], "p_holm": [0.01]})
    >>> len(figure_system_matrix(t).axes)  # the matrix and its colour bar
    2
    >>> plt.close("all")
    """
    n = len(set(table["system_a"]) | set(table["system_b"])) if {"system_a", "system_b"} <= set(table.columns) else 2
    side = max(COLUMN_WIDTH, 0.3 * n + 1.4)
    width = width or side * scale()
    return figure(plot_system_matrix, table, width=width, height=0.9 * width / scale(), synthetic=synthetic, **kwargs)
