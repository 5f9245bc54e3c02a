"""Audit-slot labels for the demo: a 3-way integer table with fixed margins.

Appendix G of the paper audits 22 task slots x the 8 CLI systems (176
trajectories), each with one primary label: one of the six failure types or
``correct``. Table 4 gives the counts per model x label (including the correct
ones), Table 5 the failure counts per source family x type. The demo picks 22
task slots whose families can hold Table 5's failures (``slot_counts``) and then
solves for a label per (model, slot) with

* exactly one label per (model, slot),
* per model and label: Table 4's count,
* per family and failure type: Table 5's count,

as a 0/1 integer program (:func:`scipy.optimize.milp`, HiGHS). A seeded random
objective picks one of the many feasible tables; solved to proven optimality
(``mip_rel_gap=0``), the optimum is unique, so the table does not depend on
the solver version.
"""

from __future__ import annotations

import math
from random import Random
from typing import Mapping, Sequence

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp

from sgr_kit.errors import SgrKitError

__all__ = ["CORRECT", "slot_counts", "solve_labels"]

CORRECT = "correct"


def slot_counts(family_failures: Mapping[str, int], *, n_slots: int, n_models: int,
                n_correct: int) -> dict[str, int]:
    """Task slots per family so that every family can hold its failures and
    exactly ``n_correct`` cells are left for correct answers.

    Each family gets the fewest slots that hold its failures; the remaining
    slots go to the family with the most failures.

    Examples
    --------
    >>> f = {"scholarly": 64, "official": 32, "life": 24, "env": 21, "reg": 15}
    >>> slot_counts(f, n_slots=22, n_models=8, n_correct=20)
    {'scholarly': 10, 'official': 4, 'life': 3, 'env': 3, 'reg': 2}
    """
    counts = {f: math.ceil(n / n_models) for f, n in family_failures.items()}
    spare = n_slots - sum(counts.values())
    total_fail = sum(family_failures.values())
    if spare < 0 or n_slots * n_models - total_fail != n_correct:
        raise SgrKitError(
            f"audit design: {n_slots} slots x {n_models} models cannot hold {total_fail} failures "
            f"and {n_correct} correct answers"
        )
    counts[max(family_failures, key=lambda f: family_failures[f])] += spare
    return counts


def solve_labels(
    by_model: Mapping[str, Mapping[str, int]],
    by_family: Mapping[str, Mapping[str, int]],
    slot_families: Sequence[str],
    *,
    seed: int,
) -> dict[tuple[str, int], str]:
    """One label per (model, slot) reproducing both margins exactly.

    Parameters
    ----------
    by_model : mapping model -> {label: count}
        Table 4 (labels include ``"correct"``); each model's counts sum to the
        number of slots.
    by_family : mapping family -> {failure type: count}
        Table 5 (failures only).
    slot_families : sequence of str
        The family of each slot.
    seed : int
        Seeds the random objective that picks one feasible table.

    Returns
    -------
    dict
        ``(model, slot index) -> label``.

    Examples
    --------
    >>> by_model = {"m1": {"a": 1, "correct": 1}, "m2": {"a": 2, "correct": 0}}
    >>> by_family = {"f": {"a": 2}, "g": {"a": 1}}
    >>> sol = solve_labels(by_model, by_family, ["f", "g"], seed=0)
    >>> sorted(sol.items())
    [(('m1', 0), 'a'), (('m1', 1), 'correct'), (('m2', 0), 'a'), (('m2', 1), 'a')]
    """
    models = list(by_model)
    labels = sorted({lab for counts in by_model.values() for lab in counts} | {CORRECT})
    n_m, n_s, n_l = len(models), len(slot_families), len(labels)

    def var(m: int, s: int, lab: int) -> int:
        return (m * n_s + s) * n_l + lab

    n_var = n_m * n_s * n_l
    rows, lo, hi = [], [], []

    def add(indices: list[int], value: float) -> None:
        row = np.zeros(n_var)
        row[indices] = 1.0
        rows.append(row)
        lo.append(value)
        hi.append(value)

    for m in range(n_m):
        for s in range(n_s):
            add([var(m, s, lab) for lab in range(n_l)], 1)
        for lab, name in enumerate(labels):
            add([var(m, s, lab) for s in range(n_s)], by_model[models[m]].get(name, 0))
    for fam, counts in by_family.items():
        slots = [s for s, f in enumerate(slot_families) if f == fam]
        for lab, name in enumerate(labels):
            if name != CORRECT:
                add([var(m, s, lab) for m in range(n_m) for s in slots], counts.get(name, 0))
    rng = Random(f"sgr-demo-audit-{seed}")
    cost = np.array([rng.random() for _ in range(n_var)])
    res = milp(cost, constraints=LinearConstraint(np.array(rows), lo, hi),
               integrality=np.ones(n_var), bounds=Bounds(0, 1),
               # Solve to proven optimality: with a random objective the optimum is
               # unique, so the labels do not depend on the solver's version.
               options={"mip_rel_gap": 0.0})
    if res.x is None:
        raise SgrKitError(f"audit design: no label table reproduces both margins ({res.message})")
    x = np.round(res.x).astype(int)
    return {
        (models[m], s): labels[lab]
        for m in range(n_m) for s in range(n_s) for lab in range(n_l) if x[var(m, s, lab)]
    }
