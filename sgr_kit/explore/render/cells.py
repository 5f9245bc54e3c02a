"""The aligned table: the reference and an answer row by row, each answer cell marked by its verdict."""

from __future__ import annotations

import html
from typing import Any

from ..answers import AnswerDetail
from .style import VERDICT_STYLE
from .text import attr_text, plain_label, text_html

__all__ = ["WIDE", "aligned_table_html"]

#: Schemas with more columns are shown as one table (reference values under wrong cells) by default.
WIDE = 5


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
        f'<td class="v v-{verdict}{_long(value)}" title="{attr_text(tip)}">'
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
                omitted.append(f'<td class="v v-omitted_row" title="{attr_text(omitted_label)}">'
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
