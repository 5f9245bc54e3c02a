"""Read files into records: the bottom of the pipeline (no parsing, scoring or canonicalizing).

- :mod:`.release`: task records from release JSONL files, folders, parquet files or a Hugging
  Face dataset id (:func:`read_sources` -> :class:`Record` objects and :class:`Finding` objects);
- :mod:`.runs`: systems' answers (:func:`load_runs` -> :class:`RunSet` of
  :class:`~sgr_kit.types.Answer`; :func:`read_runs` reports every problem at once);
- :mod:`.scores`: a scores table written by ``sgr-kit score`` (:func:`load_scores`), and any
  result table read with errors naming file and line (:func:`read_table`).

Turning task records into scoreable tasks (schemas, references, pairing) is the next step,
:mod:`sgr_kit.prepare`.
"""

from __future__ import annotations

from .audit import load_audit
from .release import DATASET_ID, Finding, Record, read_sources
from .runs import RunSet, load_runs, read_runs
from .scores import load_scores, read_table

__all__ = ["DATASET_ID", "Finding", "Record", "RunSet", "load_audit", "load_runs", "load_scores", "read_runs", "read_sources", "read_table"]
