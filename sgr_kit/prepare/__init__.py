"""Task preparation: release records -> :class:`~sgr_kit.types.Task` objects, paired and checked.

The step between reading files (:mod:`sgr_kit.load`) and scoring (:mod:`sgr_kit.score`):

- :mod:`.tasks`: schema inference (rubric, reference header, ``output_format``), reference
  parsing with the benchmark's own parser, taxonomy and cardinality; :func:`load_tasks` ->
  :class:`TaskSet`;
- :mod:`.pairing`: goal tasks paired with their constraint task (``base_id``);
- :mod:`.validate`: :func:`validate` -> :class:`ValidationReport`, every problem in task files
  at once (``sgr-kit validate``).

It builds on the scoring core's parser and canonicalizer (references are parsed and compared
as the scorer reads them); nothing in the scoring core imports it.
"""

from __future__ import annotations

from .pairing import PairingDecision
from .tasks import TaskSet, load_tasks
from .validate import ValidationReport, validate

__all__ = ["PairingDecision", "TaskSet", "ValidationReport", "load_tasks", "validate"]
