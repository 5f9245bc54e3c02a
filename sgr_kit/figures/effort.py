"""The score-cost frontier: each system's score against its mean cost per task.

They take the table of :func:`sgr_kit.breakdowns.effort.score_cost_frontier` (one per metric).
"""

from __future__ import annotations

import textwrap

import matplotlib.pyplot as plt
import numpy as np
from matplotlib import ticker
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from ..errors import SgrKitError
from ..schema import METRIC_LABELS
from ._base import axes, finish, nonempty, place_labels, require, scale, system_label, text_size
from .theme import COLUMN_WIDTH, METRIC_COLORS, OKABE_ITO, TEXT_WIDTH, drawn_from_synthetic, note_synthetic

__all__ = ["plot_frontier", "figure_frontier"]

_COLUMNS = ("system", "metric", "axis", "score", "score_ci_low", "score_ci_high", "cost", "cost_ci_low",
            "cost_ci_high", "on_frontier")  # fmt: skip
_SOURCE = "sgr_kit.breakdowns.effort.score_cost_frontier"
_AXIS_LABELS = {"cost_usd": "mean cost per task (USD)", "tokens": "mean tokens per task (input + output)"}


def _errors(value: np.ndarray, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    return np.nan_to_num(np.vstack([np.clip(value - low, 0, None), np.clip(high - value, 0, None)]))


def plot_frontier(frontier: pd.DataFrame, *, ax: Axes | None = None, synthetic: bool | None = None,
                  log: bool | None = None) -> Axes:  # fmt: skip
    """Score against mean cost per task, with intervals on both axes; the frontier's systems filled and joined.

    Parameters
    ----------
    frontier : DataFrame
        :func:`sgr_kit.breakdowns.effort.score_cost_frontier`.
    ax : Axes, optional
    synthetic : bool, optional
    log : bool, optional
        A logarithmic cost axis; default when the costs span more than a factor of 8.

    Returns
    -------
    Axes
        One point per system of known cost (filled: on the frontier; open: dominated), the
        frontier as a step line (a system is worth its cost until the next one scores higher),
        and the systems' short names. Systems of unknown cost are left out (named in the title).

    Examples
    --------
    >>> f = pd.DataFrame({"system": ["a", "b"], "metric": "item_f1", "axis": "cost_usd", "score": [60.0, 50.0],
    ...     "score_ci_low": [55.0, 45.0], "score_ci_high": [65.0, 55.0], "cost": [1.0, 2.0], "cost_ci_low": [0.8, 1.5],
    ...     "cost_ci_high": [1.2, 2.5], "on_frontier": [True, False]})
    >>> ax = plot_frontier(f)
    >>> ax.get_xlabel(), ax.get_ylabel()
    ('mean cost per task (USD)', 'Item-F1 (percent)')
    >>> plt.close("all")
    """
    name = "plot_frontier"
    require(frontier, _COLUMNS, name=name, source=_SOURCE)
    known = frontier[np.isfinite(frontier["score"].astype(float)) & np.isfinite(frontier["cost"].astype(float))]
    known = nonempty(known, name=name, what="systems with a known score and cost")
    metric, axis = str(known["metric"].iloc[0]), str(known["axis"].iloc[0])
    if known["metric"].nunique() > 1 or known["axis"].nunique() > 1:
        raise SgrKitError(f"{name}: expected one metric and one cost axis; found {sorted(set(known['metric']))} and "
                          f"{sorted(set(known['axis']))}")  # fmt: skip
    ax = axes(ax, COLUMN_WIDTH, COLUMN_WIDTH * 0.8)
    color = METRIC_COLORS.get(metric, OKABE_ITO["blue"])
    for on, face, label in ((True, color, "on the frontier"), (False, "white", "dominated")):
        part = known[known["on_frontier"].astype(bool) == on]
        if part.empty:
            continue
        x, y = part["cost"].to_numpy(dtype=float), part["score"].to_numpy(dtype=float)
        ax.errorbar(x, y, xerr=_errors(x, part["cost_ci_low"].to_numpy(dtype=float),
                                       part["cost_ci_high"].to_numpy(dtype=float)),
                    yerr=_errors(y, part["score_ci_low"].to_numpy(dtype=float),
                                 part["score_ci_high"].to_numpy(dtype=float)),
                    fmt="o", color=color, markerfacecolor=face, markeredgecolor=color, label=label,
                    markersize=4 * scale(), elinewidth=0.7, capsize=0, zorder=3)  # fmt: skip
    line = known[known["on_frontier"].astype(bool)].sort_values(["cost", "score"])
    if len(line) > 1:
        ax.step(line["cost"], line["score"], where="post", color=color, linewidth=0.9, alpha=0.8, zorder=2)
    costs = known["cost"].to_numpy(dtype=float)
    if log is None:
        log = bool(costs.min() > 0 and costs.max() / costs.min() > 8)
    if log:
        ax.set_xscale("log")
        ax.xaxis.set_major_locator(ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
        ax.xaxis.set_minor_formatter(ticker.NullFormatter())
    ax.set(xlabel=_AXIS_LABELS.get(axis, axis), ylabel=f"{METRIC_LABELS.get(metric, metric)} (percent)")
    place_labels(ax, known["cost"].tolist(), known["score"].tolist(), [system_label(str(s)) for s in known["system"]],
                 size=text_size(0.9))  # fmt: skip
    unknown = frontier.loc[~frontier.index.isin(known.index), "system"].astype(str).tolist()
    if unknown:
        # wrapped to the panel's width: a long list would run into the next panel's title
        names = ", ".join(system_label(s).replace(" ", "\u00a0") for s in unknown)  # a name is never split
        title = textwrap.fill(f"cost unknown: {names}", width=48, break_on_hyphens=False)
        ax.set_title(title, fontsize=text_size(0.9), loc="left")
    ax.legend(loc="lower right", handlelength=1.0)
    return finish(ax, frontier, synthetic)


def figure_frontier(item: pd.DataFrame, row: pd.DataFrame | None = None, *, synthetic: bool | None = None) -> Figure:
    """The score-cost frontier of Item-F1 (left) and Row-F1 (right) in one figure.

    Parameters
    ----------
    item, row : DataFrame
        :func:`sgr_kit.breakdowns.effort.score_cost_frontier` with ``metric="item_f1"`` and
        ``"row_f1"`` (``row`` optional: one panel without it).
    synthetic : bool, optional

    Returns
    -------
    Figure

    Examples
    --------
    >>> f = pd.DataFrame({"system": ["a", "b"], "metric": "item_f1", "axis": "tokens", "score": [60.0, 50.0],
    ...     "score_ci_low": [55.0, 45.0], "score_ci_high": [65.0, 55.0], "cost": [1e5, 2e5],
    ...     "cost_ci_low": [8e4, 1.5e5], "cost_ci_high": [1.2e5, 2.5e5], "on_frontier": [True, False],
    ...     "synthetic": True})
    >>> fig = figure_frontier(f, f.assign(metric="row_f1"))
    >>> len(fig.axes), fig.get_suptitle()
    (2, 'SYNTHETIC DATA (simulated answers)')
    >>> plt.close("all")
    """
    tables = [item] if row is None else [item, row]
    width = COLUMN_WIDTH if row is None else TEXT_WIDTH
    fig, panels = plt.subplots(1, len(tables), squeeze=False, layout="constrained",
                               figsize=(width * scale(), COLUMN_WIDTH * 0.85 * scale()))  # fmt: skip
    for ax, table in zip(panels[0], tables):
        plot_frontier(table, ax=ax, synthetic=synthetic)
    return note_synthetic(fig, any(drawn_from_synthetic(t, synthetic) for t in tables))
