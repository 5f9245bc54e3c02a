"""Load SGR-Bench tasks (release files, folders, parquet, the Hub) and systems' answers.

- :func:`load_tasks` -> :class:`TaskSet` (tasks with schema, taxonomy, cardinality and pairing);
- :func:`validate` -> :class:`ValidationReport` (every problem in task files, for ``sgr-kit validate``);
- :func:`load_runs` -> :class:`RunSet` (a list of :class:`~sgr_kit.types.Answer`);
- :func:`load_scores` -> the DataFrame written by ``sgr-kit score``.
"""

from __future__ import annotations

from .pairing import PairingDecision, ValidationReport, validate
from .release import DATASET_ID, Finding
from .runs import RunSet, load_runs
from .scores import SCORE_COLUMNS, load_scores
from .tasks import TaskSet, load_tasks

__all__ = [
    "DATASET_ID",
    "Finding",
    "PairingDecision",
    "RunSet",
    "TaskSet",
    "ValidationReport",
    "load_runs",
    "load_scores",
    "SCORE_COLUMNS",
    "load_tasks",
    "validate",
]
