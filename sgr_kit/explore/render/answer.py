"""One answer as HTML: title, status, metrics with their counts, notes, aligned table, issues and text."""

from __future__ import annotations

import html
import math
from typing import Any, Mapping

import pandas as pd

from sgr_kit.schema import METRIC_LABELS

from ..answers import AnswerDetail, reconstructed_text
from .cells import aligned_table_html
from .style import legend_html
from .text import TEXT_LIMIT, more_note, percent, text_html, truncate

__all__ = [
    "metrics_html", "metrics_line_html", "status_html", "issues_html", "answer_text_html", "answer_html",
    "side_by_side_html",
]  # fmt: skip

def _count(score: Mapping[str, Any], name: str) -> str:
    value = score.get(name)
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return "?"
    return str(int(value))


def metrics_html(score: Mapping[str, Any]) -> str:
    """The three metrics of one answer with their counts (Appendix A's formulas).

    Examples
    --------
    >>> s = {"status": "parsed", "item_f1": 6/7, "row_f1": 6/7, "poa": 1.0, "correct_fields": 15,
    ...      "gold_fields": 15, "pred_fields": 20, "correct_rows": 3, "gold_rows": 3, "pred_rows": 4,
    ...      "shared_keys": 3, "correct_pairs": 3, "pairs": 3}
    >>> "2·15 / (15 + 20)" in metrics_html(s)
    True
    """
    c, g, p = (_count(score, n) for n in ("correct_fields", "gold_fields", "pred_fields"))
    cr, gr, pr = (_count(score, n) for n in ("correct_rows", "gold_rows", "pred_rows"))
    cp, pairs, shared = (_count(score, n) for n in ("correct_pairs", "pairs", "shared_keys"))
    rows = [
        ("item_f1", f"2·C_item / (N_gold + N_pred) = 2·{c} / ({g} + {p})",
         f"C_item {c} correct fields; N_gold {g} reference fields; N_pred {p} predicted fields"),
        ("row_f1", f"2·C_row / (|R_gold| + |R_pred|) = 2·{cr} / ({gr} + {pr})",
         f"C_row {cr} fully correct rows; {gr} reference rows; {pr} predicted rows"),
        ("poa", f"correct pairs / pairs = {cp} / {pairs}",
         f"{shared} row keys shared with the reference (0 when fewer than 2)"),
    ]  # fmt: skip
    body = "".join(
        f'<tr><th>{METRIC_LABELS[m]}</th><td class="num">{percent(score.get(m), 2)}</td>'
        f'<td class="nw">{html.escape(formula)}</td><td class="sgr-muted">{html.escape(note)}</td></tr>'
        for m, formula, note in rows
    )
    return (
        '<table class="sgr-t sgr-metrics"><tr><th>metric</th><th class="num">value (%)</th><th>counts</th>'
        "<th>meaning</th></tr>"
        f"{body}</table>"
    )


def metrics_line_html(score: Mapping[str, Any]) -> str:
    """The three metrics and their counts on one line (for side-by-side views).

    Examples
    --------
    >>> metrics_line_html({"item_f1": 0.5, "correct_fields": 1, "gold_fields": 2, "pred_fields": 2})[:30]
    '<div class="sgr-metrics-line">'
    """
    c, g, p = (_count(score, n) for n in ("correct_fields", "gold_fields", "pred_fields"))
    cr, gr, pr = (_count(score, n) for n in ("correct_rows", "gold_rows", "pred_rows"))
    cp, pairs = (_count(score, n) for n in ("correct_pairs", "pairs"))
    parts = [
        f"Item-F1 <b>{percent(score.get('item_f1'), 2)}</b> (C_item {c}, N_gold {g}, N_pred {p})",
        f"Row-F1 <b>{percent(score.get('row_f1'), 2)}</b> (C_row {cr}; rows: {gr} reference, {pr} predicted)",
        f"P.O.A. <b>{percent(score.get('poa'), 2)}</b> ({cp} of {pairs} pairs in order)",
    ]
    return f'<div class="sgr-metrics-line">{" · ".join(parts)}</div>'


def status_html(detail: AnswerDetail) -> str:
    """The answer's status, the reason for it, and the table format the parser read."""
    score = detail.score
    status = str(score.get("status", ""))
    reason = score.get("reason")
    reason = "" if reason is None or (isinstance(reason, float) and math.isnan(reason)) else str(reason)
    out = f'<span class="sgr-status">status: {html.escape(status)}</span>'
    if reason:
        out += f" {text_html(reason, limit=500)}"
    if detail.parse_format:
        out += f' <span class="sgr-muted">(read as a {html.escape(detail.parse_format)} table)</span>'
    return out


def issues_html(detail: AnswerDetail) -> str:
    """The parser's issues with the answer (known only when it was re-scored from tasks and runs)."""
    if detail.issues is None:
        return (
            '<p class="sgr-muted">Parse issues: shown when the explorer is opened with tasks and runs '
            "(the answer is then re-scored).</p>"
        )
    if not detail.issues:
        return '<p class="sgr-muted">Parse issues: none.</p>'
    items = "".join(f"<li>{text_html(issue, limit=500)}</li>" for issue in detail.issues[:50])
    more = f'<li class="sgr-muted">... and {len(detail.issues) - 50} more</li>' if len(detail.issues) > 50 else ""
    return f'<h4>Parse issues ({len(detail.issues)})</h4><ul class="sgr-issues">{items}{more}</ul>'


def answer_text_html(detail: AnswerDetail, limit: int = TEXT_LIMIT) -> str:
    """The answer's text as given (or rebuilt from its cells, labelled so), cut at ``limit`` characters."""
    if detail.text_source == "runs":
        if detail.text is None:
            return '<h4>Answer text</h4><p class="sgr-muted">The system gave no answer to this task.</p>'
        body, hidden = truncate(detail.text, limit)
        return (
            f'<h4>Answer text, as given <span class="sgr-muted">({len(detail.text):,} characters; shown as text, '
            "never rendered)</span></h4>"
            f'<pre class="sgr-raw">{text_html(body, limit=None, isolate=False)}</pre>'
            + (more_note(hidden) if hidden else "")
        )
    if detail.text_source == "cells" and detail.records is not None:
        rebuilt = reconstructed_text(detail.records)
        body, hidden = truncate(rebuilt, limit)
        return (
            '<h4>Answer reconstructed from its cell records <span class="sgr-muted">(not the text as given: '
            "prose, header and formatting are not kept; open the explorer with tasks and runs for the original)"
            "</span></h4>"
            f'<pre class="sgr-raw">{text_html(body, limit=None, isolate=False) or "(no predicted rows)"}</pre>'
            + (more_note(hidden) if hidden else "")
        )
    return '<p class="sgr-muted">Answer text: not available (give the runs, or the cells table).</p>'


def _title(score: Mapping[str, Any]) -> str:
    system, task_id, repeat = score.get("system"), score.get("task_id"), score.get("repeat")
    facts = [str(score[c]) for c in ("variant", "domain", "family") if c in score and isinstance(score[c], str)]
    if "bin" in score and isinstance(score["bin"], str):
        facts.append(f"{score.get('gold_rows', '?')} reference rows, bin {score['bin']}")
    return (
        f"<h3>{text_html(system, limit=80)} · {text_html(task_id, limit=80)} · repeat {html.escape(str(repeat))}"
        f' <span class="sgr-muted">({html.escape(" · ".join(facts))})</span></h3>'
    )


def answer_html(
    detail: AnswerDetail,
    *,
    canonical: bool = False,
    order: str = "reference",
    compact: bool = False,
    inline: bool = False,
    text_limit: int = TEXT_LIMIT,
) -> str:
    """One answer: title, status, metrics with counts, notes, aligned table, issues and text.

    Parameters
    ----------
    detail : AnswerDetail
    canonical : bool, default False
        Show canonical forms in the aligned table.
    order : {"reference", "answer"}, default "reference"
        Row order of the aligned table (:func:`aligned_table_html`).
    compact : bool, default False
        For side-by-side views: the metrics on one line, the compact aligned table, no
        legend, parse issues or answer text.
    inline : bool, default False
        The compact aligned table (reference values under wrong cells) also in the full
        view, for schemas too wide for two tables side by side.
    text_limit : int, default :data:`TEXT_LIMIT`
        Characters of the answer's text shown.

    Returns
    -------
    str
    """
    metrics = metrics_line_html(detail.score) if compact else metrics_html(detail.score)
    parts = [_title(detail.score), f"<div>{status_html(detail)}</div>", metrics]
    parts += [f'<div class="sgr-note">{text_html(note, limit=None)}</div>' for note in detail.notes]
    if not compact:
        parts.append(legend_html())
    parts.append(aligned_table_html(detail, canonical=canonical, order=order, compact=compact or inline))
    if not compact:
        parts.append(issues_html(detail))
        parts.append(answer_text_html(detail, text_limit))
    return "".join(parts)


def side_by_side_html(left: str, right: str, *, heading: str = "") -> str:
    """Two rendered answers in two columns (pair view, system comparison)."""
    title = f"<h4>{html.escape(heading)}</h4>" if heading else ""
    return f'{title}<div class="sgr-pair"><div>{left}</div><div>{right}</div></div>'
