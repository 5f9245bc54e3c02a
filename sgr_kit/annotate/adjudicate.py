"""From two or more annotators' label files to the one audit-label file the report reads.

- :func:`disagreements`: the answers labelled differently, with every annotator's label and note;
- :func:`adjudicate`: the final label of every answer: the common label where the annotators
  agree (or the one label where only one annotator labelled it), the adjudicator's decision
  where they disagree, and which disagreements are still open;
- :func:`write_final_labels`: the audit-label file (``system, task_id, repeat, label,
  source, note``; :func:`sgr_kit.load.load_audit` reads it), written atomically, only when
  no disagreement is open. Answers finally labelled ``not_analyzable`` are left out of it:
  the error profiles count analyzable trajectories only (the paper's "trace-bearing"
  ones), and the function says how many were left out.
- :class:`AdjudicationView`: an ipywidgets view that shows each disagreement (each
  annotator's label and note) and lets the adjudicator pick the final label. Each decision
  is written at once to the adjudicator's own label file (:class:`~sgr_kit.annotate.store.LabelStore`,
  so closing the notebook loses nothing and reopening resumes), and the final file is
  written as soon as the last disagreement is decided.
"""

from __future__ import annotations

import html
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import pandas as pd

from ..errors import SgrKitError
from ..load.labels import load_labels
from ..output import check_writable, write_sheet
from ..schema import ANNOTATION_LABEL_NAMES, ANNOTATION_LABELS, NOT_ANALYZABLE, TEXT_DTYPE
from ..stats.agreement import ITEM, label_matrix
from .known import Answers, check_labels, known_answers
from .store import LabelStore

__all__ = [
    "DISAGREEMENT_COLUMNS", "FINAL_COLUMNS", "Adjudication", "disagreements", "adjudicate", "write_final_labels",
    "AdjudicationView",
]  # fmt: skip

#: Columns of :func:`disagreements`: one row per disagreeing answer and annotator.
DISAGREEMENT_COLUMNS = ("system", "task_id", "repeat", "annotator", "label", "note")
#: Columns of the final audit-label file.
FINAL_COLUMNS = ("system", "task_id", "repeat", "label", "source", "note")
#: Where a final label comes from.
SOURCES = ("agreed", "single", "adjudicated")


def _as_labels(labels: pd.DataFrame | str | os.PathLike | Iterable) -> pd.DataFrame:
    if isinstance(labels, pd.DataFrame):
        return labels
    return load_labels(labels)


def _notes(labels: pd.DataFrame) -> dict[tuple, str]:
    frame = labels.assign(repeat=labels["repeat"].astype("int64"))
    note = frame["note"] if "note" in frame.columns else pd.Series("", index=frame.index)
    return {(str(s), str(t), int(r), str(a)): ("" if pd.isna(n) else str(n))
            for s, t, r, a, n in zip(frame["system"], frame["task_id"], frame["repeat"], frame["annotator"], note)}


def disagreements(labels: pd.DataFrame | str | os.PathLike | Iterable) -> pd.DataFrame:
    """The answers two annotators labelled differently, one row per answer and annotator who labelled it.

    Parameters
    ----------
    labels : DataFrame, path or list of paths
        A labels table (``system, task_id, repeat, annotator, label`` and optionally ``note``)
        or label files to read with :func:`~sgr_kit.annotate.store.load_labels`.

    Returns
    -------
    DataFrame
        :data:`DISAGREEMENT_COLUMNS`, answers in sorted order, annotators sorted within each.

    Examples
    --------
    >>> labels = pd.DataFrame({"system": "m", "task_id": ["t1", "t2", "t1", "t2"], "repeat": 0,
    ...                        "annotator": ["ann", "ann", "bob", "bob"], "note": ["", "filters off", "", ""],
    ...                        "label": ["correct", "scope_drift", "correct", "criterion_mismatch"]})
    >>> disagreements(labels)[["task_id", "annotator", "label", "note"]].to_dict("records")
    ... # doctest: +NORMALIZE_WHITESPACE
    [{'task_id': 't2', 'annotator': 'ann', 'label': 'scope_drift', 'note': 'filters off'},
     {'task_id': 't2', 'annotator': 'bob', 'label': 'criterion_mismatch', 'note': ''}]
    """
    labels = _as_labels(labels)
    wide, _ = label_matrix(labels)
    notes = _notes(labels)
    rows = []
    for item, row in zip(wide.index, wide.to_numpy(dtype=object)):
        given = {a: v for a, v in zip(wide.columns, row) if v is not None}
        if len(set(given.values())) > 1:
            rows += [(*item, a, v, notes.get((*item, a), "")) for a, v in given.items()]
    return _typed(pd.DataFrame(rows, columns=list(DISAGREEMENT_COLUMNS)))


def _typed(frame: pd.DataFrame) -> pd.DataFrame:
    for column in frame.columns:
        frame[column] = frame[column].astype("int64" if column == "repeat" else TEXT_DTYPE)
    return frame


@dataclass(frozen=True)
class Adjudication:
    """The result of :func:`adjudicate`.

    Attributes
    ----------
    final : DataFrame
        :data:`FINAL_COLUMNS`: every answer with a final label (``source`` is ``agreed``,
        ``single`` (one annotator labelled it) or ``adjudicated``), in sorted order.
    pending : DataFrame
        :data:`DISAGREEMENT_COLUMNS`: the disagreements not yet decided.
    """

    final: pd.DataFrame
    pending: pd.DataFrame

    @property
    def complete(self) -> bool:
        """True when no disagreement is open."""
        return self.pending.empty


def adjudicate(
    labels: pd.DataFrame | str | os.PathLike | Iterable,
    *,
    decisions: pd.DataFrame | None = None,
    answers: Answers | None = None,
) -> Adjudication:
    """Final labels: agreed ones carried over, disagreements decided by ``decisions``.

    Parameters
    ----------
    labels : DataFrame, path or list of paths
        The annotators' labels (as for :func:`disagreements`).
    decisions : DataFrame, optional
        The adjudicator's labels (``system, task_id, repeat, label`` and optionally
        ``note``; e.g. ``LabelStore(...).labels``). A decision settles its answer, whether
        the annotators disagreed or not.
    answers : DataFrame, path or iterable of (system, task_id, repeat), optional
        The answers that were to be labelled: the annotation sheet or the scores table
        (:func:`~sgr_kit.annotate.known.known_answers`). Given, a label or decision on any
        other answer is an error listing every such label with its file and line, instead of
        being carried into the final labels.

    Returns
    -------
    Adjudication

    Raises
    ------
    SgrKitError
        With ``answers``: for labels or decisions on answers not among them (all listed).

    Examples
    --------
    >>> labels = pd.DataFrame({"system": "m", "task_id": ["t1", "t2", "t1", "t2"], "repeat": 0,
    ...                        "annotator": ["ann", "ann", "bob", "bob"],
    ...                        "label": ["correct", "scope_drift", "correct", "criterion_mismatch"]})
    >>> result = adjudicate(labels)
    >>> result.final[["task_id", "label", "source"]].to_dict("records"), len(result.pending)
    ([{'task_id': 't1', 'label': 'correct', 'source': 'agreed'}], 2)
    >>> decided = pd.DataFrame({"system": ["m"], "task_id": ["t2"], "repeat": [0], "label": ["scope_drift"]})
    >>> adjudicate(labels, decisions=decided).final["label"].tolist()
    ['correct', 'scope_drift']
    """
    labels = _as_labels(labels)
    if answers is not None:
        known = known_answers(answers)
        check_labels(labels, known)
        if decisions is not None and len(decisions):
            check_labels(decisions, known, what="decisions")
    wide, _ = label_matrix(labels)
    notes = _notes(labels)
    decided: dict[tuple, tuple[str, str]] = {}
    if decisions is not None and len(decisions):
        checked, _ = label_matrix(decisions.assign(annotator="adjudicator"))
        decision_notes = _notes(decisions.assign(annotator="adjudicator"))
        for item, value in zip(checked.index, checked["adjudicator"]):
            decided[item] = (value, decision_notes.get((*item, "adjudicator"), ""))
    final, pending_items = [], set()
    for item, row in zip(wide.index, wide.to_numpy(dtype=object)):
        given = {a: v for a, v in zip(wide.columns, row) if v is not None}
        if item in decided:
            final.append((*item, decided[item][0], "adjudicated", decided[item][1]))
            continue
        values = set(given.values())
        if len(values) == 1:
            said = "; ".join(f"{a}: {notes[(*item, a)]}" for a in given if notes.get((*item, a)))
            final.append((*item, values.pop(), "agreed" if len(given) > 1 else "single", said))
        else:
            pending_items.add(item)
    for item, (value, note) in decided.items():  # decisions on answers no annotator labelled
        if item not in wide.index:
            final.append((*item, value, "adjudicated", note))
    final_frame = _typed(pd.DataFrame(sorted(final, key=lambda r: r[:3]), columns=list(FINAL_COLUMNS)))
    open_ = disagreements(labels)
    keys = list(zip(open_["system"], open_["task_id"], open_["repeat"]))
    pending = open_[[k in pending_items for k in keys]].reset_index(drop=True)
    return Adjudication(final_frame, pending)


def write_final_labels(result: Adjudication, path: str | os.PathLike, *, force: bool = False) -> tuple[Path, int]:
    """Write the final audit-label file of a complete adjudication, atomically.

    Answers labelled ``not_analyzable`` are left out (see the module docstring).

    Returns
    -------
    (Path, int)
        The file written and how many ``not_analyzable`` answers were left out.

    Raises
    ------
    SgrKitError
        When disagreements are still open, when one (system, task) has final labels for two
        repeats (the audit file holds one label per system and task), or when ``path``
        exists and ``force`` is false.
    """
    if not result.complete:
        first = result.pending.iloc[0]
        n = result.pending[list(ITEM)].drop_duplicates().shape[0]
        raise SgrKitError(f"final labels: {n} disagreement(s) not decided yet (the first: system "
                          f"{first['system']!r}, task {first['task_id']!r}, repeat {first['repeat']}); "
                          "decide them before writing the audit file")
    final = result.final
    kept = final[final["label"] != NOT_ANALYZABLE].reset_index(drop=True)
    twice = kept.duplicated(["system", "task_id"], keep=False)
    if twice.any():
        row = kept[twice].iloc[0]
        raise SgrKitError(f"final labels: system {row['system']!r} has labels for several repeats of task "
                          f"{row['task_id']!r}; the audit file holds one label per system and task")
    out = write_sheet(kept, path, force=force)
    return out, int(len(final) - len(kept))


class AdjudicationView:
    """Decide each disagreement between annotators in JupyterLab (ipywidgets).

    Parameters
    ----------
    labels : DataFrame, path or list of paths
        The annotators' label files (or their table).
    out : path
        The final audit-label file to write (``.csv``).
    adjudicator : str, default "adjudicator"
        The adjudicator's name, written with each decision.
    decisions : path, optional
        The adjudicator's own label file (default: ``<out stem>-decisions.csv`` beside ``out``);
        created when absent, read back when present (reopening resumes where you stopped).
    force : bool, default False
        Replace an existing ``out``; without it an existing final file is an error at once.
    answers : DataFrame, path or iterable of (system, task_id, repeat), optional
        The annotation sheet or scores table: labels on other answers are an error listing
        each with its file and line (see :func:`adjudicate`).

    Attributes
    ----------
    widget : ipywidgets.VBox
        The view (displayed when the object is the cell's value).
    position : int
        Which disagreement is shown (0-based), in the order of :func:`disagreements`.
    written : Path or None
        The final file once written.

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> labels = pd.DataFrame({"system": "m", "task_id": ["t1", "t2", "t1", "t2"], "repeat": 0,
    ...                        "annotator": ["ann", "ann", "bob", "bob"], "note": "",
    ...                        "label": ["correct", "scope_drift", "correct", "criterion_mismatch"]})
    >>> view = AdjudicationView(labels, folder / "final.csv")
    >>> view.items, view.position
    ([('m', 't2', 0)], 0)
    >>> view.decide("scope_drift", note="filters were never set")
    >>> view.written.name, pd.read_csv(folder / "final.csv")["label"].tolist()
    ('final.csv', ['correct', 'scope_drift'])
    """

    def __init__(
        self,
        labels: pd.DataFrame | str | os.PathLike | Iterable,
        out: str | os.PathLike,
        *,
        adjudicator: str = "adjudicator",
        decisions: str | os.PathLike | None = None,
        force: bool = False,
        answers: Answers | None = None,
    ) -> None:
        import ipywidgets as w

        self.labels = _as_labels(labels)
        self._known = known_answers(answers) if answers is not None else None
        if self._known is not None:
            check_labels(self.labels, self._known)
        self.out = check_writable(out, force=force, what="final label file", suffixes=(".csv",))
        path = Path(decisions) if decisions is not None else self.out.with_name(f"{self.out.stem}-decisions.csv")
        if path.resolve() == self.out.resolve():
            raise SgrKitError(f"decisions file {path} is the final file; give another name")
        self.store = LabelStore(path, adjudicator, answers=self._known)
        table = disagreements(self.labels)
        self._table = table
        self.items = list(dict.fromkeys(zip(table["system"], table["task_id"], table["repeat"])))
        self.written: Path | None = None
        self.left_out = 0
        options = [(ANNOTATION_LABEL_NAMES[c], c) for c in ANNOTATION_LABELS]
        self._header = w.HTML()
        self._detail = w.HTML()
        self._choice = w.ToggleButtons(options=options, value=None, style={"button_width": "auto"})
        self._note = w.Text(placeholder="why this label (optional)", layout=w.Layout(width="60%"))
        self._decide = w.Button(description="Decide", button_style="primary")
        self._previous = w.Button(description="Previous")
        self._next = w.Button(description="Next")
        self._status = w.HTML()
        self._decide.on_click(lambda _: self.decide(self._choice.value, note=self._note.value))
        self._previous.on_click(lambda _: self.show(self.position - 1))
        self._next.on_click(lambda _: self.show(self.position + 1))
        self.widget = w.VBox([self._header, self._detail, self._choice, self._note,
                              w.HBox([self._previous, self._decide, self._next]), self._status])
        start = self.store.first_unlabelled(self.items)
        self.position = 0
        self.show(start if start is not None else 0)
        if self.items and start is None or not self.items:
            self._finish()

    def _ipython_display_(self) -> None:  # pragma: no cover - needs a front end
        from IPython.display import display

        display(self.widget)

    @property
    def decided(self) -> int:
        """How many disagreements have a decision."""
        return sum(item in self.store for item in self.items)

    def show(self, position: int) -> None:
        """Show the disagreement at ``position`` (clamped to the list)."""
        if not self.items:
            self._header.value = "<b>No disagreements</b>: every answer's labels agree."
            self._detail.value = ""
            return
        self.position = max(0, min(int(position), len(self.items) - 1))
        item = self.items[self.position]
        rows = self._table[(self._table["system"] == item[0]) & (self._table["task_id"] == item[1])
                           & (self._table["repeat"] == item[2])]  # fmt: skip
        self._header.value = (f"<b>Disagreement {self.position + 1} of {len(self.items)}</b> "
                              f"({self.decided} decided): system <code>{html.escape(item[0])}</code>, task "
                              f"<code>{html.escape(item[1])}</code>, repeat {item[2]}")
        cells = "".join(
            f"<tr><td>{html.escape(r.annotator)}</td><td>{html.escape(ANNOTATION_LABEL_NAMES[r.label])}</td>"
            f"<td>{html.escape(r.note)}</td></tr>" for r in rows.itertuples()
        )
        self._detail.value = f"<table><tr><th>annotator</th><th>label</th><th>note</th></tr>{cells}</table>"
        known = self.store.get(*item)
        self._choice.value = known["label"] if known else None
        self._note.value = known["note"] if known else ""

    def decide(self, label: str | None, *, note: str = "") -> None:
        """Record the final label of the shown disagreement, move on; write the final file when all are decided."""
        if not self.items:
            return
        if label is None:
            self._status.value = "Pick a label first."
            return
        self.store.set(*self.items[self.position], label, note=note)
        remaining = self.store.first_unlabelled(self.items)
        if remaining is None:
            self._finish()
            self.show(self.position)
        else:
            self._status.value = f"{self.decided} of {len(self.items)} decided."
            self.show(remaining)

    def _finish(self) -> None:
        result = adjudicate(self.labels, decisions=self.store.labels, answers=self._known)
        self.written, self.left_out = write_final_labels(result, self.out, force=True)
        extra = f"; {self.left_out} not analyzable answer(s) left out" if self.left_out else ""
        self._status.value = (f"All {len(self.items)} disagreement(s) decided: wrote {len(result.final) - self.left_out}"
                              f" final labels to <code>{html.escape(str(self.written))}</code>{extra}.")
