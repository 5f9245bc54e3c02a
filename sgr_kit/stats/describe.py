"""One plain sentence per result row: presentation helpers for the statistics tables.

Computations never format; these helpers do, for notebooks and reports. Each takes
one row (a mapping or a pandas Series) of the matching table. A row from synthetic
data ends with ``[synthetic data]``.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np
import pandas as pd

from ..schema import METRIC_LABELS
from ._tables import ALL_SYSTEMS

__all__ = [
    "describe_mean", "describe_paired", "describe_comparison", "describe_matrix", "describe_repeats",
    "describe_power", "format_p",
]  # fmt: skip


def format_p(p: float) -> str:
    """A p-value for text: ``< 0.001``, three decimals, or ``undefined``.

    Examples
    --------
    >>> format_p(0.0004), format_p(0.04567), format_p(float("nan"))
    ('< 0.001', '0.046', 'undefined')
    """
    if p is None or not np.isfinite(p):
        return "undefined"
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def _points(x: float) -> str:
    if not np.isfinite(x):
        return "NaN"
    text = f"{x:.1f}"
    return "0.0" if text == "-0.0" else text


def _count(x: float) -> str:
    return "an unknown number of" if not np.isfinite(x) else f"{int(x):,}"


def _interval(row: Mapping, level: float) -> str:
    if not (np.isfinite(row["ci_low"]) and np.isfinite(row["ci_high"])):
        return "no interval"
    return f"{100 * level:.0f}% CI [{_points(row['ci_low'])}, {_points(row['ci_high'])}]"


def _end(row: Mapping) -> str:
    """The row's note as a sentence, then the synthetic label."""
    note = row.get("note", "")
    text = f" Note: {note}." if isinstance(note, str) and note else ""
    return text + (" [synthetic data]" if bool(row.get("synthetic", False)) else "")


def _verdict(p: float, alpha: float, higher: str) -> str:
    if not np.isfinite(p):
        return "the test is undefined"
    if p < alpha:
        return f"significant at {alpha:g}: {higher}"
    return f"not significant at {alpha:g}"


def describe_mean(row: Mapping) -> str:
    """A row of :func:`~sgr_kit.stats.bootstrap_means` as a sentence.

    Examples
    --------
    >>> print(describe_mean({"system": "GPT-5.5", "variant": "goal", "metric": "item_f1", "value": 64.15,
    ...                      "ci_low": 55.0, "ci_high": 72.2, "n_problems": 50, "ci": 0.95}))
    GPT-5.5, goal tasks, Item-F1: 64.2 points, 95% CI [55.0, 72.2] over 50 base problems.
    """
    metric = METRIC_LABELS[row["metric"]]
    return (f"{row['system']}, {row['variant']} tasks, {metric}: {_points(row['value'])} points, "
            f"{_interval(row, row['ci'])} over {int(row['n_problems'])} base problems.{_end(row)}")  # fmt: skip


def describe_paired(row: Mapping, *, alpha: float | None = None) -> str:
    """A row of :func:`~sgr_kit.stats.paired_tests` as a sentence.

    A system's row quotes the Holm-adjusted sign-flip p; the pooled row (not part of
    the Holm family) its unadjusted sign-flip p. ``alpha`` defaults to ``1 - ci``.

    Examples
    --------
    >>> print(describe_paired({"system": "GPT-5.5", "metric": "item_f1", "diff": 4.07, "ci_low": -1.2,
    ...                        "ci_high": 9.4, "p_holm": 0.31, "p_signflip": 0.06, "n_pairs": 50, "ci": 0.95}))
    GPT-5.5: constraint minus goal Item-F1 = 4.1 points, 95% CI [-1.2, 9.4], Holm-adjusted p = 0.310
    (sign-flip test, 50 pairs); not significant at 0.05.
    """
    alpha = 1 - row["ci"] if alpha is None else alpha
    pooled = row["system"] == ALL_SYSTEMS
    p = row["p_signflip"] if pooled else row["p_holm"]
    label = "unadjusted p" if pooled else "Holm-adjusted p"
    who = "All systems (per problem, the mean over systems)" if pooled else str(row["system"])
    higher = f"{'constraint' if row['diff'] > 0 else 'goal'} tasks score higher"
    return (f"{who}: constraint minus goal {METRIC_LABELS[row['metric']]} = {_points(row['diff'])} points, "
            f"{_interval(row, row['ci'])}, {label} = {format_p(p)} (sign-flip test, {int(row['n_pairs'])} pairs); "
            f"{_verdict(p, alpha, higher)}.{_end(row)}")  # fmt: skip


def describe_comparison(row: Mapping, *, alpha: float = 0.05) -> str:
    """A row of :func:`~sgr_kit.stats.system_matrix` as a sentence (Holm-adjusted p).

    Examples
    --------
    >>> print(describe_comparison({"system_a": "A", "system_b": "B", "metric": "row_f1", "variant": "overall",
    ...                            "diff": 12.0, "ci_low": 5.0, "ci_high": 19.0, "p_holm": 0.004,
    ...                            "n_problems": 50, "ci": 0.95}))
    A minus B, Row-F1 (overall) = 12.0 points, 95% CI [5.0, 19.0], Holm-adjusted p = 0.004
    (sign-flip test, 50 problems); significant at 0.05: A scores higher.
    """
    p = row["p_holm"]
    higher = f"{row['system_a'] if row['diff'] > 0 else row['system_b']} scores higher"
    return (f"{row['system_a']} minus {row['system_b']}, {METRIC_LABELS[row['metric']]} ({row['variant']}) = "
            f"{_points(row['diff'])} points, {_interval(row, row['ci'])}, Holm-adjusted p = {format_p(p)} "
            f"(sign-flip test, {int(row['n_problems'])} problems); "
            f"{_verdict(p, alpha, higher)}.{_end(row)}")  # fmt: skip


def describe_matrix(table: pd.DataFrame, *, alpha: float = 0.05) -> str:
    """One sentence for a whole :func:`~sgr_kit.stats.system_matrix`: which comparisons are significant.

    Examples
    --------
    >>> t = pd.DataFrame({"system_a": ["A", "B"], "system_b": ["B", "A"], "metric": "item_f1",
    ...                   "variant": "overall", "diff": [3.0, -3.0], "p_holm": [0.5, 0.5], "synthetic": False})
    >>> print(describe_matrix(t))
    0 of 1 system comparisons on Item-F1 (overall) are significant after Holm at 0.05.
    """
    significant = table[(table["p_holm"] < alpha) & (table["diff"] > 0)]  # each pair once, the higher first
    metric, variant = METRIC_LABELS[table["metric"].iloc[0]], table["variant"].iloc[0]
    text = (f"{len(significant)} of {len(table) // 2} system comparisons on {metric} ({variant}) "
            f"are significant after Holm at {alpha:g}")  # fmt: skip
    if len(significant):
        text += ": " + ", ".join(f"{a} > {b}" for a, b in zip(significant["system_a"], significant["system_b"]))
    return f"{text}.{' [synthetic data]' if bool(table['synthetic'].any()) else ''}"


def describe_repeats(row: Mapping) -> str:
    """A row of :func:`~sgr_kit.stats.repeat_stats` as a sentence.

    Examples
    --------
    >>> print(describe_repeats({"system": "S", "variant": "goal", "metric": "item_f1", "n_tasks": 5,
    ...                         "repeats_min": 2, "repeats_max": 2, "avg_at_n": 61.2, "best_at_n": 70.1,
    ...                         "sd_within": 8.1, "share_within": 0.12}))
    S, goal tasks, Item-F1: over 5 tasks answered 2 times, the average answer scores 61.2 points and the
    best 70.1; repeats of one task differ by SD 8.1 points, 12% of the variance lies between repeats.
    """
    low, high = row["repeats_min"], row["repeats_max"]
    times = f"{low}" if low == high else f"{low}-{high}"
    share = "an undefined share" if not np.isfinite(row["share_within"]) else f"{100 * row['share_within']:.0f}%"
    return (f"{row['system']}, {row['variant']} tasks, {METRIC_LABELS[row['metric']]}: over {int(row['n_tasks'])} "
            f"tasks answered {times} times, the average answer scores {_points(row['avg_at_n'])} points and the "
            f"best {_points(row['best_at_n'])}; repeats of one task differ by SD {_points(row['sd_within'])} "
            f"points, {share} of the variance lies between repeats.{_end(row)}")  # fmt: skip


def describe_power(row: Mapping) -> str:
    """A row of :func:`~sgr_kit.stats.power` as a sentence.

    Examples
    --------
    >>> print(describe_power({"comparison": "constraint vs goal", "system": "assumed", "metric": "item_f1",
    ...                       "diff": 5.0, "sd": 20.0, "n_problems": 50.0, "n_repeats": 1.0, "power_at_n": 0.41,
    ...                       "n_problems_needed": 128.0, "n_repeats_needed": float("nan"), "mde": 8.1,
    ...                       "target_power": 0.8, "alpha": 0.05, "note": ""}))
    constraint vs goal, assumed, Item-F1: a difference of 5 points needs 128 base problems for 80% power
    at alpha 0.05 (SD of the differences 20.0 points); the current 50 problems give power 0.41 and
    detect 8.1 points.
    """
    text = (f"{row['comparison']}, {row['system']}, {METRIC_LABELS[row['metric']]}: a difference of "
            f"{row['diff']:g} points needs {_count(row['n_problems_needed'])} base problems for "
            f"{100 * row['target_power']:.0f}% power at alpha {row['alpha']:g} (SD of the differences "
            f"{_points(row['sd'])} points)")  # fmt: skip
    if np.isfinite(row["n_problems"]):
        detect = (f"detect {_points(row['mde'])} points" if np.isfinite(row["mde"])
                  else "detect no difference on the 0-100 scale (not reachable)")
        power_now = "undefined power" if not np.isfinite(row["power_at_n"]) else f"power {row['power_at_n']:.2f}"
        text += f"; the current {int(row['n_problems'])} problems give {power_now} and {detect}"
        if row["power_at_n"] < row["target_power"] and np.isfinite(row["n_repeats_needed"]):
            text += f", or {int(row['n_repeats_needed'])} repeats per task would reach the power"
    return f"{text}.{_end(row)}"
