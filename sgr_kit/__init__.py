"""sgr-kit: scoring and analysis toolkit for SGR-Bench.

The public entry points, in pipeline order::

    tasks = sgr_kit.load_tasks("constraint.jsonl", "goal.jsonl")
    runs = sgr_kit.load_runs("runs.jsonl", tasks=tasks)
    scores = sgr_kit.score_runs(tasks, runs)            # tidy DataFrame
    result = sgr_kit.score_answer(tasks["x_001"], text)  # one answer, with per-cell records

The package's layers, each importing only the ones before it:

1. foundation: ``errors``, ``schema`` (every constant and table schema), ``types``,
   ``taxonomy``, ``resources`` (packaged data), ``output`` (the one atomic writer);
2. ``load``: files -> records (task records, answers, score tables);
3. the scoring core: ``parse`` -> ``canonicalize`` -> ``align`` -> ``metrics`` -> ``rules`` -> ``score``;
4. ``prepare``: records -> tasks (schema inference, reference parsing, pairing, validation);
5. ``pipeline``: files -> scores (and the notebooks' inputs);
6. analysis: ``aggregate``, ``stats``, ``breakdowns``, with ``reference`` (the paper's numbers);
7. presentation: ``figures``, ``report``, ``explore``; then ``cli``. ``demo`` builds the
   synthetic benchmark from the layers below and nothing imports it.

Bad input raises ``sgr_kit.SgrKitError`` (a ``ValueError``) naming the file, line, field
and what was expected (``help(sgr_kit.errors)``).

Submodules are imported on first use, so ``import sgr_kit`` stays cheap.
"""

from __future__ import annotations

import importlib

from .errors import SgrKitError

__version__ = "0.2.0"

_EXPORTS = {
    "load_tasks": "sgr_kit.prepare",
    "validate": "sgr_kit.prepare",
    "load_runs": "sgr_kit.load",
    "load_scores": "sgr_kit.load",
    "score_answer": "sgr_kit.score",
    "score_runs": "sgr_kit.score",
    "score_with_cells": "sgr_kit.score",
    "prepare_task": "sgr_kit.score",
    "load_rules": "sgr_kit.rules",
    "load_inputs": "sgr_kit.pipeline",
    "score_files": "sgr_kit.pipeline",
    "score_files_to": "sgr_kit.pipeline",
    "system_means": "sgr_kit.aggregate",
    "task_means": "sgr_kit.aggregate",
}

__all__ = ["SgrKitError", "__version__", "explore", *_EXPORTS]


def __getattr__(name: str):
    if name == "explore":  # the explorer package, itself callable: sgr_kit.explore(scores, cells)
        return importlib.import_module("sgr_kit.explore")
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'sgr_kit' has no attribute {name!r}")


def __dir__() -> list[str]:
    # SgrKitError stays importable and in __all__; left out here so that help(sgr_kit) lists the
    # functions, not the fifty methods the error inherits from ValueError (the docstring names it)
    return sorted(name for name in __all__ if name != "SgrKitError")
