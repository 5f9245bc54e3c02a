"""Where the answers shown come from: scores, cells, tasks and runs, held together.

:class:`AnswerSource` keeps a scores table with what else is known (the indexed cells
table, the tasks, the answers' texts) and gathers one answer's details by its key
``(system, task_id, repeat)``. The explorer (:mod:`.app`) and the annotator
(:mod:`sgr_kit.annotate`) both show answers through it. :class:`StaticView` shows HTML
as a notebook output; :func:`report_files` finds the tables of a report folder.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Mapping

import pandas as pd

from sgr_kit.errors import SgrKitError

from .answers import AnswerDetail, CellIndex, gather_answer
from .filters import KEY, check_scores

__all__ = ["AnswerSource", "StaticView", "as_task_map", "as_texts", "report_files"]


class StaticView:
    """HTML shown as it is (a static view as a notebook output).

    Examples
    --------
    >>> StaticView("<b>x</b>")._repr_html_()
    '<b>x</b>'
    """

    def __init__(self, markup: str) -> None:
        self.markup = markup

    def _repr_html_(self) -> str:
        return self.markup


def as_task_map(tasks: Any) -> dict[str, Any] | None:
    """``task_id -> Task`` from a TaskSet, a mapping or an iterable of tasks (None stays None).

    Raises
    ------
    SgrKitError
        When an item is not a task.
    """
    if tasks is None:
        return None
    items = tasks.values() if isinstance(tasks, Mapping) else tasks
    out = {}
    for task in items:
        task_id = getattr(task, "task_id", None)
        if not isinstance(task_id, str):
            raise SgrKitError(f"tasks: expected Task objects (e.g. a TaskSet); found {type(task).__name__}")
        out[task_id] = task
    return out


def as_texts(runs: Any) -> dict[tuple, str] | None:
    """``(system, task_id, repeat) -> answer text`` from a RunSet or an iterable of answers.

    Raises
    ------
    SgrKitError
        When an item is not an answer.
    """
    if runs is None:
        return None
    texts = {}
    for answer in runs:
        try:
            texts[(answer.system, answer.task_id, int(answer.repeat))] = answer.text
        except AttributeError:
            raise SgrKitError(f"runs: expected Answer objects (e.g. a RunSet); found {type(answer).__name__}") from None
    return texts


class AnswerSource:
    """A scores table with its cells, tasks and runs: any answer's details by key.

    Parameters
    ----------
    scores : DataFrame
        A scores table (checked: required columns, one row per answer); kept with a
        fresh 0..n-1 index.
    cells : DataFrame, optional
        Its cells table, indexed once (:class:`~sgr_kit.explore.answers.CellIndex`).
    tasks : TaskSet or iterable of Task, optional
    runs : RunSet or iterable of Answer, optional
        With ``tasks``, answers are re-scored when shown (parse issues, the reference as
        written); each task's reference is prepared once.
    profile : {"paper", "strict"}, default "paper"
    rules : Rules, optional

    Attributes
    ----------
    scores : DataFrame
    cells : CellIndex or None
    tasks : dict or None
        ``task_id -> Task``.
    texts : dict or None
        ``(system, task_id, repeat) -> answer text``.
    positions : dict
        ``(system, task_id, repeat) -> row`` of :attr:`scores`.

    Examples
    --------
    >>> scores = pd.DataFrame({"system": ["A"], "task_id": ["t_001"], "variant": "constraint", "repeat": 0,
    ...                        "status": "parsed", "item_f1": [1.0], "row_f1": [1.0], "poa": [1.0]})
    >>> source = AnswerSource(scores)
    >>> source.position(("A", "t_001", 0)), source.detail(("A", "t_001", 0)).text_source
    (0, 'none')
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
    ) -> None:
        self.scores = check_scores(scores).reset_index(drop=True)
        self.cells = CellIndex(cells) if cells is not None else None
        self.tasks = as_task_map(tasks)
        self.texts = as_texts(runs)
        self.profile, self.rules = profile, rules
        self._prepared: dict[str, Any] = {}
        keys = zip(*(self.scores[c].tolist() for c in KEY))
        self.positions = {(s, t, int(r)): i for i, (s, t, r) in enumerate(keys)}

    def position(self, key: tuple) -> int | None:
        """The row of the answer ``(system, task_id, repeat)`` in :attr:`scores` (None when absent)."""
        return self.positions.get((key[0], key[1], int(key[2])))

    def task(self, task_id: str) -> Any:
        """The task ``task_id`` (None when the tasks were not given or do not hold it)."""
        return self.tasks.get(task_id) if self.tasks is not None else None

    def detail(self, key: tuple) -> AnswerDetail:
        """Everything known about the answer ``(system, task_id, repeat)``.

        Raises
        ------
        SgrKitError
            When the scores table holds no such answer.
        """
        key = (key[0], key[1], int(key[2]))
        position = self.positions.get(key)
        if position is None:
            raise SgrKitError(f"no answer {key!r} in the scores table")
        row = self.scores.iloc[position].to_dict()
        return gather_answer(
            key, row, cells=self.cells, task=self.task(key[1]), texts=self.texts, profile=self.profile,
            rules=self.rules, prepared=self._prepared,
        )  # fmt: skip


def report_files(report_dir: str | os.PathLike) -> tuple[Path, Path | None]:
    """The scores table and cells table of a report folder (``cells.parquet`` may be absent).

    Raises
    ------
    SgrKitError
        When the folder or its ``scores.csv`` does not exist.
    """
    folder = Path(report_dir)
    if not folder.is_dir():
        raise SgrKitError(f"report folder {folder} does not exist; expected the --out folder of `sgr-kit report`")
    scores = folder / "scores.csv"
    if not scores.is_file():
        raise SgrKitError(f"report folder {folder}: no scores.csv; expected the --out folder of `sgr-kit report`")
    cells = folder / "cells.parquet"
    return scores, (cells if cells.is_file() else None)
