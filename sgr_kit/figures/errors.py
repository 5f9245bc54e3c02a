"""Figures of the trajectory audit: error-type shares (Figures 2b and 4), the family x
error-type heatmap (Figure 5) and scores by error type (Figure 6).

They take the tables of :mod:`sgr_kit.breakdowns.audit`.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from ..reference import ERROR_TYPES
from ..schema import METRIC_LABELS
from ..errors import InsufficientDataError, SgrKitError
from ._base import (ALL_SYSTEMS, axes, figure, finish, heatmap, legend_below, nonempty, percent_axis, require,
                    system_label, text_size)
from .theme import COLUMN_WIDTH, ERROR_COLORS, METRIC_COLORS, short_error, short_family

__all__ = [
    "plot_error_shares", "plot_error_distribution", "plot_family_errors", "plot_error_type_scores",
    "figure_error_shares", "figure_error_distribution", "figure_family_errors", "figure_error_type_scores",
]  # fmt: skip

_PROFILE = ("label", "count", "n_failed", "percent_of_failures")
_SOURCE = "sgr_kit.breakdowns.error_profile_by_system or error_profile_by_family"
_LABELS = (*ERROR_TYPES, "correct")


def _profile_group(table: pd.DataFrame, name: str) -> str:
    require(table, _PROFILE, name=name, source=_SOURCE)
    for column in ("system", "family"):
        if column in table.columns:
            return column
    require(table, ("system",), name=name, source=_SOURCE)
    return "system"


def plot_error_shares(
    table: pd.DataFrame,
    *,
    ax: Axes | None = None,
    synthetic: bool | None = None,
    pooled: bool = True,
    sort: bool = True,
) -> Axes:
    """Each system's (or family's) failures split by error type, as stacked bars (Figure 4).

    Parameters
    ----------
    table : DataFrame
        :func:`sgr_kit.breakdowns.error_profile_by_system` (or ``error_profile_by_family``).
    ax : Axes, optional
    synthetic : bool, optional
    pooled : bool, default True
        Show the ``all systems`` bar (first, above a gap).
    sort : bool, default True
        Order the bars by their scope-drift share, largest first, as the paper's Figure 4.

    Returns
    -------
    Axes
        One bar of 100 percent per group; the number of failures at its right end.

    Examples
    --------
    >>> t = pd.DataFrame({"system": "m", "label": ["scope_drift", "final_answer", "correct"], "count": [3, 1, 2],
    ...                   "n_failed": 4, "percent_of_failures": [75.0, 25.0, np.nan]})
    >>> ax = plot_error_shares(t)
    >>> [float(p.get_width()) for p in ax.patches if p.get_width() > 0]
    [75.0, 25.0]
    >>> plt.close("all")
    """
    name = "plot_error_shares"
    by = _profile_group(table, name)
    part = table[table["label"].isin(ERROR_TYPES)]
    if not pooled:
        part = part[part[by] != ALL_SYSTEMS]
    nonempty(part, name=name, what="the error types")
    shares = part.pivot_table(index=by, columns="label", values="percent_of_failures", sort=False).fillna(0.0)
    shares = shares.reindex(columns=[t for t in ERROR_TYPES if t in shares.columns])
    groups = [g for g in shares.index if g != ALL_SYSTEMS]
    if sort and "scope_drift" in shares.columns:
        groups = sorted(groups, key=lambda g: -shares.loc[g, "scope_drift"])
    order = ([ALL_SYSTEMS] if ALL_SYSTEMS in shares.index else []) + groups
    failed = part.groupby(by, sort=False)["n_failed"].first()
    y = np.array([0.0] * (order[0] == ALL_SYSTEMS) + [i + 1.4 * (order[0] == ALL_SYSTEMS) for i in range(len(groups))])
    ax = axes(ax, COLUMN_WIDTH, 1.1 + 0.2 * len(order))
    left = np.zeros(len(order))
    for label in shares.columns:
        widths = shares.loc[order, label].to_numpy(dtype=float)
        ax.barh(y, widths, left=left, color=ERROR_COLORS[label], label=short_error(label), height=0.75)
        left += widths
    shorten = system_label if by == "system" else short_family
    ax.set_yticks(y, [shorten(g) if g != ALL_SYSTEMS else "All" for g in order])
    for yi, g in zip(y, order):
        ax.text(101, yi, f"{int(failed[g])}", va="center", ha="left", fontsize=text_size(0.9))
    ax.text(101, y[0] - 0.9, "n", va="bottom", ha="left", fontsize=text_size(0.9))
    ax.invert_yaxis()
    percent_axis(ax, "x", label="share of failed trajectories (percent)")
    ax.set_xlim(0, None)  # stacked shares start at 0 by construction: no bar is cut there
    ax.tick_params(axis="y", length=0)
    legend_below(ax, ncol=3)
    return finish(ax, table, synthetic)


def plot_error_distribution(
    table: pd.DataFrame,
    *,
    system: str = ALL_SYSTEMS,
    ax: Axes | None = None,
    synthetic: bool | None = None,
) -> Axes:
    """One system's (default: all systems') failures by error type, as bars (Figure 2b).

    Parameters
    ----------
    table : DataFrame
        :func:`sgr_kit.breakdowns.error_profile_by_system`.
    system : str, default "all systems"
    ax : Axes, optional
    synthetic : bool, optional

    Returns
    -------
    Axes
        A bar per error type, in the paper's order, labelled with its percent and count.

    Examples
    --------
    >>> t = pd.DataFrame({"system": "all systems", "label": ["scope_drift", "final_answer"], "count": [3, 1],
    ...                   "n_failed": 4, "percent_of_failures": [75.0, 25.0]})
    >>> [t.get_text() for t in plot_error_distribution(t).texts]
    ['75.0% (3)', '25.0% (1)']
    >>> plt.close("all")
    """
    name = "plot_error_distribution"
    require(table, ("system", *_PROFILE), name=name, source="sgr_kit.breakdowns.error_profile_by_system")
    part = table[(table["system"] == system) & table["label"].isin(ERROR_TYPES)].set_index("label")
    nonempty(part, name=name, what=f"system {system!r}")
    labels = [t for t in ERROR_TYPES if t in part.index]
    ax = axes(ax, COLUMN_WIDTH, 1.9)
    y = np.arange(len(labels))
    values = part.loc[labels, "percent_of_failures"].to_numpy(dtype=float)
    ax.barh(y, values, color=[ERROR_COLORS[t] for t in labels], height=0.7)
    for yi, label, value in zip(y, labels, values):
        ax.text(value + 1, yi, f"{value:.1f}% ({int(part.loc[label, 'count'])})", va="center",
                fontsize=text_size(1.0))  # fmt: skip
    ax.set_yticks(y, [short_error(t) for t in labels])
    ax.invert_yaxis()
    top = float(np.nanmax(values)) if len(values) else 0.0
    ax.set(xlim=(0, max(50.0, top * 1.35)), xlabel="share of failed trajectories (percent)")
    ax.tick_params(axis="y", length=0)
    return finish(ax, table, synthetic)


def plot_family_errors(
    table: pd.DataFrame,
    *,
    value: str = "percent_of_failures",
    ax: Axes | None = None,
    synthetic: bool | None = None,
    cbar: bool = True,
) -> Axes:
    """A family x error-type heatmap of the audit's failures (Figure 5).

    Parameters
    ----------
    table : DataFrame
        :func:`sgr_kit.breakdowns.error_profile_by_family`.
    value : {"percent_of_failures", "count"}, default "percent_of_failures"
        What the colours and numbers show: each family's failures split in percent
        (rows add up to 100), or the counts of Table 5.
    ax : Axes, optional
    synthetic : bool, optional
    cbar : bool, default True

    Returns
    -------
    Axes

    Examples
    --------
    >>> t = pd.DataFrame({"family": "regulatory resources", "label": ["criterion_mismatch", "final_answer"],
    ...                   "count": [13, 2], "n_failed": 15, "percent_of_failures": [86.7, 13.3]})
    >>> [t.get_text() for t in plot_family_errors(t).get_yticklabels()]
    ['Regulatory\\n(15)']
    >>> plt.close("all")
    """
    name = "plot_family_errors"
    require(table, ("family", *_PROFILE), name=name, source="sgr_kit.breakdowns.error_profile_by_family")
    if value not in ("percent_of_failures", "count"):
        raise SgrKitError(f"{name}: value must be 'percent_of_failures' or 'count'; found {value!r}")
    part = table[table["label"].isin(ERROR_TYPES)]
    nonempty(part, name=name, what="the error types")
    grid = part.pivot_table(index="family", columns="label", values=value, sort=False).fillna(0.0)
    grid = grid.reindex(columns=[t for t in ERROR_TYPES if t in grid.columns])
    failed = part.groupby("family", sort=False)["n_failed"].first()
    ax = axes(ax, COLUMN_WIDTH, 0.9 + 0.25 * len(grid))
    heatmap(ax, grid, cmap="Blues", vmin=0, vmax=100 if value == "percent_of_failures" else None,
            labels=grid.map(lambda v: f"{v:.0f}").to_numpy(), cbar=cbar,
            cbar_label="percent of the family's failures" if value != "count" else "failed trajectories")  # fmt: skip
    ax.set_xticklabels([short_error(t) for t in grid.columns], rotation=45, ha="right", rotation_mode="anchor")
    ax.set_yticklabels([f"{short_family(f)}\n({int(failed[f])})" for f in grid.index], rotation=0)
    ax.set(xlabel="", ylabel="")
    ax.tick_params(length=0)
    return finish(ax, table, synthetic)


def plot_error_type_scores(
    table: pd.DataFrame,
    *,
    ax: Axes | None = None,
    synthetic: bool | None = None,
    metrics: tuple[str, ...] = ("item_f1", "row_f1"),
) -> Axes:
    """Item-F1 and Row-F1 of the audited trajectories per label, as box plots with means (Figure 6).

    Parameters
    ----------
    table : DataFrame
        :func:`sgr_kit.breakdowns.audit_scores` (``label`` and the metrics, in percent points).
    ax : Axes, optional
    synthetic : bool, optional
    metrics : tuple of str, default ("item_f1", "row_f1")

    Returns
    -------
    Axes
        Boxes (median and quartiles), every trajectory as a dot (jittered with a fixed
        seed), the mean as a white diamond.

    Examples
    --------
    >>> t = pd.DataFrame({"label": ["scope_drift"] * 3 + ["correct"] * 2, "item_f1": [10.0, 40.0, 70.0, 100, 90],
    ...                   "row_f1": [0.0, 20.0, 30.0, 100, 90]})
    >>> [t.get_text().split("\\n")[0] for t in plot_error_type_scores(t).get_yticklabels()]
    ['Scope drift', 'Correct']
    >>> plt.close("all")
    """
    name = "plot_error_type_scores"
    require(table, ("label", *metrics), name=name, source="sgr_kit.breakdowns.audit_scores")
    nonempty(table, name=name, what="the audit")
    # an answer without scores (a failed answer when failed answers are excluded) has no point to draw
    long = table.melt(id_vars=["label"], value_vars=list(metrics), var_name="metric", value_name="score")
    long = long.dropna(subset=["score"])
    if long.empty:
        raise InsufficientDataError(f"{name}: no audited answer has a score to draw (every one failed and failed "
                                    f"answers are excluded)")
    labels = [t for t in _LABELS if t in set(long["label"])]
    long["metric"] = long["metric"].map(lambda m: METRIC_LABELS.get(m, m))
    palette = {METRIC_LABELS.get(m, m): METRIC_COLORS.get(m) for m in metrics}
    ax = axes(ax, COLUMN_WIDTH, 1.0 + 0.36 * len(labels))
    size = plt.rcParams["lines.markersize"]
    sns.boxplot(data=long, y="label", x="score", hue="metric", order=labels, palette=palette, ax=ax,
                orient="h", width=0.75, fliersize=0, linewidth=0.6, showmeans=True, saturation=1,
                boxprops={"alpha": 0.45}, meanprops={"marker": "D", "markerfacecolor": "white",
                                                      "markeredgecolor": "black", "markersize": size * 0.8,
                                                      "markeredgewidth": 0.5})  # fmt: skip
    # every trajectory as a dot, jittered by a seeded generator (the same picture on every build)
    rng = np.random.default_rng(0)
    step = 0.75 / len(metrics)
    for k, metric in enumerate(metrics):
        for i, label in enumerate(labels):
            x = table.loc[table["label"] == label, metric].to_numpy(dtype=float)
            y = i - 0.375 + step * (k + 0.5) + rng.uniform(-0.2, 0.2, len(x)) * step
            ax.scatter(x, y, s=(size * 0.45) ** 2, color=METRIC_COLORS.get(metric), alpha=0.6, linewidths=0,
                       zorder=3)  # fmt: skip
    counts = table.dropna(subset=list(metrics), how="all").groupby("label").size()
    ax.set_yticks(range(len(labels)), [f"{short_error(t)}\n(n={int(counts[t])})" for t in labels])
    percent_axis(ax, "x", label="score (percent points)")
    ax.set_ylabel("")
    ax.tick_params(axis="y", length=0)
    legend_below(ax, ncol=len(metrics))
    return finish(ax, table, synthetic)


def figure_error_shares(table: pd.DataFrame, *, width: float | None = None, synthetic: bool | None = None,
                        **kwargs) -> Figure:  # fmt: skip
    """Figure 4 (or the family version) as a Figure; ``kwargs`` go to :func:`plot_error_shares`.

    Examples
    --------
    >>> t = pd.DataFrame({"system": "m", "label": ["scope_drift"], "count": [3], "n_failed": 3,
    ...                   "percent_of_failures": [100.0]})
    >>> figure_error_shares(t).axes[0].get_xlabel()
    'share of failed trajectories (percent)'
    >>> plt.close("all")
    """
    n = table[[c for c in ("system", "family") if c in table.columns][:1]].nunique().sum() if len(table) else 1
    return figure(plot_error_shares, table, width=width, height=1.7 + 0.19 * n, synthetic=synthetic, **kwargs)


def figure_error_distribution(table: pd.DataFrame, *, width: float | None = None, synthetic: bool | None = None,
                              **kwargs) -> Figure:  # fmt: skip
    """Figure 2b as a Figure; ``kwargs`` go to :func:`plot_error_distribution`.

    Examples
    --------
    >>> t = pd.DataFrame({"system": "all systems", "label": ["scope_drift"], "count": [3], "n_failed": 3,
    ...                   "percent_of_failures": [100.0]})
    >>> figure_error_distribution(t).axes[0].get_xlabel()
    'share of failed trajectories (percent)'
    >>> plt.close("all")
    """
    return figure(plot_error_distribution, table, width=width, height=1.9, synthetic=synthetic, **kwargs)


def figure_family_errors(table: pd.DataFrame, *, width: float | None = None, synthetic: bool | None = None,
                         **kwargs) -> Figure:  # fmt: skip
    """Figure 5 as a Figure; ``kwargs`` go to :func:`plot_family_errors`.

    Examples
    --------
    >>> t = pd.DataFrame({"family": "regulatory resources", "label": ["criterion_mismatch"], "count": [13],
    ...                   "n_failed": 13, "percent_of_failures": [100.0]})
    >>> len(figure_family_errors(t).axes)  # the heatmap and its colour bar
    2
    >>> plt.close("all")
    """
    n = table["family"].nunique() if "family" in table.columns else 1
    return figure(plot_family_errors, table, width=width, height=1.5 + 0.26 * n, synthetic=synthetic, **kwargs)


def figure_error_type_scores(table: pd.DataFrame, *, width: float | None = None, synthetic: bool | None = None,
                             **kwargs) -> Figure:  # fmt: skip
    """Figure 6 as a Figure; ``kwargs`` go to :func:`plot_error_type_scores`.

    Examples
    --------
    >>> t = pd.DataFrame({"label": ["correct"] * 2, "item_f1": [100.0, 90.0], "row_f1": [100.0, 90.0]})
    >>> figure_error_type_scores(t).axes[0].get_xlabel()
    'score (percent points)'
    >>> plt.close("all")
    """
    n = table["label"].nunique() if "label" in table.columns else 1
    return figure(plot_error_type_scores, table, width=width, height=1.4 + 0.36 * n, synthetic=synthetic, **kwargs)
