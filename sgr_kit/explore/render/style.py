"""The look shared by the explorer and the annotator: verdict colours and symbols, CSS, legend, banner.

Each cell of an answer is coloured by its verdict *and* carries the verdict's symbol and
name (:data:`VERDICT_STYLE`), so the legend does not rely on colour alone.
"""

from __future__ import annotations

import html

from sgr_kit.schema import SYNTHETIC_NOTE

__all__ = ["VERDICT_STYLE", "CSS", "legend_html", "banner_html"]

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
