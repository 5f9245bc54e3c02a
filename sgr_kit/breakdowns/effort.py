"""What the scores cost: effort per answer and per system, the score-cost frontier, the protocol flags.

An agent's score means little without what it spent to get it (more model calls, a larger
reasoning budget or best-of-n buy points). From the usage table of the trajectories
(:func:`sgr_kit.trajectories.trajectory_usage` with a price file: steps, tool calls by kind,
distinct hosts, input / cached / output / reasoning tokens, seconds and cost per answer) and the
scores table:

- :func:`answer_effort`: one row per answer, its scores beside its effort;
- :func:`effort_means`: per system, the mean of every effort quantity and of Item-F1 and Row-F1
  with bootstrap intervals over base problems, the project's own
  (:func:`sgr_kit.stats.bootstrap_means`: repeats averaged per task, then tasks; both variants
  of a problem resampled together, the same resampled problems for every quantity);
- :func:`effort_wide`: one row per system, with points per dollar;
- :func:`score_cost_frontier`: the systems no other system beats on both score and mean cost
  per task (or mean tokens per task when costs are unknown);
- :func:`flag_means`: per system and protocol flag, how many answers carry it and their scores
  with and without it.

Effort, cost and flags describe the runs; none of them is randomised, so a difference in
score between flagged and clean answers does not say what the flag caused.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from ..errors import SgrKitError
from ..schema import TEXT_DTYPE, UNSCORED_STATUSES, check_failure_policy, is_synthetic
from ..stats import bootstrap_means
from ..trajectories.protocol import FLAGS
from ._common import order_rows, require_columns, system_order

__all__ = ["EFFORT_QUANTITIES", "EFFORT_COLUMNS", "FRONTIER_COLUMNS", "FLAG_MEANS_COLUMNS", "answer_effort",
           "effort_means", "effort_wide", "cost_axis", "score_cost_frontier", "flag_means", "describe_effort",
           "effort_notes", "effort_display", "flag_display", "format_effort", "QUANTITY_LABELS", "NUMBER_FORMATS",
           "HEADERS"]  # fmt: skip

#: The effort quantities of :func:`effort_means`, in order (``tokens``: input plus output tokens).
EFFORT_QUANTITIES: tuple[str, ...] = (
    "steps", "tool_calls", "searches", "fetches", "pdfs", "other_tools", "hosts", "input_tokens",
    "cached_input_tokens", "output_tokens", "reasoning_tokens", "tokens", "seconds", "cost_usd",
)  # fmt: skip
#: Columns of :func:`effort_means`, in order.
EFFORT_COLUMNS: tuple[str, ...] = (
    "system", "quantity", "value", "ci_low", "ci_high", "n_tasks", "n_problems", "method", "ci", "note", "synthetic",
)  # fmt: skip
#: Columns of :func:`score_cost_frontier`, in order.
FRONTIER_COLUMNS: tuple[str, ...] = (
    "system", "metric", "axis", "score", "score_ci_low", "score_ci_high", "cost", "cost_ci_low", "cost_ci_high",
    "on_frontier", "dominated_by", "points_per_unit", "synthetic",
)  # fmt: skip
#: Columns of :func:`flag_means`, in order.
FLAG_MEANS_COLUMNS: tuple[str, ...] = (
    "system", "flag", "n_answers", "n_flagged", "flagged_share", "item_f1_flagged", "item_f1_flagged_ci_low",
    "item_f1_flagged_ci_high", "item_f1_clean", "item_f1_clean_ci_low", "item_f1_clean_ci_high", "row_f1_flagged",
    "row_f1_flagged_ci_low", "row_f1_flagged_ci_high", "row_f1_clean", "row_f1_clean_ci_low", "row_f1_clean_ci_high",
    "synthetic",
)  # fmt: skip
_KEY = ["system", "task_id", "repeat"]
_SCORE = ("item_f1", "row_f1")
_INTEGER = ("steps", "tool_calls", "searches", "fetches", "pdfs", "other_tools", "hosts")
_UNITS = {"cost_usd": "USD", "tokens": "tokens"}


def _keys(table: pd.DataFrame) -> pd.DataFrame:
    return table.assign(system=table["system"].astype(str), task_id=table["task_id"].astype(str),
                        repeat=table["repeat"].astype("int64"))  # fmt: skip


def answer_effort(scores: pd.DataFrame, usage: pd.DataFrame, steps: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per answer of the scores table: its scores beside its effort (unknown without a trajectory).

    Parameters
    ----------
    scores : DataFrame
        The scores table of ``sgr-kit score``: the answers of the main table, every one kept.
    usage : DataFrame
        :func:`sgr_kit.trajectories.trajectory_usage` of the same answers (with ``prices=``
        for costs the agents do not report); its ``seconds_source`` and ``cost_source`` are
        kept (without them a value is ``reported`` when known, else ``unknown``). A run whose
        answer is not in ``scores`` is left out (:func:`sgr_kit.trajectories.match.match_trajectories`
        says which, with the closest names).
    steps : DataFrame, optional
        The steps table: where the usage table has no ``seconds`` for a run, its last step's
        time is used (``seconds_source`` ``last_step``). ``trajectory_usage`` already does so.

    Returns
    -------
    DataFrame
        The scores' columns, then ``has_trajectory`` (False: the answer's effort is unknown; its
        scores count as in the main table), the :data:`EFFORT_QUANTITIES` (missing = unknown,
        never 0), ``cost_source`` and ``seconds_source`` (``unknown`` without a trajectory).

    Examples
    --------
    >>> s = pd.DataFrame({"system": "a", "task_id": ["p1", "p2"], "repeat": 0, "item_f1": [1.0, 0.0]})
    >>> u = pd.DataFrame({"system": "a", "task_id": ["p1"], "repeat": 0, "steps": [4], "input_tokens": [900],
    ...                   "output_tokens": [100], "seconds": [None], "cost_usd": [0.02]})
    >>> answer_effort(s, u)[["task_id", "item_f1", "has_trajectory", "steps", "tokens", "cost_usd",
    ...                      "cost_source"]].to_dict("records")
    [{'task_id': 'p1', 'item_f1': 1.0, 'has_trajectory': True, 'steps': 4.0, 'tokens': 1000.0, 'cost_usd': 0.02, \
'cost_source': 'reported'}, {'task_id': 'p2', 'item_f1': 0.0, 'has_trajectory': False, 'steps': nan, 'tokens': nan, \
'cost_usd': nan, 'cost_source': 'unknown'}]
    """
    require_columns(scores, _KEY, name="scores", hint="the scores table of sgr-kit score")
    require_columns(usage, _KEY, name="usage", hint="the table of sgr_kit.trajectories.trajectory_usage")
    for name, frame in (("scores", scores), ("usage", usage)):
        twice = frame.duplicated(_KEY, keep=False)
        if twice.any():
            first = ", ".join(str(v) for v in frame.loc[twice, _KEY].iloc[0])
            raise SgrKitError(f"{name}: (system, task_id, repeat) {first} appears more than once; expected one row "
                              f"per answer")  # fmt: skip
    effort = _keys(usage)
    for column in EFFORT_QUANTITIES:
        if column not in effort.columns and column != "tokens":
            effort[column] = np.nan
        elif column in effort.columns:
            effort[column] = pd.to_numeric(effort[column], errors="coerce").astype("float64")
    effort["tokens"] = effort["input_tokens"] + effort["output_tokens"]  # NaN when either is unknown
    if "cost_source" not in effort.columns:
        effort["cost_source"] = np.where(effort["cost_usd"].notna(), "reported", "unknown")
    if "seconds_source" not in effort.columns:
        effort["seconds_source"] = np.where(effort["seconds"].notna(), "reported", "unknown")
    if steps is not None:
        require_columns(steps, [*_KEY, "t"], name="steps", hint="the steps table of load_trajectories")
        last = _keys(steps).groupby(_KEY)["t"].max().rename("_last").reset_index()
        effort = effort.merge(last, on=_KEY, how="left")
        fill = effort["seconds"].isna() & effort["_last"].notna()
        effort.loc[fill, "seconds"] = effort.loc[fill, "_last"]
        effort.loc[fill, "seconds_source"] = "last_step"
        effort = effort.drop(columns="_last")
    effort["has_trajectory"] = True
    keep = [*_KEY, "has_trajectory", *EFFORT_QUANTITIES, "cost_source", "seconds_source"]
    table = _keys(scores).drop(columns=[c for c in keep if c in scores.columns and c not in _KEY])
    out = table.merge(effort[keep], on=_KEY, how="left", validate="one_to_one")
    out["has_trajectory"] = out["has_trajectory"].eq(True)
    for column in ("cost_source", "seconds_source"):
        out[column] = out[column].fillna("unknown")
    for column in _INTEGER:
        if out[column].notna().all():
            out[column] = out[column].astype("int64")
    return out.astype({"cost_source": TEXT_DTYPE, "seconds_source": TEXT_DTYPE})


def _means(table: pd.DataFrame, columns: tuple[str, ...], **options) -> pd.DataFrame:
    """Means of up to three quantity columns with :func:`bootstrap_means` (repeats first, then tasks).

    ``bootstrap_means`` gives percent points of fractions: a quantity divided by 100 comes back
    in its own unit.
    """
    frame = table.assign(status="parsed")
    slots = ("item_f1", "row_f1", "poa")
    for slot, column in zip(slots, (*columns, None, None)):
        frame[slot] = frame[column].astype("float64") / 100.0 if column else np.nan
    out = bootstrap_means(frame, metrics=slots[: len(columns)], failure_policy="exclude", **options)
    out = out[out["variant"] == "overall"]
    return out.assign(quantity=out["metric"].map(dict(zip(slots, columns))))


def effort_means(
    table: pd.DataFrame,
    *,
    quantities: tuple[str, ...] = EFFORT_QUANTITIES,
    failure_policy: str = "zero",
    ci: float = 0.95,
    n_boot: int = 2000,
    method: str = "bca",
    seed: int | None = 0,
) -> pd.DataFrame:
    """Per system: mean Item-F1 and Row-F1, and the mean of every effort quantity per task, with intervals.

    Parameters
    ----------
    table : DataFrame
        :func:`answer_effort` (needs ``base_id, variant, status``, the metrics and the quantities).
    quantities : tuple of str, default :data:`EFFORT_QUANTITIES`
    failure_policy : {"zero", "exclude"}, default "zero"
        How failed answers enter the Item-F1 and Row-F1 means. Effort is counted whatever
        the answer's status.
    ci, n_boot, method, seed
        As :func:`sgr_kit.stats.bootstrap_means`.

    Returns
    -------
    DataFrame
        Columns :data:`EFFORT_COLUMNS`; per system (Table 2's order, then others) one row per
        quantity: ``item_f1``, ``row_f1`` (percent points), then ``quantities`` in their own units
        (counts, tokens, seconds, USD) per task: the repeats of a task averaged first, then the
        tasks, as for the scores. Item-F1 and Row-F1 are those of the main table: every scored
        answer under ``failure_policy``, with or without a trajectory. A task whose quantity is
        unknown in every repeat (no trajectory, or not reported) is left out of that mean
        (``n_tasks`` counts the tasks in it; ``note`` names the quantity and how many were left
        out, then says why an interval is missing).

    Notes
    -----
    The intervals are :func:`sgr_kit.stats.bootstrap_means`'s (BCa by default, over base
    problems, Hesterberg's expanded level, none under 6 problems at 95%), computed on each
    quantity with the same seed, hence the same resampled problems for every quantity and
    system. Costs and tokens are skewed (a few long runs): the mean per task is what a user
    pays per task, and its interval is wide when a few runs dominate.

    Examples
    --------
    >>> t = pd.DataFrame({"system": "a", "task_id": ["p1", "p1-g", "p2", "p2-g"], "repeat": 0,
    ...     "base_id": ["p1", "p1", "p2", "p2"], "variant": ["constraint", "goal"] * 2, "status": "parsed",
    ...     "item_f1": [1.0, 0.5, 0.5, 0.0], "row_f1": 0.0, "poa": 1.0, "steps": [4, 6, 8, 10],
    ...     "cost_usd": [0.1, 0.3, None, 0.2]})
    >>> m = effort_means(t, quantities=("steps", "cost_usd"), n_boot=200)
    >>> m[["quantity", "value", "n_tasks"]].round(9).to_dict("records")
    [{'quantity': 'item_f1', 'value': 50.0, 'n_tasks': 4}, {'quantity': 'row_f1', 'value': 0.0, 'n_tasks': 4}, \
{'quantity': 'steps', 'value': 7.0, 'n_tasks': 4}, {'quantity': 'cost_usd', 'value': 0.2, 'n_tasks': 3}]
    """
    check_failure_policy(failure_policy)
    require_columns(table, (*_KEY, "base_id", "variant", "status", *_SCORE), name="effort table",
                    hint="the table of sgr_kit.breakdowns.answer_effort")  # fmt: skip
    unknown = [q for q in quantities if q not in EFFORT_QUANTITIES]
    if unknown:
        raise SgrKitError(f"effort_means: unknown quantity {unknown[0]!r}; expected some of "
                          f"{', '.join(EFFORT_QUANTITIES)}")  # fmt: skip
    require_columns(table, quantities, name="effort table", hint="the table of sgr_kit.breakdowns.answer_effort")
    table = table[~table["status"].isin(UNSCORED_STATUSES)]
    if table.empty:
        raise SgrKitError("effort_means: no scored answer with a trajectory")
    options = dict(ci=ci, n_boot=n_boot, method=method, seed=seed)
    scores = bootstrap_means(table, metrics=_SCORE, failure_policy=failure_policy, **options)
    parts = [scores[scores["variant"] == "overall"].assign(quantity=lambda d: d["metric"])]
    for i in range(0, len(quantities), 3):
        parts.append(_means(table, tuple(quantities[i:i + 3]), **options))
    out = pd.concat(parts, ignore_index=True)
    tasks = table.groupby(["system", "task_id"]).size().groupby(level=0).size()
    total = out["system"].map(tasks)
    left = (total - out["n_tasks"]).where(~out["quantity"].isin(_SCORE), 0).fillna(0)
    out["note"] = [
        "; ".join(n for n in (f"{q} unknown for {int(k)} of {int(n)} tasks: left out of its mean" if k > 0 else "",
                              note) if n)
        for q, note, k, n in zip(out["quantity"], out["note"].fillna(""), left, total.fillna(0))
    ]  # fmt: skip
    out["synthetic"] = is_synthetic(table)
    out["quantity"] = out["quantity"].astype(TEXT_DTYPE)
    out = order_rows(out, {"system": system_order(out["system"]), "quantity": (*_SCORE, *quantities)})
    return out[list(EFFORT_COLUMNS)].astype({"n_tasks": "int64", "n_problems": "int64"})


def effort_wide(means: pd.DataFrame) -> pd.DataFrame:
    """:func:`effort_means` with one row per system: each quantity a column with its interval, and points per dollar.

    Columns ``system, n_tasks`` and, per quantity, the value and its ``_ci_low`` / ``_ci_high``;
    then ``item_f1_per_usd`` and ``row_f1_per_usd`` (points per dollar: the mean score in percent
    points over the mean cost per task in USD; NaN when the cost is unknown or 0; no interval)
    and ``item_f1_per_mtok`` (points per million tokens).

    Examples
    --------
    >>> m = pd.DataFrame({"system": "a", "quantity": ["item_f1", "row_f1", "cost_usd"], "value": [60.0, 20.0, 0.5],
    ...                   "ci_low": [50.0, 10.0, 0.4], "ci_high": [70.0, 30.0, 0.6], "n_tasks": 10})
    >>> effort_wide(m)[["system", "item_f1", "cost_usd", "item_f1_per_usd", "row_f1_per_usd"]].to_dict("records")
    [{'system': 'a', 'item_f1': 60.0, 'cost_usd': 0.5, 'item_f1_per_usd': 120.0, 'row_f1_per_usd': 40.0}]
    """
    require_columns(means, ["system", "quantity", "value", "ci_low", "ci_high", "n_tasks"], name="effort_wide",
                    hint="the table of sgr_kit.breakdowns.effort_means")  # fmt: skip
    systems = list(dict.fromkeys(means["system"]))
    quantities = list(dict.fromkeys(means["quantity"]))
    out = pd.DataFrame({"system": pd.Series(systems, dtype=object)})
    counts = means[means["quantity"] == quantities[0]].set_index("system")["n_tasks"]
    out["n_tasks"] = [int(counts.get(s, 0)) for s in systems]
    for quantity in quantities:
        rows = means[means["quantity"] == quantity].set_index("system")
        for suffix, column in (("", "value"), ("_ci_low", "ci_low"), ("_ci_high", "ci_high")):
            out[quantity + suffix] = [float(rows[column].get(s, np.nan)) for s in systems]
    with np.errstate(invalid="ignore", divide="ignore"):
        for metric in _SCORE:
            cost = out.get("cost_usd", pd.Series(np.nan, index=out.index))
            score = out.get(metric, pd.Series(np.nan, index=out.index))
            out[f"{metric}_per_usd"] = (score / cost).where(cost > 0)
        tokens = out.get("tokens", pd.Series(np.nan, index=out.index))
        out["item_f1_per_mtok"] = (out.get("item_f1", np.nan) / (tokens / 1e6)).where(tokens > 0)
    if "synthetic" in means.columns:
        out["synthetic"] = bool(means["synthetic"].fillna(False).astype(bool).any())
    return out


def cost_axis(wide: pd.DataFrame) -> str | None:
    """What to set scores against: ``"cost_usd"`` when two systems or more have a known mean cost,
    else ``"tokens"`` when two or more have known tokens, else None.

    Examples
    --------
    >>> cost_axis(pd.DataFrame({"cost_usd": [0.2, np.nan], "tokens": [1e5, 2e5]}))
    'tokens'
    """
    for axis in ("cost_usd", "tokens"):
        if axis in wide.columns and wide[axis].notna().sum() >= 2:
            return axis
    return None


def score_cost_frontier(wide: pd.DataFrame, *, metric: str = "item_f1", axis: str | None = None) -> pd.DataFrame:
    """The systems no other system beats on both score and mean cost per task.

    Parameters
    ----------
    wide : DataFrame
        :func:`effort_wide`.
    metric : {"item_f1", "row_f1"}, default "item_f1"
    axis : {"cost_usd", "tokens"}, optional
        The cost axis; default :func:`cost_axis` (cost when known, else tokens).

    Returns
    -------
    DataFrame
        Columns :data:`FRONTIER_COLUMNS`, one row per system, sorted by cost (unknown last).
        A system is **dominated** when another has a score at least as high and a cost at least
        as low, better on one of the two; ``on_frontier`` marks the systems no other dominates,
        ``dominated_by`` names those that dominate it. Ties: two systems with the same score and
        the same cost do not dominate each other, so both stay on the frontier; a system with the
        same score as a cheaper one is dominated (and one with the same cost as a better one).
        The comparison is of the point estimates: the intervals (kept in the table and drawn)
        say how firm it is. A system whose score or cost is unknown is never on the frontier
        and dominates none. ``points_per_unit``: score per USD (per million tokens on the
        tokens axis).

    Examples
    --------
    >>> w = pd.DataFrame({"system": ["a", "b", "c", "d"], "item_f1": [60.0, 50.0, 40.0, 60.0],
    ...                   "cost_usd": [1.0, 0.5, 0.8, 1.0]})
    >>> f = score_cost_frontier(w)
    >>> f[["system", "on_frontier", "dominated_by"]].to_dict("records")
    [{'system': 'b', 'on_frontier': True, 'dominated_by': ''}, {'system': 'c', 'on_frontier': False, \
'dominated_by': 'b'}, {'system': 'a', 'on_frontier': True, 'dominated_by': ''}, {'system': 'd', \
'on_frontier': True, 'dominated_by': ''}]
    """
    require_columns(wide, ["system", metric], name="score_cost_frontier",
                    hint="the table of sgr_kit.breakdowns.effort_wide")  # fmt: skip
    axis = axis or cost_axis(wide)
    if axis is None or axis not in wide.columns:
        raise SgrKitError("score_cost_frontier: no cost to set the scores against: neither cost_usd nor tokens is "
                          "known for two systems (give a price file, or trajectories that report tokens)")  # fmt: skip

    def column(name: str) -> np.ndarray:
        return wide[name].to_numpy(dtype=float) if name in wide.columns else np.full(len(wide), np.nan)

    score, cost = column(metric), column(axis)
    known = np.isfinite(score) & np.isfinite(cost)
    names = wide["system"].astype(str).tolist()
    dominated_by = []
    for i in range(len(wide)):
        if not known[i]:
            dominated_by.append("")
            continue
        better = [names[j] for j in np.flatnonzero(known) if j != i and score[j] >= score[i] and cost[j] <= cost[i]
                  and (score[j] > score[i] or cost[j] < cost[i])]  # fmt: skip
        dominated_by.append(", ".join(better))
    scale = 1e6 if axis == "tokens" else 1.0
    with np.errstate(invalid="ignore", divide="ignore"):
        per = np.where(known & (cost > 0), score / (cost / scale), np.nan)
    out = pd.DataFrame({
        "system": names, "metric": metric, "axis": axis, "score": score, "score_ci_low": column(f"{metric}_ci_low"),
        "score_ci_high": column(f"{metric}_ci_high"), "cost": cost, "cost_ci_low": column(f"{axis}_ci_low"),
        "cost_ci_high": column(f"{axis}_ci_high"), "on_frontier": known & np.array([d == "" for d in dominated_by]),
        "dominated_by": dominated_by, "points_per_unit": per,
        "synthetic": bool(wide["synthetic"].any()) if "synthetic" in wide.columns else False,
    })  # fmt: skip
    order = np.lexsort((np.arange(len(out)), -np.nan_to_num(score, nan=-np.inf), np.nan_to_num(cost, nan=np.inf)))
    return out.iloc[order].reset_index(drop=True)


def _per_answer(table: pd.DataFrame) -> pd.DataFrame:
    """Each answer as its own 'task' (repeats kept apart), still clustered by its base problem."""
    return table.assign(task_id=table["task_id"].astype(str) + "#" + table["repeat"].astype(str), repeat=0)


def flag_means(
    scores: pd.DataFrame,
    answers: pd.DataFrame,
    flags: pd.DataFrame,
    *,
    flag_names: tuple[str, ...] | None = None,
    failure_policy: str = "zero",
    ci: float = 0.95,
    n_boot: int = 2000,
    method: str = "bca",
    seed: int | None = 0,
) -> pd.DataFrame:
    """Per system and protocol flag: how many answers carry it, and their scores with and without it.

    Parameters
    ----------
    scores : DataFrame
        The scores table.
    answers : DataFrame
        The answers audited: a table with ``system, task_id, repeat`` (the usage table, or
        :func:`answer_effort`, whose answers without a trajectory, ``has_trajectory`` False, are
        not audited); only these answers are counted.
    flags : DataFrame
        :func:`sgr_kit.trajectories.protocol.protocol_flags` of the same answers.
    flag_names : tuple of str, optional
        The flags to report (default: every flag of the protocol, then ``any``: an answer with
        at least one flag).
    failure_policy, ci, n_boot, method, seed
        As :func:`sgr_kit.stats.bootstrap_means`.

    Returns
    -------
    DataFrame
        Columns :data:`FLAG_MEANS_COLUMNS`: per system and flag, ``n_answers`` (audited),
        ``n_flagged``, ``flagged_share`` (percent), and Item-F1 / Row-F1 of the flagged and of
        the clean answers with intervals over base problems (each answer counted once, as in
        :func:`sgr_kit.breakdowns.site_reach_means`; NaN where a side holds no answer).

    Examples
    --------
    >>> s = pd.DataFrame({"system": "a", "task_id": ["p1", "p1-g", "p2", "p2-g"], "repeat": 0,
    ...     "base_id": ["p1", "p1", "p2", "p2"], "variant": ["constraint", "goal"] * 2, "status": "parsed",
    ...     "item_f1": [1.0, 0.5, 0.5, 0.0], "row_f1": 0.0, "poa": 1.0})
    >>> f = pd.DataFrame({"system": ["a"], "task_id": ["p2-g"], "repeat": [0], "flag": ["stalled"], "detail": [""]})
    >>> t = flag_means(s, s, f, flag_names=("stalled",), n_boot=200)
    >>> t[["flag", "n_answers", "n_flagged", "flagged_share", "item_f1_flagged", "item_f1_clean"]].to_dict("records")
    [{'flag': 'stalled', 'n_answers': 4, 'n_flagged': 1, 'flagged_share': 25.0, 'item_f1_flagged': 0.0, \
'item_f1_clean': 66.66...}]
    """
    check_failure_policy(failure_policy)
    require_columns(scores, (*_KEY, "base_id", "variant", "status", *_SCORE), name="scores",
                    hint="the scores table of sgr-kit score")  # fmt: skip
    require_columns(flags, (*_KEY, "flag"), name="flags", hint="the table of protocol_flags")
    if "has_trajectory" in answers.columns:
        answers = answers[answers["has_trajectory"].astype(bool)]
    audited = _keys(answers)[_KEY].drop_duplicates()
    table = _keys(scores).merge(audited, on=_KEY, how="inner")
    table = table[~table["status"].isin(UNSCORED_STATUSES)]
    if table.empty:
        raise SgrKitError("flag_means: no scored answer among the audited answers")
    names = tuple(flag_names) if flag_names is not None else (*FLAGS, "any")
    marks = _keys(flags)
    systems = system_order(table["system"])
    answers_per_system = table.groupby("system").size()
    rows = []
    for name in names:
        chosen = marks if name == "any" else marks[marks["flag"] == name]
        hit = pd.MultiIndex.from_frame(table[_KEY]).isin(pd.MultiIndex.from_frame(chosen[_KEY]))
        part = _per_answer(table.assign(flagged=np.where(hit, "yes", "no")))
        means = bootstrap_means(part, metrics=_SCORE, failure_policy=failure_policy, by="flagged", ci=ci,
                                n_boot=n_boot, method=method, seed=seed)  # fmt: skip
        means = means[means["variant"] == "overall"].set_index(["system", "metric", "flagged"])
        flagged_per_system = pd.Series(hit, index=table.index).groupby(table["system"]).sum()
        for system in systems:
            row = {"system": system, "flag": name, "n_answers": int(answers_per_system[system]),
                   "n_flagged": int(flagged_per_system.get(system, 0))}  # fmt: skip
            row["flagged_share"] = 100.0 * row["n_flagged"] / row["n_answers"]
            for metric in _SCORE:
                for side, label in (("yes", "flagged"), ("no", "clean")):
                    key = (system, metric, side)
                    for suffix, column in (("", "value"), ("_ci_low", "ci_low"), ("_ci_high", "ci_high")):
                        value = means[column].get(key, np.nan) if key in means.index else np.nan
                        row[f"{metric}_{label}{suffix}"] = float(value)
            rows.append(row)
    out = pd.DataFrame(rows)
    out["synthetic"] = is_synthetic(scores)
    return out[list(FLAG_MEANS_COLUMNS)]


#: Names of the effort quantities for reading (notes, headers), with their units.
QUANTITY_LABELS: dict[str, str] = {
    "item_f1": "Item-F1 (%)", "row_f1": "Row-F1 (%)", "steps": "steps", "tool_calls": "tool calls",
    "searches": "searches", "fetches": "fetches", "pdfs": "PDF reads", "other_tools": "other tool calls",
    "hosts": "distinct hosts", "input_tokens": "input tokens", "cached_input_tokens": "cached input tokens",
    "output_tokens": "output tokens", "reasoning_tokens": "reasoning tokens", "tokens": "tokens (input + output)",
    "seconds": "seconds", "cost_usd": "cost (USD)",
}  # fmt: skip


def describe_effort(table: pd.DataFrame, *, prices: object = None, example_prices: bool = False) -> str:
    """One paragraph on which answers have a trajectory and where their costs and durations came from.

    Examples
    --------
    >>> t = pd.DataFrame({"system": ["a", "a", "a", "b"], "has_trajectory": [True, True, True, False],
    ...                   "cost_source": ["reported", "priced", "unknown", "unknown"],
    ...                   "seconds_source": ["reported", "last_step", "reported", "unknown"]})
    >>> print(describe_effort(t, prices="prices.csv"))
    4 answers, 3 with a trajectory. Costs: 1 reported by the agent, 1 priced from prices.csv (tokens times prices), 1
    unknown (no price for the system or model, or tokens not reported). Durations: 2 reported by the agent, 1 taken
    from the last step's time. The answer without a trajectory keeps its score (as in the main table); its effort is
    unknown.
    """
    require_columns(table, ["cost_source", "seconds_source"], name="describe_effort",
                    hint="the table of sgr_kit.breakdowns.answer_effort")  # fmt: skip
    has = table["has_trajectory"].astype(bool) if "has_trajectory" in table.columns else \
        pd.Series(True, index=table.index)
    cost = table.loc[has, "cost_source"].value_counts()
    seconds = table.loc[has, "seconds_source"].value_counts()
    where = f"from {getattr(prices, 'name', prices)}" if prices is not None else "(no price file given)"
    parts = [f"{cost.get('reported', 0)} reported by the agent", f"{cost.get('priced', 0)} priced {where} (tokens "
             f"times prices{', EXAMPLE prices: made up, not real' if example_prices else ''})"]  # fmt: skip
    if cost.get("unknown", 0):
        parts.append(f"{cost['unknown']} unknown (no price for the system or model, or tokens not reported)")
    durations = [f"{seconds.get('reported', 0)} reported by the agent"]
    if seconds.get("timestamps", 0):  # a session's start (or first line) to its last line
        durations.append(f"{seconds['timestamps']} from the agent's own line times")
    if seconds.get("last_step", 0):
        durations.append(f"{seconds['last_step']} taken from the last step's time")
    if seconds.get("unknown", 0):
        durations.append(f"{seconds['unknown']} unknown")
    text = (f"{len(table)} answers, {int(has.sum())} with a trajectory. Costs: {', '.join(parts)}. Durations: "
            f"{', '.join(durations)}.")
    if not has.all():
        k = int((~has).sum())
        text += (" The answer without a trajectory keeps its score (as in the main table); its effort is unknown."
                 if k == 1 else f" The {k} answers without a trajectory keep their scores (as in the main table); "
                 f"their effort is unknown.")  # fmt: skip
    return text + (" [synthetic data]" if is_synthetic(table) else "")


def effort_notes(table: pd.DataFrame, means: pd.DataFrame) -> list[str]:
    """For reading beside :func:`effort_means`: one sentence per system on what its means leave out.

    Each names the system, how many of its answers have no trajectory, and which quantities are
    unknown for how many of its tasks (left out of their means); systems with nothing left out
    get no sentence.

    Examples
    --------
    >>> t = pd.DataFrame({"system": "a", "task_id": ["p1", "p2"], "has_trajectory": [True, False]})
    >>> m = pd.DataFrame({"system": "a", "quantity": ["item_f1", "steps", "cost_usd"], "n_tasks": [2, 1, 0]})
    >>> effort_notes(t, m)
    ['a: 1 of 2 answers has no trajectory (its score counts; its effort is unknown); cost (USD) unknown for 2 of 2 \
tasks (left out of the means); steps unknown for 1 of 2 tasks (left out of the means)']
    """
    require_columns(means, ["system", "quantity", "n_tasks"], name="effort_notes",
                    hint="the table of sgr_kit.breakdowns.effort_means")  # fmt: skip
    out = []
    for system in system_order(means["system"]):
        answers = table[table["system"] == system]
        total = answers["task_id"].nunique()
        parts = []
        lacking = int((~answers["has_trajectory"].astype(bool)).sum()) if "has_trajectory" in answers.columns else 0
        if lacking:
            parts.append(f"{lacking} of {len(answers)} answers {'has' if lacking == 1 else 'have'} no trajectory "
                         f"({'its score counts; its' if lacking == 1 else 'their scores count; their'} effort is "
                         f"unknown)")  # fmt: skip
        if lacking < len(answers):  # with no trajectory at all, every quantity is unknown: said above
            rows = means[(means["system"] == system) & ~means["quantity"].isin(_SCORE)]
            by_count: dict[int, list[str]] = {}
            for quantity, n in zip(rows["quantity"], rows["n_tasks"]):
                if total - int(n) > 0:
                    by_count.setdefault(total - int(n), []).append(QUANTITY_LABELS.get(quantity, quantity))
            parts += [f"{', '.join(labels)} unknown for {k} of {total} tasks (left out of the means)"
                      for k, labels in sorted(by_count.items(), reverse=True)]  # fmt: skip
        if parts:
            out.append(f"{system}: {'; '.join(parts)}")
    return out


#: How each quantity is written for reading (on the page and in ``sgr-kit effort``): one format per quantity.
NUMBER_FORMATS: dict[str, str] = {
    "item_f1": ".1f", "row_f1": ".1f", "cost_usd": ".4f", "tokens": ",.0f", "input_tokens": ",.0f",
    "cached_input_tokens": ",.0f", "output_tokens": ",.0f", "reasoning_tokens": ",.0f", "seconds": ",.0f",
    "steps": ".1f", "tool_calls": ".1f", "searches": ".1f", "fetches": ".1f", "pdfs": ".1f", "other_tools": ".1f",
    "hosts": ".1f",
}  # fmt: skip
#: Column headers for reading, with units (means per task; scores in percent points).
HEADERS: dict[str, str] = {
    "item_f1": "Item-F1 (%)", "row_f1": "Row-F1 (%)", "cost_usd": "cost per task (USD)",
    "tokens": "tokens per task (input + output)", "input_tokens": "input tokens per task",
    "cached_input_tokens": "cached input tokens per task", "output_tokens": "output tokens per task",
    "reasoning_tokens": "reasoning tokens per task", "seconds": "seconds per task (s)", "steps": "steps per task",
    "tool_calls": "tool calls per task", "searches": "searches per task", "fetches": "fetches per task",
    "pdfs": "PDF reads per task", "other_tools": "other tool calls per task", "hosts": "distinct hosts per task",
}  # fmt: skip


#: The bootstrap's note on too few base problems (sgr_kit.stats.bootstrap_means), said shortly.
_TOO_FEW = re.compile(r"^(\d+) base problem\(s\): no interval drawn \(too few: [\d.]+% intervals from (\d+) problems on\)$")


def _interval_reason(note: object, quantity: str) -> str:
    """The part of an :func:`effort_means` note saying why an interval is missing (the unknown count left aside)."""
    if not isinstance(note, str):
        return ""
    parts = [p for p in note.split("; ") if p and not p.startswith(f"{quantity} unknown for ")]
    text = "; ".join(parts)
    match = _TOO_FEW.match(text)
    if match is None:
        return text
    n = int(match.group(1))
    return f"{n} base problem{'' if n == 1 else 's'}; an interval needs {match.group(2)}"


def effort_display(means: pd.DataFrame, quantities: tuple[str, ...] | list[str]) -> pd.DataFrame:
    """:func:`effort_means` for reading: one row per system, each quantity ``value [low, high]`` under a header with its unit.

    A quantity unknown for every task of a system reads ``n/a (unknown for every task)``; a
    value without an interval reads ``value [n/a: why]`` (too few base problems, every problem
    with the same value...). Numbers use :data:`NUMBER_FORMATS` (the same as ``sgr-kit effort``).
    For display only: the saved table keeps the numbers.

    Examples
    --------
    >>> m = pd.DataFrame({"system": ["a", "a", "b", "b"], "quantity": ["item_f1", "cost_usd"] * 2,
    ...     "value": [61.25, 0.125, 50.0, np.nan], "ci_low": [55.0, np.nan, 40.0, np.nan],
    ...     "ci_high": [66.0, np.nan, 60.0, np.nan], "n_tasks": [10, 4, 10, 0],
    ...     "note": ["", "cost_usd unknown for 6 of 10 tasks: left out of its mean; 4 base problem(s): no interval "
    ...          "drawn (too few: 95% intervals from 6 problems on)", "", "cost_usd unknown for 10 of 10 tasks: left "
    ...          "out of its mean"]})
    >>> effort_display(m, ["item_f1", "cost_usd"]).to_dict("records")
    [{'system': 'a', 'tasks': 10, 'Item-F1 (%)': '61.2 [55.0, 66.0]', 'cost per task (USD)': '0.1250 [n/a: 4 base \
problems; an interval needs 6]'}, {'system': 'b', 'tasks': 10, 'Item-F1 (%)': '50.0 [40.0, 60.0]', 'cost per task \
(USD)': 'n/a (unknown for every task)'}]
    """
    require_columns(means, ["system", "quantity", "value", "ci_low", "ci_high", "n_tasks"], name="effort_display",
                    hint="the table of sgr_kit.breakdowns.effort_means")  # fmt: skip
    rows = []
    index = means.set_index(["system", "quantity"])
    for system in system_order(means["system"]):
        first = means[(means["system"] == system)]["n_tasks"]
        row = {"system": system, "tasks": int(first.max()) if len(first) else 0}
        for quantity in quantities:
            if (system, quantity) not in index.index:
                continue
            r = index.loc[(system, quantity)]
            fmt = NUMBER_FORMATS.get(quantity, ".2f")
            if pd.isna(r["value"]):
                text = "n/a (unknown for every task)" if int(r["n_tasks"]) == 0 else "n/a"
            elif pd.isna(r["ci_low"]) or pd.isna(r["ci_high"]):
                why = _interval_reason(r.get("note", ""), quantity)
                text = format(r["value"], fmt) + (f" [n/a: {why}]" if why else " [n/a]")
            else:
                text = f"{format(r['value'], fmt)} [{format(r['ci_low'], fmt)}, {format(r['ci_high'], fmt)}]"
            row[HEADERS.get(quantity, quantity)] = text
        rows.append(row)
    return pd.DataFrame(rows)


def flag_display(by_flag: pd.DataFrame) -> pd.DataFrame:
    """:func:`flag_means` for reading: headers with units, the share in percent, ``n/a`` with the reason.

    Examples
    --------
    >>> t = pd.DataFrame({"system": ["a"], "flag": ["stalled"], "n_answers": [8], "n_flagged": [0],
    ...     "flagged_share": [0.0], **{f"{m}_{side}{s}": [np.nan if side == "flagged" else 50.0]
    ...     for m in ("item_f1", "row_f1") for side in ("flagged", "clean") for s in ("", "_ci_low", "_ci_high")}})
    >>> flag_display(t).iloc[0].to_dict()
    {'system': 'a', 'flag': 'stalled', 'answers audited': 8, 'flagged': 0, 'flagged (%)': '0.0', \
'Item-F1 flagged (%)': 'n/a (no flagged answer)', 'Item-F1 clean (%)': '50.0 [50.0, 50.0]', \
'Row-F1 flagged (%)': 'n/a (no flagged answer)', 'Row-F1 clean (%)': '50.0 [50.0, 50.0]'}
    """
    out = pd.DataFrame({"system": by_flag["system"], "flag": by_flag["flag"],
                        "answers audited": by_flag["n_answers"].astype(int),
                        "flagged": by_flag["n_flagged"].astype(int),
                        "flagged (%)": [format(v, ".1f") for v in by_flag["flagged_share"]]})  # fmt: skip
    for metric, label in (("item_f1", "Item-F1"), ("row_f1", "Row-F1")):
        for side in ("flagged", "clean"):
            column = f"{metric}_{side}"
            texts = []
            for value, low, high in zip(by_flag[column], by_flag[f"{column}_ci_low"], by_flag[f"{column}_ci_high"]):
                if pd.isna(value):
                    texts.append(f"n/a (no {side} answer)")
                elif pd.isna(low) or pd.isna(high):
                    texts.append(f"{value:.1f} [n/a: too few base problems for an interval]")
                else:
                    texts.append(f"{value:.1f} [{low:.1f}, {high:.1f}]")
            out[f"{label} {side} (%)"] = texts
    return out.reset_index(drop=True)


def format_effort(wide: pd.DataFrame, flags: pd.DataFrame | None = None, *, frontier: pd.DataFrame | None = None,
                  cost_sources: pd.Series | None = None) -> str:  # fmt: skip
    """The per-system effort, cost and protocol flags as plain text (``sgr-kit effort``).

    Parameters
    ----------
    wide : DataFrame
        :func:`effort_wide`.
    flags : DataFrame, optional
        :func:`flag_means` (the flagged answers per system and flag).
    frontier : DataFrame, optional
        :func:`score_cost_frontier` of Item-F1: a ``*`` marks the frontier's systems.
    cost_sources : Series, optional
        Answers per cost source (``reported``, ``priced``, ``unknown``).

    Examples
    --------
    >>> w = pd.DataFrame({"system": ["a"], "n_tasks": [10], "item_f1": [60.0], "item_f1_ci_low": [50.0],
    ...                   "item_f1_ci_high": [70.0], "cost_usd": [0.25], "cost_usd_ci_low": [0.2],
    ...                   "cost_usd_ci_high": [0.3], "item_f1_per_usd": [240.0]})
    >>> print(format_effort(w))
    Effort and cost per task (means, 95% intervals over base problems)
    system  tasks  Item-F1             cost/task (USD)         pts/USD
    a          10  60.0 [50.0, 70.0]   0.2500 [0.2000, 0.3000]   240.0
    """
    def interval(name: str, fmt: str) -> list[str]:
        out = []
        for _, row in wide.iterrows():
            value = row.get(name, np.nan)
            if pd.isna(value):
                out.append("n/a")
                continue
            low, high = row.get(f"{name}_ci_low", np.nan), row.get(f"{name}_ci_high", np.nan)
            text = format(value, fmt)
            out.append(text + (f" [{format(low, fmt)}, {format(high, fmt)}]" if pd.notna(low) else ""))
        return out

    on = set(frontier.loc[frontier["on_frontier"].astype(bool), "system"]) if frontier is not None else set()
    table = pd.DataFrame({"system": [f"{s} *" if s in on else str(s) for s in wide["system"]],
                          "tasks": wide["n_tasks"].astype(int)})  # fmt: skip
    columns = [("item_f1", "Item-F1"), ("row_f1", "Row-F1"), ("cost_usd", "cost/task (USD)"),
               ("tokens", "tokens/task"), ("seconds", "seconds/task"), ("steps", "steps"), ("searches", "searches"),
               ("fetches", "fetches"), ("pdfs", "PDFs"), ("hosts", "hosts")]  # fmt: skip
    for name, label in columns:
        if name in wide.columns:
            table[label] = interval(name, NUMBER_FORMATS[name])
    if "item_f1_per_usd" in wide.columns:
        table["pts/USD"] = [("n/a" if pd.isna(v) else f"{v:,.1f}") for v in wide["item_f1_per_usd"]]
    lines = ["Effort and cost per task (means, 95% intervals over base problems)",
             table.to_string(index=False)]  # fmt: skip
    if frontier is not None:
        what = "cost" if frontier["axis"].iloc[0] == "cost_usd" else "tokens"
        lines.append(f"* on the score-cost frontier (Item-F1 against mean {what} per task: no other system is "
                     f"better on both)")
    if cost_sources is not None:
        lines.append("Costs: " + ", ".join(f"{int(cost_sources.get(s, 0))} {s}" for s in ("reported", "priced",
                                                                                          "unknown")))  # fmt: skip
    if flags is not None and len(flags):
        counts = flags.pivot_table(index="system", columns="flag", values="n_flagged", aggfunc="sum", sort=False)
        counts = counts[[c for c in (*FLAGS, "any") if c in counts.columns]].astype(int)
        answers = flags.groupby("system", sort=False)["n_answers"].first()
        counts.insert(0, "answers", answers.reindex(counts.index).astype(int))
        lines += ["", "Protocol flags (answers carrying each)", counts.reset_index().to_string(index=False)]
    if "synthetic" in wide.columns and bool(wide["synthetic"].any()):
        lines += ["", "SYNTHETIC DATA: simulated runs, not real agent runs."]
    return "\n".join(lines)
