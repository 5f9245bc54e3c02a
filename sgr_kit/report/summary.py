"""A plain-text summary of scored runs, with the paper's Table 2 beside each value.

This is the presentation layer for ``sgr-kit summary`` and ``make report``:
computations live in :mod:`sgr_kit.aggregate` and :mod:`sgr_kit.stats`; here values are only arranged
and formatted.
"""

from __future__ import annotations

import re

import pandas as pd

from ..aggregate import by_language, system_means
from .. import reference
from ..schema import METRIC_LABELS, METRICS, PAPER_TASKS, PAPER_TASKS_PER_VARIANT, STATUSES, SYNTHETIC_NOTE, is_synthetic
from ..text import NAME_WIDTH, short_label

__all__ = ["summary_table", "format_summary", "no_interval_reason"]


def _paper_values() -> pd.Series:
    """The paper's per-system means indexed by (system, variant, metric).

    Variant cells come from Table 2; the ``overall`` row from Table 3 (per-model
    averages on all tasks), which also gives Row-F1 and P.O.A. over all tasks. A
    missing or damaged reference table raises (never a silent NaN).
    """
    table2 = reference.table2()
    table3 = reference.table3().assign(variant="overall")
    both = pd.concat([table2[table2["variant"] != "overall"], table3], ignore_index=True)
    return both.set_index(["system", "variant", "metric"])["value"]


def summary_table(scores: pd.DataFrame, *, failure_policy: str = "zero", paper: bool = True) -> pd.DataFrame:
    """One row per (system, variant) with the three means and, when known, the paper's values.

    Parameters
    ----------
    scores : DataFrame
        Output of :func:`sgr_kit.score.score_runs`.
    failure_policy : {"zero", "exclude"}
        See :mod:`sgr_kit.aggregate`.
    paper : bool, default True
        Add ``paper_<metric>`` columns from Table 2 for systems the paper evaluated.

    Returns
    -------
    DataFrame
        ``system, variant, n_tasks, n_failed, item_f1, row_f1, poa`` (percent points)
        and, with ``paper=True``, ``paper_item_f1, paper_row_f1, paper_poa`` (NaN where
        the paper has no value).
    """
    means = system_means(scores, failure_policy=failure_policy)
    keys = ["system", "variant"]
    wide = means.set_index([*keys, "metric"])["value"].unstack("metric").reindex(columns=list(METRICS))
    counts = means.groupby(keys, sort=False)[["n_tasks", "n_failed"]].max()
    out = counts.join(wide).reset_index()
    if paper:
        ref = _paper_values()
        for metric in METRICS:
            out[f"paper_{metric}"] = [
                float(ref.get((s, v, metric), float("nan")))
                for s, v in zip(out["system"], out["variant"])
            ]
    return out


_TOO_FEW = re.compile(r"^(\d+) base problem\(s\): no interval drawn \(too few: [\d.]+% intervals from (\d+) problems on\)$")


def no_interval_reason(note: object) -> str:
    """Why an interval is missing, short: a bootstrap note on too few base problems as ``5 base problems; an interval needs 6``.

    Any other note is returned as it is ("" for none).

    Examples
    --------
    >>> no_interval_reason("5 base problem(s): no interval drawn (too few: 95% intervals from 6 problems on)")
    '5 base problems; an interval needs 6'
    >>> no_interval_reason("1 base problem(s): no interval drawn (too few: 95% intervals from 6 problems on)")
    '1 base problem; an interval needs 6'
    """
    if not isinstance(note, str):
        return ""
    match = _TOO_FEW.match(note)
    if match is None:
        return note
    n = int(match.group(1))
    return f"{n} base problem{'' if n == 1 else 's'}; an interval needs {match.group(2)}"


def _letter(k: int) -> str:
    """The mark of the ``k``-th reason: a, b, ..., z, then aa, ab, ..."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    return letters[k] if k < 26 else _letter(k // 26 - 1) + letters[k % 26]


def _no_interval(value: float, note: object) -> str:
    """Why a mean has no interval, in words."""
    if pd.isna(value):
        return "no mean to put an interval around (no answer with a score)"
    return no_interval_reason(note) if isinstance(note, str) and note else "no interval drawn"


def format_summary(
    scores: pd.DataFrame,
    *,
    failure_policy: str = "zero",
    source: str = "",
    ci: bool = False,
    n_boot: int = 10_000,
    seed: int = 0,
) -> str:
    """Render :func:`summary_table` as text, with the synthetic-data note when it applies.

    Beside each mean, in parentheses, the paper's value; with ``ci=True`` the mean is also
    followed, in brackets, by its 95% bootstrap interval over base problems
    (:func:`sgr_kit.stats.bootstrap_means`, ``n_boot`` resamples, ``seed``). A row of a
    system the paper evaluated, scored on fewer tasks than the paper (50 per variant, 100
    overall), is flagged ``!`` after its task count, with a line saying why. The system
    column is as wide as the longest system name, and a name is shown on one line with its
    control characters visible and cut to :data:`sgr_kit.text.NAME_WIDTH` characters. A table
    holding both languages shows each system once per language (:func:`sgr_kit.aggregate.by_language`).
    """
    scores, _ = by_language(scores)
    table = summary_table(scores, failure_policy=failure_policy)
    intervals = None
    if ci:
        from ..stats import bootstrap_means

        boot = bootstrap_means(scores, failure_policy=failure_policy, n_boot=n_boot, seed=seed)
        intervals = boot.set_index(["system", "variant", "metric"])[["ci_low", "ci_high", "note"]]
    lines = []
    if is_synthetic(scores):
        lines += [SYNTHETIC_NOTE, ""]
    status = scores["status"].value_counts().reindex(list(STATUSES), fill_value=0)
    lines.append(
        f"{source + ': ' if source else ''}{len(scores)} answers, "
        f"{scores['system'].nunique()} systems, {scores['task_id'].nunique()} tasks; status: "
        + ", ".join(f"{k} {v}" for k, v in status.items())
    )
    has_paper = table[[f"paper_{m}" for m in METRICS]].notna().any().any()
    lines.append(f"Means in percent points; failure policy '{failure_policy}'"
                 + ("; (in parentheses: the paper's Table 2, and Table 3 for overall)" if has_paper else "")
                 + ("; [in brackets: the 95% bootstrap interval over base problems; n/a with a letter: no interval, "
                    "the letter's note below says why]." if ci else "."))
    lines.append("")
    names = {s: short_label(s, width=NAME_WIDTH) for s in table["system"]}  # controls visible, cut with "…"
    name_width = max([24, *(len(n) + 2 for n in names.values())])
    cell_width = 34 if ci else 18
    header = f"{'system':<{name_width}}{'variant':<12}{'tasks':>6} {'failed':>6}" + "".join(
        f"{METRIC_LABELS[m]:>{cell_width}}" for m in METRICS
    )
    lines += [header, "-" * len(header)]
    flagged = False
    reasons: dict[str, list[str]] = {}  # why an interval is missing -> the (system, variant, metric) it applies to
    for row in table.itertuples(index=False):
        paper_tasks = PAPER_TASKS if row.variant == "overall" else PAPER_TASKS_PER_VARIANT
        has_paper = any(pd.notna(getattr(row, f"paper_{m}")) for m in METRICS)
        short = has_paper and row.n_tasks < paper_tasks
        flagged = flagged or short
        cells = []
        for m in METRICS:
            value, ref = getattr(row, m), getattr(row, f"paper_{m}")
            text = "n/a" if pd.isna(value) else f"{value:.2f}"
            text += "" if pd.isna(ref) else f" ({ref:.2f})"
            if intervals is not None and (row.system, row.variant, m) in intervals.index:
                low, high, note = intervals.loc[(row.system, row.variant, m)]
                if pd.isna(low):
                    reason = _no_interval(value, note)
                    reasons.setdefault(reason, []).append(f"{names[row.system]} {row.variant} {METRIC_LABELS[m]}")
                    text += f" [n/a {_letter(list(reasons).index(reason))}]"
                else:
                    text += f" [{low:.1f}, {high:.1f}]"
            cells.append(f"{text:>{cell_width}}")
        tasks = f"{row.n_tasks}!" if short else f"{row.n_tasks} "
        lines.append(f"{names[row.system]:<{name_width}}{row.variant:<12}{tasks:>7}{row.n_failed:>6}" + "".join(cells))
    if reasons:
        lines += ["", "No interval (n/a):"]
        for k, (reason, where) in enumerate(reasons.items()):
            lines.append(f"  {_letter(k)}  {reason}: {', '.join(where)}")
    if flagged:
        lines += ["", f"! scored on fewer tasks than the paper ({PAPER_TASKS_PER_VARIANT} per variant, {PAPER_TASKS} "
                      f"overall): the mean beside the paper's number covers other tasks and is not comparable."]
    if is_synthetic(scores):
        lines += ["", SYNTHETIC_NOTE]
    return "\n".join(lines)
