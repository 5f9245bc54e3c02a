"""Mean scores by cardinality bin, source family, ecosystem and domain, with intervals.

Every function here returns the columns of :func:`sgr_kit.stats.bootstrap_means`
(grouped by one column, with pooled rows) plus the group's task count::

    system, variant, metric, <group>, group_tasks, value, ci_low, ci_high, n_tasks,
    n_problems, method, ci, note, synthetic

- ``system``: a system of the scores table, or ``"all systems"`` for the pooled
  mean (per base problem the systems' values are averaged, then the problems: the
  paper's pooled means, such as the family means of Finding 3 and the bin means of
  Appendix K);
- ``variant``: ``constraint``, ``goal`` or ``overall`` (both variants);
- ``metric``: one of ``item_f1``, ``row_f1``, ``poa``;
- ``group_tasks``: the group's tasks in the scores table (the same on every row of
  the group: 26, 38, 26 and 10 for the bins of the full benchmark);
- ``value``, ``ci_low``, ``ci_high``: the mean in percent points (repeats of a task
  averaged first, failed answers entering by the failure policy) and its bootstrap
  interval clustered by base problem, stratified by group;
- ``n_tasks``: the tasks with a value in the mean (every system's in a pooled row);
  ``n_problems``: the base problems they belong to; ``method``, ``ci``, ``note``:
  how the interval was made and why it is missing, if it is;
- ``synthetic``: the scores table holds simulated tasks (the demo).

The rows are ordered by system (the paper's systems in Table 2's order, then the
others, then ``all systems``), variant, metric and group (bins as in Appendix K,
families as in section 3.3). The cells of the system x family table are the
matrix of Figure 3; the ``all systems`` rows of :func:`bin_means` are Figure 7.
"""

from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np  # noqa: F401 (the examples use it)
import pandas as pd

from ..schema import METRICS, VARIANT_GROUPS
from ..stats import bootstrap_means
from ..taxonomy import BINS, FAMILIES
from ._common import order_rows, require_columns, system_order

__all__ = ["bin_means", "family_means", "ecosystem_means", "domain_means", "group_columns"]


def group_columns(by: str) -> tuple[str, ...]:
    """The output columns of the group-mean functions for the group column ``by``.

    Examples
    --------
    >>> group_columns("bin")[:6]
    ('system', 'variant', 'metric', 'bin', 'group_tasks', 'value')
    """
    return ("system", "variant", "metric", by, "group_tasks", "value", "ci_low", "ci_high", "n_tasks",
            "n_problems", "method", "ci", "note", "synthetic")  # fmt: skip


def _group_means(
    scores: pd.DataFrame,
    by: str,
    order: Sequence[str],
    *,
    metrics: str | Iterable[str],
    failure_policy: str,
    ci: float,
    n_boot: int,
    method: str,
    seed: int | None,
) -> pd.DataFrame:
    require_columns(
        scores, ("system", "task_id", "base_id", "variant", "status", *METRICS, by), name="scores",
        hint="the scores table of `sgr-kit score` / sgr_kit.score_runs",
    )  # fmt: skip
    out = bootstrap_means(
        scores, metrics=metrics, by=by, pooled=True, failure_policy=failure_policy, ci=ci, n_boot=n_boot,
        method=method, seed=seed,
    )  # fmt: skip
    tasks = scores.drop_duplicates("task_id")[["task_id", by]].astype({by: object})
    counts = tasks.groupby(by, dropna=False).size()
    out["group_tasks"] = out[by].astype(object).map(counts).fillna(0).astype("int64")
    out = order_rows(out, {
        "system": system_order(out["system"]), "variant": VARIANT_GROUPS, "metric": METRICS, by: order,
    })  # fmt: skip
    return out[list(group_columns(by))]


def bin_means(
    scores: pd.DataFrame,
    *,
    metrics: str | Iterable[str] = ("item_f1", "row_f1"),
    failure_policy: str = "zero",
    ci: float = 0.95,
    n_boot: int = 10_000,
    method: str = "bca",
    seed: int | None = 0,
) -> pd.DataFrame:
    """Mean scores per cardinality bin, per system and over all systems, with intervals.

    Parameters
    ----------
    scores : DataFrame
        The scores table (``sgr-kit score``), with its ``bin`` column.
    metrics : str or sequence of str, default ("item_f1", "row_f1")
    failure_policy : {"zero", "exclude"}, default "zero"
        How failed answers enter a mean (:mod:`sgr_kit.aggregate`).
    ci, n_boot, method, seed
        Level, resamples, interval method and seed of the bootstrap, passed to
        :func:`sgr_kit.stats.bootstrap_means`.

    Returns
    -------
    DataFrame
        :func:`group_columns` ``("bin")``: one row per system (then ``all systems``),
        variant, metric and bin, bins in the order ``1-2, 3-5, 6-10, 11+``;
        ``n_tasks`` is the bin's task count.

    References
    ----------
    SGR-Bench paper, Appendix K and Figure 7 (bins of reference rows).

    Examples
    --------
    Two systems, two problems with both variants; system b failed on ``p2-g``
    (a zero under the default failure policy):

    >>> s = pd.DataFrame({"system": ["a"] * 4 + ["b"] * 4, "task_id": ["p1", "p1-g", "p2", "p2-g"] * 2,
    ...                   "base_id": ["p1", "p1", "p2", "p2"] * 2, "variant": ["constraint", "goal"] * 4,
    ...                   "bin": ["1-2", "1-2", "3-5", "3-5"] * 2, "status": ["parsed"] * 7 + ["missing"],
    ...                   "item_f1": [0.5, 0.5, 1.0, 0.5, 0.25, 0.25, 0.5, np.nan], "row_f1": 0.0, "poa": 1.0})
    >>> m = bin_means(s, n_boot=100)
    >>> overall = m.query("variant == 'overall' and metric == 'item_f1'")
    >>> print(overall[["system", "bin", "group_tasks", "value", "n_tasks"]].to_string(index=False))
         system bin  group_tasks  value  n_tasks
              a 1-2            2   50.0        2
              a 3-5            2   75.0        2
              b 1-2            2   25.0        2
              b 3-5            2   25.0        2
    all systems 1-2            2   37.5        4
    all systems 3-5            2   50.0        4
    """
    return _group_means(scores, "bin", BINS, metrics=metrics, failure_policy=failure_policy, ci=ci,
                        n_boot=n_boot, method=method, seed=seed)  # fmt: skip


def family_means(
    scores: pd.DataFrame,
    *,
    metrics: str | Iterable[str] = ("item_f1", "row_f1"),
    failure_policy: str = "zero",
    ci: float = 0.95,
    n_boot: int = 10_000,
    method: str = "bca",
    seed: int | None = 0,
) -> pd.DataFrame:
    """Mean scores per source family, per system and over all systems: the matrix of Figure 3.

    Parameters and intervals as in :func:`bin_means`.

    Returns
    -------
    DataFrame
        :func:`group_columns` ``("family")``, families in the order of section 3.3;
        ``n_tasks`` is the number of the family's tasks in each cell.

    References
    ----------
    SGR-Bench paper, section 3.3 (families), section 4.2 Finding 3 and Figure 3.

    Examples
    --------
    >>> s = pd.DataFrame({"system": ["a", "a"], "task_id": ["n_001", "n_001-g"], "base_id": "n_001",
    ...                   "variant": ["constraint", "goal"], "family": ["vulnerability databases"] * 2,
    ...                   "status": ["parsed", "empty"], "item_f1": [0.8, 0.0], "row_f1": [0.5, 0.0],
    ...                   "poa": [1.0, 0.0]})
    >>> m = family_means(s, metrics="item_f1", n_boot=100)
    >>> m.query("system == 'a'")[["variant", "value", "n_tasks", "n_problems"]].to_dict("records")
    ... # doctest: +NORMALIZE_WHITESPACE
    [{'variant': 'constraint', 'value': 80.0, 'n_tasks': 1, 'n_problems': 1},
     {'variant': 'goal', 'value': 0.0, 'n_tasks': 1, 'n_problems': 1},
     {'variant': 'overall', 'value': 40.0, 'n_tasks': 2, 'n_problems': 1}]
    """
    return _group_means(scores, "family", FAMILIES, metrics=metrics, failure_policy=failure_policy, ci=ci,
                        n_boot=n_boot, method=method, seed=seed)  # fmt: skip


def ecosystem_means(
    scores: pd.DataFrame,
    *,
    metrics: str | Iterable[str] = ("item_f1", "row_f1"),
    failure_policy: str = "zero",
    ci: float = 0.95,
    n_boot: int = 10_000,
    method: str = "bca",
    seed: int | None = 0,
) -> pd.DataFrame:
    """Mean scores per data ecosystem (12 in the benchmark), per system and over all systems.

    Parameters and intervals as in :func:`bin_means`.

    Returns
    -------
    DataFrame
        :func:`group_columns` ``("ecosystem")``, ecosystems in alphabetical order.

    References
    ----------
    SGR-Bench paper, section 3.3 (12 public data ecosystems).

    Examples
    --------
    >>> s = pd.DataFrame({"system": ["a", "a"], "task_id": ["k_001", "c_001"], "base_id": ["k_001", "c_001"],
    ...                   "variant": ["constraint"] * 2, "ecosystem": ["KEGG", "CFPB"], "status": ["parsed"] * 2,
    ...                   "item_f1": [0.5, 1.0], "row_f1": [0.0, 1.0], "poa": [1.0, 1.0]})
    >>> ecosystem_means(s, metrics="item_f1", n_boot=100).query("variant == 'overall'")["ecosystem"].unique().tolist()
    ['CFPB', 'KEGG']
    """
    order = sorted(scores["ecosystem"].dropna().astype(str).unique(), key=str.casefold) if "ecosystem" in scores else []
    return _group_means(scores, "ecosystem", order, metrics=metrics, failure_policy=failure_policy, ci=ci,
                        n_boot=n_boot, method=method, seed=seed)  # fmt: skip


def domain_means(
    scores: pd.DataFrame,
    *,
    metrics: str | Iterable[str] = ("item_f1", "row_f1"),
    failure_policy: str = "zero",
    ci: float = 0.95,
    n_boot: int = 10_000,
    method: str = "bca",
    seed: int | None = 0,
) -> pd.DataFrame:
    """Mean scores per release domain (14 in the benchmark), per system and over all systems.

    Parameters and intervals as in :func:`bin_means`.

    Returns
    -------
    DataFrame
        :func:`group_columns` ``("domain")``, domains in alphabetical order.

    Examples
    --------
    >>> s = pd.DataFrame({"system": ["a"], "task_id": ["n_001-g"], "base_id": ["n_001"], "variant": ["goal"],
    ...                   "domain": ["NVD"], "status": ["parsed"], "item_f1": [0.5], "row_f1": [0.0], "poa": [1.0]})
    >>> domain_means(s, metrics="row_f1", n_boot=100)[["system", "variant", "domain", "value", "n_tasks"]].iloc[:3]
      system     variant domain  value  n_tasks
    0      a  constraint    NVD    NaN        0
    1      a        goal    NVD    0.0        1
    2      a     overall    NVD    0.0        1
    """
    order = sorted(scores["domain"].dropna().astype(str).unique(), key=str.casefold) if "domain" in scores else []
    return _group_means(scores, "domain", order, metrics=metrics, failure_policy=failure_policy, ci=ci,
                        n_boot=n_boot, method=method, seed=seed)  # fmt: skip
