"""Input checks and the per-problem arrays every statistic starts from (not public).

Every public function of :mod:`sgr_kit.stats` validates its options here, averages
the repeats of each (system, task) with :func:`sgr_kit.aggregate.task_means` (which
also applies the failure policy), and turns the result into arrays indexed by
system, base problem and variant (and the per-problem differences that the paired tests,
the system comparisons and the power analysis share): the base problem is the unit of
independence.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np
import pandas as pd

from ..aggregate import task_means
from ..errors import SgrKitError
from ..schema import ALL_SYSTEMS, METRICS, VARIANT_GROUPS, VARIANTS, check_choice, is_synthetic  # noqa: F401

#: The variants of a mean: the two variants of section 3.1 and both together.
MEAN_VARIANTS: tuple[str, ...] = VARIANT_GROUPS
#: Interval methods of the bootstrap, the default first.
INTERVAL_METHODS: tuple[str, ...] = ("bca", "percentile")
#: Differences smaller than this (in score fractions) are ties: repeats averaged in
#: floating point must not turn an exact tie into a tiny "win".
TIE_TOLERANCE = 1e-12
_SCORE_HINT = "the scores table of `sgr-kit score` / sgr_kit.score_runs"


def check_scores(scores: object, *, extra: Sequence[str] = ()) -> pd.DataFrame:
    """Raise :class:`SgrKitError` unless ``scores`` is a non-empty scores table that pairs tasks."""
    if not isinstance(scores, pd.DataFrame):
        raise SgrKitError(f"scores: expected a pandas DataFrame ({_SCORE_HINT}); found {type(scores).__name__}")
    needed = ("system", "task_id", "base_id", "variant", "status", *METRICS, *extra)
    missing = [c for c in needed if c not in scores.columns]
    if missing:
        raise SgrKitError(
            f"scores table lacks column(s) {', '.join(missing)}; the statistics pair the two variants of a "
            f"base problem by `base_id` and `variant`, so they need {', '.join(needed)} ({_SCORE_HINT})"
        )
    if scores.empty:
        raise SgrKitError("scores table has no rows; expected at least one scored answer")
    unknown = sorted({str(v) for v in scores["variant"].dropna().unique()} - set(VARIANTS))
    if unknown or scores["variant"].isna().any():
        found = ", ".join(map(repr, unknown)) if unknown else "a missing value"
        raise SgrKitError(f"scores column `variant` must hold {', '.join(VARIANTS)}; found {found}")
    if scores["base_id"].isna().any():
        task = scores.loc[scores["base_id"].isna(), "task_id"].iloc[0]
        raise SgrKitError(f"scores column `base_id` is empty for task {task!r}; every task needs its base problem")
    return scores


def check_level(ci: object, *, name: str = "ci") -> float:
    """Return ``ci`` as a float strictly between 0 and 1, else raise."""
    if isinstance(ci, bool) or not isinstance(ci, numbers.Real) or not 0 < float(ci) < 1:
        raise SgrKitError(f"{name} must be a number strictly between 0 and 1; found {ci!r}")
    return float(ci)


def check_count(value: object, *, name: str, minimum: int) -> int:
    """Return ``value`` as an int of at least ``minimum``, else raise."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or int(value) < minimum:
        raise SgrKitError(f"{name} must be an integer of at least {minimum}; found {value!r}")
    return int(value)


def check_seed(seed: object) -> int | None:
    """Return ``seed`` (an int or None) or raise: results must be reproducible from it."""
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, numbers.Integral)):
        raise SgrKitError(f"seed must be an integer (or None); found {seed!r}")
    return None if seed is None else int(seed)


def check_method(method: object) -> str:
    """Return ``method`` if it is a known interval method."""
    return check_choice(method, INTERVAL_METHODS, name="method")


def check_by(scores: pd.DataFrame, by: str | Iterable[str]) -> tuple[str, ...]:
    """Return the grouping columns ``by`` as a tuple, checked against ``scores``."""
    names = (by,) if isinstance(by, str) else tuple(by)
    reserved = {"system", "variant", "metric", "task_id", "base_id", "repeat", "status", *METRICS}
    for name in names:
        if not isinstance(name, str) or name in reserved:
            raise SgrKitError(f"by: expected names of descriptive columns such as 'bin' or 'family'; found {name!r}")
        if name not in scores.columns:
            found = ", ".join(map(str, scores.columns))
            raise SgrKitError(f"by: the scores table has no column {name!r}; found {found}")
    if len(set(names)) != len(names):
        raise SgrKitError(f"by: each column may appear once; found {names!r}")
    return names


def per_task(scores: pd.DataFrame, *, failure_policy: str, by: Sequence[str] = ()) -> pd.DataFrame:
    """One row per (system, task): repeats averaged and the failure policy applied.

    The ``by`` columns are carried over from ``scores`` (the first value of each task).
    """
    table = task_means(scores, failure_policy=failure_policy)
    extra = [c for c in ("base_id", *by) if c not in table.columns]
    if extra:
        firsts = scores.drop_duplicates(["system", "task_id"])[["system", "task_id", *extra]]
        table = table.merge(firsts, on=["system", "task_id"], how="left", validate="one_to_one")
    return table


def system_order(table: pd.DataFrame) -> list[str]:
    """The systems of ``table`` in the order they first appear."""
    return [str(s) for s in pd.unique(table["system"].astype(str))]


@dataclass(frozen=True)
class ProblemArrays:
    """Per system x base problem x variant: the sum of task values and the number of tasks with a value.

    ``sums`` and ``counts`` have shape ``(n_systems, n_problems, 2)``; the last axis is
    ``(constraint, goal)``. A task whose metric is NaN (excluded failure) counts nowhere.
    """

    systems: tuple[str, ...]
    problems: tuple[str, ...]
    sums: np.ndarray
    counts: np.ndarray

    def values(self) -> np.ndarray:
        """Mean value per system x problem x variant (NaN where no task has a value)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.counts > 0, self.sums / np.maximum(self.counts, 1), np.nan)


def problem_arrays(
    tasks: pd.DataFrame, metric: str, *, systems: Sequence[str], problems: Sequence[str] | None = None
) -> ProblemArrays:
    """Arrange the per-task table ``tasks`` (output of :func:`per_task`) for ``metric``."""
    if problems is None:
        problems = sorted(pd.unique(tasks["base_id"].astype(str)))
    s = pd.Categorical(tasks["system"].astype(str), categories=list(systems)).codes
    p = pd.Categorical(tasks["base_id"].astype(str), categories=list(problems)).codes
    v = np.where(tasks["variant"].astype(str).to_numpy() == VARIANTS[0], 0, 1)
    x = tasks[metric].to_numpy(dtype=float)
    keep = (s >= 0) & (p >= 0) & np.isfinite(x)
    shape = (len(systems), len(problems), 2)
    sums, counts = np.zeros(shape), np.zeros(shape)
    np.add.at(sums, (s[keep], p[keep], v[keep]), x[keep])
    np.add.at(counts, (s[keep], p[keep], v[keep]), 1.0)
    return ProblemArrays(tuple(systems), tuple(problems), sums, counts)


def join_notes(*notes: str) -> str:
    """Join the non-empty notes of one result row with '; '."""
    return "; ".join(n for n in notes if n)


def pair_differences(arrays) -> np.ndarray:
    """Constraint minus goal per system x problem (NaN where a variant has no value); ties snapped to 0."""
    values = arrays.values()
    d = values[:, :, 0] - values[:, :, 1]
    return np.where(np.abs(d) < TIE_TOLERANCE, 0.0, d)


def system_differences(arrays, variant: str):
    """Per unordered pair of systems ``(i, j)``, ``i < j``: the difference i minus j per base problem.

    On a problem, each system's value is the mean of its tasks of ``variant`` there
    (``overall``: both variants) among the tasks **both** systems have a value for.

    Returns ``(pairs, d, n_tasks)``: the pairs of indices, ``d`` of shape
    ``(n_pairs, n_problems)`` (NaN where the two share no task on the problem; ties
    snapped to 0), and the number of shared tasks per pair.
    """
    values, have = arrays.values(), arrays.counts > 0
    sel = [0, 1] if variant == "overall" else [MEAN_VARIANTS.index(variant)]
    i, j = np.triu_indices(len(arrays.systems), 1)
    common = have[i][..., sel] & have[j][..., sel]
    diff = np.where(common, values[i][..., sel] - values[j][..., sel], 0.0).sum(axis=-1)
    shared = common.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        d = np.where(shared > 0, diff / np.maximum(shared, 1), np.nan)
    d = np.where(np.abs(d) < TIE_TOLERANCE, 0.0, d)
    return list(zip(i.tolist(), j.tolist())), d, shared.sum(axis=-1).astype("int64")
