"""HTML of the annotation widget: the label set, the task's conditions, the answer, the trajectory.

Pure functions returning escaped HTML (every value goes through
:func:`sgr_kit.explore.render.text_html`); the widget (:mod:`.widget`) puts them on screen.

The label set is the paper's audit taxonomy (Appendix G): ``correct``, the six error
types with their definitions, and ``not_analyzable`` for a run whose trajectory does not
allow a judgement. Each failed run gets one primary label, the earliest non-recoverable
root cause, upstream failures taking precedence over answer-writing errors (:data:`RULE`).
"""

from __future__ import annotations

import html
import math
from typing import Any, Mapping, Sequence

import pandas as pd

from sgr_kit.explore.answers import AnswerDetail
from sgr_kit.explore.render import (
    WIDE,
    aligned_table_html,
    answer_text_html,
    legend_html,
    metrics_line_html,
    plain_label,
    status_html,
    text_html,
)
from sgr_kit.schema import ANNOTATION_LABEL_NAMES, ERROR_TYPES, NOT_ANALYZABLE

__all__ = [
    "LABELS",
    "LABEL_NAMES",
    "DEFINITIONS",
    "RULE",
    "CSS",
    "task_conditions",
    "conditions_html",
    "title_html",
    "answer_view_html",
    "trajectory_html",
    "definitions_html",
]

#: Every label an annotator can give (:data:`sgr_kit.schema.ANNOTATION_LABELS`), in the order of the
#: keyboard shortcuts 1-8: ``correct``, the six error types, ``not_analyzable``.
LABELS: tuple[str, ...] = ("correct", *ERROR_TYPES, NOT_ANALYZABLE)
#: How each label is shown (:data:`sgr_kit.schema.ANNOTATION_LABEL_NAMES`), in the order of :data:`LABELS`.
LABEL_NAMES: dict[str, str] = {label: ANNOTATION_LABEL_NAMES[label] for label in LABELS}
#: What each label means: the six error types as Appendix G of the paper defines them.
DEFINITIONS: dict[str, str] = {
    "correct": "The answer is right (the reference's rows and fields); no error to label.",
    "scope_drift": (
        "The agent fails to establish or preserve the correct retrieval workspace (object set, candidate space, "
        "jurisdiction, time range, result scope); later extraction may be locally plausible but is grounded in "
        "the wrong slice of the source."
    ),
    "criterion_mismatch": (
        "The agent reaches relevant resources but applies an incorrect decision rule, field definition, "
        "aggregation level, denominator, phase space or time window: locally correct values bound to the wrong "
        "criterion."
    ),
    "intent_rewriting": (
        "The agent implicitly replaces the task with an easier, non-equivalent surrogate: drops required "
        "constraints, weakens an exhaustive search, or turns structured retrieval into approximate summarization."
    ),
    "page_misreading": (
        "The agent reaches the correct page or table but misreads a local value, label, priority rule or field "
        "interpretation on it; only for errors localized to page-internal evidence reading."
    ),
    "dependency_error": (
        "The agent obtains key intermediate evidence but fails to close the dependency chain (cross-page "
        "alignment, backtracking, evidence propagation, final candidate arbitration)."
    ),
    "final_answer": (
        "The upstream retrieval and interpretation are largely correct, but the final answer is corrupted during "
        "aggregation, slot mapping, sorting, normalization, deduplication or transcription; only when earlier stages "
        "are substantially correct."
    ),
    "not_analyzable": (
        "The run cannot be judged: no trajectory, or one too incomplete to locate the root cause."
    ),
}
#: The labelling rule of Appendix G.
RULE = (
    "One primary label per answer: the earliest non-recoverable root cause. Upstream failures (scope, criterion, "
    "intent) take precedence over answer-writing errors."
)

CSS = """
.sgr-annotator .sgr-cond-head { font-weight: 600; margin-top: 4px; }
.sgr-annotator .sgr-cond-body { margin: 0 0 0 14px; white-space: pre-wrap; overflow-wrap: anywhere; }
.sgr-annotator .sgr-task ul { margin: 2px 0; padding-left: 20px; }
.sgr-annotator details.sgr-step { border-left: 3px solid #c8c8c8; margin: 2px 0; padding: 1px 6px; }
.sgr-annotator details.sgr-step > summary { cursor: pointer; font-family: var(--jp-code-font-family, monospace);
  font-size: 12px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.sgr-annotator details.sgr-step.sgr-on-site { border-left-color: #009e73; }
.sgr-annotator details.sgr-step.sgr-first-site { border-left: 5px solid #0072b2; background: #e3f0fa; }
.sgr-annotator .sgr-first-mark { font-weight: 700; color: #004b7a; }
.sgr-annotator .sgr-step-body { font-size: 12px; margin: 2px 0 4px; }
.sgr-annotator .sgr-step-body pre { white-space: pre-wrap; overflow-wrap: anywhere; max-height: 14em; overflow: auto;
  background: var(--jp-layout-color2, #f5f5f5); padding: 4px 6px; margin: 2px 0; }
.sgr-annotator .sgr-traj-head { margin: 4px 0; }
.sgr-annotator table.sgr-t.sgr-defs { width: 100%; }
.sgr-annotator table.sgr-t.sgr-defs td { white-space: normal; vertical-align: top; font-size: 12px; }
.sgr-annotator table.sgr-t.sgr-defs .sgr-def { display: block; color: var(--jp-ui-font-color2, #505050); }
.sgr-annotator .sgr-rule { border: 1px solid #0072b2; background: #eef5fb; padding: 4px 8px; margin: 4px 0; }
.sgr-annotator .sgr-label-button.sgr-chosen button, .sgr-annotator button.sgr-chosen {
  outline: 3px solid #0072b2; font-weight: 700; }
.sgr-annotator .sgr-saved { color: #00603f; }
.sgr-annotator .sgr-error { color: #b00020; font-weight: 600; }
.sgr-annotator .sgr-progress { font-variant-numeric: tabular-nums; }
"""

#: Step kinds of a trajectory, in words.
_KINDS = {"search": "search", "fetch": "fetch", "pdf": "pdf", "tool": "tool", "message": "message",
          "answer": "final answer"}  # fmt: skip


def _items(value: Any) -> list[str]:
    """A prose field as a list of strings (a list stays a list; a string is one item; nothing is empty)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return []
    if isinstance(value, str):
        return [value] if value.strip() else []
    if isinstance(value, Mapping):
        return [f"{k}: {v}" for k, v in value.items()]
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value if v is not None and str(v).strip()]
    return [str(value)]


def task_conditions(task: Any) -> dict[str, list[str]]:
    """What a task asks, as lists of prose: instruction, state conditions, inclusion and exclusion conditions.

    Reads the release's fields wherever the task keeps them: an attribute of the task
    (``state_conditions``, ``inclusion_conditions``, ``exclusion_conditions``,
    ``start_url``) when it has one, else the metadata's ``State-Gated Retrieval`` and the
    rubric's ``inclusion_conditions`` and ``exclusion_conditions``.

    Parameters
    ----------
    task : Task or None

    Returns
    -------
    dict
        Keys ``instruction``, ``state``, ``inclusion``, ``exclusion``, ``output_format``,
        ``start_url``; each a list of strings (empty when the task does not say).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> task = SimpleNamespace(instruction="List the CVEs.", output_format="", rubric={"inclusion_conditions":
    ...     ["score >= 9"]}, metadata={"State-Gated Retrieval": ["filter: vendor = X", "sort by date"]})
    >>> task_conditions(task)["state"], task_conditions(task)["inclusion"], task_conditions(None)["state"]
    (['filter: vendor = X', 'sort by date'], ['score >= 9'], [])
    """
    keys = ("instruction", "state", "inclusion", "exclusion", "output_format", "start_url")
    if task is None:
        return {k: [] for k in keys}
    metadata = getattr(task, "metadata", None) or {}
    rubric = getattr(task, "rubric", None) or {}

    def pick(attribute: str, *fallbacks: Any) -> list[str]:
        found = _items(getattr(task, attribute, None))
        for fallback in fallbacks:
            if found:
                break
            found = _items(fallback)
        return found

    return {
        "instruction": pick("instruction"),
        "state": pick("state_conditions", metadata.get("State-Gated Retrieval")),
        "inclusion": pick("inclusion_conditions", rubric.get("inclusion_conditions")),
        "exclusion": pick("exclusion_conditions", rubric.get("exclusion_conditions")),
        "output_format": pick("output_format"),
        "start_url": pick("start_url", metadata.get("start_url")),
    }


def conditions_html(task: Any) -> str:
    """The task's instruction and state conditions, each under its heading (what the task does not say is named).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> page = conditions_html(SimpleNamespace(instruction="<b>x</b>", metadata={}, rubric={}))
    >>> "&lt;b&gt;x&lt;/b&gt;" in page, "not given in the task file" in page
    (True, True)
    """
    if task is None:
        return '<div class="sgr-task"><p class="sgr-muted">Task: not available (give the tasks).</p></div>'
    found = task_conditions(task)
    heads = (
        ("instruction", "Instruction"),
        ("state", "State conditions (State-Gated Retrieval)"),
        ("inclusion", "Inclusion conditions"),
        ("exclusion", "Exclusion conditions"),
        ("output_format", "Output format"),
        ("start_url", "Start URL"),
    )
    parts = []
    for key, head in heads:
        items = found[key]
        if not items:
            if key in ("state", "inclusion", "exclusion"):
                parts.append(f'<div class="sgr-cond-head">{head}</div>'
                             '<div class="sgr-cond-body sgr-muted">not given in the task file</div>')
            continue
        if len(items) == 1:
            body = text_html(items[0], limit=4_000)
        else:
            body = "<ul>" + "".join(f"<li>{text_html(v, limit=1_000)}</li>" for v in items[:60]) + "</ul>"
        parts.append(f'<div class="sgr-cond-head">{head}</div><div class="sgr-cond-body">{body}</div>')
    return f'<div class="sgr-task">{"".join(parts)}</div>'


def title_html(key: tuple, score: Mapping[str, Any], *, position: int, total: int, blind: bool) -> str:
    """The answer's heading: its place in the sheet, the task, and (unless blind) the system.

    Examples
    --------
    >>> title_html(("GPT", "nvd_001", 0), {"variant": "goal"}, position=3, total=22, blind=True)
    '<h3>Answer 4 of 22 · <bdi>nvd_001</bdi> · repeat 0 <span class="sgr-muted">(goal)</span></h3>'
    """
    system, task_id, repeat = key
    facts = [str(score[c]) for c in ("variant", "domain", "family") if isinstance(score.get(c), str)]
    who = "" if blind else f"{text_html(system, limit=80)} · "
    extra = f' <span class="sgr-muted">({html.escape(" · ".join(facts))})</span>' if facts else ""
    return (
        f"<h3>Answer {position + 1} of {total} · {who}{text_html(task_id, limit=80)} · repeat "
        f"{html.escape(str(repeat))}{extra}</h3>"
    )


def answer_view_html(detail: AnswerDetail, *, blind: bool) -> str:
    """The reference and the answer cell by cell (the explorer's aligned table), with status and text.

    In blind mode the metrics are left out (the cells keep their verdict marks: they are
    the evidence compared with the reference).
    """
    parts = ["<h4>Reference and answer, cell by cell</h4>", f"<div>{status_html(detail)}</div>"]
    if not blind:
        parts.append(metrics_line_html(detail.score))
    parts += [f'<div class="sgr-note">{text_html(note, limit=None)}</div>' for note in detail.notes]
    parts.append(legend_html())
    parts.append(aligned_table_html(detail, compact=len(detail.columns) > WIDE))
    parts.append(f"<details><summary>Answer text</summary>{answer_text_html(detail, 4_000)}</details>")
    return "".join(parts)


def _value(value: Any) -> Any:
    """None for an absent value (None, NA, NaN or empty text), else the value."""
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)) or value == "":
        return None
    return value


def trajectory_html(
    steps: Sequence[Mapping[str, Any]] | None,
    reach: Mapping[str, Any] | None = None,
    *,
    limit: int = 400,
    excerpt: int = 1_500,
) -> str:
    """The trajectory as one collapsible element per step, the first step on the task's site marked.

    Parameters
    ----------
    steps : sequence of mappings, or None
        The answer's steps in order, each with the fields of the steps table
        (``step, kind, tool, url, host, query, text, t, tokens``; :data:`sgr_kit.schema.STEP_COLUMNS`);
        None: no trajectory.
    reach : mapping, optional
        The answer's row of the site-reach table (``reached_site``, ``first_site_step``,
        ``steps``, ``tool_calls``, ``hosts``, ``site_fetch_share``).
    limit : int, default 400
        Steps shown at most.
    excerpt : int, default 1500
        Characters of each step's text shown.

    Returns
    -------
    str

    Examples
    --------
    >>> steps = [{"step": 0, "kind": "search", "query": "cve vendor x"},
    ...          {"step": 1, "kind": "fetch", "url": "https://nvd.nist.gov/x", "host": "nvd.nist.gov"}]
    >>> page = trajectory_html(steps, {"reached_site": True, "first_site_step": 1})
    >>> page.count("<details"), "first step on the task's site" in page
    (2, True)
    """
    if steps is None:
        return (
            "<h4>Trajectory</h4><p class=\"sgr-muted\">No trajectory for this answer (give the trajectories; "
            "without one, label from the answer or choose Not analyzable).</p>"
        )
    first = _value(reach.get("first_site_step")) if reach else None
    first = int(first) if first is not None else None
    head = [f"{len(steps):,} steps"]
    if reach:
        for name, label in (("tool_calls", "tool calls"), ("hosts", "hosts")):
            if _value(reach.get(name)) is not None:
                head.append(f"{int(reach[name]):,} {label}")
        if _value(reach.get("reached_site")) is not None:
            reached = bool(reach["reached_site"]) and first is not None
            head.append(f"task's site first reached at step {first}" if reached else "never reached the task's site")
        share = _value(reach.get("site_fetch_share"))
        if share is not None:
            head.append(f"{100 * float(share):.0f}% of fetches on the site")
    items = []
    for row in list(steps)[:limit]:
        number = _value(row.get("step"))
        kind = str(_value(row.get("kind")) or "")
        tool, url, host, query = (_value(row.get(c)) for c in ("tool", "url", "host", "query"))
        what = url if url is not None else query
        summary = " · ".join(
            p for p in (
                f"#{number}" if number is not None else "#?", _KINDS.get(kind, kind), plain_label(tool, width=30)
                if tool is not None else "", plain_label(host, width=40) if host is not None else "",
                plain_label(what, width=110) if what is not None else "",
            ) if p
        )  # fmt: skip
        marks, css, opened = "", "sgr-step", ""
        if first is not None and number is not None and int(number) == first:
            marks = '<span class="sgr-first-mark">◆ first step on the task\'s site</span> '
            css, opened = "sgr-step sgr-first-site", " open"
        body = []
        if url is not None:
            body.append(f"<div>URL: {text_html(url, limit=2_000)}</div>")
        if query is not None:
            body.append(f"<div>Query: {text_html(query, limit=2_000)}</div>")
        text = _value(row.get("text"))
        if text is not None and str(text):
            body.append(f"<pre>{text_html(text, limit=excerpt, isolate=False)}</pre>")
        facts = [f"{label} {html.escape(str(_value(row.get(c))))}" for c, label in (("t", "t"), ("tokens", "tokens"))
                 if _value(row.get(c)) is not None]
        if facts:
            body.append(f'<div class="sgr-muted">{" · ".join(facts)}</div>')
        items.append(
            f'<details class="{css}"{opened}><summary>{marks}{html.escape(summary)}</summary>'
            f'<div class="sgr-step-body">{"".join(body) or "<span class=sgr-muted>(no details)</span>"}</div>'
            "</details>"
        )
    more = f'<p class="sgr-more">... ({len(steps) - limit:,} more steps)</p>' if len(steps) > limit else ""
    return (
        f'<h4>Trajectory</h4><div class="sgr-traj-head">{html.escape(" · ".join(head))}</div>'
        f'<div class="sgr-traj">{"".join(items)}</div>{more}'
    )


def definitions_html(keys: Mapping[str, str]) -> str:
    """The label set as a table: shortcut, name and definition of each label, after the rule.

    Parameters
    ----------
    keys : mapping
        Label -> its keyboard shortcut.

    Examples
    --------
    >>> page = definitions_html({"correct": "1"})
    >>> "Retrieval-Scope Drift" in page, "earliest non-recoverable root cause" in page
    (True, True)
    """
    rows = "".join(
        f'<tr><td class="num"><kbd>{html.escape(keys.get(label, ""))}</kbd></td><td>'
        f'<b>{html.escape(LABEL_NAMES[label])}</b>'
        f'<span class="sgr-def">{html.escape(DEFINITIONS[label])}</span></td></tr>'
        for label in LABELS
    )
    return (
        f'<div class="sgr-rule"><b>Rule:</b> {html.escape(RULE)}</div>'
        f'<table class="sgr-t sgr-defs"><tr><th>key</th><th>label and definition (Appendix G)</th></tr>'
        f"{rows}</table>"
    )
