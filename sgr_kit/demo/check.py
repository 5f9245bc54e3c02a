"""How closely the demo reproduces the paper's numbers, computed from scored answers.

:func:`calibration_report` compares a scores table (``sgr-kit score`` /
:func:`sgr_kit.score.score_runs` on the demo) and the audit labels with the
targets from :mod:`sgr_kit.reference`; :func:`check_folder` does everything from
a demo folder. Run ``python -m sgr_kit.demo data/demo`` to print the report.

Means follow the demo's calibration rules, those of
:func:`sgr_kit.aggregate.task_means`: a parse failure or missing answer counts as
0 (the "zero" failure policy), and a (system, task) cell with several repeats
first takes the mean of its repeats.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

from sgr_kit.aggregate import task_means
from sgr_kit.schema import METRICS

__all__ = ["calibration_report", "check_folder", "summary"]

#: Tolerance per target group, percent points (0 = exact count).
TOLERANCES = {"table2_item_f1": 3.0, "table2_row_f1": 3.0, "table2_poa": 6.0, "family": 5.0,
              "bin": 5.0, "table6": 5.0, "table4": 0.0, "table5": 0.0}


def _row(group: str, name: str, paper: float, demo: float) -> dict:
    tol = TOLERANCES[group]
    return {"group": group, "target": name, "paper": paper, "demo": demo, "deviation": demo - paper,
            "tolerance": tol, "within": abs(demo - paper) <= tol + 1e-9}


def calibration_report(scores: pd.DataFrame, audit: pd.DataFrame, *, targets=None) -> pd.DataFrame:
    """Targets vs. the demo's achieved values, one row per target.

    Parameters
    ----------
    scores : DataFrame
        Output of :func:`sgr_kit.score.score_runs` on the demo.
    audit : DataFrame
        ``audit.csv`` (columns ``system, task_id, family, label``).
    targets : Targets, optional
        Default: :func:`sgr_kit.demo.targets.paper_targets`.

    Returns
    -------
    DataFrame
        Columns ``group, target, paper, demo, deviation, tolerance, within``;
        metrics in percent points, audit groups (``table4``, ``table5``) in counts.
    """
    if targets is None:
        from sgr_kit.demo.targets import paper_targets

        targets = paper_targets()
    cells = task_means(scores, failure_policy="zero")
    rows = []
    t2 = cells.groupby(["system", "variant"])[list(METRICS)].mean() * 100
    for (system, variant, metric), value in sorted(targets.table2.items()):
        rows.append(_row(f"table2_{metric}", f"{system} {variant} {metric}", value,
                         float(t2.loc[(system, variant), metric])))
    fam = cells.groupby("family")["item_f1"].mean() * 100
    for family, value in sorted(targets.family.items()):
        rows.append(_row("family", f"{family} item_f1", value, float(fam[family])))
    bins = cells.groupby("bin")[["item_f1", "row_f1"]].mean() * 100
    for (b, metric), value in sorted(targets.bins.items()):
        rows.append(_row("bin", f"{b} {metric}", value, float(bins.loc[b, metric])))
    audited = audit.merge(cells.drop(columns="family"), on=["system", "task_id"], how="left")
    t6 = audited.groupby("label")[["item_f1", "row_f1"]].mean() * 100
    for (label, metric), value in sorted(targets.table6.items()):
        rows.append(_row("table6", f"{label} {metric}", value, float(t6.loc[label, metric])))
    t4 = audit.groupby(["system", "label"]).size()
    for system, counts in targets.table4.items():
        for label, n in sorted(counts.items()):
            rows.append(_row("table4", f"{system} {label}", n, int(t4.get((system, label), 0))))
    t5 = audit.groupby(["family", "label"]).size()
    for family, counts in targets.table5.items():
        for label, n in sorted(counts.items()):
            rows.append(_row("table5", f"{family} {label}", n, int(t5.get((family, label), 0))))
    return pd.DataFrame(rows)


def check_folder(folder: str | Path, *, targets=None) -> pd.DataFrame:
    """Load, score (default profile) and compare a demo folder with the targets.

    Examples
    --------
    >>> from sgr_kit.resources import demo_dir
    >>> report = check_folder(demo_dir())
    >>> bool(report["within"].all()), sorted(report["group"].unique())[:3]
    (True, ['bin', 'family', 'table2_item_f1'])
    """
    from sgr_kit.load import load_runs
    from sgr_kit.prepare import load_tasks
    from sgr_kit.score import score_runs

    folder = Path(folder)
    tasks = load_tasks(folder / "constraint.jsonl", folder / "goal.jsonl")
    runs = load_runs(folder / "runs.jsonl", tasks=tasks)
    scores = score_runs(tasks, runs)
    audit = pd.read_csv(folder / "audit.csv", dtype=str)
    return calibration_report(scores, audit, targets=targets)


def summary(report: pd.DataFrame) -> pd.DataFrame:
    """Largest absolute deviation per target group, with its tolerance.

    Examples
    --------
    >>> r = pd.DataFrame({"group": ["bin", "bin"], "deviation": [1.0, -2.0], "tolerance": [5.0, 5.0],
    ...                   "within": [True, True]})
    >>> summary(r).values.tolist()
    [['bin', 2, 2.0, 5.0, True]]
    """
    out = report.assign(abs_dev=report["deviation"].abs()).groupby("group", sort=False).agg(
        targets=("abs_dev", "size"), max_abs_deviation=("abs_dev", "max"), tolerance=("tolerance", "first"),
        all_within=("within", "all"))
    return out.reset_index()


def main(argv: list[str] | None = None) -> int:
    """``python -m sgr_kit.demo [FOLDER]``: print the calibration of a demo folder."""
    args = sys.argv[1:] if argv is None else argv
    folder = args[0] if args else "data/demo"
    report = check_folder(folder)
    print("SYNTHETIC demo benchmark: calibration against the paper's published numbers")
    print(summary(report).to_string(index=False, float_format=lambda x: f"{x:.2f}"))
    bad = report[~report["within"]]
    if len(bad):
        print("\noutside tolerance:")
        print(bad.to_string(index=False, float_format=lambda x: f"{x:.2f}"))
    return 0 if report["within"].all() else 1
