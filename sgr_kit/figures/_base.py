"""Helpers shared by the plotting modules (not public)."""

from __future__ import annotations

from typing import Callable, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from seaborn.utils import relative_luminance
from matplotlib.font_manager import FontProperties
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from ..errors import InsufficientDataError, SgrKitError
from ..schema import ALL_SYSTEMS
from ..text import figure_label
from .theme import COLUMN_WIDTH, drawn_from_synthetic, mark_synthetic, note_synthetic

#: How far past 0 and 100 a percent axis reaches (percent points), so a marker at either end is drawn whole.
PERCENT_MARGIN = 3.0

GROUP_COLUMNS = ("family", "ecosystem", "domain", "bin")


def require(table: object, columns: Sequence[str], *, name: str, source: str) -> pd.DataFrame:
    """Raise :class:`SgrKitError` unless ``table`` is a DataFrame with ``columns``; ``source`` names its maker."""
    if not isinstance(table, pd.DataFrame):
        raise SgrKitError(f"{name}: expected a DataFrame ({source}), found {type(table).__name__}")
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise SgrKitError(
            f"{name}: the table lacks column(s) {', '.join(missing)}; expected the output of {source} "
            f"(found {', '.join(map(str, table.columns)) or 'no columns'})"
        )
    return table


def nonempty(table: pd.DataFrame, *, name: str, what: str) -> pd.DataFrame:
    """Raise when nothing is left to draw after selecting ``what``."""
    if table.empty:
        raise InsufficientDataError(f"{name}: no rows to draw for {what}")
    for column in ("value", "points", "diff"):
        if column in table.columns and table[column].isna().all():
            raise InsufficientDataError(f"{name}: no {column} to draw for {what}: every one is undefined (no answer "
                                        f"with a score, e.g. every answer failed and failed answers are excluded)")
    return table


def group_column(table: pd.DataFrame, *, name: str) -> str:
    """The grouping column of a group-mean table (``family``, ``ecosystem``, ``domain`` or ``bin``)."""
    found = [c for c in GROUP_COLUMNS if c in table.columns]
    if len(found) != 1:
        raise SgrKitError(
            f"{name}: expected exactly one group column among {', '.join(GROUP_COLUMNS)} (a table of "
            f"sgr_kit.breakdowns.family_means, ecosystem_means, domain_means or bin_means); found {found or 'none'}"
        )
    return found[0]


def scale() -> float:
    """How much larger than the paper theme's 7 pt the current text is (1 for ``paper``, about 2.3 for ``slide``)."""
    return max(points(plt.rcParams["font.size"]) / 7.0, 1.0)


def axes(ax: Axes | None, width: float, height: float) -> Axes:
    """``ax``, or the axes of a new constrained-layout figure of ``width`` x ``height`` inches at paper size
    (scaled with the theme's text size)."""
    if ax is not None:
        if not isinstance(ax, Axes):
            raise SgrKitError(f"ax must be a matplotlib Axes or None; found {type(ax).__name__}")
        return ax
    _, new = plt.subplots(figsize=(width * scale(), height * scale()), layout="constrained")
    return new


def finish(ax: Axes, table: pd.DataFrame | None, synthetic: bool | None) -> Axes:
    """Mark ``ax`` when the data are synthetic and return it."""
    return mark_synthetic(ax, drawn_from_synthetic(table, synthetic))


def figure(
    plot: Callable[..., Axes],
    table: pd.DataFrame,
    *,
    width: float | None,
    height: float,
    synthetic: bool | None,
    **kwargs,
) -> Figure:
    """A new figure holding one ``plot(table, ax=..., **kwargs)``, with the synthetic note when due.

    ``height`` is in inches at paper size (scaled with the theme's text size); ``width``
    is in inches, default a paper column (scaled likewise).
    """
    fig, ax = plt.subplots(figsize=(width or COLUMN_WIDTH * scale(), height * scale()), layout="constrained")
    plot(table, ax=ax, synthetic=synthetic, **kwargs)
    return banner(fig, table, synthetic)


def banner(fig: Figure, table: pd.DataFrame | None, synthetic: bool | None) -> Figure:
    """The figure-level synthetic-data title, when the data are synthetic (every figure helper ends here)."""
    return note_synthetic(fig, drawn_from_synthetic(table, synthetic))


def points(size: object) -> float:
    """A font size (number or name such as ``"small"``) in points."""
    return FontProperties(size=size).get_size_in_points()


def legend_below(ax: Axes, *, ncol: int, xlabel: bool = True, **kwargs) -> None:
    """A legend centred under ``ax``, clear of its tick labels and axis label (a fixed distance in points)."""
    rc = plt.rcParams
    below = points(rc["xtick.labelsize"]) + rc["xtick.major.pad"] + rc["xtick.major.size"] + 3.0
    if xlabel and ax.get_xlabel():
        below += points(rc["axes.labelsize"]) + rc["axes.labelpad"]
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, 0.0), bbox_transform=ax.transAxes, ncol=ncol,
              borderaxespad=below / points(rc["legend.fontsize"]), handlelength=1.0, columnspacing=0.8, **kwargs)


_CANDIDATES = (  # offset (points) and alignment of a label around its point, in order of preference
    (4, 0, "left", "center"), (-4, 0, "right", "center"), (3, 3, "left", "bottom"), (3, -3, "left", "top"),
    (-3, 3, "right", "bottom"), (-3, -3, "right", "top"), (0, 5, "center", "bottom"), (0, -5, "center", "top"),
)


def _overlap(a: tuple, b: tuple) -> float:
    dx = min(a[1], b[1]) - max(a[0], b[0])
    dy = min(a[3], b[3]) - max(a[2], b[2])
    return dx * dy if dx > 0 and dy > 0 else 0.0


def place_labels(ax: Axes, xs, ys, texts, *, size: float) -> None:
    """Write ``texts`` beside their points where they overlap no other label or point (estimated extents).

    Call it once the axes' limits and scales are set; a logarithmic x axis is measured in
    decades, as it is drawn.
    """
    log = ax.get_xscale() == "log"
    if log:
        xs = [float(np.log10(x)) for x in xs]
    box = ax.get_window_extent()
    (x_lo, x_hi), (y_lo, y_hi) = ax.get_xlim(), ax.get_ylim()
    if log:
        x_lo, x_hi = float(np.log10(x_lo)), float(np.log10(x_hi))
    x_unit = (x_hi - x_lo) / max(box.width, 1) * ax.figure.dpi / 72  # data units per point
    y_unit = (y_hi - y_lo) / max(box.height, 1) * ax.figure.dpi / 72
    r = 3.0
    taken = [(x - r * x_unit, x + r * x_unit, y - r * y_unit, y + r * y_unit) for x, y in zip(xs, ys)]
    for i in sorted(range(len(xs)), key=lambda i: -ys[i]):
        width, height = 0.6 * size * len(texts[i]) * x_unit, 1.2 * size * y_unit
        best, best_cost = None, None
        for dx, dy, ha, va in _CANDIDATES:
            x0 = xs[i] + dx * x_unit - {"left": 0, "right": width, "center": width / 2}[ha]
            y0 = ys[i] + dy * y_unit - {"bottom": 0, "top": height, "center": height / 2}[va]
            rect = (x0, x0 + width, y0, y0 + height)
            cost = sum(_overlap(rect, t) for j, t in enumerate(taken) if j != i)
            cost += 0 if (x_lo <= rect[0] and rect[1] <= x_hi and y_lo <= rect[2] and rect[3] <= y_hi) else 1e6
            if best_cost is None or cost < best_cost - 1e-12:
                best, best_cost = (dx, dy, ha, va, rect), cost
            if cost == 0:
                break
        dx, dy, ha, va, rect = best
        taken.append(rect)
        ax.annotate(texts[i], (10 ** xs[i] if log else xs[i], ys[i]), xytext=(dx, dy), textcoords="offset points", ha=ha, va=va,
                    fontsize=size)  # fmt: skip


def system_label(system: str) -> str:
    """The label of a system in a figure: its name as the tables show it, ``All systems`` for the pooled row.

    Names are not abbreviated (a figure names a system as the tables beside it do); a name
    from data is made safe and cut at :data:`sgr_kit.text.LABEL_WIDTH` characters
    (:func:`sgr_kit.text.figure_label`).

    Examples
    --------
    >>> system_label("DeepSeek V4 Pro"), system_label(ALL_SYSTEMS)
    ('DeepSeek V4 Pro', 'All systems')
    """
    return "All systems" if system == ALL_SYSTEMS else figure_label(system)


def percent_axis(ax: Axes, axis: str = "x", *, upper: float = 100.0, step: float = 20.0, label: str | None = None) -> None:
    """A 0-``upper`` percent axis with a margin at both ends, so that a point (or bar) at 0 or 100 is not cut.

    The ticks run from 0 to ``upper`` by ``step``; the axis line spans 0 to ``upper`` only, and
    the limits reach :data:`PERCENT_MARGIN` points past both ends.

    Examples
    --------
    >>> fig, ax = plt.subplots()
    >>> percent_axis(ax, "x")
    >>> tuple(float(x) for x in ax.get_xlim())
    (-3.0, 103.0)
    >>> plt.close(fig)
    """
    margin = PERCENT_MARGIN * upper / 100.0
    ticks = np.arange(0, upper + step / 2, step)
    if axis == "x":
        ax.set_xlim(-margin, upper + margin)
        ax.set_xticks(ticks)
        if label is not None:
            ax.set_xlabel(label)
        ax.spines["bottom"].set_bounds(0, upper)
    else:
        ax.set_ylim(-margin, upper + margin)
        ax.set_yticks(ticks)
        if label is not None:
            ax.set_ylabel(label)
        ax.spines["left"].set_bounds(0, upper)


def panels(n: int, *, width: float, height: float, sharey: bool = True) -> tuple[Figure, list[Axes]]:
    """A constrained-layout figure of ``n`` panels side by side (``width`` x ``height`` inches at paper size)."""
    fig, axs = plt.subplots(1, n, sharey=sharey, layout="constrained", squeeze=False,
                            figsize=(width * scale(), height * scale()))
    fig.get_layout_engine().set(wspace=0.06)  # the 100 of one panel clear of the 0 of the next
    return fig, list(axs[0])


def systems_axis(ax: Axes, y: np.ndarray, systems: Sequence[str]) -> None:
    """Systems down the y axis (the first at the top), named as the tables name them, without tick marks."""
    ax.set_yticks(y, [system_label(s) for s in systems])
    if not ax.yaxis_inverted():  # axes sharing y with an inverted one are inverted already
        ax.invert_yaxis()
    ax.tick_params(axis="y", length=0)


def text_size(factor: float = 1.0) -> float:
    """``factor`` times the current tick-label size, in points (for annotations)."""
    return factor * points(plt.rcParams["xtick.labelsize"])


def heatmap(
    ax: Axes,
    grid: pd.DataFrame,
    *,
    cmap: str,
    vmin: float | None,
    vmax: float | None,
    labels: np.ndarray | None,
    cbar: bool,
    cbar_label: str,
) -> None:
    """Draw ``grid`` (rows top to bottom) as a heatmap with optional cell texts and colour bar.

    Like :func:`seaborn.heatmap` (white cell borders, text black or white by the
    cell's luminance) without drawing the whole figure to place tick labels.
    """
    data = np.ma.masked_invalid(grid.to_numpy(dtype=float))
    colormap = sns.color_palette(cmap, as_cmap=True) if isinstance(cmap, str) else cmap
    mesh = ax.pcolormesh(data, cmap=colormap, vmin=vmin, vmax=vmax, edgecolors="white", linewidth=0.5)
    ax.set(xlim=(0, data.shape[1]), ylim=(0, data.shape[0]))
    ax.invert_yaxis()
    ax.set_xticks(np.arange(data.shape[1]) + 0.5)
    ax.set_yticks(np.arange(data.shape[0]) + 0.5)
    for spine in ax.spines.values():
        spine.set_visible(False)
    if labels is not None:
        colors = mesh.cmap(mesh.norm(data.filled(np.nan)))
        hidden = np.ma.getmaskarray(data)
        for (i, j), text in np.ndenumerate(labels):
            if not text or hidden[i, j]:
                continue
            color = "black" if relative_luminance(colors[i, j]) > 0.408 else "white"
            ax.text(j + 0.5, i + 0.5, text, ha="center", va="center", color=color, fontsize=text_size(0.9))
    if cbar:
        bar = ax.figure.colorbar(mesh, ax=ax, shrink=0.9, label=cbar_label)
        bar.outline.set_linewidth(0)
