"""HTML for the explorer: answers, selections and the static view.

Every function returns an HTML string built from escaped text: each value from a table,
an answer or a task goes through :func:`text_html`, which escapes it
(:func:`html.escape`), shows invisible direction and zero-width controls as visible
markers (so a right-to-left override can neither reverse the page nor hide why a cell did
not match) and isolates it in ``<bdi>``. Long values are cut with a visible
"... (N more characters)" note. An answer's text is therefore always shown as text,
never run or rendered as HTML.

Each cell of an answer is coloured by its verdict *and* carries the verdict's symbol and
name (:data:`VERDICT_STYLE`), so the legend does not rely on colour alone.
"""

from __future__ import annotations

import html
import math
import re
import unicodedata
from typing import Any, Iterable, Mapping

import pandas as pd

from sgr_kit.schema import METRIC_LABELS, METRICS, SYNTHETIC_NOTE
from sgr_kit.text import CONTROL, control_name

from .answers import AnswerDetail, reconstructed_text

__all__ = [
    "VERDICT_STYLE",
    "CSS",
    "WIDE",
    "CELL_LIMIT",
    "TEXT_LIMIT",
    "truncate",
    "text_html",
    "plain_label",
    "percent",
    "legend_html",
    "banner_html",
    "metrics_html",
    "metrics_line_html",
    "aligned_table_html",
    "answer_html",
    "side_by_side_html",
    "summary_html",
    "selection_table_html",
    "static_html",
]

#: verdict -> (symbol, label, background colour). Tints of the Okabe-Ito palette.
VERDICT_STYLE: dict[str, tuple[str, str, str]] = {
    "match": ("✓", "match", "#cdebdf"),
    "wrong": ("✗", "wrong value", "#f6cdb3"),
    "missing": ("∅", "missing (empty or absent cell)", "#fbe3b0"),
    "extra_cell": ("+c", "extra cell (beyond the schema)", "#e2e2e2"),
    "extra_row": ("+r", "extra row (key not in the reference)", "#efd3e4"),
    "duplicate_row": ("2×", "duplicate row (repeats an earlier key)", "#d3e8f7"),
    "omitted_row": ("−r", "omitted row (reference row not answered)", "#f7f7f7"),
}
#: Schemas with more columns are shown as one table (reference values under wrong cells) by default.
WIDE = 5
#: Characters shown at most per cell, and of an answer's text.
CELL_LIMIT = 200
TEXT_LIMIT = 10_000

#: Invisible characters shown as markers (one definition, in :mod:`sgr_kit.text`).
_CONTROL = CONTROL
_short = control_name


def _marker(match: re.Match) -> str:
    char = match.group(0)
    name = unicodedata.name(char, "control character")
    return f'<span class="sgr-ctl" title="U+{ord(char):04X} {html.escape(name)}">⟨{_short(char)}⟩</span>'


def truncate(text: str, limit: int) -> tuple[str, int]:
    """``text`` cut to ``limit`` characters, and how many were cut.

    Examples
    --------
    >>> truncate("abcdef", 4)
    ('abcd', 2)
    >>> truncate("abc", 4)
    ('abc', 0)
    """
    if limit < 0:
        raise ValueError(f"limit must be >= 0; found {limit}")
    return (text, 0) if len(text) <= limit else (text[:limit], len(text) - limit)


def more_note(hidden: int) -> str:
    """The visible note after a cut value."""
    return f'<span class="sgr-more">... ({hidden:,} more characters)</span>'


def text_html(value: Any, *, limit: int | None = CELL_LIMIT, isolate: bool = True) -> str:
    """One value as safe HTML: escaped, controls made visible, isolated, cut at ``limit``.

    Parameters
    ----------
    value : object
        Shown with ``str``; None and NaN show as nothing.
    limit : int or None, default :data:`CELL_LIMIT`
        Characters shown; the rest is replaced by "... (N more characters)".
    isolate : bool, default True
        Wrap in ``<bdi>`` so right-to-left text cannot reorder what surrounds it.

    Examples
    --------
    >>> text_html("<script>alert(1)</script>")
    '<bdi>&lt;script&gt;alert(1)&lt;/script&gt;</bdi>'
    >>> text_html("abc\\u202edef", isolate=False)
    'abc<span class="sgr-ctl" title="U+202E RIGHT-TO-LEFT OVERRIDE">⟨RLO⟩</span>def'
    >>> text_html("x" * 205).endswith('x</bdi><span class="sgr-more">... (5 more characters)</span>')
    True
    """
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return ""
    text = str(value)
    hidden = 0
    if limit is not None:
        text, hidden = truncate(text, limit)
    body = _CONTROL.sub(_marker, html.escape(text, quote=True))
    if isolate:
        body = f"<bdi>{body}</bdi>"
    return body + (more_note(hidden) if hidden else "")


def plain_label(value: Any, *, width: int | None = None) -> str:
    """A value as plain text for a widget label: controls shown as ``⟨RLO⟩``, cut to ``width``.

    Examples
    --------
    >>> plain_label("a\\u202eb"), plain_label("abcdefgh", width=5)
    ('a⟨RLO⟩b', 'abcd…')
    """
    text = "" if value is None else _CONTROL.sub(lambda m: f"⟨{_short(m.group(0))}⟩", str(value))
    text = text.replace("\n", " ").replace("\r", " ").replace("\t", " ")
    if width is not None and len(text) > width:
        text = text[: max(width - 1, 0)] + "…"
    return text


def _attr(value: Any, limit: int = 300) -> str:
    """A value for an HTML attribute (a tooltip): plain text, escaped with quotes."""
    return html.escape(plain_label(value, width=limit), quote=True)


def percent(value: Any, digits: int = 1) -> str:
    """A metric (a fraction) in percent points; an en dash when there is none.

    Examples
    --------
    >>> percent(0.857142), percent(float("nan")), percent(None)
    ('85.7', '–', '–')
    """
    if value is None or value is pd.NA:
        return "–"
    value = float(value)
    return "–" if math.isnan(value) else f"{100 * value:.{digits}f}"


def _count(score: Mapping[str, Any], name: str) -> str:
    value = score.get(name)
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return "?"
    return str(int(value))


CSS = """
.sgr-x { font-size: 13px; line-height: 1.4; color: var(--jp-ui-font-color1, #1a1a1a); }
.sgr-x .widget-html-content { line-height: 1.4; }
.sgr-x .widget-html.sgr-view { width: 100%; min-width: 0; }
.sgr-x .widget-html.sgr-view > .widget-html-content { display: block; width: 100%; overflow-x: auto; }
.sgr-x h3 { margin: 0.4em 0 0.3em; font-size: 15px; }
.sgr-x h4 { margin: 0.8em 0 0.3em; font-size: 13px; }
.sgr-x .sgr-banner { background: #fff3c4; color: #4a3800; border: 2px solid #e0a800; padding: 6px 10px;
  font-weight: 600; margin: 4px 0 8px; }
.sgr-x .sgr-muted { color: var(--jp-ui-font-color2, #616161); }
.sgr-x .sgr-note { background: var(--jp-layout-color2, #f0f0f0); padding: 4px 8px; margin: 4px 0; }
.sgr-x table.sgr-t { border-collapse: collapse; margin: 4px 0; }
.sgr-x table.sgr-t th, .sgr-x table.sgr-t td { border: 1px solid #c8c8c8; padding: 2px 6px; text-align: left;
  vertical-align: top; white-space: nowrap; }
.sgr-x table.sgr-t td.long { white-space: normal; min-width: 12em; max-width: 28em; overflow-wrap: anywhere; }
.sgr-x table.sgr-t th { background: var(--jp-layout-color2, #eeeeee); font-weight: 600; }
.sgr-x table.sgr-t td.num, .sgr-x table.sgr-t th.num { text-align: right; font-variant-numeric: tabular-nums; }
.sgr-x table.sgr-t td.gap, .sgr-x table.sgr-t th.gap { border: none; background: transparent; width: 10px;
  padding: 0; }
.sgr-x table.sgr-t td.idx { color: var(--jp-ui-font-color2, #616161); text-align: right; }
.sgr-x td.v { color: #111111; }
.sgr-x .sym { font-weight: 700; margin-right: 4px; font-family: var(--jp-code-font-family, monospace); }
.sgr-x .canon { display: block; font-size: 11px; color: #444444; font-family: var(--jp-code-font-family, monospace); }
.sgr-x .sgr-ctl { background: #ffe08a; color: #5a3d00; border-radius: 2px; font-size: 10px; padding: 0 1px; }
.sgr-x .sgr-more { color: #8a4b00; font-style: italic; margin-left: 4px; }
.sgr-x pre.sgr-raw { white-space: pre-wrap; overflow-wrap: anywhere; unicode-bidi: plaintext; max-height: 22em;
  overflow: auto; background: var(--jp-layout-color2, #f5f5f5); color: var(--jp-ui-font-color1, #1a1a1a);
  padding: 6px 8px; border: 1px solid #d0d0d0; margin: 4px 0; }
.sgr-x bdi { unicode-bidi: isolate; }
.sgr-x .sgr-legend span.item { display: inline-block; margin: 2px 8px 2px 0; padding: 1px 6px; color: #111111;
  border: 1px solid #b0b0b0; }
.sgr-x .sgr-status { display: inline-block; padding: 1px 8px; border: 1px solid #909090; font-weight: 600; }
.sgr-x .sgr-pair { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; }
.sgr-x .sgr-pair > div { overflow-x: auto; min-width: 0; }
.sgr-x .sgr-scroll { overflow-x: auto; }
.sgr-x ul.sgr-issues { margin: 2px 0; padding-left: 20px; }
.sgr-x .sgr-metrics-line { margin: 4px 0; }
.sgr-x table.sgr-metrics td { white-space: normal; }
.sgr-x table.sgr-t td.nw { white-space: nowrap; }
.sgr-list select { font-family: var(--jp-code-font-family, monospace) !important; font-size: 12px !important; }
.sgr-list-head { font-family: var(--jp-code-font-family, monospace); font-size: 12px; white-space: pre;
  font-weight: 600; padding-left: 4px; }
""" + "".join(
    f".sgr-x td.v-{verdict} {{ background: {colour}; }}\n.sgr-x .sgr-legend .v-{verdict} {{ background: {colour}; }}\n"
    for verdict, (_s, _l, colour) in VERDICT_STYLE.items()
) + (
    ".sgr-x td.v-omitted_row { border-style: dashed !important; color: #555555; font-style: italic; }\n"
    ".sgr-x td.v-wrong, .sgr-x td.v-missing { box-shadow: inset 3px 0 0 #b34700; }\n"
)


def legend_html() -> str:
    """The verdicts' legend: symbol, name and colour of each.

    Examples
    --------
    >>> '<span class="sym">✗</span>wrong value' in legend_html()
    True
    """
    items = "".join(
        f'<span class="item v-{v}"><span class="sym">{s}</span>{html.escape(label)}</span>'
        for v, (s, label, _c) in VERDICT_STYLE.items()
    )
    return f'<div class="sgr-legend"><span class="sgr-muted">Legend: </span>{items}</div>'


def banner_html(synthetic: bool) -> str:
    """The synthetic-data banner (empty when the data are real)."""
    return f'<div class="sgr-banner">⚠ {html.escape(SYNTHETIC_NOTE)}</div>' if synthetic else ""


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


def _status_html(detail: AnswerDetail) -> str:
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


def _issues_html(detail: AnswerDetail) -> str:
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


def _text_html(detail: AnswerDetail, limit: int) -> str:
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


def _long(value: Any) -> str:
    """A CSS class for values long enough to wrap (short ones stay on one line)."""
    return " long" if value is not None and len(str(value)) > 32 else ""


def _cell(
    value: Any, canonical: Any, verdict: str, *, show_canonical: bool, expected: Any = None, inline: bool = False
) -> str:
    symbol, label, _colour = VERDICT_STYLE.get(verdict, ("?", verdict, ""))
    if value is None:
        shown = '<span class="sgr-muted">(absent)</span>'
    elif value == "":
        shown = '<span class="sgr-muted">(empty)</span>'
    else:
        shown = text_html(value)
    if show_canonical and canonical is not None and verdict != "extra_cell":
        shown += f'<span class="canon">→ {text_html(canonical) or "(empty)"}</span>'
    if inline and verdict in ("wrong", "missing") and expected is not None:
        shown += f'<span class="canon">reference: {text_html(expected)}</span>'
    tip = label
    if verdict in ("wrong", "missing") and expected is not None:
        tip += f"; reference: {plain_label(expected, width=200)}"
    return (
        f'<td class="v v-{verdict}{_long(value)}" title="{_attr(tip)}">'
        f'<span class="sym" aria-label="{html.escape(label)}">{symbol}</span>{shown}</td>'
    )


def _row_verdict(kind: str, verdicts: list[str], gold_row: int | None) -> str:
    if kind == "omitted_row":
        return "−r omitted"
    if kind == "extra_row":
        return "+r extra row"
    if kind == "duplicate_row":
        return f"2× repeats ref. #{gold_row + 1}" if gold_row is not None else "2× duplicate"
    wrong, missing, extra = verdicts.count("wrong"), verdicts.count("missing"), verdicts.count("extra_cell")
    if not (wrong or missing or extra):
        return "✓ row correct"
    parts = [f"{n} {name}" for n, name in ((wrong, "wrong"), (missing, "missing"), (extra, "extra cell")) if n]
    return "✗ " + ", ".join(parts)


def _rows(records: list[tuple]) -> list[dict]:
    """Group one answer's records into display rows (one per answer row or omitted reference row)."""
    by_row: dict[tuple, dict] = {}
    for pred_row, gold_row, column, raw, canonical, reference, verdict in records:
        ident = ("p", pred_row) if pred_row is not None else ("g", gold_row)
        row = by_row.setdefault(ident, {"pred": pred_row, "gold": gold_row, "cells": {}, "kind": "credited"})
        if verdict in ("extra_row", "duplicate_row", "omitted_row"):
            row["kind"] = verdict
        name, n = column, 1
        while name in row["cells"]:  # an answer may repeat a column name: keep every cell
            n += 1
            name = f"{column} ({n})"
        row["cells"][name] = (raw, canonical, reference, verdict)
    return list(by_row.values())


def _sorted_rows(records: list[tuple], order: str) -> list[dict]:
    if order not in ("reference", "answer"):
        raise ValueError(f"order must be 'reference' or 'answer'; found {order!r}")
    rows = _rows(records)
    far = float("inf")
    if order == "reference":
        rows.sort(key=lambda r: (far if r["kind"] == "extra_row" or r["gold"] is None else r["gold"],
                                 r["kind"] == "duplicate_row", far if r["pred"] is None else r["pred"]))
    else:
        rows.sort(key=lambda r: (r["pred"] is None, far if r["pred"] is None else r["pred"],
                                 far if r["gold"] is None else r["gold"]))
    return rows


_ABSENT = (None, None, None, "")


def aligned_table_html(
    detail: AnswerDetail, *, canonical: bool = False, order: str = "reference", compact: bool = False,
    limit: int = 500,
) -> str:
    """The reference and the answer side by side, aligned row by row, each answer cell marked.

    Parameters
    ----------
    detail : AnswerDetail
    canonical : bool, default False
        Also show each answer cell's canonical form (and the reference's when its cells as
        written are known).
    order : {"reference", "answer"}, default "reference"
        ``"reference"``: reference rows in order (each with the answer row matched to it,
        duplicates after it, omitted rows in place), extra rows last. ``"answer"``: answer
        rows in the answer's order, omitted reference rows last.
    compact : bool, default False
        Only the answer's table, with the reference value written under each wrong or
        missing cell and in each omitted row (for side-by-side views).
    limit : int, default 500
        Display rows shown at most.

    Returns
    -------
    str
    """
    records = detail.records
    if records is None:
        return '<p class="sgr-muted">No cell records for this answer (give the cells table, or tasks and runs).</p>'
    if not records:
        return '<p class="sgr-muted">No cells: the system gave no answer.</p>'
    columns = list(detail.columns)
    known = set(columns)
    rows = _sorted_rows(records, order)
    extras = list(dict.fromkeys(name for row in rows for name in row["cells"] if name not in known))
    hidden = max(len(rows) - limit, 0)
    rows = rows[:limit]
    ref_rows = detail.reference_rows
    names = "".join(f"<th>{text_html(c, limit=60)}</th>" for c in columns)
    extra_names = "".join(f"<th>+ {text_html(c, limit=60)}</th>" for c in extras)
    answer_span = len(columns) + len(extras) + 1
    if compact:
        head = (
            f'<tr><th class="num">ref.</th><th colspan="{answer_span}">Answer (reference values under wrong '
            "cells and in omitted rows)</th><th>row</th></tr>"
            f'<tr><th class="num">#</th><th class="num">#</th>{names}{extra_names}<th></th></tr>'
        )
    else:
        ref_label = "Reference" if ref_rows is not None else "Reference (canonical values)"
        head = (
            f'<tr><th colspan="{len(columns) + 1}">{ref_label}</th><th class="gap"></th>'
            f'<th colspan="{answer_span}">Answer</th><th>row</th></tr>'
            f'<tr><th class="num">#</th>{names}<th class="gap"></th><th class="num">#</th>{names}{extra_names}'
            "<th></th></tr>"
        )
    omitted_symbol, omitted_label, _c = VERDICT_STYLE["omitted_row"]
    body = []
    for row in rows:
        cells, gold, kind = row["cells"], row["gold"], row["kind"]
        show_ref = gold is not None and kind != "extra_row"
        ref_values = []
        for j, column in enumerate(columns):
            written = None
            if show_ref and ref_rows is not None and gold < len(ref_rows) and j < len(ref_rows[gold]):
                written = ref_rows[gold][j]
            ref_values.append((written, cells.get(column, _ABSENT)[2]))
        ref_index = f'<td class="idx">{gold + 1}</td>' if show_ref else "<td></td>"
        ref_cells = ""
        if not compact:
            parts = []
            for written, reference in ref_values:
                if not show_ref:
                    parts.append("<td></td>")
                    continue
                shown = text_html(written if written is not None else reference)
                if canonical and written is not None and reference is not None:
                    shown += f'<span class="canon">→ {text_html(reference)}</span>'
                css = "v v-omitted_row" if kind == "omitted_row" else ""
                parts.append(f'<td class="{css}{_long(written or reference)}">{shown}</td>')
            ref_cells = "".join(parts) + '<td class="gap"></td>'
        if kind == "omitted_row":
            omitted = []
            for written, reference in ref_values:
                inner = f'<span class="canon">{text_html(written if written is not None else reference)}</span>' \
                    if compact else ""
                omitted.append(f'<td class="v v-omitted_row" title="{_attr(omitted_label)}">'
                               f'<span class="sym">{omitted_symbol}</span>{inner}</td>')
            answer_cells = "".join(omitted) + "<td></td>" * len(extras)
            pred_index = "<td></td>"
        else:
            answer_cells = "".join(
                _cell(raw, canon, verdict, show_canonical=canonical, expected=ref, inline=compact)
                if (raw, canon, ref, verdict) != _ABSENT else "<td></td>"
                for raw, canon, ref, verdict in (cells.get(c, _ABSENT) for c in columns)
            ) + "".join(
                _cell(cells[c][0], None, cells[c][3], show_canonical=False) if c in cells else "<td></td>"
                for c in extras
            )
            pred_index = f'<td class="idx">{row["pred"] + 1}</td>'
        verdict_text = _row_verdict(kind, [v[3] for v in cells.values()], gold)
        body.append(f"<tr>{ref_index}{ref_cells}{pred_index}{answer_cells}<td>{html.escape(verdict_text)}</td></tr>")
    more = f'<p class="sgr-more">... ({hidden:,} more rows)</p>' if hidden else ""
    return f'<div class="sgr-scroll"><table class="sgr-t sgr-align">{head}{"".join(body)}</table></div>{more}'


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
    parts = [_title(detail.score), f"<div>{_status_html(detail)}</div>", metrics]
    parts += [f'<div class="sgr-note">{text_html(note, limit=None)}</div>' for note in detail.notes]
    if not compact:
        parts.append(legend_html())
    parts.append(aligned_table_html(detail, canonical=canonical, order=order, compact=compact or inline))
    if not compact:
        parts.append(_issues_html(detail))
        parts.append(_text_html(detail, text_limit))
    return "".join(parts)


def side_by_side_html(left: str, right: str, *, heading: str = "") -> str:
    """Two rendered answers in two columns (pair view, system comparison)."""
    title = f"<h4>{html.escape(heading)}</h4>" if heading else ""
    return f'{title}<div class="sgr-pair"><div>{left}</div><div>{right}</div></div>'


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
