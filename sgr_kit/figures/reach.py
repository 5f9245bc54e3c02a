"""Figures of site reach: did the trajectories reach the task's website, and what did it buy?

They take the table of :func:`sgr_kit.breakdowns.site_reach_means`.
"""

from __future__ import annotations

from typing import Sequence

import matplotlib.pyplot as plt  # noqa: F401 (the examples use it)
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from ..schema import METRIC_LABELS
from ._base import (ALL_SYSTEMS, axes, banner, finish, legend_below, nonempty, panels, percent_axis, require,
                    scale, systems_axis)
from .theme import COLUMN_WIDTH, METRIC_COLORS, OKABE_ITO, TEXT_WIDTH

__all__ = ["plot_site_reached", "plot_reach_scores", "figure_site_reach"]

_COLUMNS = ("system", "quantity", "reached", "value", "ci_low", "ci_high")
_SOURCE = "sgr_kit.breakdowns.site_reach_means"
_SHARES = {"site_reached": ("answers that reached the site", OKABE_ITO["blue"]),
           "failed_reached": ("failed answers that reached it", OKABE_ITO["vermillion"])}  # fmt: skip


def _systems(table: pd.DataFrame, pooled: bool) -> list[str]:
    systems = [s for s in pd.unique(table["system"]) if s != ALL_SYSTEMS]
    return ([ALL_SYSTEMS] if pooled and ALL_SYSTEMS in set(table["system"]) else []) + systems


def _ys(order: list[str]) -> np.ndarray:
    gap = 0.6 if order and order[0] == ALL_SYSTEMS else 0.0
    return np.array([0.0 if s == ALL_SYSTEMS else i + gap for i, s in enumerate(order)])


def _intervals(ax: Axes, rows: pd.DataFrame, y: np.ndarray, *, color: str, label: str, marker: str) -> None:
    value = rows["value"].to_numpy(dtype=float)
    low = np.clip(value - rows["ci_low"].to_numpy(dtype=float), 0, None)
    high = np.clip(rows["ci_high"].to_numpy(dtype=float) - value, 0, None)
    ax.errorbar(value, y, xerr=np.nan_to_num(np.vstack([low, high])), fmt=marker, color=color, label=label,
                markersize=3.5 * scale(), elinewidth=0.8, capsize=0)  # fmt: skip


def plot_site_reached(
    table: pd.DataFrame, *, ax: Axes | None = None, synthetic: bool | None = None, pooled: bool = True
) -> Axes:
    """Per system: percent of answers that reached the task's site, and of failed answers that did.

    Parameters
    ----------
    table : DataFrame
        :func:`sgr_kit.breakdowns.site_reach_means`.
    ax : Axes, optional
    synthetic : bool, optional
    pooled : bool, default True
        Show ``all systems`` first, above a gap.

    Returns
    -------
    Axes
        Two points per system with their intervals, in percent.

    Examples
    --------
    >>> t = pd.DataFrame({"system": "m", "quantity": ["site_reached", "failed_reached"], "reached": "all",
    ...                   "value": [80.0, 70.0], "ci_low": [70.0, 60.0], "ci_high": [90.0, 80.0]})
    >>> ax = plot_site_reached(t)
    >>> [float(line.get_xdata()[0]) for line in ax.lines if len(line.get_xdata()) == 1]
    [80.0, 70.0]
    >>> plt.close("all")
    """
    name = "plot_site_reached"
    require(table, _COLUMNS, name=name, source=_SOURCE)
    part = nonempty(table[table["quantity"].isin(tuple(_SHARES))], name=name, what="the site-reached shares")
    order = _systems(part, pooled)
    y = _ys(order)
    ax = axes(ax, COLUMN_WIDTH, 1.0 + 0.22 * len(order))
    for offset, (quantity, (label, color)) in zip((-0.15, 0.15), _SHARES.items()):
        rows = part[part["quantity"] == quantity].set_index("system").reindex(order)
        _intervals(ax, rows, y + offset, color=color, label=label, marker="o" if offset < 0 else "s")
    systems_axis(ax, y, order)
    percent_axis(ax, "x", label="answers (percent)")
    legend_below(ax, ncol=1)
    return finish(ax, table, synthetic)


def plot_reach_scores(
    table: pd.DataFrame,
    *,
    metric: str = "item_f1",
    ax: Axes | None = None,
    synthetic: bool | None = None,
    pooled: bool = True,
) -> Axes:
    """Per system: mean ``metric`` of the answers that reached the site and of those that did not.

    Parameters
    ----------
    table : DataFrame
        :func:`sgr_kit.breakdowns.site_reach_means`.
    metric : {"item_f1", "row_f1"}, default "item_f1"
    ax : Axes, optional
    synthetic : bool, optional
    pooled : bool, default True

    Returns
    -------
    Axes
        Two points per system (reached: filled; not reached: open) with their intervals.

    Examples
    --------
    >>> t = pd.DataFrame({"system": "m", "quantity": "item_f1", "reached": ["yes", "no"],
    ...                   "value": [60.0, 20.0], "ci_low": [50.0, 10.0], "ci_high": [70.0, 30.0]})
    >>> ax = plot_reach_scores(t)
    >>> ax.get_xlabel()
    'Item-F1 (percent)'
    >>> plt.close("all")
    """
    name = "plot_reach_scores"
    require(table, _COLUMNS, name=name, source=_SOURCE)
    part = nonempty(table[table["quantity"] == metric], name=name, what=f"the metric {metric!r}")
    order = _systems(part, pooled)
    y = _ys(order)
    ax = axes(ax, COLUMN_WIDTH, 1.0 + 0.22 * len(order))
    color = METRIC_COLORS.get(metric, OKABE_ITO["black"])
    for offset, reached, label, marker in ((-0.15, "yes", "reached the site", "o"),
                                           (0.15, "no", "did not reach it", "D")):  # fmt: skip
        rows = part[part["reached"] == reached].set_index("system").reindex(order)
        _intervals(ax, rows, y + offset, color=color if reached == "yes" else OKABE_ITO["black"], label=label,
                   marker=marker)  # fmt: skip
    systems_axis(ax, y, order)
    percent_axis(ax, "x", label=f"{METRIC_LABELS.get(metric, metric)} (percent)")
    legend_below(ax, ncol=1)
    return finish(ax, table, synthetic)


def figure_site_reach(
    table: pd.DataFrame, *, metric: str | Sequence[str] = "item_f1", synthetic: bool | None = None,
    pooled: bool = True,
) -> Figure:
    """Site reach in one figure: the shares (left), then the scores with and without reaching the site per metric.

    Parameters
    ----------
    table : DataFrame
        :func:`sgr_kit.breakdowns.site_reach_means`.
    metric : {"item_f1", "row_f1"} or a list of them, default "item_f1"
        One panel of scores per metric, beside the one panel of shares (drawn once).
    synthetic : bool, optional
    pooled : bool, default True

    Returns
    -------
    Figure
        One panel more than metrics, sharing the systems' axis, a full text width wide.

    Examples
    --------
    >>> t = pd.DataFrame({"system": "m", "quantity": ["site_reached", "item_f1", "item_f1", "failed_reached"],
    ...                   "reached": ["all", "yes", "no", "all"], "value": [80.0, 60.0, 20.0, 70.0],
    ...                   "ci_low": [70.0, 50.0, 10.0, 60.0], "ci_high": [90.0, 70.0, 30.0, 80.0], "synthetic": True})
    >>> fig = figure_site_reach(t)
    >>> len(fig.axes), fig.get_suptitle()
    (2, 'SYNTHETIC DATA (simulated answers)')
    >>> plt.close("all")
    """
    metrics = [metric] if isinstance(metric, str) else list(metric)
    n = len(_systems(table, pooled)) if "system" in getattr(table, "columns", ()) else 1
    fig, axs = panels(1 + len(metrics), width=TEXT_WIDTH, height=1.3 + 0.22 * n)
    plot_site_reached(table, ax=axs[0], synthetic=synthetic, pooled=pooled)
    for ax, name in zip(axs[1:], metrics):
        plot_reach_scores(table, metric=name, ax=ax, synthetic=synthetic, pooled=pooled)
        ax.tick_params(axis="y", labelleft=False)
    return banner(fig, table, synthetic)
