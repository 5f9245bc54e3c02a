"""The answers that may be labelled, and the check of every label against them.

A label names an answer by ``system, task_id, repeat``. Labels are checked where they are
written and where they are read: the label store and the annotation widget refuse a label
of an answer that is not in the annotation sheet (or the scores table), and
``sgr-kit agreement --sheet`` and :func:`~sgr_kit.annotate.adjudicate.adjudicate` list
**every** label on an unknown answer, with its file and line, instead of dropping it from a
count or carrying it into the final file.

:func:`known_answers` reads the answers from a sheet or a scores table;
:meth:`KnownAnswers.check` refuses one answer; :func:`check_labels` refuses a labels table
naming every unknown answer at once.
"""

from __future__ import annotations

import csv
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Union

import pandas as pd

from ..errors import SgrKitError, where
from ..load.labels import load_sheet
from ..text import visible

__all__ = ["Answers", "KnownAnswers", "known_answers", "unknown_labels", "check_labels"]

#: What may name the answers that can be labelled: a sheet or scores table (DataFrame with
#: ``system, task_id, repeat``), the path of a sheet (``.csv``) or scores table
#: (``.csv``/``.parquet``), or ``(system, task_id, repeat)`` tuples.
Answers = Union[pd.DataFrame, str, os.PathLike, Iterable[tuple]]

_SHOWN = 5  # names listed in a message before "..."


def _names(values: Iterable[str]) -> str:
    values = sorted(values)
    shown = ", ".join(repr(visible(v)) for v in values[:_SHOWN])
    return shown + (f", ... ({len(values)} in all)" if len(values) > _SHOWN else "")


@dataclass(frozen=True)
class KnownAnswers:
    """The answers that may be labelled (see :func:`known_answers`).

    Attributes
    ----------
    keys : frozenset of (system, task_id, repeat)
    source : str
        Where they come from, for messages (e.g. ``the annotation sheet sheet.csv``).
    """

    keys: frozenset
    source: str

    @property
    def systems(self) -> frozenset:
        return frozenset(k[0] for k in self.keys)

    @property
    def tasks(self) -> frozenset:
        return frozenset(k[1] for k in self.keys)

    def problem(self, key: tuple) -> str | None:
        """What is unknown about ``key`` (``None`` when it is one of the answers).

        Examples
        --------
        >>> known = KnownAnswers(frozenset({("m", "t1", 0)}), "the sheet")
        >>> known.problem(("m", "t1", 0)) is None
        True
        >>> known.problem(("NoSuchBot", "t1", 0))
        "unknown system 'NoSuchBot' (the sheet has 'm')"
        >>> known.problem(("m", "t1", 3))
        "system 'm' has no repeat 3 of task 't1' in the sheet (repeats: 0)"
        """
        system, task, repeat = key
        if key in self.keys:
            return None
        if system not in self.systems:
            return f"unknown system {visible(system)!r} ({self.source} has {_names(self.systems)})"
        if task not in self.tasks:
            return f"unknown task {visible(task)!r} ({self.source} has {_names(self.tasks)})"
        repeats = sorted(k[2] for k in self.keys if k[0] == system and k[1] == task)
        if not repeats:
            return f"system {visible(system)!r} has no answer to task {visible(task)!r} in {self.source}"
        return (f"system {visible(system)!r} has no repeat {repeat} of task {visible(task)!r} in {self.source} "
                f"(repeats: {', '.join(map(str, repeats))})")

    def check(self, key: tuple) -> None:
        """Raise :class:`SgrKitError` when ``key`` is not one of the answers, saying which part is unknown."""
        problem = self.problem(key)
        if problem is not None:
            system, task, repeat = key
            raise SgrKitError(f"answer (system {visible(system)!r}, task {visible(task)!r}, repeat {repeat}): "
                              f"{problem}; only answers of {self.source} can be labelled")


def _frame_keys(frame: pd.DataFrame, what: str) -> frozenset:
    missing = [c for c in ("system", "task_id", "repeat") if c not in frame.columns]
    if missing:
        raise SgrKitError(f"{what}: lacks column(s) {', '.join(missing)}; expected system, task_id, repeat")
    repeat = pd.to_numeric(frame["repeat"], errors="coerce")
    if repeat.isna().any() or (repeat != repeat.round()).any():
        raise SgrKitError(f"{what}: column 'repeat' must hold whole numbers")
    return frozenset(zip(frame["system"].astype(str), frame["task_id"].astype(str), repeat.astype("int64").tolist()))


def known_answers(answers: Answers | KnownAnswers) -> KnownAnswers:
    """The answers that may be labelled, from a sheet or a scores table.

    Parameters
    ----------
    answers : DataFrame, path, iterable of (system, task_id, repeat) or KnownAnswers
        An annotation sheet or a scores table (a DataFrame with ``system, task_id, repeat``),
        a sheet's path (``.csv``, read by :func:`~sgr_kit.load.labels.load_sheet`), a scores
        table's path (``.parquet``, or a ``.csv`` with a ``status`` column, read by
        :func:`sgr_kit.load.load_scores`), or the answers themselves.

    Examples
    --------
    >>> known = known_answers([("m", "t1", 0), ("m", "t2", 0)])
    >>> sorted(known.tasks), known.source
    (['t1', 't2'], 'the list of answers')
    """
    if isinstance(answers, KnownAnswers):
        return answers
    if isinstance(answers, (str, os.PathLike)):
        path = Path(answers)
        scores = path.suffix.lower() == ".parquet"
        if not scores and path.is_file():
            with path.open(encoding="utf-8-sig", errors="replace") as handle:
                scores = "status" in next(csv.reader([handle.readline()]), [])
        if scores:
            from ..load import load_scores

            return KnownAnswers(_frame_keys(load_scores(path), f"scores {path}"), f"the scores table {path}")
        return KnownAnswers(_frame_keys(load_sheet(path), f"annotation sheet {path}"), f"the annotation sheet {path}")
    if isinstance(answers, pd.DataFrame):
        return KnownAnswers(_frame_keys(answers, "answers"), "the sheet")
    try:
        keys = frozenset((str(s), str(t), int(r)) for s, t, r in answers)
    except (TypeError, ValueError):
        raise SgrKitError("answers: expected a sheet or scores table, its path, or (system, task_id, repeat) "
                          "tuples") from None
    return KnownAnswers(keys, "the list of answers")


def unknown_labels(labels: pd.DataFrame, answers: Answers | KnownAnswers, *, what: str = "labels") -> list[str]:
    """One line per label whose answer is not among ``answers``: ``file:line: answer (...): what is unknown``.

    ``labels`` is a labels table of :func:`~sgr_kit.load.labels.load_labels` (its ``file`` and
    ``line`` columns say where each label was read; without them ``what`` and the row number).
    """
    known = known_answers(answers)
    out = []
    files = labels["file"] if "file" in labels.columns else pd.Series([None] * len(labels), index=labels.index)
    lines = labels["line"] if "line" in labels.columns else pd.Series([None] * len(labels), index=labels.index)
    rows = zip(labels["system"], labels["task_id"], labels["repeat"], files, lines)
    for position, (system, task, repeat, file, line) in enumerate(rows):
        key = (str(system), str(task), int(repeat))
        problem = known.problem(key)
        if problem is None:
            continue
        here = where(file, int(line)) if file is not None and line is not None else f"{what}, row {position + 1}"
        out.append(f"{here}: answer (system {visible(key[0])!r}, task {visible(key[1])!r}, repeat {key[2]}): {problem}")
    return out


def check_labels(labels: pd.DataFrame, answers: Answers | KnownAnswers, *, what: str = "label files") -> None:
    """Raise :class:`SgrKitError` listing **every** label on an answer not among ``answers`` (file and line).

    Examples
    --------
    >>> labels = pd.DataFrame({"system": ["m", "NoSuchBot"], "task_id": ["t1", "t1"], "repeat": [0, 0],
    ...                        "file": "ann.csv", "line": [2, 3]})
    >>> check_labels(labels, [("m", "t1", 0)])
    Traceback (most recent call last):
    ...
    sgr_kit.errors.SgrKitError: label files: 1 label(s) on answers not in the list of answers:
      ann.csv:3: answer (system 'NoSuchBot', task 't1', repeat 0): unknown system 'NoSuchBot' (the list of answers has 'm')
    """
    known = known_answers(answers)
    bad = unknown_labels(labels, known, what=what)
    if bad:
        raise SgrKitError(f"{what}: {len(bad)} label(s) on answers not in {known.source}:\n  " + "\n  ".join(bad))
