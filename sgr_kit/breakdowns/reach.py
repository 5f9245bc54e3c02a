"""Did the agents reach the task's website, and what did reaching it buy? (section 4.3, Finding 2)

:func:`site_reach_means` sets the per-answer measures of :func:`sgr_kit.trajectories.site_reach`
beside the answers' scores: per system (and over all systems) the share of answers that
reached the site, Item-F1 and Row-F1 of the answers that did and of those that did not, and
the share of *failed* answers that did reach the site (the paper's claim: agents find the
site and lose the retrieval state there). Every value has a bootstrap interval over base
problems from :func:`sgr_kit.stats.bootstrap_means`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import SgrKitError
from ..schema import ALL_SYSTEMS, TEXT_DTYPE, UNSCORED_STATUSES, check_failure_policy, is_synthetic
from ..stats import bootstrap_means
from ._common import order_rows, require_columns, system_order

__all__ = ["REACH_COLUMNS", "REACH_QUANTITIES", "REACH_WIDE", "site_reach_means", "reach_scores", "reach_wide",
           "describe_reach", "reach_notes"]

#: Columns of :func:`site_reach_means`, in order.
REACH_COLUMNS: tuple[str, ...] = (
    "system", "quantity", "reached", "value", "ci_low", "ci_high", "n_answers", "n_problems", "method", "ci",
    "note", "synthetic",
)  # fmt: skip
#: The quantities of :func:`site_reach_means`, in order.
REACH_QUANTITIES: tuple[str, ...] = ("site_reached", "item_f1", "row_f1", "failed_reached")
_KEY = ["system", "task_id", "repeat"]
#: The columns of :func:`reach_wide` (each also with ``_ci_low`` and ``_ci_high``), from
#: (quantity, reached) of :func:`site_reach_means`.
REACH_WIDE: dict[tuple[str, str], str] = {
    ("site_reached", "all"): "site_reached", ("item_f1", "yes"): "item_f1_reached",
    ("item_f1", "no"): "item_f1_not_reached", ("row_f1", "yes"): "row_f1_reached",
    ("row_f1", "no"): "row_f1_not_reached", ("failed_reached", "all"): "failed_reached",
}


def reach_scores(scores: pd.DataFrame, reach: pd.DataFrame) -> pd.DataFrame:
    """The scores of the answers that have a trajectory, with ``reached_site``, ``first_site_step`` and
    ``site_fetch_share`` beside them (answers without a trajectory are left out).

    Examples
    --------
    >>> s = pd.DataFrame({"system": "a", "task_id": ["p1", "p2"], "repeat": 0, "item_f1": [1.0, 0.0]})
    >>> r = pd.DataFrame({"system": "a", "task_id": ["p1"], "repeat": 0, "reached_site": [True],
    ...                   "first_site_step": [3], "site_fetch_share": [0.5]})
    >>> reach_scores(s, r)[["task_id", "item_f1", "reached_site"]].to_dict("records")
    [{'task_id': 'p1', 'item_f1': 1.0, 'reached_site': True}]
    """
    require_columns(scores, _KEY, name="scores", hint="the scores table of sgr-kit score")
    require_columns(reach, (*_KEY, "reached_site", "first_site_step", "site_fetch_share"), name="reach",
                    hint="the table of sgr_kit.trajectories.site_reach")  # fmt: skip
    extra = reach[[*_KEY, "reached_site", "first_site_step", "site_fetch_share"]]
    for name, frame in (("scores", scores), ("reach", extra)):
        twice = frame.duplicated(_KEY, keep=False)
        if twice.any():
            first = tuple(str(v) for v in frame.loc[twice, _KEY].iloc[0])
            raise SgrKitError(f"{name}: (system, task_id, repeat) {', '.join(first)} appears more than once; "
                              f"expected one row per answer")  # fmt: skip
    keys = scores[_KEY].astype({"system": str, "task_id": str, "repeat": "int64"})
    merged = scores.assign(**{c: keys[c] for c in _KEY}).merge(
        extra.astype({"system": str, "task_id": str, "repeat": "int64"}), on=_KEY, how="inner", validate="one_to_one"
    )
    return merged


def _per_answer(table: pd.DataFrame) -> pd.DataFrame:
    """Each answer as its own 'task' (repeats kept apart), still clustered by its base problem."""
    return table.assign(task_id=table["task_id"].astype(str) + "#" + table["repeat"].astype(str), repeat=0)


def _share(table: pd.DataFrame, indicator: pd.Series, *, quantity: str, **options) -> pd.DataFrame:
    """Percent of the answers in ``table`` with a true ``indicator``, with its interval."""
    if table.empty:
        return pd.DataFrame(columns=[*REACH_COLUMNS])
    frame = table.assign(item_f1=indicator.astype(float).to_numpy(), row_f1=0.0, poa=0.0, status="parsed")
    out = bootstrap_means(frame, metrics="item_f1", **options)
    out = out[out["variant"] == "overall"]
    return out.assign(quantity=quantity, reached="all")


def site_reach_means(
    scores: pd.DataFrame,
    reach: pd.DataFrame,
    *,
    failure_policy: str = "zero",
    ci: float = 0.95,
    n_boot: int = 2000,
    method: str = "bca",
    seed: int | None = 0,
) -> pd.DataFrame:
    """Per system: how often the site was reached, and scores with and without reaching it.

    Parameters
    ----------
    scores : DataFrame
        The scores table of ``sgr-kit score`` (``system, task_id, repeat, base_id, variant,
        status`` and the metrics).
    reach : DataFrame
        :func:`sgr_kit.trajectories.site_reach` of the same answers' trajectories. Answers
        without a trajectory are left out (the ``note`` of every row says how many).
    failure_policy : {"zero", "exclude"}, default "zero"
        How answers without metrics (parse failures, missing answers) enter the Item-F1 and
        Row-F1 means (:mod:`sgr_kit.aggregate`).
    ci, n_boot, method, seed
        As :func:`sgr_kit.stats.bootstrap_means` (``n_boot`` at least 100).

    Returns
    -------
    DataFrame
        Columns :data:`REACH_COLUMNS`; per system (Table 2's order, then others, then
        ``all systems``: per base problem the systems' values averaged first) one row per:

        - ``site_reached`` (``reached = "all"``): percent of the answers whose trajectory reached
          the site;
        - ``item_f1`` and ``row_f1`` with ``reached = "yes"`` and ``"no"``: the mean score of the
          answers that did and did not reach it;
        - ``failed_reached`` (``reached = "all"``): percent of the *failed* answers that reached
          the site, where an answer failed when it is not entirely right (Row-F1 below 1, or no
          metrics at all: a parse failure or a missing answer).

        ``value`` and the bounds are percent points; ``n_answers`` counts the answers in the
        value, ``n_problems`` their base problems.

    Notes
    -----
    The unit of resampling is the base problem (both variants and every repeat together), as
    everywhere in :mod:`sgr_kit.stats`; each answer counts once (repeats are not averaged
    first, because two repeats of a task may differ in reaching the site). Reaching the site is
    not randomised: the comparison of reached against not reached describes the runs, it does
    not estimate what reaching the site causes. Answers whose scoring failed inside sgr-kit
    (``scorer_error``) are left out.

    Raises
    ------
    SgrKitError
        A scores table or reach table without its columns; no answer in both.

    Examples
    --------
    >>> s = pd.DataFrame({"system": "a", "task_id": ["p1", "p1-g", "p2", "p2-g", "p3", "p3-g"], "repeat": 0,
    ...                   "base_id": ["p1", "p1", "p2", "p2", "p3", "p3"], "variant": ["constraint", "goal"] * 3,
    ...                   "status": "parsed", "item_f1": [1.0, 0.5, 0.5, 0.0, 1.0, 0.8], "row_f1": [1.0, 0, 0, 0, 1, 0],
    ...                   "poa": 1.0})
    >>> r = s[["system", "task_id", "repeat"]].assign(reached_site=[True, True, False, False, True, True],
    ...                                               first_site_step=0, site_fetch_share=1.0)
    >>> t = site_reach_means(s, r, n_boot=200)
    >>> t[t["system"] == "a"][["quantity", "reached", "value", "n_answers"]].to_dict("records")
    [{'quantity': 'site_reached', 'reached': 'all', 'value': 66.66..., 'n_answers': 6},
     {'quantity': 'item_f1', 'reached': 'yes', 'value': 82.5, 'n_answers': 4},
     {'quantity': 'item_f1', 'reached': 'no', 'value': 25.0, 'n_answers': 2},
     {'quantity': 'row_f1', 'reached': 'yes', 'value': 50.0, 'n_answers': 4},
     {'quantity': 'row_f1', 'reached': 'no', 'value': 0.0, 'n_answers': 2},
     {'quantity': 'failed_reached', 'reached': 'all', 'value': 50.0, 'n_answers': 4}]
    """
    check_failure_policy(failure_policy)
    require_columns(scores, (*_KEY, "base_id", "variant", "status", "item_f1", "row_f1"), name="scores",
                    hint="the scores table of sgr-kit score")  # fmt: skip
    table = reach_scores(scores, reach)
    table = table[~table["status"].isin(UNSCORED_STATUSES)]
    if table.empty:
        raise SgrKitError(
            "site_reach_means: no answer of the scores table has a trajectory in the reach table; expected the "
            "same (system, task_id, repeat) in both"
        )
    left_out = len(scores) - len(table)
    options = dict(ci=ci, n_boot=n_boot, method=method, seed=seed, pooled=True)
    answers = _per_answer(table)
    reached = answers["reached_site"].astype(bool)
    parts = [_share(answers, reached, quantity="site_reached", **options)]
    means = bootstrap_means(answers.assign(reached=np.where(reached, "yes", "no")),
                            metrics=("item_f1", "row_f1"), failure_policy=failure_policy, by="reached",
                            **options)  # fmt: skip
    means = means[means["variant"] == "overall"]
    parts.append(means.rename(columns={"metric": "quantity"}))
    failed = answers["row_f1"].isna() | (answers["row_f1"] < 1)
    parts.append(_share(answers[failed], reached[failed], quantity="failed_reached", **options))
    out = pd.concat([p for p in parts if not p.empty], ignore_index=True)
    out = out.rename(columns={"n_tasks": "n_answers"})
    if left_out:
        note = f"{left_out} scored answer(s) without a trajectory (or not scored) left out"
        out["note"] = [f"{n}; {note}" if n else note for n in out["note"]]
    out["synthetic"] = is_synthetic(scores, reach)
    out["reached"] = out["reached"].astype(TEXT_DTYPE)
    out["quantity"] = out["quantity"].astype(TEXT_DTYPE)
    systems = system_order(out["system"])
    out = order_rows(out, {"system": systems, "quantity": REACH_QUANTITIES, "reached": ("all", "yes", "no")})
    return out[list(REACH_COLUMNS)].astype({"n_answers": "int64", "n_problems": "int64"})


def reach_wide(table: pd.DataFrame) -> pd.DataFrame:
    """:func:`site_reach_means` with one row per system: each quantity a column with its interval.

    Columns ``system, n_answers`` and, for each name of :data:`REACH_WIDE`, the value and
    its ``_ci_low`` / ``_ci_high`` (NaN where undefined or not drawn); the systems keep their
    order. ``n_answers`` counts the answers with a trajectory. The same numbers as the long
    table, laid out so that a page shows a system on one line.

    Examples
    --------
    >>> t = pd.DataFrame({"system": "a", "quantity": ["site_reached", "item_f1", "item_f1"],
    ...                   "reached": ["all", "yes", "no"], "value": [80.0, 50.0, 10.0],
    ...                   "ci_low": [70.0, 40.0, None], "ci_high": [90.0, 60.0, None], "n_answers": [10, 8, 2]})
    >>> w = reach_wide(t)
    >>> w[["system", "n_answers", "site_reached", "item_f1_reached", "item_f1_not_reached"]].to_dict("records")
    [{'system': 'a', 'n_answers': 10, 'site_reached': 80.0, 'item_f1_reached': 50.0, 'item_f1_not_reached': 10.0}]
    """
    require_columns(table, ["system", "quantity", "reached", "value", "ci_low", "ci_high", "n_answers"],
                    name="reach_wide")
    systems = list(dict.fromkeys(table["system"]))
    out = pd.DataFrame({"system": pd.Series(systems, dtype=object)})
    counts = table[table["quantity"] == "site_reached"].set_index("system")["n_answers"]
    out["n_answers"] = [int(counts.get(s, 0)) for s in systems]
    for (quantity, reached), name in REACH_WIDE.items():
        rows = table[(table["quantity"] == quantity) & (table["reached"] == reached)].set_index("system")
        for suffix, column in (("", "value"), ("_ci_low", "ci_low"), ("_ci_high", "ci_high")):
            out[name + suffix] = [float(rows[column].get(s, np.nan)) for s in systems]
    return out


def reach_notes(table: pd.DataFrame) -> list[str]:
    """The notes of :func:`site_reach_means`, each once, naming the systems and columns (of :func:`reach_wide`) it is about.

    A system named alone: the note is about all of its columns.

    Examples
    --------
    >>> t = pd.DataFrame({"system": ["a", "a", "b"], "quantity": ["item_f1", "row_f1", "item_f1"],
    ...                   "reached": ["yes", "yes", "no"], "note": ["2 base problem(s): no interval", "2 base problem(s): no interval", ""]})
    >>> reach_notes(t)
    ['2 base problem(s): no interval (a)']
    >>> reach_notes(t.assign(note="left out"))
    ['left out (every system and column)']
    """
    where: dict[str, dict[str, list[str]]] = {}
    every: dict[str, list[str]] = {}
    for row in table.itertuples(index=False):
        column = REACH_WIDE.get((row.quantity, row.reached), f"{row.quantity} ({row.reached})")
        every.setdefault(str(row.system), []).append(column)
        for note in str(row.note).split("; ") if isinstance(row.note, str) else ():
            if note:
                where.setdefault(note, {}).setdefault(str(row.system), []).append(column)
    out = []
    for note, systems in where.items():
        if systems == every:
            out.append(f"{note} (every system and column)")
            continue
        named = [system if columns == every[system] else f"{system}: {', '.join(columns)}"
                 for system, columns in systems.items()]
        out.append(f"{note} ({'; '.join(named)})")
    return out


def describe_reach(table: pd.DataFrame, *, system: str = ALL_SYSTEMS) -> str:
    """One sentence on a system's row of :func:`site_reach_means`.

    Examples
    --------
    >>> t = pd.DataFrame({"system": "a", "quantity": ["site_reached", "item_f1", "item_f1", "failed_reached"],
    ...                   "reached": ["all", "yes", "no", "all"], "value": [80.0, 50.0, 10.0, 75.0],
    ...                   "ci_low": [70.0, 40.0, 2.0, 60.0], "ci_high": [90.0, 60.0, 20.0, 88.0], "synthetic": False})
    >>> print(describe_reach(t, system="a"))
    a: 80.0% of answers reached the task's site [70.0, 90.0]; Item-F1 50.0 when they did [40.0, 60.0] and 10.0
    when they did not [2.0, 20.0]; 75.0% of failed answers had reached the site [60.0, 88.0].
    """
    rows = table[table["system"] == system]
    if rows.empty:
        raise SgrKitError(f"describe_reach: no rows for system {system!r}")

    def part(quantity: str, reached: str) -> tuple[str, str]:
        row = rows[(rows["quantity"] == quantity) & (rows["reached"] == reached)]
        if row.empty or pd.isna(row["value"].iloc[0]):
            return "n/a", ""
        r = row.iloc[0]
        unit = "%" if quantity.endswith("reached") else ""
        interval = f" [{r['ci_low']:.1f}, {r['ci_high']:.1f}]" if pd.notna(r["ci_low"]) else ""
        return f"{r['value']:.1f}{unit}", interval

    (reached, r_ci), (yes, y_ci), (no, n_ci), (failed, f_ci) = (
        part("site_reached", "all"), part("item_f1", "yes"), part("item_f1", "no"), part("failed_reached", "all"))
    name = "All systems" if system == ALL_SYSTEMS else system
    text = (f"{name}: {reached} of answers reached the task's site{r_ci}; Item-F1 {yes} when they did{y_ci} and "
            f"{no} when they did not{n_ci}; {failed} of failed answers had reached the site{f_ci}.")
    if is_synthetic(rows):
        text += " [synthetic data]"
    return text
