r"""Where the points went: the lost Item-F1 points of each answer, split by cause.

Input: the cells table (``sgr-kit score --cells``: one record per cell with a
``verdict``) and the scores table of the same run.

The decomposition
-----------------
For one answer with ``C`` correct fields, ``N_gold`` reference fields and
``N_pred`` predicted fields (Appendix A), ``Item-F1 = 2C / (N_gold + N_pred)``, so

.. math::

    1 - \mathrm{Item\mbox{-}F1}
      = \frac{(N_\mathrm{gold} - C) + (N_\mathrm{pred} - C)}{N_\mathrm{gold} + N_\mathrm{pred}}.

The scorer writes one record per predicted field (``max(k, cells)`` per predicted
row, so ``N_pred`` records in all) and ``k`` records per reference row it never
credited, so every field slot has exactly one verdict:

- the recall-side loss ``N_gold - C`` = ``wrong + missing + omitted_row`` cells
  (a reference field of a credited row that is wrong or empty, or a field of a
  reference row no predicted row matched);
- the precision-side loss ``N_pred - C`` = ``wrong + missing + extra_row +
  duplicate_row + extra_cell`` cells (a wrong or empty field of a credited row,
  a field of a row whose key is not in the reference, of a row repeating a key,
  or a cell beyond the schema).

A wrong or missing cell of a credited row loses on both sides. The points lost
to each cause are therefore, in percent points,

``wrong`` = 200 w / D, ``missing`` = 200 m / D, ``omitted_row`` = 100 o / D,
``extra_row`` = 100 e / D, ``duplicate_row`` = 100 d / D, ``extra_cell`` = 100 x / D

with ``D = N_gold + N_pred`` and w, m, o, e, d, x the counts of records with each
verdict; they add up to ``100 - 100 * Item-F1`` exactly (up to floating-point
rounding). :func:`answer_losses` checks, per answer, that the records give the
scores table's ``correct_fields``, ``gold_fields``, ``pred_fields`` and
``item_f1``, and raises when a cells table does not belong to its scores table.

A failed answer (``parse_failure`` or ``missing``, no metrics) follows the
failure policy: under ``zero`` it scores 0 and its 100 points are lost to the
cause ``failed``; under ``exclude`` it is left out, as in the means of
:mod:`sgr_kit.aggregate`. Averaged like the scores (repeats of one task first,
then tasks), the causes of :func:`points_lost` add up to ``100 - mean Item-F1``.

Rows lost to key mismatches
---------------------------
An omitted reference row (no predicted row has its key) in an answer that also
has extra rows (predicted rows whose key is not in the reference) may be a row
the system did find but keyed differently (a misspelt identifier, another
format). :func:`key_mismatches` pairs each such omitted row one-to-one with the
extra row of the same answer that agrees with it on the most schema columns
(canonical predicted value equal to the reference value), greedily, best
agreement first (ties: lower reference row, then lower predicted row), and keeps
the pairs that agree on at least ``min_share`` of the schema columns (default
half: a row found under another key keeps most of its other values; a row from
another slice of the source rarely does). With ``min_share=0`` every omitted row
is paired while extra rows remain.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import SgrKitError
from ..schema import (
    ALL_SYSTEMS, FAILED_STATUSES, TEXT_DTYPE, UNSCORED_STATUSES, VARIANT_GROUPS, VERDICTS, check_failure_policy,
    is_synthetic,
)  # fmt: skip
from ._common import order_rows, require_columns, system_order

__all__ = ["CAUSES", "answer_losses", "points_lost", "wrong_columns", "most_wrong", "key_mismatches", "rows_lost"]

#: Causes of lost Item-F1 points, in display order.
CAUSES: tuple[str, ...] = ("wrong", "missing", "omitted_row", "extra_row", "duplicate_row", "extra_cell", "failed")
#: Lost field slots per record of each verdict (both sides for a credited row's wrong or missing cell).
_WEIGHTS = {"wrong": 2, "missing": 2, "omitted_row": 1, "extra_row": 1, "duplicate_row": 1, "extra_cell": 1}
_GOLD_SIDE = ("match", "wrong", "missing", "omitted_row")
_PRED_SIDE = ("match", "wrong", "missing", "extra_row", "duplicate_row", "extra_cell")
_ANSWER = ["system", "task_id", "repeat"]
_CELL_REQUIRED = ("system", "task_id", "repeat", "pred_row", "gold_row", "column", "canonical", "reference", "verdict")
def _key(key: tuple) -> tuple:
    """An answer key with plain Python values, for messages."""
    return tuple(k.item() if isinstance(k, np.generic) else k for k in key)


_SCORE_REQUIRED = ("system", "task_id", "variant", "status", "item_f1", "correct_fields", "gold_fields", "pred_fields")


def _check(cells: pd.DataFrame, scores: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    require_columns(cells, _CELL_REQUIRED, name="cells", hint="the cells table of `sgr-kit score --cells`")
    require_columns(scores, _SCORE_REQUIRED, name="scores", hint="the scores table of `sgr-kit score`")
    unknown = sorted(set(cells["verdict"].dropna().astype(str)) - set(VERDICTS))
    if unknown or cells["verdict"].isna().any():
        raise SgrKitError(
            f"cells: unknown verdict(s) {', '.join(map(repr, unknown or [None]))}; expected {', '.join(VERDICTS)}"
        )
    if "repeat" not in scores.columns:
        scores = scores.assign(repeat=0)
    if scores.duplicated(_ANSWER).any():
        dup = scores.loc[scores.duplicated(_ANSWER), _ANSWER].iloc[0].tolist()
        raise SgrKitError(f"scores: answer (system, task_id, repeat) {_key(tuple(dup))!r} appears twice")
    return cells, scores


def _verdict_counts(cells: pd.DataFrame, scores: pd.DataFrame) -> pd.DataFrame:
    """Scores with one count column per verdict, checked against the scores' counts."""
    counts = cells.groupby(_ANSWER + ["verdict"], sort=False).size().unstack(fill_value=0)
    counts = counts.reindex(columns=list(VERDICTS), fill_value=0)
    counts.index = counts.index.set_levels([lvl.astype(object) for lvl in counts.index.levels])
    keyed = scores.astype({"system": object, "task_id": object}).set_index(_ANSWER)
    stray = counts.index.difference(keyed.index)
    if len(stray):
        raise SgrKitError(
            f"cells: {len(stray)} answer(s) have records but no row in the scores table, e.g. "
            f"(system, task_id, repeat) = {_key(stray[0])!r}; pass the scores table of the same run"
        )
    table = keyed.join(counts, how="left")
    # an answer sgr-kit could not score is left out, as in every mean (sgr_kit.aggregate)
    table = table[~table["status"].isin(UNSCORED_STATUSES)].copy()
    table[list(VERDICTS)] = table[list(VERDICTS)].fillna(0).astype("int64")
    failed = table["status"].isin(FAILED_STATUSES)
    gold = table[list(_GOLD_SIDE)].sum(axis=1)
    pred = table[list(_PRED_SIDE)].sum(axis=1)
    wrong_counts = ~failed & (
        (table["match"] != table["correct_fields"]) | (gold != table["gold_fields"]) | (pred != table["pred_fields"])
    )
    if wrong_counts.any():
        key = wrong_counts[wrong_counts].index[0]
        row = table.loc[key]
        raise SgrKitError(
            f"cells disagree with the scores table for answer (system, task_id, repeat) = {_key(key)!r}: the "
            f"records give C_item={row['match']}, N_gold={gold[key]}, N_pred={pred[key]}; the scores give "
            f"correct_fields={row['correct_fields']}, gold_fields={row['gold_fields']}, "
            f"pred_fields={row['pred_fields']} ({int(wrong_counts.sum())} answer(s) disagree; were both tables "
            "written by the same scoring run?)"
        )
    table["denominator"] = gold + pred
    if (~failed & (table["denominator"] == 0)).any():
        key = (~failed & (table["denominator"] == 0)).idxmax()
        raise SgrKitError(f"scores: answer {_key(key)!r} has N_gold + N_pred = 0; a reference has at least one row")
    f1 = 2 * table["match"] / table["denominator"].where(~failed)
    off = ~failed & ((f1 - table["item_f1"]).abs() > 1e-9)
    if off.any():
        key = off.idxmax()
        raise SgrKitError(
            f"scores: item_f1 of answer {_key(key)!r} is {table.loc[key, 'item_f1']!r}, but its counts give "
            f"2 * {table.loc[key, 'match']} / {table.loc[key, 'denominator']} = {f1[key]!r}"
        )
    table["failed"] = failed
    return table.reset_index()


def answer_losses(cells: pd.DataFrame, scores: pd.DataFrame, *, failure_policy: str = "zero") -> pd.DataFrame:
    """The Item-F1 points each answer lost, split by cause (see the module docstring).

    Parameters
    ----------
    cells : DataFrame
        The cells table (``system, task_id, repeat, pred_row, gold_row, column, raw,
        canonical, reference, verdict``).
    scores : DataFrame
        The scores table of the same run (``correct_fields, gold_fields, pred_fields``).
    failure_policy : {"zero", "exclude"}, default "zero"
        ``zero``: a failed answer loses 100 points to ``failed``; ``exclude``: it has no rows.

    Returns
    -------
    DataFrame
        ``system, task_id, repeat, variant, status, item_f1, cause, points, synthetic``:
        one row per answer and cause (:data:`CAUSES`), in the scores' order;
        ``item_f1`` (0 for a failed answer under ``zero``) and ``points`` in percent
        points; per answer, ``item_f1`` plus the sum of ``points`` is 100.

    Raises
    ------
    SgrKitError
        When the tables lack columns, or when an answer's records do not give its
        counts in the scores table.

    References
    ----------
    SGR-Bench paper, Appendix A (Item-level F1).

    Examples
    --------
    Three reference rows of 3 fields; the answer gets row 1 right, one wrong field
    in row 2, row 3 under another key (an omitted row and an extra row):
    ``C = 5``, ``N_gold = N_pred = 9``, Item-F1 = 10/18.

    >>> verdicts = ["match"] * 3 + ["match", "wrong", "match"] + ["extra_row"] * 3 + ["omitted_row"] * 3
    >>> cells = pd.DataFrame({"system": "m", "task_id": "t", "repeat": 0, "pred_row": pd.NA, "gold_row": pd.NA,
    ...                       "column": "c", "raw": None, "canonical": None, "reference": None,
    ...                       "verdict": verdicts})
    >>> scores = pd.DataFrame({"system": ["m"], "task_id": ["t"], "repeat": [0], "variant": ["constraint"],
    ...                        "status": ["parsed"], "item_f1": [10 / 18], "correct_fields": [5],
    ...                        "gold_fields": [9], "pred_fields": [9]})
    >>> losses = answer_losses(cells, scores).set_index("cause")["points"]
    >>> losses.round(4).to_dict()  # 200*1/18, 100*3/18, 100*3/18
    {'wrong': 11.1111, 'missing': 0.0, 'omitted_row': 16.6667, 'extra_row': 16.6667, 'duplicate_row': 0.0,
     'extra_cell': 0.0, 'failed': 0.0}
    >>> round(float(losses.sum()) + 100 * 10 / 18, 12)
    100.0
    """
    check_failure_policy(failure_policy)
    cells, scores = _check(cells, scores)
    table = _verdict_counts(cells, scores)
    if failure_policy == "exclude":
        table = table.loc[~table["failed"]].reset_index(drop=True)
    share = 100.0 / table["denominator"].where(~table["failed"])
    points = {cause: (_WEIGHTS[cause] * table[cause] * share).fillna(0.0) for cause in _WEIGHTS}
    points["failed"] = table["failed"] * 100.0
    item_f1 = (2 * table["match"] * share).fillna(0.0)
    wide = table[_ANSWER + ["variant", "status"]].assign(item_f1=item_f1, **points)
    out = wide.melt(id_vars=_ANSWER + ["variant", "status", "item_f1"], value_vars=list(CAUSES),
                    var_name="cause", value_name="points")  # fmt: skip
    n = len(wide)
    order = np.argsort(np.tile(np.arange(n), len(CAUSES)), kind="stable")
    out = out.iloc[order].reset_index(drop=True)
    out["points"] = out["points"].astype(float)
    for column in ("system", "task_id", "variant", "status", "cause"):
        out[column] = out[column].astype(TEXT_DTYPE)
    out["repeat"] = out["repeat"].astype("int64")
    out["synthetic"] = is_synthetic(scores)
    return out


def points_lost(cells: pd.DataFrame, scores: pd.DataFrame, *, failure_policy: str = "zero") -> pd.DataFrame:
    """Mean lost Item-F1 points by cause, per system and variant: where the points went.

    Parameters
    ----------
    cells, scores, failure_policy
        As in :func:`answer_losses`.

    Returns
    -------
    DataFrame
        ``system, variant, cause, points, percent_of_gap, item_f1, gap, n_tasks, synthetic``:
        one row per system (then ``all systems``), variant (``constraint``, ``goal``,
        ``overall``) and cause (:data:`CAUSES`). ``points`` is the mean over tasks of
        the points lost to the cause (repeats of a task averaged first), ``item_f1``
        the mean Item-F1 (as :func:`sgr_kit.aggregate.system_means`), ``gap`` =
        ``100 - item_f1`` = the sum of ``points`` over causes, ``percent_of_gap`` =
        ``100 * points / gap`` (NaN when the gap is 0), ``n_tasks`` the tasks in the mean.

    Examples
    --------
    The answer of :func:`answer_losses`, and a second task the system failed to answer:

    >>> verdicts = ["match"] * 3 + ["match", "wrong", "match"] + ["extra_row"] * 3 + ["omitted_row"] * 3
    >>> cells = pd.DataFrame({"system": "m", "task_id": "t", "repeat": 0, "pred_row": pd.NA, "gold_row": pd.NA,
    ...                       "column": "c", "raw": None, "canonical": None, "reference": None,
    ...                       "verdict": verdicts})
    >>> scores = pd.DataFrame({"system": ["m", "m"], "task_id": ["t", "u"], "repeat": [0, 0],
    ...                        "variant": ["constraint"] * 2, "status": ["parsed", "missing"],
    ...                        "item_f1": [10 / 18, np.nan], "correct_fields": [5, 0],
    ...                        "gold_fields": [9, 6], "pred_fields": [9, 0]})
    >>> p = points_lost(cells, scores).query("system == 'm' and variant == 'overall'")
    >>> p.set_index("cause")["points"].round(4).to_dict()  # half of each answer's loss
    {'wrong': 5.5556, 'missing': 0.0, 'omitted_row': 8.3333, 'extra_row': 8.3333, 'duplicate_row': 0.0,
     'extra_cell': 0.0, 'failed': 50.0}
    >>> round(float(p["item_f1"].iloc[0] + p["points"].sum()), 12)
    100.0
    """
    losses = answer_losses(cells, scores, failure_policy=failure_policy)
    per_task = losses.groupby(["system", "task_id", "variant", "cause"], sort=False)[["points", "item_f1"]].mean()
    per_task = per_task.reset_index()
    both = pd.concat([per_task, per_task.assign(variant="overall")], ignore_index=True)
    both = pd.concat([both, both.assign(system=ALL_SYSTEMS)], ignore_index=True)
    grouped = both.groupby(["system", "variant", "cause"], sort=False)
    out = grouped[["points", "item_f1"]].mean()
    out["n_tasks"] = grouped["task_id"].nunique().astype("int64")
    out = out.reset_index()
    out["gap"] = 100.0 - out["item_f1"]
    out["percent_of_gap"] = 100.0 * out["points"] / out["gap"].where(out["gap"] > 0)
    out["synthetic"] = is_synthetic(scores)
    for column in ("system", "variant", "cause"):
        out[column] = out[column].astype(TEXT_DTYPE)
    out = order_rows(out, {"system": system_order(out["system"]), "variant": VARIANT_GROUPS, "cause": CAUSES})
    return out[["system", "variant", "cause", "points", "percent_of_gap", "item_f1", "gap", "n_tasks", "synthetic"]]


def wrong_columns(cells: pd.DataFrame, scores: pd.DataFrame, *, top: int | None = None) -> pd.DataFrame:
    """The columns most often wrong in each task, over every system and repeat.

    Parameters
    ----------
    cells, scores : DataFrame
        As in :func:`answer_losses`.
    top : int, optional
        Keep the ``top`` columns of each task (by ``rank``); default all.

    Returns
    -------
    DataFrame
        ``task_id, variant, column, n_cells, n_match, n_wrong, n_missing, percent_wrong,
        n_systems_wrong, rank, synthetic``: one row per task and schema column, over
        the cells of credited rows (verdict ``match``, ``wrong`` or ``missing``;
        ``n_cells`` is their number); ``percent_wrong`` = ``100 * n_wrong / n_cells``;
        ``n_systems_wrong`` counts the systems with at least one wrong cell there;
        ``rank`` 1 is the column with the most wrong cells (ties: more missing cells,
        then the column's first appearance). Sorted by task, then rank.

    Examples
    --------
    >>> cells = pd.DataFrame({"system": ["m", "m", "n", "n"], "task_id": "t", "repeat": 0,
    ...                       "pred_row": 0, "gold_row": 0, "column": ["id", "date", "id", "date"],
    ...                       "raw": None, "canonical": None, "reference": None,
    ...                       "verdict": ["match", "wrong", "match", "wrong"]})
    >>> scores = pd.DataFrame({"system": ["m", "n"], "task_id": ["t", "t"], "repeat": [0, 0],
    ...                        "variant": ["goal"] * 2, "status": ["parsed"] * 2, "item_f1": [0.5, 0.5],
    ...                        "correct_fields": [1, 1], "gold_fields": [2, 2], "pred_fields": [2, 2]})
    >>> wrong_columns(cells, scores)[["column", "n_cells", "n_wrong", "n_systems_wrong", "rank"]]
       column  n_cells  n_wrong  n_systems_wrong  rank
    0    date        2        2                2     1
    1      id        2        0                0     2
    """
    cells, scores = _check(cells, scores)
    if top is not None and (not isinstance(top, (int, np.integer)) or isinstance(top, bool) or top < 1):
        raise SgrKitError(f"top must be a positive whole number or None; found {top!r}")
    _verdict_counts(cells, scores)
    credited = cells[cells["verdict"].isin(("match", "wrong", "missing"))]
    first = credited.drop_duplicates(["task_id", "column"]).assign(_first=lambda t: np.arange(len(t)))
    counts = credited.groupby(["task_id", "column", "verdict"], sort=False).size().unstack(fill_value=0)
    counts = counts.reindex(columns=["match", "wrong", "missing"], fill_value=0)
    wrong_systems = credited[credited["verdict"] == "wrong"].groupby(["task_id", "column"])["system"].nunique()
    out = counts.rename(columns={"match": "n_match", "wrong": "n_wrong", "missing": "n_missing"}).reset_index()
    out["n_cells"] = out[["n_match", "n_wrong", "n_missing"]].sum(axis=1)
    out["percent_wrong"] = 100.0 * out["n_wrong"] / out["n_cells"]
    out["n_systems_wrong"] = (
        pd.MultiIndex.from_frame(out[["task_id", "column"]]).map(wrong_systems.to_dict()).fillna(0).astype("int64")
        if len(out) else pd.Series([], dtype="int64")
    )
    out = out.merge(first[["task_id", "column", "_first"]], on=["task_id", "column"])
    out = out.sort_values(["task_id", "n_wrong", "n_missing", "_first"], ascending=[True, False, False, True])
    out["rank"] = out.groupby("task_id").cumcount().add(1).astype("int64")
    if top is not None:
        out = out[out["rank"] <= top]
    variants = scores.drop_duplicates("task_id").set_index("task_id")["variant"]
    out["variant"] = out["task_id"].map(variants).astype(TEXT_DTYPE)
    out["synthetic"] = is_synthetic(scores)
    columns = ["task_id", "variant", "column", "n_cells", "n_match", "n_wrong", "n_missing", "percent_wrong",
               "n_systems_wrong", "rank", "synthetic"]  # fmt: skip
    out = out[columns].reset_index(drop=True)
    return out.astype({c: "int64" for c in ("n_cells", "n_match", "n_wrong", "n_missing")})


def most_wrong(table: pd.DataFrame, n: int = 15) -> pd.DataFrame:
    """The ``n`` task columns with the most wrong cells, over all tasks (for a page; the full table is saved).

    Parameters
    ----------
    table : DataFrame
        :func:`wrong_columns`.
    n : int, default 15

    Returns
    -------
    DataFrame
        The rows of ``table`` with at least one wrong cell, most wrong cells first (ties: the
        higher percentage wrong, then task and rank), at most ``n`` of them; without the
        ``synthetic`` column (the page says it once).

    Examples
    --------
    >>> t = pd.DataFrame({"task_id": ["a", "a", "b"], "column": ["x", "y", "x"], "n_wrong": [1, 0, 3],
    ...                   "percent_wrong": [50.0, 0.0, 75.0], "rank": [1, 2, 1]})
    >>> most_wrong(t, 5)[["task_id", "column", "n_wrong"]].to_dict("records")
    [{'task_id': 'b', 'column': 'x', 'n_wrong': 3}, {'task_id': 'a', 'column': 'x', 'n_wrong': 1}]
    """
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 1:
        raise SgrKitError(f"n must be a positive whole number; found {n!r}")
    wrong = table[table["n_wrong"] > 0]
    wrong = wrong.sort_values(["n_wrong", "percent_wrong", "task_id", "rank"], ascending=[False, False, True, True],
                              kind="stable")
    return wrong.head(n).drop(columns=["synthetic"], errors="ignore").reset_index(drop=True)


def _pairs(omitted: pd.DataFrame, extra: pd.DataFrame, min_share: float) -> pd.DataFrame:
    both = omitted.merge(extra, on=_ANSWER + ["column"], how="inner")
    value = both["canonical"].astype(object)
    both["agree"] = value.notna() & (value != "") & (value == both["reference"].astype(object))
    grouped = both.groupby(_ANSWER + ["gold_row", "pred_row"], sort=False)["agree"]
    scored = pd.concat([grouped.sum().rename("n_agree"), grouped.size().rename("n_columns")], axis=1).reset_index()
    scored = scored[scored["n_agree"] >= min_share * scored["n_columns"]]
    scored = scored.sort_values(
        _ANSWER + ["n_agree", "gold_row", "pred_row"], ascending=[True, True, True, False, True, True]
    )
    kept = []
    for _, group in scored.groupby(_ANSWER, sort=False):
        used_gold, used_pred = set(), set()
        for rec in group.itertuples(index=False):
            if rec.gold_row in used_gold or rec.pred_row in used_pred:
                continue
            used_gold.add(rec.gold_row)
            used_pred.add(rec.pred_row)
            kept.append(rec)
    pairs = pd.DataFrame(kept, columns=scored.columns)
    pair_keys = _ANSWER + ["gold_row", "pred_row"]
    differ = both.loc[~both["agree"], [*pair_keys, "column", "reference", "raw"]].merge(pairs[pair_keys], on=pair_keys)
    differ["column"] = differ["column"].astype(object)
    joined = {key: "; ".join(group["column"]) for key, group in differ.groupby(pair_keys, sort=False)}
    written = {
        key: "; ".join(f"{c}: {_shown(r)} written as {_shown(w)}" for c, r, w in zip(g["column"], g["reference"], g["raw"]))
        for key, g in differ.groupby(pair_keys, sort=False)
    }
    keys = list(pairs[pair_keys].itertuples(index=False, name=None))
    pairs["differing_columns"] = [joined.get(key, "") for key in keys]
    pairs["differences"] = [written.get(key, "") for key in keys]
    return pairs


def _shown(value: object) -> str:
    """A cell value quoted for a table of differences (missing values as ``-``)."""
    return "-" if value is None or (isinstance(value, float) and pd.isna(value)) else repr(str(value))


def key_mismatches(cells: pd.DataFrame, scores: pd.DataFrame, *, min_share: float = 0.5) -> pd.DataFrame:
    """Omitted reference rows paired with an extra row of the same answer (see the module docstring).

    Parameters
    ----------
    cells, scores : DataFrame
        As in :func:`answer_losses`. Answers that failed (no metrics) are left out.
    min_share : float, default 0.5
        Least share of the schema columns on which a pair must agree, in [0, 1].

    Returns
    -------
    DataFrame
        ``system, task_id, repeat, variant, gold_row, pred_row, n_columns, n_agree,
        differing_columns, differences, synthetic``: one row per pair; ``n_columns`` is the
        schema's width, ``n_agree`` the columns where the extra row's canonical value
        equals the omitted row's reference value, ``differing_columns`` the others
        (``"; "``-separated, in schema order; they include the key columns) and
        ``differences`` each of them as ``column: 'reference' written as 'raw answer text'``.

    Examples
    --------
    Reference row 0 ``(A-1, 5, x)`` omitted; the answer has ``(A1, 5, x)`` as an extra row:

    >>> cells = pd.DataFrame({
    ...     "system": "m", "task_id": "t", "repeat": 0, "pred_row": [pd.NA] * 3 + [0] * 3,
    ...     "gold_row": [0] * 3 + [pd.NA] * 3, "column": ["id", "n", "s"] * 2, "raw": None,
    ...     "canonical": [None] * 3 + ["A1", "5", "x"], "reference": ["A-1", "5", "x"] + [None] * 3,
    ...     "verdict": ["omitted_row"] * 3 + ["extra_row"] * 3})
    >>> scores = pd.DataFrame({"system": ["m"], "task_id": ["t"], "repeat": [0], "variant": ["constraint"],
    ...                        "status": ["parsed"], "item_f1": [0.0], "correct_fields": [0],
    ...                        "gold_fields": [3], "pred_fields": [3]})
    >>> key_mismatches(cells, scores)[["gold_row", "pred_row", "n_columns", "n_agree", "differing_columns"]]
       gold_row  pred_row  n_columns  n_agree differing_columns
    0         0         0          3        2                id
    """
    cells, scores = _check(cells, scores)
    if isinstance(min_share, bool) or not isinstance(min_share, (int, float)) or not 0 <= min_share <= 1:
        raise SgrKitError(f"min_share must be a number in [0, 1]; found {min_share!r}")
    table = _verdict_counts(cells, scores)
    read = table.loc[~table["failed"] & (table["omitted_row"] > 0) & (table["extra_row"] > 0), _ANSWER]
    subset = cells.astype({"system": object, "task_id": object}).merge(read, on=_ANSWER)
    omitted = subset.loc[subset["verdict"] == "omitted_row", _ANSWER + ["gold_row", "column", "reference"]]
    extra = subset.loc[subset["verdict"] == "extra_row", _ANSWER + ["pred_row", "column", "canonical", "raw"]]
    pairs = _pairs(omitted, extra, float(min_share))
    variants = scores.astype({"system": object, "task_id": object}).set_index(_ANSWER)["variant"]
    pairs["variant"] = pd.MultiIndex.from_frame(pairs[_ANSWER]).map(variants.to_dict()) if len(pairs) else []
    pairs["synthetic"] = is_synthetic(scores)
    pairs = pairs.sort_values(_ANSWER + ["gold_row"]).reset_index(drop=True)
    out = pairs[["system", "task_id", "repeat", "variant", "gold_row", "pred_row", "n_columns", "n_agree",
                 "differing_columns", "differences", "synthetic"]]  # fmt: skip
    out = out.astype({"system": TEXT_DTYPE, "task_id": TEXT_DTYPE, "variant": TEXT_DTYPE, "repeat": "int64",
                      "gold_row": "int64", "pred_row": "int64", "n_columns": "int64", "n_agree": "int64",
                      "differing_columns": TEXT_DTYPE, "differences": TEXT_DTYPE})  # fmt: skip
    return out


def rows_lost(cells: pd.DataFrame, scores: pd.DataFrame, *, min_share: float = 0.5) -> pd.DataFrame:
    """Omitted reference rows per system and variant, and how many were lost to key mismatches.

    Parameters
    ----------
    cells, scores, min_share
        As in :func:`key_mismatches`. Failed answers are left out.

    Returns
    -------
    DataFrame
        ``system, variant, n_answers, omitted_rows, extra_rows, key_mismatch_rows,
        percent_key_mismatch, synthetic``: sums over the answers read (every repeat),
        per system (then ``all systems``) and variant (``constraint``, ``goal``,
        ``overall``); ``percent_key_mismatch`` = ``100 * key_mismatch_rows / omitted_rows``.

    Examples
    --------
    >>> cells = pd.DataFrame({
    ...     "system": "m", "task_id": "t", "repeat": 0, "pred_row": [pd.NA] * 3 + [0] * 3,
    ...     "gold_row": [0] * 3 + [pd.NA] * 3, "column": ["id", "n", "s"] * 2, "raw": None,
    ...     "canonical": [None] * 3 + ["A1", "5", "x"], "reference": ["A-1", "5", "x"] + [None] * 3,
    ...     "verdict": ["omitted_row"] * 3 + ["extra_row"] * 3})
    >>> scores = pd.DataFrame({"system": ["m"], "task_id": ["t"], "repeat": [0], "variant": ["constraint"],
    ...                        "status": ["parsed"], "item_f1": [0.0], "correct_fields": [0],
    ...                        "gold_fields": [3], "pred_fields": [3]})
    >>> rows_lost(cells, scores).iloc[0].to_dict()  # doctest: +NORMALIZE_WHITESPACE
    {'system': 'm', 'variant': 'constraint', 'n_answers': 1, 'omitted_rows': 1, 'extra_rows': 1,
     'key_mismatch_rows': 1, 'percent_key_mismatch': 100.0, 'synthetic': False}
    """
    pairs = key_mismatches(cells, scores, min_share=min_share)
    cells, scores = _check(cells, scores)
    table = _verdict_counts(cells, scores)
    table = table.loc[~table["failed"]].copy()
    omitted = cells.loc[cells["verdict"] == "omitted_row"].drop_duplicates(_ANSWER + ["gold_row"])
    extra = cells.loc[cells["verdict"] == "extra_row"].drop_duplicates(_ANSWER + ["pred_row"])
    index = pd.MultiIndex.from_frame(table[_ANSWER])
    table["omitted_rows"] = index.map(omitted.groupby(_ANSWER).size().to_dict()).fillna(0).to_numpy()
    table["extra_rows"] = index.map(extra.groupby(_ANSWER).size().to_dict()).fillna(0).to_numpy()
    table["key_mismatch_rows"] = index.map(pairs.groupby(_ANSWER).size().to_dict()).fillna(0).to_numpy()
    table["n_answers"] = 1
    both = pd.concat([table, table.assign(variant="overall")], ignore_index=True)
    both = pd.concat([both, both.assign(system=ALL_SYSTEMS)], ignore_index=True)
    sums = ["n_answers", "omitted_rows", "extra_rows", "key_mismatch_rows"]
    out = both.groupby(["system", "variant"], sort=False)[sums].sum().astype("int64").reset_index()
    out["percent_key_mismatch"] = 100.0 * out["key_mismatch_rows"] / out["omitted_rows"].where(out["omitted_rows"] > 0)
    out["synthetic"] = is_synthetic(scores)
    out = out.astype({"system": TEXT_DTYPE, "variant": TEXT_DTYPE})
    out = order_rows(out, {"system": system_order(out["system"]), "variant": VARIANT_GROUPS})
    return out[["system", "variant", *sums, "percent_key_mismatch", "synthetic"]]
