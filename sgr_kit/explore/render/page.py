"""Pages of the explorer: the selection's summary and table, and the static view."""

from __future__ import annotations

import html
from typing import Iterable, Mapping

import pandas as pd

from sgr_kit.schema import METRIC_LABELS, METRICS

from ..answers import AnswerDetail
from .answer import answer_html
from .cells import WIDE
from .style import CSS, banner_html
from .text import percent, text_html

__all__ = ["summary_html", "selection_table_html", "static_html"]

def summary_html(means: Mapping[str, float], *, total: int, failure_policy: str = "zero") -> str:
    """The selection's count and means (see :func:`sgr_kit.explore.filters.selection_means`).

    Examples
    --------
    >>> page = summary_html({"answers": 2, "failed": 1, "item_f1": 0.25, "row_f1": 0.5, "poa": 0.5}, total=10)
    >>> "<b>2</b> of 10 answers selected" in page, "Item-F1 <b>25.00</b>" in page
    (True, True)
    """
    how = "failed answers count as 0" if failure_policy == "zero" else "failed answers left out"
    unscored = int(means.get("unscored", 0))
    if unscored:
        how += f"; {unscored:,} answer(s) the scorer could not score left out"
    values = " · ".join(f"{METRIC_LABELS[m]} <b>{percent(means.get(m), 2)}</b>" for m in METRICS)
    return (
        f'<div class="sgr-summary"><b>{means["answers"]:,}</b> of {total:,} answers selected '
        f'({means["failed"]:,} without metrics) · mean {values} '
        f'<span class="sgr-muted">(percent points over the selected answers; {how})</span></div>'
    )


#: Columns of the static selection table: (scores column, heading).
_LIST_COLUMNS: tuple[tuple[str, str], ...] = (
    ("system", "system"), ("task_id", "task"), ("repeat", "rep."), ("variant", "variant"), ("status", "status"),
    ("item_f1", "Item-F1"), ("row_f1", "Row-F1"), ("poa", "P.O.A."), ("correct_fields", "C_item"),
    ("gold_fields", "N_gold"), ("pred_fields", "N_pred"), ("correct_rows", "C_row"), ("pairs", "pairs"),
)  # fmt: skip


def selection_table_html(selection: pd.DataFrame, *, limit: int = 50) -> str:
    """The selection as a plain table (metrics in percent points), its first ``limit`` rows.

    Examples
    --------
    >>> table = pd.DataFrame({"system": ["<b>A</b>"], "task_id": ["t"], "repeat": [0], "status": ["parsed"],
    ...                       "item_f1": [0.5], "row_f1": [0.0], "poa": [1.0]})
    >>> "&lt;b&gt;A&lt;/b&gt;" in selection_table_html(table)
    True
    """
    columns = [(c, h) for c, h in _LIST_COLUMNS if c in selection.columns]
    head = "".join(
        f'<th class="num">{html.escape(h)}</th>' if c in METRICS or c not in ("system", "task_id", "variant", "status")
        else f"<th>{html.escape(h)}</th>" for c, h in columns
    )
    shown = selection.head(limit)
    data = {c: shown[c].tolist() for c, _h in columns}
    body = []
    for i in range(len(shown)):
        tds = []
        for c, _h in columns:
            value = data[c][i]
            if c in METRICS:
                tds.append(f'<td class="num">{percent(value)}</td>')
            elif c in ("system", "task_id", "variant", "status"):
                tds.append(f"<td>{text_html(value, limit=60)}</td>")
            else:
                tds.append(f'<td class="num">{text_html(value, limit=20)}</td>')
        body.append(f"<tr>{''.join(tds)}</tr>")
    more = (
        f'<p class="sgr-muted">... and {len(selection) - limit:,} more answers (export the selection as CSV for all '
        "of them).</p>" if len(selection) > limit else ""
    )
    return f'<table class="sgr-t sgr-selection"><tr>{head}</tr>{"".join(body)}</table>{more}'


def static_html(
    selection: pd.DataFrame,
    means: Mapping[str, float],
    *,
    total: int,
    synthetic: bool,
    detail: AnswerDetail | None = None,
    filters: Iterable[str] = (),
    failure_policy: str = "zero",
    limit: int = 50,
    kind: str = "fallback",
) -> str:
    """The explorer as a static page: what an exported notebook shows without a kernel.

    Parameters
    ----------
    selection : DataFrame
        The selected answers, in order.
    means : mapping
        :func:`~sgr_kit.explore.filters.selection_means` of the selection.
    total : int
        Answers in the whole table.
    synthetic : bool
        Show the synthetic-data banner.
    detail : AnswerDetail, optional
        The answer selected in the explorer, shown below the table.
    filters : iterable of str
        The active filters, described in words.
    failure_policy : {"zero", "exclude"}, default "zero"
    limit : int, default 50
        Rows of the selection listed.
    kind : {"fallback", "snapshot"}, default "fallback"
        ``"fallback"``: the explorer's own static view (in its display bundle);
        ``"snapshot"``: a notebook output of the selection at the time it ran. Sets the
        class ``sgr-fallback`` or ``sgr-snapshot`` of the outer element and the heading.

    Returns
    -------
    str
        Self-contained HTML (its own ``<style>``), no script.
    """
    if kind not in ("fallback", "snapshot"):
        raise ValueError(f"kind must be 'fallback' or 'snapshot'; found {kind!r}")
    described = "; ".join(filters) or "none"
    parts = [
        f"<style>{CSS}</style>",
        f'<div class="sgr-x sgr-static sgr-{kind}">',
        banner_html(synthetic),
        "<h3>SGR-Bench answer explorer (static view)</h3>" if kind == "fallback"
        else "<h3>The explorer's selection when this cell ran</h3>",
        '<p class="sgr-muted">A plain table of the selection: run the notebook in JupyterLab to filter and inspect '
        "answers interactively.</p>" if kind == "fallback"
        else '<p class="sgr-muted">A plain copy of the selection, for copies of this notebook viewed without a '
        "kernel; run this cell again after changing the filters.</p>",
        f"<p>Filters: {text_html(described, limit=1000)}</p>",
        summary_html(means, total=total, failure_policy=failure_policy),
        selection_table_html(selection, limit=limit),
    ]
    if detail is not None:
        inline = len(detail.columns) > WIDE
        parts += ["<h3>Selected answer</h3>", answer_html(detail, text_limit=2_000, inline=inline)]
    parts.append("</div>")
    return "".join(parts)
