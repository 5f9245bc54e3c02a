"""The report's figures: one theme, axes-level ``plot_*`` functions, figure-level helpers, one save helper.

Every ``plot_*(table, *, ax=None, ...)`` draws a tidy table of :mod:`sgr_kit.breakdowns`
or :mod:`sgr_kit.stats` into ``ax`` (a new axes when None) and returns the Axes;
every ``figure_*(table, ...)`` returns a new Figure sized for a paper column, so a
user can restyle either. A figure drawn from synthetic data (a true ``synthetic``
column, or ``synthetic=True``) says so on the figure: "SYNTHETIC DATA" across
every axes, and in the title of a figure-level helper's figure.

========================================  ==========================================  ======================
figure                                    function                                    input table
========================================  ==========================================  ======================
Item-F1 vs Row-F1 (Figure 2a)             :func:`plot_item_vs_row`                    ``stats.bootstrap_means``
error types over all failures (Fig. 2b)   :func:`plot_error_distribution`             ``error_profile_by_system``
error-type shares per system (Figure 4)   :func:`plot_error_shares`                   ``error_profile_by_system``
system x family heatmaps (Figure 3)       :func:`plot_score_heatmap`                  ``family_means``
family x error type (Figure 5)            :func:`plot_family_errors`                  ``error_profile_by_family``
scores by error type (Figure 6)           :func:`plot_error_type_scores`              ``audit_scores``
scores by cardinality bin (Figure 7)      :func:`plot_bins`                           ``bin_means``
constraint - goal forest plot             :func:`plot_forest`                         ``stats`` paired tests
system-versus-system matrix               :func:`plot_system_matrix`                  ``stats`` system matrix
where the points went                     :func:`plot_points_lost`                    ``points_lost``
site reached, and scores with/without     :func:`plot_site_reached`,                  ``site_reach_means``
                                          :func:`plot_reach_scores`
========================================  ==========================================  ======================

Call :func:`set_theme` first (``"paper"`` or ``"slide"``) and save with
:func:`save_figure` (PNG and SVG, byte-stable).
"""

from __future__ import annotations

from .comparisons import figure_forest, figure_system_matrix, plot_forest, plot_system_matrix
from .errors import (
    figure_error_distribution, figure_error_shares, figure_error_type_scores, figure_family_errors,
    plot_error_distribution, plot_error_shares, plot_error_type_scores, plot_family_errors,
)  # fmt: skip
from .reach import figure_site_reach, plot_reach_scores, plot_site_reached
from .scores import (
    figure_bins, figure_family_heatmaps, figure_item_vs_row, figure_points_lost, plot_bins, plot_item_vs_row,
    plot_points_lost, plot_score_heatmap,
)  # fmt: skip
from .theme import (
    CAUSE_COLORS, COLUMN_WIDTH, ERROR_COLORS, METRIC_COLORS, OKABE_ITO, SLIDE_WIDTH, SYNTHETIC_GID, SYNTHETIC_TEXT,
    TEXT_WIDTH, mark_synthetic, save_figure, set_theme, theme_rc,
)  # fmt: skip

__all__ = [
    "set_theme", "theme_rc", "save_figure", "mark_synthetic",
    "COLUMN_WIDTH", "TEXT_WIDTH", "SLIDE_WIDTH", "OKABE_ITO", "METRIC_COLORS", "ERROR_COLORS", "CAUSE_COLORS",
    "SYNTHETIC_TEXT", "SYNTHETIC_GID",
    "plot_item_vs_row", "plot_score_heatmap", "plot_bins", "plot_points_lost",
    "plot_error_shares", "plot_error_distribution", "plot_family_errors", "plot_error_type_scores",
    "plot_forest", "plot_system_matrix", "plot_site_reached", "plot_reach_scores", "figure_site_reach",
    "figure_item_vs_row", "figure_family_heatmaps", "figure_bins", "figure_points_lost",
    "figure_error_shares", "figure_error_distribution", "figure_family_errors", "figure_error_type_scores",
    "figure_forest", "figure_system_matrix",
]  # fmt: skip
