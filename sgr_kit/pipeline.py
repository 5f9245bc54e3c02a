"""From files to analysis inputs: load, prepare and score in one call.

- :func:`score_files`: task and run files -> scores table and per-cell records, the one path
  shared by ``sgr-kit score``, ``sgr-kit report`` and the notebooks;
- :func:`load_inputs`: what an analysis notebook needs (scores, cells, tasks, runs, audit
  labels), from a scores table, from task and run files, or, with no input at all, from the
  SYNTHETIC demo benchmark shipped with the package.

This module sits above loading (:mod:`sgr_kit.load`), preparation (:mod:`sgr_kit.prepare`)
and scoring (:mod:`sgr_kit.score`); the analysis, report and explorer build on it.
"""

from __future__ import annotations

import os
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import pandas as pd

from .errors import SgrKitError
from .load import RunSet, load_runs, load_scores
from .prepare import TaskSet, load_tasks
from .resources import demo_paths
from .rules import load_rules
from .schema import check_profile, is_synthetic
from .score import ScoredRuns, score_with_cells

__all__ = ["Inputs", "score_files", "load_inputs"]


def _as_list(value: Any) -> list:
    if value is None:
        return []
    if isinstance(value, (str, os.PathLike)):
        return [value]
    return list(value)


def score_files(
    tasks: Sequence[str | os.PathLike] | str | os.PathLike,
    runs: Sequence[str | os.PathLike] | str | os.PathLike,
    *,
    profile: str = "paper",
    rules: str | os.PathLike | None = None,
    pairing: str | os.PathLike | None = None,
    strict_pairing: bool = False,
    progress: bool = True,
) -> tuple[TaskSet, RunSet, ScoredRuns]:
    """Load task and run files and score every answer, with its per-cell records.

    Loader notes and the rules applied are printed to stderr; a rules entry that matches no
    loaded task is a warning.

    Parameters
    ----------
    tasks, runs : path or list of paths
        As :func:`sgr_kit.prepare.load_tasks` and :func:`sgr_kit.load.load_runs`.
    profile : {"paper", "strict"}, default "paper"
    rules : path, optional
        A rules file (:func:`sgr_kit.rules.load_rules`).
    pairing : path, optional
        An explicit ``task_id, base_id`` file.
    strict_pairing : bool, default False
    progress : bool, default True
        Show a progress bar while scoring.

    Returns
    -------
    (TaskSet, RunSet, ScoredRuns)
        The loaded tasks and runs, and ``ScoredRuns(scores, cells)``.
    """
    check_profile(profile)
    loaded_rules = load_rules(rules) if rules else None
    task_set = load_tasks(_as_list(tasks), pairing=pairing, strict_pairing=strict_pairing)
    for note in task_set.notes:
        print(f"note: {note}", file=sys.stderr)
    if loaded_rules is not None:
        print(loaded_rules.describe(), file=sys.stderr)
        for selector in loaded_rules.unused(list(task_set)):
            warnings.warn(f"rules file {rules}: entry {selector!r} matches no loaded task", UserWarning, stacklevel=2)
    run_set = load_runs(_as_list(runs), tasks=task_set)
    scored = score_with_cells(task_set, run_set, profile=profile, rules=loaded_rules, progress=progress)
    return task_set, run_set, scored


@dataclass(frozen=True)
class Inputs:
    """What :func:`load_inputs` returns.

    Attributes
    ----------
    scores : DataFrame
        The scores table (columns :data:`sgr_kit.schema.SCORE_COLUMNS`).
    cells : DataFrame or None
        The per-cell records, when scored here or read from a cells file.
    tasks : TaskSet or None
        When loaded from task files.
    runs : RunSet or None
        When loaded from run files.
    audit : DataFrame or None
        Audit labels (``system, task_id, label``...), when an audit file was given or the demo is used.
    synthetic : bool
        True when any scored task is simulated (the demo): every view of it must say so.
    source : str
        A short description of where the data came from, for headings.
    """

    scores: pd.DataFrame
    cells: pd.DataFrame | None = None
    tasks: TaskSet | None = None
    runs: RunSet | None = None
    audit: pd.DataFrame | None = None
    synthetic: bool = False
    source: str = ""


def _read_cells(path: str | os.PathLike) -> pd.DataFrame:
    p = Path(path)
    if not p.is_file():
        raise SgrKitError(f"cells file {p} does not exist; expected the --cells output of `sgr-kit score`")
    if p.suffix.lower() == ".parquet":
        return pd.read_parquet(p)
    if p.suffix.lower() == ".csv":
        return pd.read_csv(p, keep_default_na=False, na_values={"pred_row": [""], "gold_row": [""]})
    raise SgrKitError(f"cells file {p}: expected a .csv or .parquet file, got {p.suffix or 'no suffix'!r}")


def _read_audit(path: str | os.PathLike) -> pd.DataFrame:
    p = Path(path)
    if not p.is_file():
        raise SgrKitError(f"audit file {p} does not exist; expected a CSV with columns system, task_id, label")
    frame = pd.read_csv(p, dtype=str, keep_default_na=False)
    missing = [c for c in ("system", "task_id", "label") if c not in frame.columns]
    if missing:
        raise SgrKitError(f"audit file {p}: missing column(s) {', '.join(missing)}; expected system, task_id, label")
    return frame


def load_inputs(
    *,
    scores: str | os.PathLike | None = None,
    cells: str | os.PathLike | None = None,
    tasks: Sequence[str | os.PathLike] | str | os.PathLike | None = None,
    runs: str | os.PathLike | Sequence[str | os.PathLike] | None = None,
    audit: str | os.PathLike | None = None,
    profile: str = "paper",
    rules: str | os.PathLike | None = None,
    pairing: str | os.PathLike | None = None,
    progress: bool = False,
) -> Inputs:
    """The inputs of an analysis notebook, from whichever files the user has.

    Exactly one of these is used:

    - ``scores`` (a table written by ``sgr-kit score``), with ``cells`` optionally;
    - ``tasks`` and ``runs``: scored here (with per-cell records) under ``profile``;
    - nothing: the SYNTHETIC demo benchmark shipped with the package, scored here, with its
      audit labels.

    Parameters
    ----------
    scores, cells : path, optional
    tasks, runs : path or list of paths, optional
    audit : path, optional
        Audit labels (``system, task_id, label`` at least); the demo's own when the demo is used.
    profile : {"paper", "strict"}, default "paper"
        Scoring profile when scoring here.
    rules, pairing : path, optional
        As :func:`score_files`.
    progress : bool, default False

    Returns
    -------
    Inputs

    Raises
    ------
    SgrKitError
        When both a scores table and task/run files are given, when only one of tasks and
        runs is given, or when a file is missing or malformed.
    """
    check_profile(profile)
    has_tasks, has_runs = bool(_as_list(tasks)), bool(_as_list(runs))
    if scores and (has_tasks or has_runs):
        raise SgrKitError("give either a scores table (scores=...) or task and run files (tasks=..., runs=...), not both")
    if has_tasks != has_runs:
        raise SgrKitError("tasks and runs go together: give both task files and run files, or a scores table")
    audit_frame = _read_audit(audit) if audit else None
    if scores:
        table = load_scores(scores)
        cell_table = _read_cells(cells) if cells else None
        return Inputs(table, cell_table, audit=audit_frame, synthetic=is_synthetic(table), source=str(scores))
    source = "tasks and runs given"
    if not has_tasks:
        demo = demo_paths()
        tasks, runs = [demo["constraint"], demo["goal"]], [demo["runs"]]
        if audit_frame is None:
            audit_frame = _read_audit(demo["audit"])
        source = "the SYNTHETIC demo benchmark shipped with sgr-kit"
    task_set, run_set, scored = score_files(tasks, runs, profile=profile, rules=rules, pairing=pairing,
                                            progress=progress)
    return Inputs(scored.scores, scored.cells, task_set, run_set, audit_frame, is_synthetic(scored.scores),
                  source=source)

