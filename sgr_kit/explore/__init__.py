"""Explore scored answers interactively in JupyterLab.

``sgr_kit.explore.explore(scores, cells, tasks=..., runs=...)`` opens an ipywidgets
application: filters select answers, a list sorts them by any metric, and an answer view
aligns the reference and the answer row by row with every cell marked by its verdict.
The module itself is callable, so ``sgr_kit.explore(scores, cells)`` does the same.

The logic is split so that it can be tested without a browser:

- :mod:`.filters`: filter state -> selection, means, CSV (pure pandas);
- :mod:`.answers`: the cells table indexed by answer; one answer's details;
- :mod:`.sources`: scores, cells, tasks and runs held together (:class:`AnswerSource`);
- :mod:`.render`: answers and selections -> escaped HTML, and the static view (a package:
  escaping, style, aligned table, answer, pages; the annotator reuses its parts);
- :mod:`.app`: the widgets (:class:`Explorer`);
- :mod:`.entry`: the entry points (:func:`explore`, :func:`explore_runs`, :func:`explore_report`).

Examples
--------
>>> import pandas as pd
>>> import sgr_kit.explore
>>> scores = pd.DataFrame({"system": ["A"], "task_id": ["t_001"], "variant": "constraint", "repeat": 0,
...                        "status": "parsed", "item_f1": [1.0], "row_f1": [1.0], "poa": [1.0]})
>>> len(sgr_kit.explore(scores).selection)
1
"""

from __future__ import annotations

import sys
import types

from .answers import AnswerDetail, CellIndex, gather_answer
from .app import Explorer
from .entry import explore, explore_report, explore_runs
from .filters import FilterState, filter_options, select, selection_csv, selection_means
from .sources import AnswerSource, StaticView, report_files

__all__ = [
    "explore",
    "explore_runs",
    "explore_report",
    "report_files",
    "Explorer",
    "StaticView",
    "FilterState",
    "filter_options",
    "select",
    "selection_means",
    "selection_csv",
    "CellIndex",
    "AnswerDetail",
    "gather_answer",
    "AnswerSource",
]


class _CallableModule(types.ModuleType):
    """This module, callable as :func:`explore` (``sgr_kit.explore(scores, cells)``)."""

    def __call__(self, *args, **kwargs) -> Explorer:
        return explore(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
