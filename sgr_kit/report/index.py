"""The report's ``index.html``: the headline table, the key figures and a link to every page.

The page is plain HTML with inline CSS: it loads nothing from outside the report folder
(figures are linked relatively), and every piece of text is HTML-escaped.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd

from ..errors import SgrKitError
from ..output import write_text
from ..pipeline import Inputs
from ..schema import METRIC_LABELS, METRICS, PAPER_TASKS, SYNTHETIC_NOTE
from ..text import fixed, name_html

__all__ = ["headline_table", "write_index"]

_STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 2rem auto; max-width: 72rem;
       color: #1b1b1b; line-height: 1.45; padding: 0 1rem; }
h1 { font-size: 1.6rem; margin-bottom: .2rem; } h2 { font-size: 1.2rem; margin-top: 2rem; }
.synthetic { background: #fff3cd; border: 2px solid #b58100; padding: .6rem 1rem; font-weight: 600; }
.failed { background: #fde2e1; border: 2px solid #b42318; padding: .6rem 1rem; }
table { border-collapse: collapse; font-size: .9rem; } th, td { padding: .3rem .6rem; text-align: right; }
th { border-bottom: 2px solid #444; } td:first-child, th:first-child { text-align: left; }
tr:nth-child(even) td { background: #f5f5f5; } .muted { color: #666; font-size: .85rem; }
.flag { color: #b42318; font-weight: 600; }
figure { display: block; margin: .5rem 0 1.5rem 0; max-width: 64rem; }
figure img { display: block; max-width: 100%; height: auto; border: 1px solid #ddd; }
figcaption { font-size: .85rem; color: #444; }
"""


def _shown_px(png: Path) -> int:
    """The width a saved figure (a 300-dpi PNG) is shown at: 150 px per inch, at least 600 px."""
    import struct

    from .notebook import shown_width

    with open(png, "rb") as f:
        head = f.read(24)
    width = struct.unpack(">I", head[16:20])[0] if head[12:16] == b"IHDR" else 0
    return shown_width(width / 300)


def headline_table(inputs: Inputs, *, failure_policy: str = "zero", n_boot: int = 10_000, seed: int = 0,
                   systems: Sequence[str] | None = None, alpha: float = 0.05,
                   main_table: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per-system overall means with ``1 - alpha`` bootstrap intervals, beside the paper's Table 3.

    ``failure_policy``, ``n_boot``, ``seed``, ``systems`` (a subset) and ``alpha`` are the report's
    analysis parameters, the same as every page's. ``main_table``: the main-table page's saved
    table (``tables/main_table.csv``, built with the same parameters), whose ``overall`` rows
    then give the means and intervals instead of bootstrapping them again; it must hold the
    same systems as the (subset) scores, or :class:`~sgr_kit.errors.SgrKitError` says so.

    Returns
    -------
    DataFrame
        ``system, n_tasks, complete`` and, per metric, ``<metric>, <metric>_ci_low,
        <metric>_ci_high, paper_<metric>, diff_<metric>`` (percent points; ``diff`` is
        computed minus published, NaN where the paper has no value or the system was
        scored on fewer than the paper's 100 tasks). Sorted by overall Item-F1.
    """
    from .summary import summary_table

    scores = inputs.scores if systems is None else inputs.scores[inputs.scores["system"].isin(list(systems))]
    if main_table is not None:
        table = main_table[main_table["variant"] == "overall"].drop(columns=["variant", "n_failed"])
        if sorted(map(str, table["system"])) != sorted(map(str, scores["system"].unique())):
            raise SgrKitError("headline table: the main table's systems are not the scores' systems "
                              "(it was built from other scores or another subset)")
        table = table.reset_index(drop=True)
    else:
        from ..stats import bootstrap_means  # SciPy's statistics: about 0.7 s to import, only when bootstrapping here

        table = summary_table(scores, failure_policy=failure_policy)
        table = table[table["variant"] == "overall"].drop(columns=["variant", "n_failed"])
        boot = bootstrap_means(scores, failure_policy=failure_policy, n_boot=n_boot, seed=seed, ci=1 - alpha)
        boot = boot[boot["variant"] == "overall"]
        for metric in METRICS:
            bounds = boot[boot["metric"] == metric].set_index("system")[["ci_low", "ci_high"]]
            table[f"{metric}_ci_low"] = table["system"].map(bounds["ci_low"])
            table[f"{metric}_ci_high"] = table["system"].map(bounds["ci_high"])
    table["complete"] = table["n_tasks"] >= PAPER_TASKS
    for metric in METRICS:
        table[f"diff_{metric}"] = np.where(table["complete"], table[metric] - table[f"paper_{metric}"], np.nan)
    columns = ["system", "n_tasks", "complete"]
    for metric in METRICS:
        columns += [metric, f"{metric}_ci_low", f"{metric}_ci_high", f"paper_{metric}", f"diff_{metric}"]
    return table[columns].sort_values("item_f1", ascending=False, kind="stable").reset_index(drop=True)


def _number(value: float, digits: int = 2) -> str:
    """``value`` rounded for the page; a value that rounds to zero is "0.00", never "-0.00"."""
    return "" if pd.isna(value) else fixed(digits)(value)


def _headline_html(table: pd.DataFrame, *, level: str = "95%") -> str:
    e = html.escape
    head = "<tr><th>system</th><th>tasks</th>" + "".join(
        f"<th>{e(METRIC_LABELS[m])} [{level} CI]</th><th>paper</th><th>&Delta;</th>" for m in METRICS
    ) + "</tr>"
    rows = []
    for row in table.to_dict("records"):
        tasks = f"{row['n_tasks']}" + ("" if row["complete"] else
                                       f' <span class="flag" title="scored on fewer tasks than the paper">'
                                       f"(of {PAPER_TASKS})</span>")
        cells = [f"<td>{name_html(row['system'])}</td>", f"<td>{tasks}</td>"]
        for m in METRICS:
            interval = ("" if pd.isna(row[f"{m}_ci_low"])
                        else f" [{_number(row[f'{m}_ci_low'], 1)}, {_number(row[f'{m}_ci_high'], 1)}]")
            cells += [f"<td>{_number(row[m])}{interval}</td>", f"<td>{_number(row[f'paper_{m}'])}</td>",
                      f"<td>{_number(row[f'diff_{m}'])}</td>"]
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table>{head}{''.join(rows)}</table>"


def _tasks_fingerprint(folder: Path) -> str:
    """The task-set fingerprint recorded in the report's ``provenance.json`` (``""`` when absent)."""
    try:
        return str(json.loads((folder / "provenance.json").read_text(encoding="utf-8"))["scoring"]["tasks_fingerprint"])
    except (OSError, ValueError, KeyError, TypeError):
        return ""


def write_index(
    folder: Path,
    inputs: Inputs,
    runs: Sequence,
    *,
    failure_policy: str = "zero",
    n_boot: int = 10_000,
    seed: int = 0,
    systems: Sequence[str] | None = None,
    alpha: float = 0.05,
    key_figures: Sequence[tuple[str, str]] = (),
    main_table: pd.DataFrame | None = None,
) -> Path:
    """Write ``folder/index.html`` and the headline table as ``tables/headline.csv``.

    The analysis parameters (``failure_policy``, ``n_boot``, ``seed``, ``systems``, ``alpha``) are
    the ones every page of the report used, so the front page never contradicts its pages.
    ``main_table``: the main-table page's saved table, shared instead of computed again
    (see :func:`headline_table`).
    """
    from ..output import write_table
    from .notebook import latex_table

    e = html.escape
    table = headline_table(inputs, failure_policy=failure_policy, n_boot=n_boot, seed=seed, systems=systems,
                           alpha=alpha, main_table=main_table)
    level = f"{100 * (1 - alpha):g}%"
    scores = inputs.scores if systems is None else inputs.scores[inputs.scores["system"].isin(list(systems))]
    write_table(table, folder / "tables" / "headline.csv", force=True)
    write_text(latex_table(table.drop(columns=["complete"]), caption="Per-system overall means (percent points)"),
               folder / "tables" / "headline.tex", force=True)
    parts = ["<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
             "<title>SGR-Bench report</title>", f"<style>{_STYLE}</style></head><body>",
             "<h1>SGR-Bench report</h1>",
             f"<p class='muted'>{len(scores)} answers of {scores['system'].nunique()} systems on "
             f"{scores['task_id'].nunique()} tasks; failure policy '{e(failure_policy)}'"
             + ("" if systems is None else f"; systems: {', '.join(name_html(s) for s in systems)}")
             + ".</p>"]
    fingerprint = _tasks_fingerprint(folder)
    if fingerprint:
        parts.append(f"<p class='muted'>Task set fingerprint (SHA-256 of the tasks' scored content; two reports "
                     f"with the same one scored the same tasks): <code>{e(fingerprint)}</code></p>")
    if inputs.synthetic:
        parts.append(f"<p class='synthetic'>{e(SYNTHETIC_NOTE)}</p>")
    failed = [r for r in runs if not r.ok]
    if failed:
        parts.append("<div class='failed'><strong>Some notebooks failed</strong> (their pages show the failing cell):"
                     "<ul>" + "".join(f"<li>{e(r.name)}: {e(r.error)}</li>" for r in failed) + "</ul></div>")
    parts += ["<h2>Per-system means over all tasks</h2>",
              f"<p class='muted'>Percent points. Brackets: {level} BCa bootstrap interval over base problems "
              "(both variants of a problem resampled together). <em>paper</em>: the paper's Table 3; "
              "&Delta;: computed minus published, shown only for systems scored on all 100 tasks.</p>",
              _headline_html(table, level=level),
              "<p class='muted'>As CSV: <a href='tables/headline.csv'>tables/headline.csv</a>; "
              "as LaTeX: <a href='tables/headline.tex'>tables/headline.tex</a>."
              + (" These means live on the <a href='01_main_table.html'>main table</a> page, with each variant "
                 "and the paper's ranking." if any(r.name == "01_main_table" for r in runs) else "") + "</p>"]
    shown = [(name, caption) for name, caption in key_figures if (folder / "figures" / f"{name}.png").is_file()]
    if shown:
        parts.append("<h2>Key figures</h2>")
        # each figure at 150 px per inch of the saved 300-dpi PNG (at least 600 px, at most the column): readable text
        parts += [f"<figure><a href='figures/{e(name)}.png'><img src='figures/{e(name)}.png' alt='{e(caption)}' "
                  f"width='{_shown_px(folder / 'figures' / f'{name}.png')}'></a>"
                  f"<figcaption>{e(caption)}</figcaption></figure>" for name, caption in shown]
    parts.append("<h2>Pages</h2><ul>")
    for run in runs:
        status = "" if run.ok else " <span class='flag'>(failed)</span>"
        parts.append(f"<li><a href='{e(run.name)}.html'>{e(run.name.replace('_', ' '))}</a>{status} "
                     f"<span class='muted'>({run.seconds:.1f} s; <a href='{e(run.name)}.ipynb'>notebook</a>)</span></li>")
    parts.append("</ul>")
    tables = sorted((folder / "tables").glob("*.csv"))
    if tables:
        parts.append("<h2>Tables</h2><p class='muted'>" + ", ".join(
            f"<a href='tables/{e(p.name)}'>{e(p.stem)}</a> (<a href='tables/{e(p.stem)}.tex'>tex</a>)" for p in tables
        ) + "</p>")
    parts.append("<h2>Data</h2><p class='muted'><a href='scores.csv'>scores.csv</a>, <a href='cells.parquet'>"
                 "cells.parquet</a>, <a href='summary.txt'>summary.txt</a>, <a href='paper-audit.csv'>"
                 "paper-audit.csv</a>, <a href='provenance.json'>provenance.json</a></p>")
    if inputs.synthetic:
        parts.append(f"<p class='synthetic'>{e(SYNTHETIC_NOTE)}</p>")
    parts.append("</body></html>\n")
    return write_text("\n".join(parts), folder / "index.html", force=True)
