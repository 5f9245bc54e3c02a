"""Scoring: one answer (:mod:`.answer`), many systems' runs (:mod:`.runs`), and the same in
batches and worker processes (:mod:`.parallel`, the path of ``sgr-kit score --workers N``).

Every scored answer carries a status (:data:`sgr_kit.types.STATUSES`); see
:mod:`sgr_kit.score.answer` for the statuses, the per-cell verdicts and how a
user tolerance is applied.
"""

from __future__ import annotations

from .answer import CellRecord, PreparedTask, ScoreResult, prepare_task, score_answer
from .runs import (
    ScoredAnswer,
    ScoredRuns,
    cells_frame,
    score_all,
    score_runs,
    score_with_cells,
    scores_frame,
)

__all__ = [
    "CellRecord",
    "ScoreResult",
    "PreparedTask",
    "ScoredAnswer",
    "ScoredRuns",
    "prepare_task",
    "score_answer",
    "score_all",
    "scores_frame",
    "cells_frame",
    "score_runs",
    "score_with_cells",
]
