"""Label answers with the paper's error types in JupyterLab, one answer at a time.

:func:`annotate` opens an :class:`Annotator` on an annotation sheet (the answers to label:
``system, task_id, repeat``, as ``sgr-kit sample`` writes it) and the scored answers. For
each answer it shows the task's instruction and state conditions, the reference and the
answer cell by cell (the explorer's aligned table), the trajectory (one collapsible
element per step, the first step on the task's site marked) and the label set with the
definitions of Appendix G and the rule "earliest non-recoverable root cause; upstream
before answer-writing". Keys ``1``-``8`` label (:data:`~.keys.KEYMAP`), ``n``/``p`` move.

Every label is written at once, atomically, to the annotator's own label file
(``system, task_id, repeat, annotator, label, note, labelled_at``) with the annotator's
name: a crash, a restarted kernel or a closed tab loses nothing, and opening the same file
again resumes at the first unlabelled answer. Blind mode hides system names and scores and
shuffles the order (reproducibly, from ``seed``).
"""

from __future__ import annotations

import html
import os
import time
from typing import Any

import numpy as np
import pandas as pd

from sgr_kit.errors import SgrKitError
from sgr_kit.explore.render import CSS as EXPLORER_CSS
from sgr_kit.explore.render import banner_html, text_html
from sgr_kit.explore.sources import AnswerSource
from sgr_kit.schema import check_profile, is_synthetic
from sgr_kit.text import visible

from sgr_kit.load.labels import load_sheet

from .store import LabelStore
from .keys import KEYMAP, KeyCatcher, action_for
from .view import CSS, LABEL_NAMES, LABELS, answer_view_html, conditions_html, definitions_html, title_html
from .view import trajectory_html

__all__ = ["Annotator", "annotate", "SHEET_COLUMNS"]

#: Columns that name one answer of an annotation sheet.
SHEET_COLUMNS: tuple[str, str, str] = ("system", "task_id", "repeat")
#: Columns of a steps table (:func:`sgr_kit.trajectories.load_trajectories`) the widget reads.
_STEP_FIELDS: tuple[str, ...] = ("step", "kind", "tool", "url", "host", "query", "text", "t", "tokens")
#: The keyboard shortcut of each label.
_LABEL_KEYS: dict[str, str] = {label: key for key, (action, label) in KEYMAP.items() if action == "label"}


def _sheet(sheet: Any) -> pd.DataFrame:
    """The sheet as ``system, task_id, repeat`` (from a DataFrame or a CSV file), checked."""
    where = "annotation sheet"
    if isinstance(sheet, (str, os.PathLike)):
        sheet = load_sheet(sheet)
    if not isinstance(sheet, pd.DataFrame):
        raise SgrKitError(f"{where}: expected a DataFrame or a CSV path; found {type(sheet).__name__}")
    missing = [c for c in SHEET_COLUMNS if c not in sheet.columns]
    if missing:
        raise SgrKitError(f"{where}: missing column(s) {', '.join(missing)}; expected system, task_id, repeat")
    frame = sheet[list(SHEET_COLUMNS)].copy()
    repeat = pd.to_numeric(frame["repeat"], errors="coerce")
    bad = frame.index[repeat.isna() | (repeat != repeat.round())].tolist()
    if bad:
        found = frame["repeat"][bad[0]]
        raise SgrKitError(f"{where}, row {bad[0] + 1}: repeat must be a whole number; found {found!r}")
    frame["repeat"] = repeat.astype(int)
    dupes = frame.duplicated(keep="first")
    if dupes.any():
        row = frame[dupes].iloc[0]
        raise SgrKitError(f"{where}: the answer ({row['system']}, {row['task_id']}, repeat {row['repeat']}) is "
                          "listed twice")
    if frame.empty:
        raise SgrKitError(f"{where}: no answers to label")
    return frame.reset_index(drop=True)


class _Steps:
    """A steps table indexed once by answer (each answer's steps in order)."""

    def __init__(self, steps: pd.DataFrame) -> None:
        missing = [c for c in (*SHEET_COLUMNS, "step") if c not in steps.columns]
        if missing:
            raise SgrKitError(f"trajectories: missing column(s) {', '.join(missing)}; expected the steps table of "
                              "sgr_kit.trajectories.load_trajectories")
        frame = steps.sort_values([*SHEET_COLUMNS, "step"], kind="stable").reset_index(drop=True)
        self._columns = [c for c in _STEP_FIELDS if c in frame.columns]
        self._arrays = {c: frame[c].to_numpy(dtype=object) for c in self._columns}
        keys = zip(frame["system"].tolist(), frame["task_id"].tolist(), frame["repeat"].astype(int).tolist())
        self._positions: dict[tuple, list[int]] = {}
        for i, key in enumerate(keys):
            self._positions.setdefault(key, []).append(i)

    def get(self, key: tuple) -> list[dict] | None:
        rows = self._positions.get(key)
        if rows is None:
            return None
        return [{c: self._arrays[c][i] for c in self._columns} for i in rows]


def _sheet_steps(steps: pd.DataFrame, sheet: pd.DataFrame) -> pd.DataFrame:
    """The steps of the sheet's answers only (a trajectories table may hold many more)."""
    missing = [c for c in (*SHEET_COLUMNS, "step") if c not in steps.columns]
    if missing:
        raise SgrKitError(f"trajectories: missing column(s) {', '.join(missing)}; expected the steps table of "
                          "sgr_kit.trajectories.load_trajectories")
    wanted = set(zip(sheet["system"], sheet["task_id"], sheet["repeat"].astype(int)))
    keys = zip(steps["system"].tolist(), steps["task_id"].tolist(), steps["repeat"].astype(int).tolist())
    return steps[[key in wanted for key in keys]].reset_index(drop=True)


def _reach_rows(reach: pd.DataFrame | None) -> dict[tuple, dict]:
    if reach is None:
        return {}
    missing = [c for c in SHEET_COLUMNS if c not in reach.columns]
    if missing:
        raise SgrKitError(f"site reach: missing column(s) {', '.join(missing)}; expected the table of "
                          "sgr_kit.trajectories.site_reach")
    records = reach.to_dict("records")
    return {(r["system"], r["task_id"], int(r["repeat"])): r for r in records}


class Annotator:
    """The annotation widget (see :func:`annotate`).

    Attributes
    ----------
    order : list of tuple
        The answers ``(system, task_id, repeat)`` in the order shown (shuffled in blind mode).
    position : int
        Index in :attr:`order` of the answer shown.
    labels : dict
        ``(system, task_id, repeat) -> (label, note)``: this annotator's labels so far, as
        in the label file.
    annotator : str
    labels_path : Path
    blind : bool
    synthetic : bool
    last_draw_ms : float
        Time the last answer took to draw, in milliseconds.
    widget : ipywidgets.Widget
    """

    def __init__(
        self,
        sheet: Any,
        scores: pd.DataFrame,
        cells: pd.DataFrame | None = None,
        *,
        annotator: str,
        labels_path: str | os.PathLike,
        tasks: Any = None,
        runs: Any = None,
        trajectories: pd.DataFrame | None = None,
        reach: pd.DataFrame | None = None,
        blind: bool = False,
        seed: int = 0,
        advance: bool = True,
        synthetic: bool | None = None,
        profile: str = "paper",
    ) -> None:
        check_profile(profile)
        self.blind, self.seed, self.advance = bool(blind), int(seed), bool(advance)
        frame = _sheet(sheet)
        self._source = AnswerSource(scores, cells, tasks=tasks, runs=runs, profile=profile)
        keys = list(zip(frame["system"], frame["task_id"], frame["repeat"].astype(int)))
        absent = [(i, k) for i, k in enumerate(keys) if self._source.position(k) is None]
        if absent:
            listed = "\n  ".join(f"row {i + 1}: answer (system {visible(k[0])!r}, task {visible(k[1])!r}, "
                                  f"repeat {k[2]})" for i, k in absent)
            raise SgrKitError(
                f"annotation sheet: {len(absent)} answer(s) are not in the scores table; draw the sheet from the "
                f"same scores:\n  {listed}"
            )
        if self.blind:
            keys = [keys[i] for i in np.random.default_rng(self.seed).permutation(len(keys))]
        self.order: list[tuple] = keys
        if trajectories is not None:
            trajectories = _sheet_steps(trajectories, frame)
        self._steps = _Steps(trajectories) if trajectories is not None else None
        self._reach_note = ""
        if reach is None and trajectories is not None and self._source.tasks is not None:
            from sgr_kit.trajectories import site_reach

            try:
                reach = site_reach(trajectories, list(self._source.tasks.values()))
            except SgrKitError as exc:  # e.g. a task naming no site: steps shown, site not marked, reason said
                self._reach_note = f"The task's site cannot be marked: {exc}"
        self._reach = _reach_rows(reach)
        scored = self._source.scores
        self.synthetic = is_synthetic(scored) if synthetic is None else bool(synthetic)
        # checks the name and the file (creates it when absent); refuses answers not in the sheet
        self._store = LabelStore(labels_path, annotator, answers=keys)
        self.annotator, self.labels_path = self._store.annotator, self._store.path
        self.labels: dict[tuple, tuple[str, str]] = {}
        self._read_labels()
        self.position = self._store.first_unlabelled(self.order)
        if self.position is None:
            self.position = len(self.order) - 1
        self.last_draw_ms = float("nan")
        self._drawing = False  # set while the widget itself fills the note field
        self._build()
        self._draw()

    # ---------------------------------------------------------------- labels
    def _read_labels(self) -> None:
        self.labels = self._store.label_notes()

    def first_unlabelled(self, start: int = 0) -> int | None:
        """The first answer without a label from ``start`` on (then from the beginning); None when all are."""
        n = len(self.order)
        for i in list(range(start, n)) + list(range(0, start)):
            if self.order[i] not in self.labels:
                return i
        return None

    @property
    def current(self) -> tuple:
        """The answer shown, ``(system, task_id, repeat)``."""
        return self.order[self.position]

    def label(self, label: str, *, note: str | None = None) -> Annotator:
        """Give the answer shown ``label`` (with the note field's text, or ``note``), write it, move on.

        The label is written to the label file at once (atomically). With ``advance``
        (the default) the next answer is shown.

        Raises
        ------
        SgrKitError
            For a label outside :data:`~.view.LABELS`, or when the file cannot be written
            (the widget shows the message and stays on the answer).
        """
        if label not in LABELS:
            raise SgrKitError(f"label {label!r}: expected one of {', '.join(LABELS)}")
        text = self._note.value if note is None else note
        system, task_id, repeat = self.current
        self._store.set(system, task_id, repeat, label, note=text)
        self._read_labels()  # with the labels another tab of this annotator wrote meanwhile
        saved = (f'<span class="sgr-saved">✓ saved {html.escape(LABEL_NAMES[label])} for answer {self.position + 1} '
                 f"to {text_html(str(self.labels_path), limit=200)}</span>")
        if self.advance and self.position < len(self.order) - 1:
            self.show(self.position + 1)
        else:
            self._draw()
        self._status.value = saved
        return self

    def show(self, position: int) -> Annotator:
        """Show the answer at ``position`` of :attr:`order` (clipped to the sheet)."""
        self.position = min(max(int(position), 0), len(self.order) - 1)
        self._draw()
        return self

    def next(self) -> Annotator:
        """Show the next answer."""
        return self.show(self.position + 1)

    def previous(self) -> Annotator:
        """Show the previous answer."""
        return self.show(self.position - 1)

    def next_unlabelled(self) -> Annotator:
        """Show the next answer without a label (the answer shown stays when all are labelled)."""
        found = self.first_unlabelled(self.position + 1)
        return self.show(found if found is not None else self.position)

    def press(self, key: str) -> Annotator:
        """Act on a key as the keyboard shortcut does (:data:`~.keys.KEYMAP`); other keys do nothing."""
        action = action_for(key)
        if action is None:
            return self
        kind, label = action
        try:
            if kind == "label":
                return self.label(label)
            return {"next": self.next, "previous": self.previous, "unlabelled": self.next_unlabelled}[kind]()
        except (SgrKitError, OSError) as exc:
            self._status.value = f'<span class="sgr-error">{text_html(exc, limit=500)}</span>'
            return self

    def table(self) -> pd.DataFrame:
        """This annotator's labels as in the label file (a fresh read)."""
        return LabelStore(self.labels_path, self.annotator).labels

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        bundle = dict(self.widget._repr_mimebundle_(include=include, exclude=exclude) or {})
        bundle["text/plain"] = (
            f"SGR-Bench annotation: {len(self.labels):,} of {len(self.order):,} answers labelled by "
            f"{self.annotator} in {self.labels_path} (open in JupyterLab to label)"
        )
        return bundle

    # ---------------------------------------------------------------- widgets
    def _build(self) -> None:
        import ipywidgets as w

        self._keys = KeyCatcher()
        self._keys.on_key(self.press)
        self._buttons: dict[str, Any] = {}
        rows = []
        for label in LABELS:
            button = w.Button(description=f"{_LABEL_KEYS[label]} · {LABEL_NAMES[label]}",
                              layout=w.Layout(width="98%"),
                              tooltip=f"label this answer {LABEL_NAMES[label]}")
            button.add_class("sgr-label-button")
            button.add_class(f"sgr-label-{label}")
            button.on_click(lambda _b, label=label: self.press(_LABEL_KEYS[label]))
            self._buttons[label] = button
            rows.append(button)
        self._previous = w.Button(description="previous (p)", icon="arrow-left", layout=w.Layout(width="130px"))
        self._next = w.Button(description="next (n)", icon="arrow-right", layout=w.Layout(width="130px"))
        self._unlabelled = w.Button(description="next unlabelled (u)", layout=w.Layout(width="170px"))
        self._previous.on_click(lambda _b: self.press("p"))
        self._next.on_click(lambda _b: self.press("n"))
        self._unlabelled.on_click(lambda _b: self.press("u"))
        self._note = w.Textarea(value="", placeholder="note (optional): saved with the label",
                                continuous_update=False, layout=w.Layout(width="100%", height="60px"))
        self._note.add_class("sgr-note-field")
        self._note.observe(self._on_note, names="value")
        self._status = w.HTML()
        self._status.add_class("sgr-status-line")
        self._progress = w.HTML()
        self._progress.add_class("sgr-progress")
        self._title = w.HTML()
        self._title.add_class("sgr-title")
        self._task = w.HTML()
        self._answer = w.HTML()
        self._answer.add_class("sgr-answer")
        self._trajectory = w.HTML()
        self._trajectory.add_class("sgr-trajectory")
        for view in (self._task, self._answer, self._trajectory):
            view.add_class("sgr-view")
        mode = (f"blind: system names and scores hidden, order shuffled (seed {self.seed})" if self.blind
                else "system names and scores shown")
        header = w.HTML(
            f"<style>{EXPLORER_CSS}{CSS}</style>{banner_html(self.synthetic)}"
            "<h3>SGR-Bench error-type annotation</h3>"
            f'<span class="sgr-muted">annotator <b>{text_html(self.annotator, limit=80)}</b> · labels written to '
            f"{text_html(str(self.labels_path), limit=200)} · {len(self.order):,} answers · {mode}</span>"
        )
        panel = w.VBox([
            self._keys,
            w.VBox(rows),
            self._note,
            w.HBox([self._previous, self._next, self._unlabelled], layout=w.Layout(flex_flow="row wrap")),
            self._status,
            w.HTML(definitions_html(_LABEL_KEYS)),
        ], layout=w.Layout(width="40%", min_width="360px", padding="0 0 0 10px"))  # fmt: skip
        content = w.VBox([self._title, self._task, self._answer, self._trajectory],
                         layout=w.Layout(width="60%", min_width="0"))
        self.widget = w.VBox([header, self._progress, w.HBox([content, panel], layout=w.Layout(width="100%"))],
                             layout=w.Layout(width="100%"))
        self.widget.add_class("sgr-x")
        self.widget.add_class("sgr-annotator")

    def _on_note(self, change: Any) -> None:
        if self._drawing:
            return
        current = self.labels.get(self.current)
        if current is not None and change["new"] != current[1]:
            system, task_id, repeat = self.current
            try:
                self._store.set(system, task_id, repeat, current[0], note=change["new"])
            except (SgrKitError, OSError) as exc:
                self._status.value = f'<span class="sgr-error">{text_html(exc, limit=500)}</span>'
                return
            self.labels[self.current] = (current[0], self._store.get(system, task_id, repeat)["note"])
            self._status.value = '<span class="sgr-saved">✓ note saved</span>'

    def _draw(self) -> None:
        start = time.perf_counter()
        key = self.current
        detail = self._source.detail(key)
        task = self._source.task(key[1])
        steps = self._steps.get(key) if self._steps is not None else None
        given = self.labels.get(key)
        done = len(self.labels.keys() & set(self.order))
        self._title.value = title_html(key, detail.score, position=self.position, total=len(self.order),
                                       blind=self.blind)
        self._progress.value = (
            f"<b>{done:,} of {len(self.order):,} labelled</b> · showing answer {self.position + 1} · this answer: "
            + (f"<b>{html.escape(LABEL_NAMES.get(given[0], given[0]))}</b>" if given else "not labelled yet")
        )
        self._task.value = "<h4>Task</h4>" + conditions_html(task)
        self._answer.value = answer_view_html(detail, blind=self.blind)
        note = f'<p class="sgr-note">{text_html(self._reach_note, limit=600)}</p>' if self._reach_note else ""
        self._trajectory.value = trajectory_html(steps, self._reach.get(key)) + note
        self._drawing = True
        try:
            self._note.value = given[1] if given else ""
        finally:
            self._drawing = False
        for label, button in self._buttons.items():
            if given and given[0] == label:
                button.add_class("sgr-chosen")
                button.button_style = "info"
            else:
                button.remove_class("sgr-chosen")
                button.button_style = ""
        self._previous.disabled = self.position == 0
        self._next.disabled = self.position == len(self.order) - 1
        self._status.value = ""
        self.last_draw_ms = 1000 * (time.perf_counter() - start)


def annotate(
    sheet: Any,
    scores: pd.DataFrame,
    cells: pd.DataFrame | None = None,
    *,
    annotator: str,
    labels_path: str | os.PathLike,
    tasks: Any = None,
    runs: Any = None,
    trajectories: pd.DataFrame | None = None,
    reach: pd.DataFrame | None = None,
    blind: bool = False,
    seed: int = 0,
    advance: bool = True,
    synthetic: bool | None = None,
    profile: str = "paper",
) -> Annotator:
    """Open the annotation widget: label each answer of ``sheet`` with one audit label (display the result).

    Parameters
    ----------
    sheet : DataFrame or path
        The answers to label, ``system, task_id, repeat`` (``sgr-kit sample --out``), in
        the order to label them.
    scores : DataFrame
        The scores table the answers come from (``sgr-kit score --out``).
    cells : DataFrame, optional
        Its cells table (``sgr-kit score --cells``): the reference and the answer cell by cell.
    annotator : str
        Your name, written with every label.
    labels_path : path
        Your own label file (CSV). Created at the first label; when it exists, your labels
        in it are read and the widget opens at the first answer you have not labelled.
    tasks : TaskSet, optional
        The tasks: instruction, state conditions, the reference as written.
    runs : RunSet, optional
        The answers' texts (with ``tasks``: parse issues).
    trajectories : DataFrame, optional
        The steps table (:func:`sgr_kit.trajectories.load_trajectories`).
    reach : DataFrame, optional
        The site-reach table (:func:`sgr_kit.trajectories.site_reach`); computed from
        ``trajectories`` and ``tasks`` when not given.
    blind : bool, default False
        Hide system names and scores and shuffle the order (from ``seed``).
    seed : int, default 0
        The shuffle of blind mode: the same seed gives the same order.
    advance : bool, default True
        Show the next answer after each label.
    synthetic : bool, optional
        Whether the data are simulated (a banner says so); default: the scores' flag.
    profile : {"paper", "strict"}, default "paper"
        The profile to re-score answers with for display (the one the scores used).

    Returns
    -------
    Annotator
        Displays as the widget; ``.label(...)``, ``.next()``, ``.press(key)`` drive it from
        Python.

    Raises
    ------
    SgrKitError
        For a sheet without the columns ``system, task_id, repeat``, an answer listed twice
        or absent from the scores, an empty annotator name, or a label file that is not CSV.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> scores = pd.DataFrame({"system": ["A", "B"], "task_id": "t_001", "variant": "constraint", "repeat": 0,
    ...                        "status": "parsed", "item_f1": [1.0, 0.5], "row_f1": [1.0, 0.0], "poa": 1.0})
    >>> path = Path(tempfile.mkdtemp()) / "labels.csv"
    >>> app = annotate(scores[["system", "task_id", "repeat"]], scores, annotator="ann", labels_path=path)
    >>> app.press("1").current, annotate(scores, scores, annotator="ann", labels_path=path).position
    (('B', 't_001', 0), 1)
    """
    return Annotator(
        sheet, scores, cells, annotator=annotator, labels_path=labels_path, tasks=tasks, runs=runs,
        trajectories=trajectories, reach=reach, blind=blind, seed=seed, advance=advance, synthetic=synthetic,
        profile=profile,
    )  # fmt: skip
