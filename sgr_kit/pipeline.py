"""From files to analysis inputs: load, prepare and score in one call.

- :func:`score_files`: task and run files -> scores table and per-cell records in memory, the
  path of ``sgr-kit report`` and the notebooks;
- :func:`score_files_to`: task and run files -> the scores file and the per-cell records streamed
  to their file batch by batch, in worker processes (``sgr-kit score``): the same tables as
  :func:`score_files` without ever holding the cells table in memory;
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
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import pandas as pd

from .errors import SgrKitError
from .load import RunSet, load_audit, load_runs, load_scores, read_table
from .load.scores import by_language
from .output import TABLE_SUFFIXES, check_not_input, check_writable, table_stream, write_table
from .prepare import TaskSet, load_tasks
from .resources import demo_paths
from .rules import Rules, load_rules
from .schema import check_profile, is_synthetic
from .score import ScoredRuns, score_with_cells
from .score.parallel import CELL_SCHEMA, score_batches
from .score.runs import rows_frame
from .testing import pause

__all__ = ["Inputs", "score_files", "score_files_to", "load_inputs"]


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
    workers: int = 1,
    language: str = "en",
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
    workers : int, default 1
        Worker processes (see :func:`sgr_kit.score.parallel.score_batches`); the tables are
        the same whatever their number.
    language : {"en", "zh"}, default "en"
        The language of answers that name none; each answer is scored against the tasks of its
        language, read from the same sources (``data_en/`` or ``data_zh/``).

    Returns
    -------
    (TaskSet, RunSet, ScoredRuns)
        The loaded tasks and runs, and ``ScoredRuns(scores, cells)``.
    """
    task_set, run_set, loaded_rules, parts = _load(tasks, runs, profile=profile, rules=rules, pairing=pairing,
                                                   strict_pairing=strict_pairing, language=language)  # fmt: skip
    if workers == 1 and len(parts) == 1:
        scored = score_with_cells(task_set, run_set, profile=profile, rules=loaded_rules, progress=progress)
        return task_set, run_set, scored
    batches = [b for part_tasks, part_runs in parts
               for b in score_batches(part_tasks, part_runs, profile=profile, rules=loaded_rules, workers=workers,
                                      progress=progress)]  # fmt: skip
    import pyarrow as pa

    cells = pa.Table.from_batches([b.cells for b in batches], schema=CELL_SCHEMA).to_pandas()
    return task_set, run_set, ScoredRuns(rows_frame([row for b in batches for row in b.rows]), cells)


#: Notes printed while loading before the rest are summed up in one line.
NOTES_SHOWN = 3


#: False while the demo shipped with sgr-kit is loaded: notes about its own tasks are nothing a user can act on.
_SAY_NOTES: ContextVar[bool] = ContextVar("sgr_kit_say_notes", default=True)


def _print_notes(notes, command: str) -> None:
    """Informational notes to stderr: the first :data:`NOTES_SHOWN`, then how many more and where to read them."""
    if not _SAY_NOTES.get():
        return
    for note in list(notes)[:NOTES_SHOWN]:
        print(f"note: {note}", file=sys.stderr)
    if len(notes) > NOTES_SHOWN:
        print(f"note: ... and {len(notes) - NOTES_SHOWN} more notes of this kind or others ({command} lists them all)",
              file=sys.stderr)


def _load(
    tasks, runs, *, profile: str, rules, pairing, strict_pairing: bool, language: str = "en"
) -> tuple[TaskSet, RunSet, Rules | None, list]:
    """Load rules, tasks and runs; notes go to stderr, an unused rules entry is a warning.

    Runs that name a language other than English are scored against the tasks of that language,
    read from the same sources (their ``data_zh/`` folder): the last item lists, per language the
    runs name, its tasks and its answers (the English tasks and every answer when only English).
    """
    check_profile(profile)
    loaded_rules = load_rules(rules) if rules else None
    task_set = load_tasks(_as_list(tasks), pairing=pairing, strict_pairing=strict_pairing, language=language)
    _print_notes(task_set.notes, "sgr-kit validate --tasks ... --verbose")
    if loaded_rules is not None:
        print(loaded_rules.describe(), file=sys.stderr)
        for selector in loaded_rules.unused(list(task_set)):
            warnings.warn(f"rules file {rules}: entry {selector!r} matches no loaded task", UserWarning, stacklevel=3)
    run_set = load_runs(_as_list(runs), tasks=task_set, language=language)
    _print_notes(run_set.notes, "sgr-kit validate --tasks ... --runs ...")
    languages = run_set.languages
    loaded = {t.language for t in task_set.values()}
    if not languages or set(languages) <= loaded:
        return task_set, run_set, loaded_rules, [(task_set, run_set)]
    parts = []
    for language in languages:
        these = task_set if language in loaded else load_tasks(
            _as_list(tasks), pairing=pairing, strict_pairing=strict_pairing, language=language)
        parts.append((these, run_set.for_language(language)))
    return task_set, run_set, loaded_rules, parts


def score_files_to(
    tasks: Sequence[str | os.PathLike] | str | os.PathLike,
    runs: Sequence[str | os.PathLike] | str | os.PathLike,
    out: str | os.PathLike,
    *,
    cells: str | os.PathLike | None = None,
    profile: str = "paper",
    rules: str | os.PathLike | None = None,
    pairing: str | os.PathLike | None = None,
    strict_pairing: bool = False,
    workers: int = 1,
    force: bool = False,
    progress: bool = True,
    language: str = "en",
) -> tuple[TaskSet, RunSet, pd.DataFrame]:
    """Score task and run files into a scores file, streaming the per-cell records to ``cells``.

    The per-cell records are written batch by batch (parquet row groups, or CSV rows) while
    scoring goes on, so memory holds the answers and the scores table but never the cells
    table. Both files are written atomically: an interrupted run leaves any earlier file
    intact and no temporary file behind. The files are the same whatever ``workers`` is.

    Parameters
    ----------
    tasks, runs : path or list of paths
        As :func:`score_files`.
    out : path
        The scores table to write (``.csv`` or ``.parquet``).
    cells : path, optional
        The per-cell records to write (``.csv`` or ``.parquet``); must differ from ``out``.
    profile, rules, pairing, strict_pairing, progress, language
        As :func:`score_files`.
    workers : int, default 1
        Worker processes (see :func:`sgr_kit.score.parallel.score_batches`).
    force : bool, default False
        Replace existing output files.

    Returns
    -------
    (TaskSet, RunSet, DataFrame)
        The loaded tasks and runs, and the scores table written to ``out``.

    Raises
    ------
    SgrKitError
        Before anything is written: for an output that exists (without ``force``), is a folder,
        lies under a file or has another suffix, for ``out`` and ``cells`` naming one file, and
        for every problem of the inputs.
    """
    given = [*([tasks] if isinstance(tasks, (str, os.PathLike)) else tasks or []),
             *([runs] if isinstance(runs, (str, os.PathLike)) else runs or []), rules, pairing]
    check_not_input(out, given, what="--out")
    check_writable(out, force=force, what="--out", suffixes=TABLE_SUFFIXES)
    if cells is not None:
        if Path(cells).resolve() == Path(out).resolve():
            raise SgrKitError(f"--out and --cells name the same file {out}; give two different files")
        check_not_input(cells, given, what="--cells output")
        check_writable(cells, force=force, what="--cells output", suffixes=TABLE_SUFFIXES)
    task_set, run_set, loaded_rules, parts = _load(tasks, runs, profile=profile, rules=rules, pairing=pairing,
                                                   strict_pairing=strict_pairing, language=language)  # fmt: skip
    batches = [score_batches(part_tasks, part_runs, profile=profile, rules=loaded_rules,
                             with_cells=cells is not None, workers=workers, progress=progress)
               for part_tasks, part_runs in parts]  # fmt: skip
    batches = (b for part in batches for b in part)
    rows: list[tuple] = []
    if cells is None:
        for batch in batches:
            rows += batch.rows
        scores = rows_frame(rows)
        write_table(scores, out, force=force)
        return task_set, run_set, scores
    with table_stream(cells, schema=CELL_SCHEMA, force=force) as stream:
        for batch in batches:
            rows += batch.rows
            stream.write(batch.cells)
            pause("score-cells-written")
        scores = rows_frame(rows)
        write_table(scores, out, force=force)
    return task_set, run_set, scores


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
        Audit labels (:func:`sgr_kit.load.load_audit`, checked against the scores), when an audit file
        was given or the demo is used.
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
    frame, _ = read_table(p, what="cells file", keep_default_na=False, na_values={"pred_row": [""], "gold_row": [""]})
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
    if scores:
        table = load_scores(scores)
        cell_table = _read_cells(cells) if cells else None
        table, cell_table = by_language(table, cell_table)
        audit_frame = load_audit(audit, scores=table) if audit else None
        return Inputs(table, cell_table, audit=audit_frame, synthetic=is_synthetic(table), source=str(scores))
    source = "tasks and runs given"
    if not has_tasks:
        demo = demo_paths()
        tasks, runs = [demo["constraint"], demo["goal"]], [demo["runs"]]
        audit = audit or demo["audit"]
        source = "the SYNTHETIC demo benchmark shipped with sgr-kit"
    quiet = _SAY_NOTES.set(has_tasks)  # the demo loads silently (its notes are about sgr-kit's own tasks)
    try:
        task_set, run_set, scored = score_files(tasks, runs, profile=profile, rules=rules, pairing=pairing,
                                                progress=progress)
    finally:
        _SAY_NOTES.reset(quiet)
    table, cell_table = by_language(scored.scores, scored.cells)
    audit_frame = load_audit(audit, scores=table) if audit else None
    return Inputs(table, cell_table, task_set, run_set, audit_frame, is_synthetic(table), source=source)

