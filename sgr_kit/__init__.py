"""sgr-kit: scoring and analysis toolkit for SGR-Bench.

The public entry points, in pipeline order::

    tasks = sgr_kit.load_tasks("constraint.jsonl", "goal.jsonl")
    runs = sgr_kit.load_runs("runs.jsonl", tasks=tasks)
    scores = sgr_kit.score_runs(tasks, runs)            # tidy DataFrame
    result = sgr_kit.score_answer(tasks["x_001"], text)  # one answer, with per-cell records

Submodules are imported on first use, so ``import sgr_kit`` stays cheap.
"""

from __future__ import annotations

import importlib

from .errors import SgrKitError

__version__ = "0.1.0"

_EXPORTS = {
    "load_tasks": "sgr_kit.load",
    "load_runs": "sgr_kit.load",
    "validate": "sgr_kit.load",
    "load_scores": "sgr_kit.load",
    "score_answer": "sgr_kit.score",
    "score_runs": "sgr_kit.score",
    "prepare_task": "sgr_kit.score",
    "load_rules": "sgr_kit.rules",
    "system_means": "sgr_kit.aggregate",
}

__all__ = ["SgrKitError", "__version__", *_EXPORTS]


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'sgr_kit' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
