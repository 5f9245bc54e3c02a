"""Read files into records: the bottom of the pipeline (no parsing, scoring or canonicalizing).

- :mod:`.release`: task records from release JSONL files, folders, parquet files or a Hugging
  Face dataset id (:func:`read_sources` -> :class:`Record` objects and :class:`Finding` objects);
- :mod:`.runs`: systems' answers (:func:`load_runs` -> :class:`RunSet` of
  :class:`~sgr_kit.types.Answer`);
- :mod:`.scores`: a scores table written by ``sgr-kit score`` (:func:`load_scores`).

Turning task records into scoreable tasks (schemas, references, pairing) is the next step,
:mod:`sgr_kit.prepare`.
"""

from __future__ import annotations

from .release import DATASET_ID, Finding, Record, read_sources
from .runs import RunSet, load_runs
from .scores import load_scores

__all__ = ["DATASET_ID", "Finding", "Record", "RunSet", "load_runs", "load_scores", "read_sources"]
