"""HTML for the explorer and the annotator: answers, selections and the static view.

Every function returns an HTML string built from escaped text: each value from a table,
an answer or a task goes through :func:`text_html`, which escapes it
(:func:`html.escape`), shows invisible direction and zero-width controls as visible
markers (so a right-to-left override can neither reverse the page nor hide why a cell did
not match) and isolates it in ``<bdi>``. Long values are cut with a visible
"... (N more characters)" note. An answer's text is therefore always shown as text,
never run or rendered as HTML.

Each cell of an answer is coloured by its verdict *and* carries the verdict's symbol and
name (:data:`VERDICT_STYLE`), so the legend does not rely on colour alone.

The parts, each usable alone (the annotator, :mod:`sgr_kit.annotate`, reuses the first four):

- :mod:`.text`: escaping (:func:`text_html`, :func:`plain_label`, :func:`attr_text`);
- :mod:`.style`: verdict colours and symbols, the CSS, the legend and the synthetic banner;
- :mod:`.cells`: the aligned table of the reference and an answer (:func:`aligned_table_html`);
- :mod:`.answer`: one answer (:func:`answer_html` and its pieces);
- :mod:`.page`: the explorer's selection summary, table and static view.
"""

from __future__ import annotations

from .answer import (
    answer_html,
    answer_text_html,
    issues_html,
    metrics_html,
    metrics_line_html,
    side_by_side_html,
    status_html,
)
from .cells import WIDE, aligned_table_html
from .page import selection_table_html, static_html, summary_html
from .style import CSS, VERDICT_STYLE, banner_html, legend_html
from .text import CELL_LIMIT, TEXT_LIMIT, attr_text, more_note, percent, plain_label, text_html, truncate

__all__ = [
    "VERDICT_STYLE",
    "CSS",
    "WIDE",
    "CELL_LIMIT",
    "TEXT_LIMIT",
    "truncate",
    "more_note",
    "text_html",
    "plain_label",
    "attr_text",
    "percent",
    "legend_html",
    "banner_html",
    "metrics_html",
    "metrics_line_html",
    "status_html",
    "issues_html",
    "answer_text_html",
    "aligned_table_html",
    "answer_html",
    "side_by_side_html",
    "summary_html",
    "selection_table_html",
    "static_html",
]
