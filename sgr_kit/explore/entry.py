"""Opening the explorer: on tables (:func:`explore`), on tasks and runs (:func:`explore_runs`), on a report folder.

:func:`explore` builds an :class:`~sgr_kit.explore.app.Explorer` from a scores table and
its cells table (and, optionally, the tasks and runs they were scored from);
:func:`explore_runs` scores tasks and runs first; :func:`explore_report` opens a report
folder (``scores.csv`` and ``cells.parquet``).
"""

from __future__ import annotations

import os
from typing import Any

import pandas as pd

from .app import Explorer
from .sources import report_files

__all__ = ["explore", "explore_runs", "explore_report"]


def explore(
    scores: pd.DataFrame,
    cells: pd.DataFrame | None = None,
    *,
    tasks: Any = None,
    runs: Any = None,
    profile: str = "paper",
    rules: Any = None,
    synthetic: bool | None = None,
    failure_policy: str = "zero",
) -> Explorer:
    """Open the interactive explorer of scored answers (display the result in JupyterLab).

    Filters (systems, variant, family, domain, cardinality bin, status, a score range and a
    text search in the answers) select answers; the list shows the count and the means of
    the selection and sorts by any metric; the answer view aligns the reference and the
    answer row by row, each cell marked by its verdict; further tabs set the constraint
    and goal answers of one base problem, and two systems' answers to one task, side by
    side. The selection exports as CSV.

    Parameters
    ----------
    scores : DataFrame
        A scores table (``sgr-kit score --out``; :data:`sgr_kit.schema.SCORE_COLUMNS`).
    cells : DataFrame, optional
        Its cells table (``sgr-kit score --cells``; :data:`sgr_kit.schema.CELL_COLUMNS`).
        Without it, answers are re-scored for display when tasks and runs are given.
    tasks : TaskSet or iterable of Task, optional
        With ``runs``: answers are re-scored when shown, for their parse issues and the
        reference as written.
    runs : RunSet or iterable of Answer, optional
        The answers' texts: shown as written and searched. Without runs, an answer's text
        is reconstructed from its cell records (labelled so) and the search looks in the
        cells' raw values.
    profile : {"paper", "strict"}, default "paper"
        Profile for re-scoring (use the one the table was scored with).
    rules : Rules, optional
        User rules for re-scoring (those the table was scored with).
    synthetic : bool, optional
        Whether the data are simulated (a banner says so); default: the table's
        ``synthetic`` column.
    failure_policy : {"zero", "exclude"}, default "zero"
        How answers without metrics enter the selection's means.

    Returns
    -------
    Explorer
        Displays as the widgets (with a static HTML table of the selection for viewers
        without a kernel); ``.selection`` is the current selection as a DataFrame.

    Raises
    ------
    SgrKitError
        When a table lacks required columns or repeats an answer.

    Examples
    --------
    >>> import pandas as pd
    >>> scores = pd.DataFrame({"system": ["A", "B"], "task_id": ["t_001", "t_001"], "variant": "constraint",
    ...                        "repeat": 0, "status": "parsed", "item_f1": [1.0, 0.5], "row_f1": [1.0, 0.0],
    ...                        "poa": [1.0, 1.0]})
    >>> app = explore(scores)
    >>> len(app.set_filters(systems=("B",)).selection)
    1
    """
    return Explorer(
        scores, cells, tasks=tasks, runs=runs, profile=profile, rules=rules, synthetic=synthetic,
        failure_policy=failure_policy,
    )  # fmt: skip


def explore_runs(tasks: Any, runs: Any, *, profile: str = "paper", rules: Any = None, **options: Any) -> Explorer:
    """Score ``runs`` against ``tasks`` (with per-cell records) and open the explorer on them.

    Parameters
    ----------
    tasks : TaskSet or iterable of Task
    runs : RunSet or iterable of Answer
    profile : {"paper", "strict"}, default "paper"
    rules : Rules, optional
    **options
        Passed to :func:`explore` (``synthetic``, ``failure_policy``).

    Returns
    -------
    Explorer
    """
    from sgr_kit.score import score_with_cells

    scores, cells = score_with_cells(tasks, runs, profile=profile, rules=rules)
    return explore(scores, cells, tasks=tasks, runs=runs, profile=profile, rules=rules, **options)


def explore_report(report_dir: str | os.PathLike, **options: Any) -> Explorer:
    """Open the explorer on a report folder: its ``scores.csv`` and ``cells.parquet``.

    Parameters
    ----------
    report_dir : path
        The ``--out`` folder of ``sgr-kit report``.
    **options
        Passed to :func:`explore` (e.g. ``tasks=`` and ``runs=`` for the answers' texts).

    Returns
    -------
    Explorer
    """
    from sgr_kit.pipeline import load_inputs

    scores, cells = report_files(report_dir)
    inputs = load_inputs(scores=scores, cells=cells)
    options.setdefault("synthetic", inputs.synthetic)
    return explore(inputs.scores, inputs.cells, **options)
