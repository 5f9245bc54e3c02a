"""Computed numbers beside the ones the paper publishes, and a system's place in the paper's ranking.

:func:`beside_paper` sets every computed number that has a published counterpart
next to it: per system (a system named as in Table 2) the means of Tables 2 and
3; pooled over the paper's systems present, the family means of Finding 3 and the
cardinality-bin means and task counts of Appendix K; with an audit table, the
counts of Tables 4 and 5 and the means of Table 6. A number that covers fewer
tasks (or audited trajectories) than the paper's is flagged ``complete = False``:
it is never silently set beside a full-benchmark number.

:func:`paper_ranking` places every system of a scores table among the paper's
eleven systems by overall Item-F1 (Table 2).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .. import reference
from ..aggregate import system_means
from ..reference import CLI_SYSTEMS, SYSTEMS
from ..schema import ALL_SYSTEMS, PAPER_TASKS, PAPER_TASKS_PER_VARIANT, TEXT_DTYPE, check_failure_policy, is_synthetic
from ._common import require_columns, scored_tasks, system_order
from .audit import check_audit, error_profile_by_family, error_profile_by_system, error_type_means
from .groups import bin_means, family_means

__all__ = ["BESIDE_COLUMNS", "RANKING_COLUMNS", "beside_paper", "beside_paper_wide", "paper_ranking"]

#: Columns of :func:`beside_paper`.
BESIDE_COLUMNS: tuple[str, ...] = (
    "artefact", "source", "system", "group", "label", "quantity", "computed", "published", "difference",
    "n_tasks", "n_systems", "complete", "synthetic",
)  # fmt: skip
#: Columns of :func:`paper_ranking`.
RANKING_COLUMNS: tuple[str, ...] = ("system", "source", "item_f1", "rank", "place", "n_tasks", "complete", "synthetic")
#: Audited trajectories per CLI system in the paper (22 task slots, Appendix H).
PAPER_AUDIT_SLOTS = 22
#: Resamples for the pooled means (only their values are compared; the intervals are not used).
_N_BOOT = 100


def _frame(rows: list[dict], synthetic: bool) -> pd.DataFrame:
    out = pd.DataFrame(rows, columns=[c for c in BESIDE_COLUMNS if c not in ("difference", "synthetic")])
    out["difference"] = out["computed"] - out["published"]
    out["synthetic"] = synthetic
    return out[list(BESIDE_COLUMNS)]


def _coverage(scores: pd.DataFrame) -> dict[tuple[str, str], int]:
    return {(r.system, r.variant): int(r.n_scored) for r in scored_tasks(scores).itertuples(index=False)}


def _system_rows(scores: pd.DataFrame, failure_policy: str) -> list[dict]:
    mine = scores[scores["system"].isin(SYSTEMS)]
    if mine.empty:
        return []
    coverage = _coverage(mine)
    means = system_means(mine, failure_policy=failure_policy).set_index(["system", "variant", "metric"])
    rows = []
    t2, t3 = reference.table2(), reference.table3()
    published = [("table2", "Table 2", r.system, r.variant, r.metric, r.value) for r in t2.itertuples(index=False)]
    published += [("table3", "Table 3", r.system, "overall", r.metric, r.value) for r in t3.itertuples(index=False)]
    for artefact, source, system, variant, metric, value in published:
        if (system, variant, metric) not in means.index or coverage.get((system, variant), 0) == 0:
            continue
        got = means.loc[(system, variant, metric)]
        needed = PAPER_TASKS if variant == "overall" else PAPER_TASKS_PER_VARIANT
        rows.append(dict(
            artefact=artefact, source=source, system=system, group=variant, label="", quantity=metric,
            computed=float(got["value"]), published=float(value), n_tasks=int(got["n_tasks"]), n_systems=1,
            complete=coverage.get((system, variant), 0) >= needed,
        ))  # fmt: skip
    return rows


def _pooled_rows(scores: pd.DataFrame, failure_policy: str) -> list[dict]:
    mine = scores[scores["system"].isin(SYSTEMS)]
    rows: list[dict] = []
    if mine.empty:
        return rows
    coverage = _coverage(mine)
    n_systems = int(mine["system"].nunique())
    complete = n_systems == len(SYSTEMS) and all(coverage.get((s, "overall"), 0) >= PAPER_TASKS for s in SYSTEMS)
    pooled = dict(system=ALL_SYSTEMS, label="", n_systems=n_systems, complete=complete)
    if "family" in mine.columns:
        fam = family_means(mine, metrics="item_f1", failure_policy=failure_policy, n_boot=_N_BOOT)
        fam = fam[(fam["system"] == ALL_SYSTEMS) & (fam["variant"] == "overall")].set_index("family")
        for r in reference.family_item_f1().itertuples(index=False):
            if r.family in fam.index:
                rows.append(dict(pooled, artefact="family_item_f1", source=r.source, group=r.family,
                                 quantity="item_f1", computed=float(fam.loc[r.family, "value"]),
                                 published=float(r.value), n_tasks=int(fam.loc[r.family, "group_tasks"])))  # fmt: skip
    if "bin" in mine.columns:
        bins = bin_means(mine, failure_policy=failure_policy, n_boot=_N_BOOT)
        bins = bins[(bins["system"] == ALL_SYSTEMS) & (bins["variant"] == "overall")].set_index(["bin", "metric"])
        tasks = scores.drop_duplicates("task_id").groupby("bin").size()
        for r in reference.cardinality().itertuples(index=False):
            if np.isnan(r.value) or r.quantity == "share":
                continue
            if r.quantity == "tasks" and r.bin in tasks.index:
                computed, n = float(tasks[r.bin]), int(tasks[r.bin])
            elif (r.bin, r.quantity) in bins.index:
                computed, n = float(bins.loc[(r.bin, r.quantity), "value"]), int(tasks[r.bin])
            else:
                continue
            rows.append(dict(pooled, artefact="cardinality", source=r.source, group=r.bin, quantity=r.quantity,
                             computed=computed, published=float(r.value), n_tasks=n))  # fmt: skip
    return rows


def _audit_rows(audit: pd.DataFrame, scores: pd.DataFrame, failure_policy: str) -> list[dict]:
    audit = check_audit(audit)
    audit = audit[audit["system"].isin(CLI_SYSTEMS)]
    rows: list[dict] = []
    if audit.empty:
        return rows
    slots = audit.groupby("system").size()
    n_systems = int(len(slots))
    all_complete = n_systems == len(CLI_SYSTEMS) and bool((slots >= PAPER_AUDIT_SLOTS).all())
    profile = error_profile_by_system(audit).set_index(["system", "label"])
    for r in reference.table4().itertuples(index=False):
        system = r.system or ALL_SYSTEMS
        label = r.error_type
        key = (system, "scope_drift" if label == "fail" else label)
        if key not in profile.index:
            continue
        got = profile.loc[key]
        computed = got["n_failed"] if label == "fail" else got["count"]
        pooled = system == ALL_SYSTEMS
        rows.append(dict(
            artefact="table4", source=r.source, system=system, group="", label=label, quantity="count",
            computed=float(computed), published=float(r.value), n_tasks=int(got["n_audited"]),
            n_systems=n_systems if pooled else 1,
            complete=all_complete if pooled else bool(slots.get(system, 0) >= PAPER_AUDIT_SLOTS),
        ))  # fmt: skip
    if "family" in audit.columns and audit["family"].notna().all():
        families = error_profile_by_family(audit).set_index(["family", "label"])
        for r in reference.table5().itertuples(index=False):
            key = (r.family, "scope_drift" if r.error_type == "total" else r.error_type)
            if key not in families.index:
                continue
            got = families.loc[key]
            computed = got["n_failed"] if r.error_type == "total" else got["count"]
            rows.append(dict(
                artefact="table5", source=r.source, system=ALL_SYSTEMS, group=r.family, label=r.error_type,
                quantity="count", computed=float(computed), published=float(r.value), n_tasks=int(got["n_audited"]),
                n_systems=n_systems, complete=all_complete,
            ))  # fmt: skip
    if scores is not None:
        means = error_type_means(audit, scores, failure_policy=failure_policy).set_index(["label", "metric"])
        counts = audit.groupby("label").size()
        for r in reference.table6().itertuples(index=False):
            if r.metric == "n":
                if r.error_type not in counts.index:
                    continue
                computed, n = float(counts[r.error_type]), int(counts[r.error_type])
            elif (r.error_type, r.metric) in means.index:
                got = means.loc[(r.error_type, r.metric)]
                computed, n = float(got["value"]), int(got["n"])
            else:
                continue
            rows.append(dict(
                artefact="table6", source=r.source, system=ALL_SYSTEMS, group="", label=r.error_type,
                quantity=r.metric, computed=computed, published=float(r.value), n_tasks=n, n_systems=n_systems,
                complete=all_complete,
            ))  # fmt: skip
    return rows


def beside_paper(
    scores: pd.DataFrame,
    *,
    audit: pd.DataFrame | None = None,
    failure_policy: str = "zero",
) -> pd.DataFrame:
    """Every computed number with a published counterpart, beside it, with the difference.

    Parameters
    ----------
    scores : DataFrame
        The scores table. Systems named as in Table 2 (:data:`sgr_kit.reference.SYSTEMS`)
        are compared with their published rows; other systems have none (see
        :func:`paper_ranking`).
    audit : DataFrame, optional
        An audit table (:func:`sgr_kit.breakdowns.load_audit`); adds Tables 4-6,
        for the paper's eight CLI systems in it.
    failure_policy : {"zero", "exclude"}, default "zero"
        The paper's means count a failed answer as 0 (``zero``).

    Returns
    -------
    DataFrame
        ``artefact, source, system, group, label, quantity, computed, published,
        difference, n_tasks, n_systems, complete, synthetic``:

        - ``artefact``: ``table2``, ``table3`` (per system), ``family_item_f1``,
          ``cardinality`` (pooled over the paper's systems present: ``system`` is
          ``all systems``), ``table4``, ``table5``, ``table6`` (audit);
        - ``group``: the variant (Tables 2, 3), family or bin ("" where none);
          ``label``: the error type, ``fail``, ``correct`` or ``total`` of Tables 4-6
          ("" elsewhere); ``quantity``: ``item_f1``, ``row_f1``, ``poa``, ``tasks``,
          ``count``, ``n`` or ``gap``;
        - ``computed``, ``published`` (as printed), ``difference`` = computed - published,
          in the published unit (percent points or counts);
        - ``n_tasks``: tasks (or audited trajectories) behind the computed number;
          ``n_systems``: systems pooled;
        - ``complete``: the computed number covers what the published one covers
          (every system on all 100 tasks, or 50 per variant; for the audit, the
          eight CLI systems with 22 trajectories each).

    Examples
    --------
    A system named as in the paper, scored on one task only: compared, and flagged.

    >>> s = pd.DataFrame({"system": ["GPT-5.5"], "task_id": ["t_001"], "variant": ["constraint"],
    ...                   "status": ["parsed"], "item_f1": [0.5], "row_f1": [0.25], "poa": [1.0]})
    >>> b = beside_paper(s).query("artefact == 'table2' and quantity == 'item_f1'")
    >>> print(b[["group", "computed", "published", "difference", "n_tasks", "complete"]].to_string(index=False))
         group  computed  published  difference  n_tasks  complete
    constraint      50.0      68.22      -18.22        1     False
       overall      50.0      66.18      -16.18        1     False
    """
    check_failure_policy(failure_policy)
    require_columns(scores, ("system", "task_id", "variant", "status", "item_f1", "row_f1", "poa"), name="scores")
    rows = _system_rows(scores, failure_policy) + _pooled_rows(scores, failure_policy)
    if audit is not None:
        rows += _audit_rows(audit, scores, failure_policy)
    out = _frame(rows, is_synthetic(scores, audit))
    for column in ("artefact", "source", "system", "group", "label", "quantity"):
        out[column] = out[column].astype(TEXT_DTYPE)
    return out.astype({"computed": float, "published": float, "difference": float, "n_tasks": "int64",
                       "n_systems": "int64", "complete": bool})  # fmt: skip


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _place(others: pd.Series, value: float) -> str:
    """Where ``value`` stands among the paper's published values ``others``, in words."""
    if np.isnan(value):
        return "no task left to score (every answer failed and failed answers are excluded)"
    above, below = others[others > value].sort_values(), others[others <= value].sort_values(ascending=False)
    rank = len(above) + 1
    parts = ([f"below {above.index[0]} ({above.iloc[0]:.2f})"] if len(above) else []) + (
        [f"above {below.index[0]} ({below.iloc[0]:.2f})"] if len(below) else [])
    return f"{_ordinal(rank)} of {len(others) + 1} in the paper's ranking: " + ", ".join(parts)


def beside_paper_wide(table: pd.DataFrame, *, computed: bool = True) -> pd.DataFrame:
    """Tables 2 and 3 of :func:`beside_paper` for reading: one row per system and variant, each number once.

    Table 3's overall Item-F1 repeats Table 2's overall row: it is kept once (Table 2's). Per
    metric, the computed value, the published one and their difference sit side by side;
    ``complete`` is kept only when some row is incomplete, and constant bookkeeping
    columns (``label``, ``n_systems``, ``synthetic``) are left out (the saved long table keeps them).
    ``computed=False`` leaves out the computed values too, for a page whose main table shows them
    (each number in one place): the published value and the difference remain.

    Examples
    --------
    >>> s = pd.DataFrame({"system": ["GPT-5.5"] * 2, "task_id": ["t_001", "t_001-g"], "variant": ["constraint", "goal"],
    ...                   "status": ["parsed"] * 2, "item_f1": [0.5, 0.7], "row_f1": [0.25, 0.5], "poa": [1.0, 1.0]})
    >>> w = beside_paper_wide(beside_paper(s))
    >>> list(w.columns[:5]), len(w)
    (['system', 'variant', 'n_tasks', 'complete', 'item_f1'], 3)
    """
    part = table[table["artefact"].isin(("table2", "table3"))]
    part = part.sort_values("artefact", kind="stable").drop_duplicates(["system", "group", "quantity"])
    if part.empty:
        return pd.DataFrame(columns=["system", "variant", "n_tasks"])
    index = ["system", "group"]
    order = part.drop_duplicates(index)[index]
    out = order.merge(part.groupby(index, sort=False).agg(n_tasks=("n_tasks", "max"), complete=("complete", "all"))
                      .reset_index(), on=index)
    for metric in [m for m in ("item_f1", "row_f1", "poa") if m in set(part["quantity"])]:
        mine = part[part["quantity"] == metric].set_index(index)[["computed", "published", "difference"]]
        mine.columns = [metric, f"paper_{metric}", f"diff_{metric}"]
        out = out.merge(mine.reset_index(), on=index, how="left")
        if not computed:
            out = out.drop(columns=[metric])
    if out["complete"].all():
        out = out.drop(columns=["complete"])
    return out.rename(columns={"group": "variant"}).reset_index(drop=True)


def paper_ranking(scores: pd.DataFrame, *, failure_policy: str = "zero") -> pd.DataFrame:
    """Every system of ``scores`` placed in the paper's ranking by overall Item-F1 (Table 2).

    Parameters
    ----------
    scores : DataFrame
        The scores table.
    failure_policy : {"zero", "exclude"}, default "zero"

    Returns
    -------
    DataFrame
        ``system, source, item_f1, rank, n_tasks, complete, synthetic``: the paper's
        eleven systems (``source`` ``paper``: published Overall Item-F1, ``rank``
        among them) and every system of ``scores`` (``source`` ``computed``;
        ``rank`` = where the system would stand among the paper's eleven: 1 + the number
        of the paper's systems with a higher published Overall Item-F1, a paper-named
        system not counting itself; the other computed systems are not counted, so each
        computed rank reads on the paper's scale of 1 to 11 (12 for a system below all
        of them); missing when no task is left), sorted by ``item_f1`` (descending).
        ``place`` says it in words for a computed system (the paper's systems just above
        and below it); empty for the paper's rows. ``n_tasks`` is the number of tasks scored (100 for
        the paper's rows); ``complete`` is False for a system scored on fewer than
        the paper's 100 tasks.

    Examples
    --------
    >>> s = pd.DataFrame({"system": ["mine"] * 2, "task_id": ["t_001", "t_001-g"], "variant": ["constraint", "goal"],
    ...                   "status": ["parsed"] * 2, "item_f1": [0.7, 0.6], "row_f1": [0.5, 0.4], "poa": [1.0, 1.0]})
    >>> r = paper_ranking(s)
    >>> print(r.head(4)[["system", "source", "item_f1", "rank", "complete"]].to_string(index=False))
             system   source  item_f1  rank  complete
            GPT-5.5    paper    66.18     1      True
            GLM-5.1    paper    65.64     2      True
               mine computed    65.00     3     False
    Claude Opus 4.7    paper    61.38     3      True
    >>> print(r.loc[r["source"] == "computed", "place"].item())
    3rd of 12 in the paper's ranking: below GLM-5.1 (65.64), above Claude Opus 4.7 (61.38)
    """
    check_failure_policy(failure_policy)
    require_columns(scores, ("system", "task_id", "variant", "status", "item_f1", "row_f1", "poa"), name="scores")
    t2 = reference.table2()
    published = t2[(t2["variant"] == "overall") & (t2["metric"] == "item_f1")].set_index("system")["value"]
    published = published.reindex(list(SYSTEMS))
    rows = [(system, "paper", float(v), int((published > v).sum()) + 1, "", PAPER_TASKS, True, False)
            for system, v in published.items()]  # fmt: skip
    means = system_means(scores, failure_policy=failure_policy)
    means = means[(means["variant"] == "overall") & (means["metric"] == "item_f1")].set_index("system")
    coverage = _coverage(scores)
    synthetic = is_synthetic(scores)
    for system in system_order(means.index):
        value = float(means.loc[system, "value"])
        others = published.drop(system, errors="ignore")
        scored = coverage.get((system, "overall"), 0)
        rank = int((others > value).sum()) + 1 if not np.isnan(value) else pd.NA
        rows.append((system, "computed", value, rank, _place(others, value), scored, scored >= PAPER_TASKS,
                     synthetic))
    out = pd.DataFrame(rows, columns=list(RANKING_COLUMNS))
    out = out.sort_values(["item_f1", "source"], ascending=[False, True], kind="stable").reset_index(drop=True)
    return out.astype({"system": TEXT_DTYPE, "source": TEXT_DTYPE, "item_f1": float, "rank": "Int64", "place": TEXT_DTYPE,
                       "n_tasks": "int64", "complete": bool, "synthetic": bool})  # fmt: skip
