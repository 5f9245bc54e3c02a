"""Error profiles from a trajectory-audit label file (the paper's Tables 4, 5 and 6).

An audit file gives one primary label per audited (system, task) trajectory
(Appendix G): one of the six error types of :data:`sgr_kit.schema.ERROR_TYPES`
or ``correct``. It is a CSV file with at least the columns ``system, task_id,
label``; ``base_id``, ``family`` and ``synthetic`` are read when present (the
demo's ``data/demo/audit.csv`` has ``system, task_id, base_id, family, label``).
Labels may also be written as the paper prints them (``Retrieval-Scope Drift``,
``Correct``), in any case.

:func:`sgr_kit.load.load_audit` reads and checks the file (re-exported here); the other
functions take its table:

- :func:`error_profile_by_system`: counts and percentages per system (Table 4, Figure 4);
- :func:`error_profile_by_family`: the same per source family (Table 5, Figure 5);
- :func:`audit_scores`: each audited trajectory with its scores (Figure 6);
- :func:`error_type_means`: mean Item-F1, Row-F1 and their gap per label (Table 6).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..aggregate import task_means
from ..errors import SgrKitError
from ..load.audit import AUDIT_REQUIRED, load_audit
from ..schema import ALL_SYSTEMS, AUDIT_LABELS, AUDIT_TABLE_COLUMNS, TEXT_DTYPE, check_failure_policy, is_synthetic
from ..taxonomy import FAMILIES
from ._common import order_rows, require_columns, system_order

__all__ = [
    "AUDIT_LABELS", "AUDIT_TABLE_COLUMNS", "load_audit", "error_profile_by_system", "error_profile_by_family",
    "audit_scores", "error_type_means", "unscored_note",
]  # fmt: skip

_PROFILE_COLUMNS = ("count", "n_failed", "n_audited", "percent_of_failures", "percent_of_audited", "synthetic")


def check_audit(audit: object) -> pd.DataFrame:
    """Check that ``audit`` is an audit-label table (:func:`load_audit`) with known labels; return it."""
    require_columns(audit, AUDIT_REQUIRED, name="audit", hint="the table of sgr_kit.breakdowns.load_audit")
    unknown = sorted(set(audit["label"].astype(str)) - set(AUDIT_LABELS))
    if unknown:
        raise SgrKitError(
            f"audit: unknown label(s) {', '.join(map(repr, unknown))}; expected {', '.join(AUDIT_LABELS)}"
        )
    return audit


def _profile(audit: pd.DataFrame, by: str, order: list[str]) -> pd.DataFrame:
    counts = audit.groupby([by, "label"], sort=False).size().unstack(fill_value=0)
    counts = counts.reindex(index=order, columns=list(AUDIT_LABELS), fill_value=0)
    out = counts.stack().rename("count").reset_index()
    out.columns = [by, "label", "count"]
    out["n_audited"] = out[by].map(counts.sum(axis=1)).astype("int64")
    out["n_failed"] = out[by].map(counts.drop(columns="correct").sum(axis=1)).astype("int64")
    failed = out["n_failed"].where(out["n_failed"] > 0)
    out["percent_of_failures"] = (100 * out["count"] / failed).where(out["label"] != "correct")
    out["percent_of_audited"] = 100 * out["count"] / out["n_audited"].where(out["n_audited"] > 0)
    out["count"] = out["count"].astype("int64")
    out["synthetic"] = is_synthetic(audit)
    out[by] = out[by].astype(TEXT_DTYPE)
    out["label"] = out["label"].astype(TEXT_DTYPE)
    return order_rows(out, {by: order, "label": AUDIT_LABELS})[[by, "label", *_PROFILE_COLUMNS]]


def error_profile_by_system(audit: pd.DataFrame) -> pd.DataFrame:
    """Label counts and percentages per system, and over all systems (Table 4, Figures 2b and 4).

    Parameters
    ----------
    audit : DataFrame
        The table of :func:`load_audit` (at least ``system, task_id, label``).

    Returns
    -------
    DataFrame
        ``system, label, count, n_failed, n_audited, percent_of_failures,
        percent_of_audited, synthetic``: one row per system (then ``all systems``)
        and label (:data:`AUDIT_LABELS`, zero counts included). ``n_failed`` counts
        the system's trajectories labelled with an error type, ``n_audited`` all of
        them; ``percent_of_failures`` is ``100 * count / n_failed`` (the paper's
        percentages, "computed over failures only"; NaN for ``correct``),
        ``percent_of_audited`` is ``100 * count / n_audited``.

    References
    ----------
    SGR-Bench paper, Appendix H, Table 4 and Figure 4; Figure 2(b).

    Examples
    --------
    >>> a = pd.DataFrame({"system": ["m", "m", "m", "n"], "task_id": ["t1", "t2", "t3", "t1"],
    ...                   "label": ["scope_drift", "scope_drift", "correct", "final_answer"]})
    >>> p = error_profile_by_system(a)
    >>> shown = p.query("count > 0")[["system", "label", "count", "n_failed", "percent_of_failures"]]
    >>> print(shown.round(1).to_string(index=False))
         system        label  count  n_failed  percent_of_failures
              m  scope_drift      2         2                100.0
              m      correct      1         2                  NaN
              n final_answer      1         1                100.0
    all systems  scope_drift      2         3                 66.7
    all systems final_answer      1         3                 33.3
    all systems      correct      1         3                  NaN
    """
    audit = check_audit(audit)
    pooled = pd.concat([audit, audit.assign(system=ALL_SYSTEMS)], ignore_index=True)
    pooled["system"] = pooled["system"].astype(object)
    return _profile(pooled, "system", system_order(pooled["system"]))


def error_profile_by_family(audit: pd.DataFrame) -> pd.DataFrame:
    """Label counts and percentages per source family (Table 5, Figure 5).

    Parameters
    ----------
    audit : DataFrame
        The table of :func:`load_audit`, with its ``family`` column filled (from
        the file or from ``scores``).

    Returns
    -------
    DataFrame
        ``family, label, count, n_failed, n_audited, percent_of_failures,
        percent_of_audited, synthetic`` as in :func:`error_profile_by_system`, for
        the families present, in the order of section 3.3.

    References
    ----------
    SGR-Bench paper, Appendix I, Table 5 and Figure 5.

    Examples
    --------
    >>> a = pd.DataFrame({"system": ["m", "n"], "task_id": ["t1", "t1"], "family": ["official statistics"] * 2,
    ...                   "label": ["criterion_mismatch", "final_answer"]})
    >>> p = error_profile_by_family(a)
    >>> p.query("count > 0")[["label", "count", "percent_of_failures"]].to_dict("records")
    ... # doctest: +NORMALIZE_WHITESPACE
    [{'label': 'criterion_mismatch', 'count': 1, 'percent_of_failures': 50.0},
     {'label': 'final_answer', 'count': 1, 'percent_of_failures': 50.0}]
    """
    audit = check_audit(audit)
    require_columns(audit, ("family",), name="audit", hint="load the audit with scores= to take families from it")
    if audit["family"].isna().any():
        row = audit.loc[audit["family"].isna()].iloc[0]
        raise SgrKitError(
            f"audit: no family for ({row['system']!r}, {row['task_id']!r}); give a family column in the file "
            "or load the audit with scores= to take families from the scores table"
        )
    present = list(dict.fromkeys(audit["family"].astype(str)))
    order = [f for f in FAMILIES if f in present] + [f for f in present if f not in FAMILIES]
    return _profile(audit.astype({"family": object}), "family", order)


def audit_scores(audit: pd.DataFrame, scores: pd.DataFrame, *, failure_policy: str = "zero") -> pd.DataFrame:
    """Each audited trajectory with its label and its scores (the data of Figure 6).

    Parameters
    ----------
    audit : DataFrame
        The table of :func:`load_audit`.
    scores : DataFrame
        The scores table; repeats of one (system, task) are averaged first and
        failed answers enter by ``failure_policy`` (:func:`sgr_kit.aggregate.task_means`).
    failure_policy : {"zero", "exclude"}, default "zero"

    Returns
    -------
    DataFrame
        ``system, task_id, family, label, item_f1, row_f1, failed, synthetic``: one
        row per audited trajectory, in the audit's order; scores in percent points
        (NaN for a failed answer under ``exclude``); ``failed`` is True when every
        repeat failed (``parse_failure`` or ``missing``).

    Raises
    ------
    SgrKitError
        When an audited (system, task_id) has no answer in ``scores``.

    Examples
    --------
    >>> a = pd.DataFrame({"system": ["m"], "task_id": ["t1"], "label": ["page_misreading"]})
    >>> s = pd.DataFrame({"system": ["m"], "task_id": ["t1"], "variant": ["constraint"], "status": ["parsed"],
    ...                   "item_f1": [0.75], "row_f1": [0.5], "poa": [1.0]})
    >>> audit_scores(a, s)[["label", "item_f1", "row_f1"]].to_dict("records")
    [{'label': 'page_misreading', 'item_f1': 75.0, 'row_f1': 50.0}]
    """
    audit = check_audit(audit)
    check_failure_policy(failure_policy)
    per_task = task_means(scores, failure_policy=failure_policy)
    keyed = per_task.set_index(["system", "task_id"])
    keys = pd.MultiIndex.from_frame(audit[["system", "task_id"]].astype(str))
    absent = ~keys.isin(keyed.index)
    if absent.any():
        system, task_id = keys[absent][0]
        raise SgrKitError(
            f"audit: the scores table has no answer of {system!r} to task {task_id!r} "
            f"({int(absent.sum())} audited trajectories without scores)"
        )
    found = keyed.loc[keys]
    family = audit["family"] if "family" in audit.columns else pd.Series(np.nan, index=audit.index)
    if "family" in found.columns:
        family = family.astype(object).where(family.notna(), pd.Series(found["family"].to_numpy(), index=audit.index))
    out = pd.DataFrame({
        "system": audit["system"].astype(TEXT_DTYPE).to_numpy(),
        "task_id": audit["task_id"].astype(TEXT_DTYPE).to_numpy(),
        "family": family.astype(TEXT_DTYPE).to_numpy(),
        "label": audit["label"].astype(TEXT_DTYPE).to_numpy(),
        "item_f1": found["item_f1"].to_numpy(dtype=float) * 100,
        "row_f1": found["row_f1"].to_numpy(dtype=float) * 100,
        "failed": found["failed"].to_numpy(dtype=bool),
    })  # fmt: skip
    out["synthetic"] = is_synthetic(audit, scores)
    return out


def unscored_note(labelled: pd.DataFrame, *, failure_policy: str = "zero") -> str:
    """A sentence saying how many audited answers have no scores, and what that means for the page ("" if none).

    Under ``failure_policy="exclude"`` a failed answer has no Item-F1 or Row-F1; the
    audit labels such answers most of all. They count in the error profiles (Tables 4
    and 5) and are left out of the score means per label (Table 6, Figure 6).

    Parameters
    ----------
    labelled : DataFrame
        :func:`audit_scores`.
    failure_policy : {"zero", "exclude"}, default "zero"

    Examples
    --------
    >>> t = pd.DataFrame({"system": ["m", "m", "n"], "label": ["scope_drift", "scope_drift", "correct"],
    ...                   "item_f1": [float("nan"), 40.0, 90.0], "row_f1": [float("nan"), 20.0, 80.0]})
    >>> unscored_note(t, failure_policy="exclude")
    '1 of the 3 audited answers has no scores (failed, and failed answers are excluded): it counts in the error profiles and is left out of the score means per error type (scope_drift: 1 of 2; system m).'
    """
    blank = labelled[["item_f1", "row_f1"]].isna().all(axis=1)
    n = int(blank.sum())
    if not n:
        return ""
    why = "failed, and failed answers are excluded" if failure_policy == "exclude" else "no score"
    per = labelled.assign(_blank=blank).groupby("label", sort=False)["_blank"].agg(["sum", "size"])
    parts = [f"{label}: {int(r['sum'])} of {int(r['size'])}" for label, r in per.iterrows() if r["sum"]]
    systems = sorted(labelled.loc[blank, "system"].astype(str).unique())
    one = n == 1
    return (f"{n} of the {len(labelled)} audited answers {'has' if one else 'have'} no scores ({why}): "
            f"{'it counts' if one else 'they count'} in the error profiles and {'is' if one else 'are'} left out "
            f"of the score means per error type ({'; '.join(parts)}; system{'' if len(systems) == 1 else 's'} "
            f"{', '.join(systems)}).")


def error_type_means(audit: pd.DataFrame, scores: pd.DataFrame, *, failure_policy: str = "zero") -> pd.DataFrame:
    """Mean Item-F1 and Row-F1 of the audited trajectories per label, and their gap (Table 6).

    Parameters
    ----------
    audit, scores, failure_policy
        As in :func:`audit_scores`.

    Returns
    -------
    DataFrame
        ``label, metric, value, n, synthetic``: one row per label (:data:`AUDIT_LABELS`
        present in the audit) and ``metric`` in ``item_f1``, ``row_f1``, ``gap``
        (``gap`` = mean Item-F1 - mean Row-F1 over the trajectories with both);
        ``value`` in percent points; ``n`` the trajectories in the mean.

    References
    ----------
    SGR-Bench paper, Appendix J, Table 6.

    Examples
    --------
    >>> a = pd.DataFrame({"system": ["m", "n"], "task_id": ["t1", "t1"], "label": ["criterion_mismatch"] * 2})
    >>> s = pd.DataFrame({"system": ["m", "n"], "task_id": ["t1", "t1"], "variant": ["goal"] * 2,
    ...                   "status": ["parsed"] * 2, "item_f1": [0.6, 0.4], "row_f1": [0.1, 0.0], "poa": [1.0, 1.0]})
    >>> error_type_means(a, s)[["metric", "value", "n"]].to_dict("records")
    ... # doctest: +NORMALIZE_WHITESPACE
    [{'metric': 'item_f1', 'value': 50.0, 'n': 2}, {'metric': 'row_f1', 'value': 5.0, 'n': 2},
     {'metric': 'gap', 'value': 45.0, 'n': 2}]
    """
    rows = []
    table = audit_scores(audit, scores, failure_policy=failure_policy)
    for label in AUDIT_LABELS:
        mine = table[table["label"] == label]
        if mine.empty:
            continue
        both = mine.dropna(subset=["item_f1", "row_f1"])
        for metric in ("item_f1", "row_f1"):
            values = mine[metric].dropna()
            rows.append((label, metric, float(values.mean()) if len(values) else np.nan, len(values)))
        gap = float((both["item_f1"] - both["row_f1"]).mean()) if len(both) else np.nan
        rows.append((label, "gap", gap, len(both)))
    out = pd.DataFrame(rows, columns=["label", "metric", "value", "n"]).astype(
        {"label": TEXT_DTYPE, "metric": TEXT_DTYPE, "value": float, "n": "int64"}
    )
    out["synthetic"] = bool(table["synthetic"].any()) if len(table) else False
    return out
