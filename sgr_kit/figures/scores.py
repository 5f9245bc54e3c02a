"""Figures of scores: Item-F1 versus Row-F1 (Figure 2a), group heatmaps (Figure 3),
cardinality bins (Figure 7) and where the points went.

Each ``plot_*`` function draws into ``ax`` (or a new axes) and returns it; each
``figure_*`` function returns a new Figure. They take the tidy tables of
:mod:`sgr_kit.breakdowns`, :mod:`sgr_kit.stats` and :mod:`sgr_kit.aggregate`.
"""

from __future__ import annotations

from typing import Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from ..reference import CLI_SYSTEMS, COMMERCIAL_SYSTEMS
from ..schema import METRIC_LABELS
from ._base import (
    ALL_SYSTEMS, axes, banner, figure, finish, group_column, heatmap, legend_below, nonempty, percent_axis,
    place_labels, require, scale, system_label, systems_axis, text_size,
)  # fmt: skip
from .theme import (
    CAUSE_COLORS, COLUMN_WIDTH, METRIC_COLORS, OKABE_ITO, SCORE_CMAP, cause_label, short_family,
)  # fmt: skip

__all__ = [
    "plot_item_vs_row", "plot_score_heatmap", "plot_bins", "plot_points_lost",
    "figure_item_vs_row", "figure_family_heatmaps", "figure_bins", "figure_points_lost",
]  # fmt: skip

_GROUPS = (
    ("CLI agent", "o", OKABE_ITO["blue"], set(CLI_SYSTEMS)),
    ("commercial product", "s", OKABE_ITO["orange"], set(COMMERCIAL_SYSTEMS)),
    ("other system", "^", OKABE_ITO["bluish green"], None),
)
_POINTS = "percent points"
_CAUSES = ("wrong", "missing", "omitted_row", "extra_row", "duplicate_row", "extra_cell", "failed")


def plot_item_vs_row(
    table: pd.DataFrame,
    *,
    variant: str = "overall",
    ax: Axes | None = None,
    synthetic: bool | None = None,
    labels: bool = True,
) -> Axes:
    """Item-F1 against Row-F1 per system, with the diagonal (the paper's Figure 2a).

    Parameters
    ----------
    table : DataFrame
        Means per system: ``system, variant, metric, value`` and optionally ``ci_low,
        ci_high`` (error bars) and ``synthetic`` (:func:`sgr_kit.stats.bootstrap_means`
        or :func:`sgr_kit.aggregate.system_means`); values in percent points.
        ``all systems`` rows are left out.
    variant : {"overall", "constraint", "goal"}, default "overall"
    ax : Axes, optional
    synthetic : bool, optional
        Mark the axes as synthetic; default: the table's ``synthetic`` column.
    labels : bool, default True
        Write each system's short name beside its point.

    Returns
    -------
    Axes

    Examples
    --------
    >>> t = pd.DataFrame({"system": ["a", "a"], "variant": "overall", "metric": ["item_f1", "row_f1"],
    ...                   "value": [60.0, 40.0], "synthetic": True})
    >>> ax = plot_item_vs_row(t)
    >>> ax.get_xlabel(), [t.get_text() for t in ax.texts if t.get_gid()]
    ('Row-F1 (percent points)', ['SYNTHETIC DATA'])
    >>> plt.close("all")
    """
    name = "plot_item_vs_row"
    require(table, ("system", "variant", "metric", "value"), name=name,
            source="sgr_kit.stats.bootstrap_means or sgr_kit.aggregate.system_means")  # fmt: skip
    part = table[(table["variant"] == variant) & table["metric"].isin(["item_f1", "row_f1"])
                 & (table["system"] != ALL_SYSTEMS)]  # fmt: skip
    nonempty(part, name=name, what=f"variant {variant!r}")
    wide = part.pivot_table(index="system", columns="metric", values="value", sort=False)
    ax = axes(ax, COLUMN_WIDTH, COLUMN_WIDTH)
    ax.plot([0, 100], [0, 100], ls="--", lw=0.8, color="0.55", zorder=1)
    if {"ci_low", "ci_high"} <= set(part.columns):
        low = part.pivot_table(index="system", columns="metric", values="ci_low", sort=False).reindex_like(wide)
        high = part.pivot_table(index="system", columns="metric", values="ci_high", sort=False).reindex_like(wide)
        ax.errorbar(wide["row_f1"], wide["item_f1"],
                    xerr=[wide["row_f1"] - low["row_f1"], high["row_f1"] - wide["row_f1"]],
                    yerr=[wide["item_f1"] - low["item_f1"], high["item_f1"] - wide["item_f1"]],
                    fmt="none", ecolor="0.75", elinewidth=0.5, zorder=2)  # fmt: skip
    handles = []
    for label, marker, color, members in _GROUPS:
        mine = wide[[(s in members) if members is not None else
                     (s not in CLI_SYSTEMS and s not in COMMERCIAL_SYSTEMS) for s in wide.index]]  # fmt: skip
        if mine.empty:
            continue
        ax.scatter(mine["row_f1"], mine["item_f1"], marker=marker, color=color, zorder=3,
                   s=(1.1 * plt.rcParams["lines.markersize"]) ** 2,
                   edgecolor="white", linewidth=0.4)  # fmt: skip
        handles.append(Line2D([], [], marker=marker, color=color, ls="", label=label))
    highest = np.nanmax(part[[c for c in ("value", "ci_high") if c in part.columns]].to_numpy(dtype=float))
    limit = float(min(100, 20 * np.ceil((highest + 5) / 20))) if np.isfinite(highest) else 100.0
    percent_axis(ax, "x", upper=limit, label=f"Row-F1 ({_POINTS})")
    percent_axis(ax, "y", upper=limit, label=f"Item-F1 ({_POINTS})")
    ax.set_aspect("equal")
    if labels:
        ok = wide.dropna(subset=["row_f1", "item_f1"])
        place_labels(ax, ok["row_f1"].tolist(), ok["item_f1"].tolist(), [system_label(s) for s in ok.index],
                      size=text_size(0.9))  # fmt: skip
    ax.legend(handles=handles, loc="lower right", handletextpad=0.2, borderaxespad=0.2)
    return finish(ax, table, synthetic)


def plot_score_heatmap(
    table: pd.DataFrame,
    *,
    metric: str = "item_f1",
    variant: str = "overall",
    ax: Axes | None = None,
    synthetic: bool | None = None,
    pooled: bool = True,
    annotate: bool = True,
    cbar: bool = True,
) -> Axes:
    """A system x group heatmap of mean scores (the paper's Figure 3 for families).

    Parameters
    ----------
    table : DataFrame
        A table of :func:`sgr_kit.breakdowns.family_means` (or ``ecosystem_means``,
        ``domain_means``, ``bin_means``): ``system, variant, metric, <group>, value``
        and ``group_tasks`` (the task count written under each column).
    metric : {"item_f1", "row_f1", "poa"}, default "item_f1"
    variant : {"overall", "constraint", "goal"}, default "overall"
    ax : Axes, optional
    synthetic : bool, optional
    pooled : bool, default True
        Show the ``all systems`` row (last, below a rule).
    annotate : bool, default True
        Write each cell's value (rounded to whole points).
    cbar : bool, default True

    Returns
    -------
    Axes

    Examples
    --------
    >>> t = pd.DataFrame({"system": ["a", "a", "b", "b"], "variant": "overall", "metric": "item_f1",
    ...                   "family": ["scholarly archives", "official statistics"] * 2, "group_tasks": [18, 12] * 2,
    ...                   "value": [60.0, 30.0, 50.0, 20.0]})
    >>> ax = plot_score_heatmap(t)
    >>> [t.get_text() for t in ax.get_xticklabels()]
    ['Scholarly\\n(18)', 'Official stats\\n(12)']
    >>> plt.close("all")
    """
    name = "plot_score_heatmap"
    source = "sgr_kit.breakdowns.family_means"
    require(table, ("system", "variant", "metric", "value"), name=name, source=source)
    by = group_column(table, name=name)
    part = table[(table["variant"] == variant) & (table["metric"] == metric)]
    if not pooled:
        part = part[part["system"] != ALL_SYSTEMS]
    nonempty(part, name=name, what=f"metric {metric!r}, variant {variant!r}")
    grid = part.pivot_table(index="system", columns=by, values="value", sort=False, dropna=False)
    systems = [s for s in pd.unique(part["system"]) if s != ALL_SYSTEMS] + (
        [ALL_SYSTEMS] if ALL_SYSTEMS in set(part["system"]) else []
    )
    grid = grid.reindex(index=systems, columns=list(pd.unique(part[by])))
    counts = part.drop_duplicates(by).set_index(by)["group_tasks"] if "group_tasks" in part.columns else None
    shorten = short_family if by == "family" else str
    xlabels = [shorten(g) + (f"\n({int(counts[g])})" if counts is not None else "") for g in grid.columns]
    ax = axes(ax, COLUMN_WIDTH, 0.8 + 0.2 * len(grid))
    texts = grid.map(lambda v: f"{v:.0f}" if np.isfinite(v) else "").to_numpy() if annotate else None
    heatmap(ax, grid, cmap=SCORE_CMAP, vmin=0, vmax=100, labels=texts, cbar=cbar,
            cbar_label=f"{METRIC_LABELS.get(metric, metric)} ({_POINTS})")  # fmt: skip
    level = _level_labels(xlabels)
    if not level:  # slanted, a label is one line: two slanted lines of neighbouring labels would cross
        xlabels = [label.replace("\n", " ") for label in xlabels]
    ax.set_xticklabels(xlabels, rotation=0 if level else 45, ha="center" if level else "right",
                       rotation_mode="anchor")  # fmt: skip
    ax.set_yticklabels([system_label(s) for s in grid.index], rotation=0)
    ax.set(xlabel="", ylabel="")
    ax.tick_params(length=0)
    if ALL_SYSTEMS in grid.index and len(grid) > 1:
        ax.axhline(len(grid) - 1, color="white", lw=2.5)
    return finish(ax, table, synthetic)


def plot_bins(
    table: pd.DataFrame,
    *,
    system: str = ALL_SYSTEMS,
    variant: str = "overall",
    metrics: Sequence[str] = ("item_f1", "row_f1"),
    published: pd.DataFrame | None = None,
    ax: Axes | None = None,
    synthetic: bool | None = None,
) -> Axes:
    """Mean scores per cardinality bin with their intervals (the paper's Figure 7).

    Parameters
    ----------
    table : DataFrame
        :func:`sgr_kit.breakdowns.bin_means` (``system, variant, metric, bin, group_tasks,
        value`` and optionally ``ci_low, ci_high``).
    system : str, default "all systems"
        The system to show (``all systems``: the mean over all systems, as the paper).
    variant : str, default "overall"
    metrics : sequence of str, default ("item_f1", "row_f1")
    published : DataFrame, optional
        The paper's bin means (:func:`sgr_kit.reference.cardinality`: ``bin, quantity,
        value``), drawn as black ticks beside the bars.
    ax : Axes, optional
    synthetic : bool, optional

    Returns
    -------
    Axes

    Examples
    --------
    >>> t = pd.DataFrame({"system": "all systems", "variant": "overall", "metric": ["item_f1", "row_f1"] * 2,
    ...                   "bin": ["1-2", "1-2", "3-5", "3-5"], "group_tasks": [26, 26, 38, 38],
    ...                   "value": [36.0, 9.0, 54.0, 26.0], "ci_low": [30.0, 5.0, 50.0, 20.0],
    ...                   "ci_high": [40.0, 12.0, 58.0, 30.0]})
    >>> ax = plot_bins(t)
    >>> [t.get_text() for t in ax.get_xticklabels()]
    ['1–2\\n(26 tasks)', '3–5\\n(38 tasks)']
    >>> plt.close("all")
    """
    name = "plot_bins"
    require(table, ("system", "variant", "metric", "bin", "value"), name=name, source="sgr_kit.breakdowns.bin_means")
    part = table[(table["system"] == system) & (table["variant"] == variant) & table["metric"].isin(metrics)]
    nonempty(part, name=name, what=f"system {system!r}, variant {variant!r}")
    bins = list(pd.unique(part["bin"]))
    ax = axes(ax, COLUMN_WIDTH, 2.2)
    width = 0.8 / len(metrics)
    x = np.arange(len(bins))
    for k, metric in enumerate(metrics):
        rows = part[part["metric"] == metric].set_index("bin").reindex(bins)
        pos = x - 0.4 + width * (k + 0.5)
        err = None
        if {"ci_low", "ci_high"} <= set(rows.columns):
            err = np.vstack([rows["value"] - rows["ci_low"], rows["ci_high"] - rows["value"]])
        ax.bar(pos, rows["value"], width=width * 0.92, color=METRIC_COLORS.get(metric), yerr=err,
               error_kw={"elinewidth": 0.7, "capsize": 1.5, "ecolor": "0.25"},
               label=METRIC_LABELS.get(metric, metric))  # fmt: skip
        if published is not None:
            paper = published[published["quantity"] == metric].set_index("bin")["value"].reindex(bins)
            ax.scatter(pos, paper, marker="_", s=120, color="black", linewidths=1.2, zorder=4,
                       label="paper" if k == 0 else None)  # fmt: skip
    counts = part.drop_duplicates("bin").set_index("bin")["group_tasks"] if "group_tasks" in part else None
    ticks = [b.replace("-", "–") + (f"\n({int(counts[b])} tasks)" if counts is not None else "") for b in bins]
    ax.set_xticks(x, ticks)
    percent_axis(ax, "y", label=f"mean score ({_POINTS})")
    ax.set_xlabel("reference rows")
    ax.legend(loc="upper left", ncol=len(metrics) + (published is not None), handlelength=1.0, columnspacing=0.8)
    return finish(ax, table, synthetic)


def plot_points_lost(
    table: pd.DataFrame,
    *,
    variant: str = "overall",
    ax: Axes | None = None,
    synthetic: bool | None = None,
    pooled: bool = True,
) -> Axes:
    """Where the Item-F1 points went: per system, the points kept and the points lost by cause.

    Parameters
    ----------
    table : DataFrame
        :func:`sgr_kit.breakdowns.points_lost` (``system, variant, cause, points, item_f1``).
    variant : str, default "overall"
    ax : Axes, optional
    synthetic : bool, optional
    pooled : bool, default True
        Show the ``all systems`` bar (last).

    Returns
    -------
    Axes
        One horizontal bar of 100 points per system, best Item-F1 first: the mean
        Item-F1 (grey), then each cause's mean lost points.

    Examples
    --------
    >>> t = pd.DataFrame({"system": "a", "variant": "overall", "cause": ["wrong", "omitted_row"],
    ...                   "points": [30.0, 20.0], "item_f1": 50.0})
    >>> ax = plot_points_lost(t)
    >>> [float(p.get_width()) for p in ax.patches]
    [50.0, 30.0, 20.0]
    >>> plt.close("all")
    """
    name = "plot_points_lost"
    require(table, ("system", "variant", "cause", "points", "item_f1"), name=name,
            source="sgr_kit.breakdowns.points_lost")  # fmt: skip
    part = table[table["variant"] == variant]
    if not pooled:
        part = part[part["system"] != ALL_SYSTEMS]
    nonempty(part, name=name, what=f"variant {variant!r}")
    kept = part.groupby("system", sort=False)["item_f1"].first()
    systems = [s for s in kept.drop(ALL_SYSTEMS, errors="ignore").sort_values(ascending=False).index]
    systems += [ALL_SYSTEMS] if ALL_SYSTEMS in kept.index else []
    points = part.pivot_table(index="system", columns="cause", values="points", sort=False).reindex(systems)
    causes = [c for c in _CAUSES if c in points.columns and points[c].fillna(0).gt(0).any()]
    ax = axes(ax, COLUMN_WIDTH, 1.0 + 0.2 * len(systems))
    y = np.arange(len(systems)) + np.array([0.4 if s == ALL_SYSTEMS else 0.0 for s in systems])
    left = kept.reindex(systems).to_numpy(dtype=float)
    ax.barh(y, left, color=CAUSE_COLORS["kept"], label=cause_label("kept"), height=0.75)
    left = left.copy()
    for cause in causes:
        widths = points[cause].fillna(0).to_numpy(dtype=float)
        ax.barh(y, widths, left=left, color=CAUSE_COLORS.get(cause), label=cause_label(cause), height=0.75)
        left += widths
    systems_axis(ax, y, systems)
    percent_axis(ax, "x", label=f"Item-F1 kept and lost ({_POINTS})")
    legend_below(ax, ncol=3)
    return finish(ax, table, synthetic)


def figure_item_vs_row(table: pd.DataFrame, *, width: float | None = None, synthetic: bool | None = None,
                       **kwargs) -> Figure:  # fmt: skip
    """Figure 2a as a Figure (square, a column wide); ``kwargs`` go to :func:`plot_item_vs_row`.

    Examples
    --------
    >>> t = pd.DataFrame({"system": ["a", "a"], "variant": "overall", "metric": ["item_f1", "row_f1"],
    ...                   "value": [60.0, 40.0]})
    >>> width, height = figure_item_vs_row(t).get_size_inches()
    >>> bool(width == height)
    True
    >>> plt.close("all")
    """
    side = width or COLUMN_WIDTH * scale()
    return figure(plot_item_vs_row, table, width=side, height=side / scale(), synthetic=synthetic, **kwargs)


def _level_labels(labels: Sequence[str]) -> bool:
    """Whether tick labels fit side by side under a column-wide heatmap (about 32 characters across), else slanted."""
    widest = max((len(line) for label in labels for line in str(label).split("\n")), default=0)
    return len(labels) * widest <= 32


def figure_family_heatmaps(
    table: pd.DataFrame,
    *,
    metrics: Sequence[str] = ("item_f1", "row_f1"),
    width: float | None = None,
    synthetic: bool | None = None,
    **kwargs,
) -> Figure:
    """Figure 3: one heatmap per metric, stacked; ``kwargs`` go to :func:`plot_score_heatmap`.

    Examples
    --------
    >>> t = pd.DataFrame({"system": "a", "variant": "overall", "metric": ["item_f1", "row_f1"],
    ...                   "family": "scholarly archives", "group_tasks": 18, "value": [60.0, 30.0]})
    >>> len(figure_family_heatmaps(t).axes)  # two heatmaps and their colour bars
    4
    >>> plt.close("all")
    """
    rows = table["system"].nunique() if "system" in table.columns else 1
    by = group_column(table, name="figure_family_heatmaps")
    shorten = short_family if by == "family" else str
    slanted = not _level_labels([shorten(g) for g in pd.unique(table[by])])  # slanted labels need more room
    height = len(metrics) * (0.9 + 0.19 * rows + (0.45 if slanted else 0.0))
    size = (width or COLUMN_WIDTH * scale(), height * scale())
    fig, axs = plt.subplots(len(metrics), 1, figsize=size, layout="constrained", squeeze=False)
    for ax, metric in zip(axs[:, 0], metrics):
        plot_score_heatmap(table, metric=metric, ax=ax, synthetic=synthetic, **kwargs)
        ax.set_title(METRIC_LABELS.get(metric, metric))
    return banner(fig, table, synthetic)


def figure_bins(table: pd.DataFrame, *, width: float | None = None, synthetic: bool | None = None,
                **kwargs) -> Figure:  # fmt: skip
    """Figure 7 as a Figure; ``kwargs`` go to :func:`plot_bins`.

    Examples
    --------
    >>> t = pd.DataFrame({"system": "all systems", "variant": "overall", "metric": ["item_f1", "row_f1"],
    ...                   "bin": "1-2", "group_tasks": 26, "value": [36.0, 9.0]})
    >>> figure_bins(t).axes[0].get_ylabel()
    'mean score (percent points)'
    >>> plt.close("all")
    """
    return figure(plot_bins, table, width=width, height=2.4, synthetic=synthetic, **kwargs)


def figure_points_lost(table: pd.DataFrame, *, width: float | None = None, synthetic: bool | None = None,
                       **kwargs) -> Figure:  # fmt: skip
    """Where the points went, as a Figure; ``kwargs`` go to :func:`plot_points_lost`.

    Examples
    --------
    >>> t = pd.DataFrame({"system": "a", "variant": "overall", "cause": ["wrong"], "points": [30.0], "item_f1": 70.0})
    >>> figure_points_lost(t).axes[0].get_xlabel()
    'Item-F1 kept and lost (percent points)'
    >>> plt.close("all")
    """
    systems = table["system"].nunique() if "system" in table.columns else 1
    return figure(plot_points_lost, table, width=width, height=1.5 + 0.18 * systems, synthetic=synthetic, **kwargs)
