"""The explorer application: ipywidgets over the pure selection and rendering functions.

:class:`Explorer` shows the answers of an :class:`~sgr_kit.explore.sources.AnswerSource`
(a scores table with its cells, tasks and runs); :mod:`.entry` holds the functions that
open it (:func:`~sgr_kit.explore.explore` and its siblings).

Displaying an :class:`Explorer` shows the widgets in JupyterLab. Its display bundle also
carries a static HTML view of the selection (:meth:`Explorer.static_html`), which a
notebook exported without a running kernel shows instead of "Loading widget...".
"""

from __future__ import annotations

import base64
import html
import os
from pathlib import Path
from typing import Any

import pandas as pd

from sgr_kit.errors import SgrKitError
from sgr_kit.schema import METRIC_LABELS, METRICS, check_failure_policy, check_profile, is_synthetic

from .answers import AnswerDetail
from .filters import (
    FILTER_COLUMNS,
    FilterState,
    filter_options,
    scores_text_lookup,
    select,
    selection_csv,
    selection_means,
)
from .sources import AnswerSource, StaticView
from .render import (
    CSS,
    WIDE,
    answer_html,
    banner_html,
    plain_label,
    side_by_side_html,
    static_html,
    summary_html,
    text_html,
)

__all__ = ["Explorer"]

#: Headings of the categorical filters.
_FILTER_LABELS = {
    "systems": "System", "variants": "Variant", "families": "Family", "domains": "Domain",
    "bins": "Reference rows", "statuses": "Status",
}  # fmt: skip
_FILTER_WIDTHS = {"systems": "190px", "variants": "110px", "families": "180px", "domains": "220px",
                  "bins": "110px", "statuses": "120px"}  # fmt: skip
#: Sort choices: (label, scores column).
_SORTS = (
    ("table order", ""), ("system", "system"), ("task", "task_id"), ("Item-F1", "item_f1"), ("Row-F1", "row_f1"),
    ("P.O.A.", "poa"), ("C_item", "correct_fields"), ("N_pred", "pred_fields"), ("C_row", "correct_rows"),
    ("reference rows", "gold_rows"), ("status", "status"),
)  # fmt: skip


class Explorer:
    """The interactive explorer of scored answers (see :func:`explore`).

    Attributes
    ----------
    scores : DataFrame
        The scores table (with a fresh 0..n-1 index).
    state : FilterState
        The filters in force.
    selection : DataFrame
        The answers that pass them, in the chosen order.
    synthetic : bool
        The data are simulated: every view carries a banner saying so.
    widget : ipywidgets.VBox
        The application.
    """

    def __init__(
        self,
        scores: pd.DataFrame,
        cells: pd.DataFrame | None = None,
        *,
        tasks: Any = None,
        runs: Any = None,
        profile: str = "paper",
        rules: Any = None,
        synthetic: bool | None = None,
        failure_policy: str = "zero",
        list_limit: int = 2_000,
    ) -> None:
        check_profile(profile)
        check_failure_policy(failure_policy)
        self._source = AnswerSource(scores, cells, tasks=tasks, runs=runs, profile=profile, rules=rules)
        self.scores = self._source.scores
        self._cells, self._tasks, self._texts = self._source.cells, self._source.tasks, self._source.texts
        self.profile, self.rules, self.failure_policy = profile, rules, failure_policy
        self.synthetic = is_synthetic(self.scores) if synthetic is None else bool(synthetic)
        self.list_limit = int(list_limit)
        self._search: pd.Series | None = None
        self._position = self._source.positions
        self._systems = tuple(pd.unique(self.scores["system"]))
        base = self.scores["base_id"] if "base_id" in self.scores else self.scores["task_id"].str.removesuffix("-g")
        self._variant_of = {
            (s, b, int(r), v): i
            for i, (s, b, r, v) in enumerate(zip(self.scores["system"], base, self.scores["repeat"],
                                                 self.scores["variant"]))
        }
        self._base = base.tolist()
        self.state = FilterState()
        self.selection = self.scores
        self.selected: tuple | None = None
        self._detail: AnswerDetail | None = None
        self._busy = False
        self._stale = {"pair": True, "compare": True}
        self._build()
        self._apply(self.state)

    # ---------------------------------------------------------------- data
    def _search_text(self) -> pd.Series:
        if self._search is None:
            if self._texts is not None:
                texts = {k: v for k, v in self._texts.items() if v}
            elif self._cells is not None:
                texts = self._cells.search_texts()
            else:
                raise SgrKitError("text search needs the answers' text: give the runs or the cells table")
            self._search = scores_text_lookup(self.scores, texts)
        return self._search

    def detail(self, key: tuple) -> AnswerDetail:
        """Everything known about the answer ``(system, task_id, repeat)``."""
        return self._source.detail(key)

    def describe_filters(self) -> list[str]:
        """The filters in force, in words."""
        state, out = self.state, []
        for name in FILTER_COLUMNS:
            if getattr(state, name):
                out.append(f"{_FILTER_LABELS[name].lower()}: {', '.join(getattr(state, name))}")
        if not state.full_range:
            low, high = state.score_range
            out.append(f"{METRIC_LABELS[state.metric]} in [{100 * low:g}, {100 * high:g}]")
        if state.text:
            out.append(f"answer contains {state.text!r}")
        if state.sort_by:
            out.append(f"sorted by {state.sort_by} ({'ascending' if state.ascending else 'descending'})")
        return out

    # ---------------------------------------------------------------- public actions
    def set_filters(self, **changes: Any) -> Explorer:
        """Change filters (fields of :class:`FilterState`) and redraw once; returns the explorer."""
        state = self.state.replace(**changes)
        self._busy = True
        try:
            self._push_state(state)
        finally:
            self._busy = False
        self._apply(state)
        return self

    def reset_filters(self) -> Explorer:
        """Clear every filter."""
        return self.set_filters(**{f: getattr(FilterState(), f) for f in FilterState.__dataclass_fields__})

    def select_answer(self, system: str, task_id: str, repeat: int = 0) -> Explorer:
        """Show the answer ``(system, task_id, repeat)``; it must be in the listed selection."""
        key = (system, task_id, int(repeat))
        position = self._position.get(key)
        if position is None or position not in self._listed:
            raise SgrKitError(f"answer {key!r} is not in the current selection; change the filters first")
        self._list.value = position
        return self

    def export_csv(self, path: str | os.PathLike, *, force: bool = False) -> Path:
        """Write the selection to ``path`` (CSV, atomically; an existing file only with ``force``)."""
        from sgr_kit.output import write_table

        if Path(path).suffix.lower() != ".csv":
            raise SgrKitError(f"export file {path}: expected a file name ending in .csv")
        return write_table(self.selection, path, force=force)

    def static_html(self, *, answer: bool = True, limit: int = 50, kind: str = "fallback") -> str:
        """The static view: banner, filters, count and means, the selection's table, the shown answer.

        Parameters
        ----------
        answer : bool, default True
            Include the answer shown in the explorer.
        limit : int, default 50
            Rows of the selection listed.
        kind : {"fallback", "snapshot"}, default "fallback"
            See :func:`sgr_kit.explore.render.static_html`.
        """
        return static_html(
            self.selection, selection_means(self.selection, failure_policy=self.failure_policy),
            total=len(self.scores), synthetic=self.synthetic, detail=self._detail if answer else None,
            filters=self.describe_filters(), failure_policy=self.failure_policy, limit=limit, kind=kind,
        )  # fmt: skip

    def snapshot(self, *, answer: bool = False, limit: int = 20) -> StaticView:
        """The current selection as a plain HTML table, as a notebook output.

        Copies of a notebook executed by papermill or ``nbconvert --execute`` keep the
        widgets' state, so an HTML export of them shows the widget view (which needs the
        widget renderer) rather than the explorer's own static view; a cell showing this
        snapshot gives such copies a plain table of the selection.
        """
        return StaticView(self.static_html(answer=answer, limit=limit, kind="snapshot"))

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        bundle = dict(self.widget._repr_mimebundle_(include=include, exclude=exclude) or {})
        bundle["text/html"] = self.static_html()
        bundle["text/plain"] = (
            f"SGR-Bench answer explorer: {len(self.selection):,} of {len(self.scores):,} answers selected "
            "(open in JupyterLab for the interactive view)"
        )
        return bundle

    # ---------------------------------------------------------------- widgets
    def _build(self) -> None:
        import ipywidgets as w

        self._filters: dict[str, Any] = {}
        self._filter_values: dict[str, frozenset] = {}
        boxes = []
        for name, values in filter_options(self.scores).items():
            self._filter_values[name] = frozenset(values)
            pick = w.SelectMultiple(
                options=[(plain_label(v, width=40), v) for v in values], value=(), rows=min(max(len(values), 2), 6),
                layout=w.Layout(width=_FILTER_WIDTHS[name]),
            )  # fmt: skip
            pick.add_class(f"sgr-filter-{name}")
            pick.observe(self._on_filter, names="value")
            self._filters[name] = pick
            boxes.append(w.VBox([w.HTML(f"<b>{_FILTER_LABELS[name]}</b>"), pick],
                                layout=w.Layout(margin="0 10px 0 0")))
        hint = w.HTML('<span class="sgr-muted">none selected = all; ctrl/cmd-click for several</span>')
        self._metric = w.Dropdown(options=[(METRIC_LABELS[m], m) for m in METRICS], value="item_f1",
                                  description="Score", layout=w.Layout(width="190px"))
        self._range = w.FloatRangeSlider(value=(0.0, 100.0), min=0.0, max=100.0, step=1.0, description="range (%)",
                                         continuous_update=False, readout_format=".0f",
                                         layout=w.Layout(width="330px"))
        self._text = w.Text(value="", placeholder="text in the answer", description="Search",
                            continuous_update=True, layout=w.Layout(width="260px"))
        sorts = [(label, column) for label, column in _SORTS if column == "" or column in self.scores.columns]
        self._sort = w.Dropdown(options=sorts, value="", description="Sort by", layout=w.Layout(width="210px"))
        self._ascending = w.ToggleButtons(options=[("ascending", True), ("descending", False)], value=True,
                                          style={"button_width": "100px"})
        self._reset = w.Button(description="Reset filters", icon="undo", layout=w.Layout(width="120px"))
        for control in (self._metric, self._range, self._text, self._sort, self._ascending):
            control.observe(self._on_filter, names="value")
        self._reset.on_click(lambda _b: self.reset_filters())
        self._summary = w.HTML()
        self._list_head = w.HTML()
        self._list = w.Select(options=[], rows=12, layout=w.Layout(width="100%"))
        self._list.add_class("sgr-list")
        self._list.observe(self._on_pick, names="value")
        self._listed: dict[int, int] = {}

        self._canonical = w.Checkbox(value=False, description="show canonical forms", indent=False,
                                     layout=w.Layout(width="180px"))
        self._order = w.ToggleButtons(options=[("reference order", "reference"), ("answer order", "answer")],
                                      value="reference", style={"button_width": "130px"})
        self._layout = w.ToggleButtons(
            options=[("auto", "auto"), ("two tables", "two"), ("one table", "one")], value="auto",
            style={"button_width": "90px"},
            tooltips=[f"two tables up to {WIDE} columns, else one", "reference and answer side by side",
                      "the answer, with reference values under wrong cells"],
        )  # fmt: skip
        self._canonical.observe(lambda _c: self._redraw_views(), names="value")
        self._layout.observe(lambda _c: self._draw_answer(), names="value")
        self._order.observe(lambda _c: self._redraw_views(), names="value")
        self._answer = w.HTML()
        self._answer.add_class("sgr-answer")
        self._pair = w.HTML()
        self._other = w.Dropdown(options=[], description="compare with", style={"description_width": "90px"},
                                 layout=w.Layout(width="320px"))
        self._other.observe(lambda _c: self._draw_compare(), names="value")
        self._compare = w.HTML()
        for view in (self._answer, self._pair, self._compare):
            view.add_class("sgr-view")
        self._tabs = w.Tab(children=[
            w.VBox([w.HBox([self._canonical, self._order, self._layout], layout=w.Layout(flex_flow="row wrap")),
                    self._answer]),
            w.VBox([self._pair]),
            w.VBox([self._other, self._compare]),
        ])  # fmt: skip
        for i, title in enumerate(("Answer", "Constraint vs goal", "Compare systems")):
            self._tabs.set_title(i, title)
        self._tabs.observe(lambda _c: self._draw_hidden(), names="selected_index")

        self._export_path = w.Text(value="explorer-selection.csv", description="Export to",
                                   layout=w.Layout(width="340px"))
        self._overwrite = w.Checkbox(value=False, description="overwrite", indent=False,
                                     layout=w.Layout(width="100px"))
        self._export = w.Button(description="Export selection as CSV", icon="download",
                                layout=w.Layout(width="200px"))
        self._export_note = w.HTML()
        self._export.on_click(self._on_export)

        header = w.HTML(
            f"<style>{CSS}</style>{banner_html(self.synthetic)}"
            f"<h3>SGR-Bench answer explorer</h3>"
            f'<span class="sgr-muted">{len(self.scores):,} answers of {len(self._systems)} systems · '
            f"{self._sources()}</span>"
        )
        self.widget = w.VBox([
            header,
            w.HBox(boxes, layout=w.Layout(flex_flow="row wrap")),
            hint,
            w.HBox([self._metric, self._range, self._text], layout=w.Layout(flex_flow="row wrap")),
            w.HBox([self._sort, self._ascending, self._reset], layout=w.Layout(flex_flow="row wrap")),
            self._summary,
            self._list_head,
            self._list,
            self._tabs,
            w.HBox([self._export_path, self._overwrite, self._export, self._export_note],
                   layout=w.Layout(flex_flow="row wrap", align_items="center")),
        ], layout=w.Layout(width="100%"))  # fmt: skip
        self.widget.add_class("sgr-x")
        self.widget.add_class("sgr-explorer")

    def _sources(self) -> str:
        parts = ["scores"]
        if self._cells is not None:
            parts.append(f"{len(self._cells):,} cell records")
        if self._tasks is not None:
            parts.append("tasks")
        if self._texts is not None:
            parts.append("runs (answer texts)")
        else:
            parts.append("no runs: answers are reconstructed from their cells")
        return html.escape(" · ".join(parts))

    def _push_state(self, state: FilterState) -> None:
        for name, pick in self._filters.items():
            allowed = self._filter_values[name]
            pick.value = tuple(v for v in getattr(state, name) if v in allowed)
        self._metric.value = state.metric
        self._range.value = (100 * state.score_range[0], 100 * state.score_range[1])
        self._text.value = state.text
        self._sort.value = state.sort_by if state.sort_by in {c for _l, c in self._sort.options} else ""
        self._ascending.value = state.ascending

    def _read_state(self) -> FilterState:
        low, high = self._range.value
        return FilterState(
            **{name: tuple(pick.value) for name, pick in self._filters.items()},
            metric=self._metric.value, score_range=(low / 100, high / 100), text=self._text.value,
            sort_by=self._sort.value or "", ascending=bool(self._ascending.value),
        )  # fmt: skip

    # ---------------------------------------------------------------- events
    def _on_filter(self, _change: Any) -> None:
        if not self._busy:
            self._apply(self._read_state())

    def _on_pick(self, change: Any) -> None:
        if self._busy or change["new"] is None:
            return
        row = self.scores.iloc[change["new"]]
        self._show((row["system"], row["task_id"], int(row["repeat"])))

    def _on_export(self, _button: Any) -> None:
        try:
            path = self.export_csv(self._export_path.value, force=self._overwrite.value)
        except SgrKitError as exc:
            self._export_note.value = f'<span style="color:#b00020">{text_html(exc, limit=400)}</span>'
            return
        data = selection_csv(self.selection).encode("utf-8")
        link = ""
        if len(data) <= 5_000_000:
            href = "data:text/csv;charset=utf-8;base64," + base64.b64encode(data).decode("ascii")
            link = f' · <a download="{html.escape(path.name, quote=True)}" href="{href}">download</a>'
        self._export_note.value = (
            f"wrote {len(self.selection):,} answers to {text_html(str(path.resolve()), limit=300)}{link}"
        )

    # ---------------------------------------------------------------- drawing
    def _apply(self, state: FilterState) -> None:
        self.state = state
        text = self._search_text() if state.text else None
        self.selection = select(self.scores, state, text=text)
        means = selection_means(self.selection, failure_policy=self.failure_policy)
        self._summary.value = summary_html(means, total=len(self.scores), failure_policy=self.failure_policy)
        self._draw_list()

    def _draw_list(self) -> None:
        shown = self.selection.head(self.list_limit)
        systems = [plain_label(s, width=26) for s in shown["system"].tolist()]
        tasks = [plain_label(t, width=24) for t in shown["task_id"].tolist()]
        ws = max([len(s) for s in systems] + [6])
        wt = max([len(t) for t in tasks] + [4])
        columns = [shown[c].tolist() for c in ("repeat", "status", *METRICS)]
        labels = []
        for system, task, repeat, status, *metrics in zip(systems, tasks, *columns):
            values = " ".join(f"{100 * m:6.1f}" if m == m else "     –" for m in metrics)
            labels.append(f"{system:<{ws}}  {task:<{wt}}  r{repeat:<2} {status:<13} {values}")
        head = f"{'system':<{ws}}  {'task':<{wt}}  rep {'status':<13} {'Item-F1':>6} {'Row-F1':>6} {'P.O.A.':>6}"
        more = len(self.selection) - len(shown)
        note = f' <span class="sgr-muted">(first {len(shown):,} listed; narrow the filters)</span>' if more else ""
        self._list_head.value = f'<div class="sgr-list-head">{html.escape(head)}</div>{note}'
        positions = shown.index.tolist()
        self._listed = {p: i for i, p in enumerate(positions)}
        keep = self._position.get(self.selected) if self.selected is not None else None
        self._busy = True
        try:
            with self._list.hold_sync():  # one message to the front end for options and value
                self._list.options = list(zip(labels, positions))
                target = keep if keep in self._listed else (positions[0] if positions else None)
                self._list.value = target
        finally:
            self._busy = False
        if target is None:
            self._show(None)
        else:
            row = self.scores.iloc[target]
            key = (row["system"], row["task_id"], int(row["repeat"]))
            if key != self.selected:
                self._show(key)

    def _show(self, key: tuple | None) -> None:
        self.selected = key
        self._detail = self.detail(key) if key is not None else None
        self._update_other()
        self._redraw_views()

    def _redraw_views(self) -> None:
        self._draw_answer()
        self._stale = {"pair": True, "compare": True}
        self._draw_hidden()

    def _draw_hidden(self) -> None:
        index = self._tabs.selected_index
        if index == 1 and self._stale["pair"]:
            self._draw_pair()
        elif index == 2 and self._stale["compare"]:
            self._draw_compare()

    def _draw_answer(self) -> None:
        if self._detail is None:
            self._answer.value = '<p class="sgr-muted">No answer matches the filters.</p>'
            return
        layout = self._layout.value
        inline = layout == "one" or (layout == "auto" and len(self._detail.columns) > WIDE)
        self._answer.value = answer_html(
            self._detail, canonical=self._canonical.value, order=self._order.value, inline=inline
        )

    def _panel(self, position: int | None, missing: str) -> str:
        if position is None:
            return f'<p class="sgr-muted">{html.escape(missing)}</p>'
        row = self.scores.iloc[position]
        detail = self.detail((row["system"], row["task_id"], int(row["repeat"])))
        return answer_html(detail, canonical=self._canonical.value, order=self._order.value, compact=True)

    def _draw_pair(self) -> None:
        self._stale["pair"] = False
        if self.selected is None:
            self._pair.value = '<p class="sgr-muted">No answer selected.</p>'
            return
        position = self._position[self.selected]
        system, _task, repeat = self.selected
        base = self._base[position]
        sides = [self._variant_of.get((system, base, repeat, v)) for v in ("constraint", "goal")]
        self._pair.value = side_by_side_html(
            self._panel(sides[0], "No constraint-guided variant of this problem in the table."),
            self._panel(sides[1], "No goal-oriented variant of this problem in the table."),
            heading=f"Base problem {plain_label(base)}: constraint-guided (left) and goal-oriented (right), "
                    f"same system and repeat; both share one reference",
        )  # fmt: skip

    def _update_other(self) -> None:
        if self.selected is None:
            return
        others = [s for s in self._systems if s != self.selected[0]]
        current = self._other.value
        self._busy = True
        try:
            self._other.options = [(plain_label(s, width=40), s) for s in others]
            self._other.value = current if current in others else (others[0] if others else None)
        finally:
            self._busy = False

    def _draw_compare(self) -> None:
        self._stale["compare"] = False
        if self.selected is None or self._other.value is None:
            self._compare.value = '<p class="sgr-muted">Select an answer; a second system is needed to compare.</p>'
            return
        system, task_id, repeat = self.selected
        other = self._other.value
        self._compare.value = side_by_side_html(
            self._panel(self._position[self.selected], ""),
            self._panel(self._position.get((other, task_id, repeat)),
                        f"No answer of {other} to {task_id} (repeat {repeat}) in the table."),
            heading=f"Task {plain_label(task_id)}, repeat {repeat}: {plain_label(system)} (left) and "
                    f"{plain_label(other)} (right)",
        )  # fmt: skip
