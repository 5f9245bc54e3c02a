"""Simulated systems: candidate answers, their scores, and calibration by selection.

For every task the demo draws a pool of candidate answers from the error model
(:mod:`sgr_kit.demo.errors`: every failure type at a spread of severities, plus
correct answers, each possibly with ordering or formatting slips, rendered in a
random answer format by :mod:`sgr_kit.demo.render` (the task's own layout most often:
records on one line or one per line, headers in the task's spelling, composite cells), and a few ``NONE`` and
unparseable texts). Every candidate is scored once with the package's own scorer
(:func:`sgr_kit.score.score_answer`, default ``paper`` profile, one
:func:`~sgr_kit.score.prepare_task` per task).

Each (system, task) cell then *selects* one candidate (for the repeat tasks: a
pair of candidates with the same injected error, repeats 0 and 1) by a seeded
coordinate descent that minimises the sum over all calibration targets of
``((achieved - target) / tolerance) ** 2``. The targets are the paper's
published means: Table 2 (per system and variant: Item-F1, Row-F1, P.O.A.),
the source-family Item-F1 means of section 4.2 and the cardinality-bin means of
Appendix K (over all systems), and Table 6 (per audit label, over the audited
cells, whose candidates are restricted to the label's error type). This is
calibration by selection: no score is edited, every number comes from scoring
an answer text. In the means, a parse failure or a ``NONE`` answer counts as 0
(the "zero" failure policy) and a cell with two repeats counts with the mean of
its repeats.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from random import Random
from typing import Sequence

import numpy as np

from sgr_kit.demo.errors import ERROR_TYPES, apply_slips, inject
from sgr_kit.demo.render import render
from sgr_kit.demo.tasks import DemoProblem

__all__ = ["Candidate", "Group", "candidate_pool", "score_pool", "cell_options", "select"]

#: Candidates per (task, injected type) before the special texts.
PER_TYPE = 9
#: Answer formats and their weights, for tasks asking for one record per line and for
#: tasks asking for the records on one line (the native layout weighs most; the other
#: layout, Markdown tables and headers in the task's spelling occur in both).
_FORMAT_WEIGHTS = {
    "lines": (("markdown", 28), ("markdown_prose", 14), ("fenced", 9), ("pipe", 14), ("pipe_rows", 18),
              ("one_line", 4), ("csv", 6), ("tsv", 3), ("json", 4)),
    "one_line": (("markdown", 24), ("markdown_prose", 10), ("fenced", 6), ("pipe", 8), ("pipe_rows", 12),
                 ("one_line", 30), ("csv", 4), ("tsv", 2), ("json", 4)),
}
#: (injected type, format) of the texts added to every pool besides the tables.
_SPECIAL = (("scope_drift", "none"), ("intent_rewriting", "none"),
            ("intent_rewriting", "prose"), ("final_answer", "header_only"))


@dataclass(frozen=True)
class Candidate:
    """One candidate answer text and how it was made.

    Attributes
    ----------
    injected : str
        ``"correct"`` or one of :data:`~sgr_kit.demo.errors.ERROR_TYPES`.
    severity : float
        In (0, 1] for an error, 0 for a correct answer.
    slips : tuple of str
        Secondary slips: ``"order"``, ``"format"``, ``"format_loss"``, ``"total_row"``.
    fmt : str
        Answer format (:data:`~sgr_kit.demo.render.FORMATS`).
    text : str
    """

    injected: str
    severity: float
    slips: tuple[str, ...]
    fmt: str
    text: str


def _format(rng: Random, one_line: bool) -> str:
    weights = _FORMAT_WEIGHTS["one_line" if one_line else "lines"]
    x = rng.random() * sum(w for _, w in weights)
    for name, w in weights:
        x -= w
        if x < 0:
            return name
    return weights[-1][0]  # pragma: no cover


def candidate_pool(problem: DemoProblem, task_id: str, *, seed: int) -> list[Candidate]:
    """Draw the candidate answers of one task.

    Examples
    --------
    >>> from sgr_kit.demo.tasks import make_problems
    >>> pool = candidate_pool(make_problems(seed=7)[0], "arxiv_001", seed=7)
    >>> len(pool), pool[0].injected, pool[-1].fmt
    (67, 'correct', 'header_only')
    """
    rng = Random(f"sgr-demo-pool-{seed}-{task_id}")
    names = list(problem.names)
    layout = {"spellings": problem.answer_spellings("goal" if task_id.endswith("-g") else "constraint"),
              "composite": problem.composite, "separator": problem.separator}
    pool = []
    for etype in ("correct",) + ERROR_TYPES:
        for i in range(PER_TYPE):
            severity = (i + rng.random()) / PER_TYPE
            rows = inject(problem, etype, rng, severity)
            slips = tuple(s for s, p in (("order", 0.2 if etype == "correct" else 0.3), ("format", 0.3),
                                         ("format_loss", 0.25 if etype == "correct" else 0.1),
                                         ("total_row", 0.25 if etype == "correct" else 0.05))
                          if rng.random() < p)
            rows = apply_slips(problem, rows, rng, order="order" in slips, fmt="format" in slips,
                               loss="format_loss" in slips, total="total_row" in slips)
            fmt = _format(rng, problem.one_line)
            pool.append(Candidate(etype, severity if etype != "correct" else 0.0, slips, fmt,
                                  render(rows, names, fmt, rng, **layout)))
    for etype, fmt in _SPECIAL:
        pool.append(Candidate(etype, 1.0, (), fmt, render([], names, fmt, rng, **layout)))
    return pool


def score_pool(prepared, pool: Sequence[Candidate]) -> np.ndarray:
    """Item-F1, Row-F1 and P.O.A. of every candidate (NaN -> 0: the zero policy).

    Parameters
    ----------
    prepared : sgr_kit.score.PreparedTask
    pool : sequence of Candidate

    Returns
    -------
    ndarray of shape (len(pool), 3)
    """
    from sgr_kit.score import score_answer

    out = np.zeros((len(pool), 3))
    for i, c in enumerate(pool):
        r = score_answer(prepared, c.text)
        out[i] = [r.item_f1, r.row_f1, r.poa]
    return np.nan_to_num(out, nan=0.0)


def cell_options(pool: Sequence[Candidate], *, label: str | None, repeats: bool) -> list[tuple[int, ...]]:
    """The candidate choices of one (system, task) cell.

    A cell may take any candidate, or only those injected with ``label`` when the
    cell is audited; a repeat cell takes an ordered pair of distinct candidates
    with the same injected type.
    """
    by_type: dict[str, list[int]] = {}
    for i, c in enumerate(pool):
        if label is None or c.injected == label:
            by_type.setdefault(c.injected, []).append(i)
    if not repeats:
        return [(i,) for idx in by_type.values() for i in idx]
    return [pair for idx in by_type.values() for pair in combinations(idx, 2)]


@dataclass(frozen=True)
class Group:
    """A calibration target: the mean of ``metric`` over ``cells`` should be ``target``.

    Attributes
    ----------
    name : str
    metric : int
        0 Item-F1, 1 Row-F1, 2 P.O.A.
    target : float
        In [0, 1].
    tolerance : float
        In [0, 1]; the loss scale.
    cells : tuple of int
    """

    name: str
    metric: int
    target: float
    tolerance: float
    cells: tuple[int, ...]


def select(option_metrics: Sequence[np.ndarray], groups: Sequence[Group], *, seed: int,
           max_passes: int = 60) -> list[int]:
    """Pick one option per cell minimising ``sum(((mean - target) / tolerance) ** 2)``.

    Parameters
    ----------
    option_metrics : sequence of ndarray
        Per cell, an (options x 3) array of the options' metrics.
    groups : sequence of Group
    seed : int
        Seeds the start and the visiting order.
    max_passes : int, default 60

    Returns
    -------
    list of int
        The chosen option of each cell.

    Examples
    --------
    >>> opts = [np.array([[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]])] * 4
    >>> select(opts, [Group("g", 0, 0.5, 0.05, (0, 1, 2, 3))], seed=0).count(1)
    2
    """
    n_cells = len(option_metrics)
    rng = Random(f"sgr-demo-select-{seed}")
    membership: list[list[int]] = [[] for _ in range(n_cells)]
    for g, grp in enumerate(groups):
        for c in grp.cells:
            membership[c].append(g)
    metric = np.array([grp.metric for grp in groups])
    target = np.array([grp.target for grp in groups])
    scale = np.array([grp.tolerance * len(grp.cells) for grp in groups])
    choice = [rng.randrange(len(m)) for m in option_metrics]
    sums = np.zeros(len(groups))
    for c, m in enumerate(option_metrics):
        for g in membership[c]:
            sums[g] += m[choice[c], metric[g]]
    goal = target * np.array([len(grp.cells) for grp in groups])
    order = list(range(n_cells))
    for _ in range(max_passes):
        rng.shuffle(order)
        changed = 0
        for c in order:
            gs = membership[c]
            if not gs:
                continue
            m = option_metrics[c][:, metric[gs]]
            base = sums[gs] - m[choice[c]]
            loss = ((((base + m) - goal[gs]) / scale[gs]) ** 2).sum(axis=1)
            best = int(np.argmin(loss))
            if loss[best] < loss[choice[c]] - 1e-12:
                sums[gs] = base + m[best]
                choice[c] = best
                changed += 1
        if not changed:
            break
    return choice
