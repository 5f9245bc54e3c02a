"""Where the retrieval state was lost: measures per answer from its trajectory.

:func:`site_reach` gives one row per trajectory (one answer): how many steps and tool calls,
how many distinct hosts, whether and at which step the task's website was first reached,
the share of its web requests that went to that site, the searches and distinct queries,
the time and tokens. The paper's Finding 2 ("the hard step is configuring the website, not
finding the website", section 4.3) is a claim about exactly these measures.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any, Iterable, Mapping

import numpy as np
import pandas as pd

from ..errors import SgrKitError, closest
from ..schema import SITE_REACH_COLUMNS, STEP_COLUMNS, TOOL_KINDS
from ..types import Task
from .hosts import check_sites, on_site, task_sites
from .read import steps_frame

_USAGE_COLUMNS = ("input_tokens", "cached_input_tokens", "output_tokens", "reasoning_tokens")

__all__ = ["site_reach", "reach_columns"]

_KEY = ["system", "task_id", "repeat"]
_BATCH = 500  # trajectories per batch when reading from files


def reach_columns() -> tuple[str, ...]:
    """The columns of :func:`site_reach`, in order.

    Examples
    --------
    >>> reach_columns()[:9]
    ('system', 'task_id', 'repeat', 'steps', 'tool_calls', 'hosts', 'reached_site', 'first_site_step', \
'site_fetch_share')
    """
    return SITE_REACH_COLUMNS


def _task_map(tasks: Any) -> Mapping[str, Task]:
    if isinstance(tasks, Mapping):
        return tasks
    if isinstance(tasks, Iterable) and not isinstance(tasks, (str, bytes)):
        items = list(tasks)
        if all(isinstance(t, Task) for t in items):
            return {t.task_id: t for t in items}
    raise SgrKitError(
        f"tasks: expected the TaskSet of sgr_kit.load_tasks (or Task objects); found {type(tasks).__name__}"
    )


def _sites(task_ids: Iterable[str], tasks: Mapping[str, Task]) -> dict[str, tuple[str, ...]]:
    out = {}
    for tid in task_ids:
        if tid not in tasks:
            close = closest(tid, list(tasks))
            hint = f"; closest known ids: {', '.join(close)}" if close else ""
            raise SgrKitError(f"trajectories: unknown task id {tid!r} (not among the {len(tasks)} loaded tasks){hint}")
        out[tid] = check_sites(tid, task_sites(tasks[tid]))
    return out


def _measure(steps: pd.DataFrame, sites: dict[str, tuple[str, ...]]) -> pd.DataFrame:
    """The per-answer measures of one steps table whose tasks all have sites."""
    if steps.empty:
        return pd.DataFrame({c: pd.Series(dtype=_DTYPES.get(c, "float64")) for c in SITE_REACH_COLUMNS})
    pairs = steps[["task_id", "host"]].drop_duplicates()
    pairs = pairs[pairs["host"] != ""]
    onsite = {(t, h) for t, h in zip(pairs["task_id"], pairs["host"]) if on_site(h, sites[t])}
    reached = pd.Series([(t, h) in onsite for t, h in zip(steps["task_id"], steps["host"])], index=steps.index)
    kind = steps["kind"]
    web = steps["url"] != ""
    frame = steps[_KEY].assign(
        _step=steps["step"], _call=kind.isin(TOOL_KINDS), _search=kind == "search", _fetch=kind == "fetch",
        _pdf=kind == "pdf", _other=kind == "tool", _web=web, _site_web=web & reached,
        _t=steps["t"], _tokens=steps["tokens"].astype("float64"),
        _site_step=steps["step"].where(reached), _host=steps["host"].where(steps["host"] != ""),
        _query=steps["query"].where((kind == "search") & (steps["query"] != "")),
    )  # fmt: skip
    g = frame.groupby(_KEY, sort=False)
    out = pd.DataFrame({
        "steps": g["_step"].size(),
        "tool_calls": g["_call"].sum(),
        "hosts": g["_host"].nunique(),
        "first_site_step": g["_site_step"].min(),
        "_web": g["_web"].sum(),
        "_site_web": g["_site_web"].sum(),
        "searches": g["_search"].sum(),
        "fetches": g["_fetch"].sum(),
        "pdfs": g["_pdf"].sum(),
        "other_tools": g["_other"].sum(),
        "queries": g["_query"].nunique(),
        "time": g["_t"].max(),
        "tokens": g["_tokens"].sum(min_count=1).where(g["_tokens"].count() == g["_step"].size()),
    }).reset_index()  # fmt: skip
    out["reached_site"] = out["first_site_step"].notna()
    with np.errstate(invalid="ignore", divide="ignore"):
        out["site_fetch_share"] = (out["_site_web"] / out["_web"]).where(out["_web"] > 0)
    return out


_DTYPES = {
    "system": STEP_COLUMNS["system"], "task_id": STEP_COLUMNS["task_id"], "repeat": "int64", "steps": "int64",
    "tool_calls": "int64", "hosts": "int64", "reached_site": "bool", "first_site_step": "Int64",
    "site_fetch_share": "float64", "searches": "int64", "fetches": "int64", "pdfs": "int64", "other_tools": "int64",
    "queries": "int64", "time": "float64", "tokens": "Int64",
}  # fmt: skip


def _typed(out: pd.DataFrame) -> pd.DataFrame:
    out = out[list(SITE_REACH_COLUMNS)].copy()
    for column, dtype in _DTYPES.items():
        if dtype == "Int64":
            out[column] = pd.array([pd.NA if pd.isna(v) else int(v) for v in out[column]], dtype="Int64")
        else:
            out[column] = out[column].astype(dtype)
    return out.reset_index(drop=True)


def site_reach(trajectories: pd.DataFrame | str | os.PathLike, tasks: Any, *, tool_kinds: Any = None) -> pd.DataFrame:
    """Per answer: its steps, tool calls, hosts, and whether and when it reached the task's website.

    The task's site is the set of hosts of its ``start_url`` and ``all_involved_urls``
    (:func:`~sgr_kit.trajectories.task_sites`). Hosts are normalised (lower case, without
    ``www.`` and port), and a **subdomain of a site host counts as the site**
    (``api.census.gov`` reaches ``census.gov``; ``notcensus.gov`` does not). A step reaches the
    site when its URL's host is on it: a fetch, a PDF, or any tool call whose arguments hold a
    URL (a ``curl`` in a shell); a search does not, whatever its query says.

    Parameters
    ----------
    trajectories : DataFrame, path or list of Trajectory
        The steps table of :func:`~sgr_kit.trajectories.load_trajectories`, or a path it reads
        (streamed in batches of 500 trajectories, so memory holds one batch's steps, without their
        texts), or the list :func:`~sgr_kit.trajectories.source.read_trajectories` read.
    tasks : TaskSet or iterable of Task
        The tasks (:func:`sgr_kit.load_tasks`), with ``start_url`` or ``all_involved_urls``.
    tool_kinds : mapping, path or None
        Tool names and their kinds, for a path (:func:`~sgr_kit.trajectories.load_trajectories`);
        a steps table's kinds were decided when it was read, so giving both is an error.

    Returns
    -------
    DataFrame
        One row per ``(system, task_id, repeat)``, in the order of the trajectories, with the
        columns of :data:`sgr_kit.schema.SITE_REACH_COLUMNS`:

        - ``steps``: steps (all kinds); ``tool_calls``: steps of kind search, fetch, pdf or tool;
        - ``hosts``: distinct hosts of the URLs used;
        - ``reached_site``: some step's URL is on the site; ``first_site_step``: the first such
          step (counted from 0; <NA> when never);
        - ``site_fetch_share``: of the steps with a URL, the share on the site (NaN without any);
        - ``searches, fetches, pdfs, other_tools``: tool calls by kind; ``queries``: distinct
          search queries; ``time``: the largest step time (seconds; NaN when unknown);
        - ``tokens``: the run's input plus output tokens as the agent reports them for the whole
          run (a trajectory's totals, read from a path), else the sum of its steps' ``tokens``
          when every step has them, else <NA> (a partial sum is no total).

    Raises
    ------
    SgrKitError
        A task id not among ``tasks`` (with the closest ids), a task without any site URL, a
        table that is not a steps table.

    Examples
    --------
    >>> from sgr_kit.types import Schema, Task
    >>> task = Task("a_001", "a_001", "constraint", "ARXIV", "arXiv", "scholarly archives",
    ...             Schema(("id",), ("id",)), "id\\n1", 1, "1-2", start_url="https://arxiv.org/search/advanced")
    >>> steps = pd.DataFrame({"system": "s", "task_id": "a_001", "repeat": 0, "step": [0, 1, 2, 3],
    ...     "kind": ["search", "fetch", "fetch", "answer"], "tool": "", "query": ["vit 2020", "", "", ""],
    ...     "url": ["", "https://scholar.example/x", "https://export.arxiv.org/abs/1", ""],
    ...     "host": ["", "scholar.example", "export.arxiv.org", ""], "text": "", "t": float("nan"), "tokens": None})
    >>> site_reach(steps, [task]).iloc[:, 3:9].to_dict("records")
    [{'steps': 4, 'tool_calls': 3, 'hosts': 2, 'reached_site': True, 'first_site_step': 2, 'site_fetch_share': 0.5}]
    """
    table = _task_map(tasks)
    if isinstance(trajectories, pd.DataFrame):
        if tool_kinds is not None:
            raise SgrKitError("tool_kinds: a steps table's kinds were decided when it was read; pass tool_kinds to "
                              "load_trajectories (or the trajectories' path to site_reach)")  # fmt: skip
        needed = [c for c in STEP_COLUMNS if c not in _USAGE_COLUMNS]  # a table of before the usage columns works
        missing = [c for c in needed if c not in trajectories.columns]
        if missing:
            raise SgrKitError(
                f"trajectories lacks column(s) {', '.join(missing)}; expected the steps table of "
                f"sgr_kit.trajectories.load_trajectories ({', '.join(needed)})"
            )
        sites = _sites(pd.unique(trajectories["task_id"].astype(str)), table)
        return _typed(_measure(trajectories, sites))
    parts, batch = [], []
    from .source import each_trajectory

    for tr in each_trajectory(trajectories, tool_kinds=tool_kinds):
        batch.append(dataclasses.replace(tr, steps=tuple(s._replace(text="") for s in tr.steps)))  # texts unused
        if len(batch) >= _BATCH:
            parts.append(_batch(batch, table))
            batch = []
    parts.append(_batch(batch, table))
    return _typed(pd.concat(parts, ignore_index=True))


def _batch(batch: list, table: Mapping[str, Task]) -> pd.DataFrame:
    steps = steps_frame(batch)
    sites = _sites(dict.fromkeys(tr.task_id for tr in batch), table)
    empty = [tr for tr in batch if not tr.steps]  # trajectories with no step still are answers
    out = _measure(steps, sites)
    reported = {(tr.system, tr.task_id, tr.repeat): tr.totals["input_tokens"] + tr.totals["output_tokens"]
                for tr in batch if tr.totals and tr.totals.get("input_tokens") is not None
                and tr.totals.get("output_tokens") is not None}  # fmt: skip
    if reported:
        keys = list(zip(out["system"].astype(str), out["task_id"].astype(str), out["repeat"].astype(int)))
        agent = pd.Series([reported.get(k, np.nan) for k in keys], index=out.index, dtype="float64")
        out["tokens"] = agent.where(agent.notna(), out["tokens"])
    if empty:
        rows = pd.DataFrame({"system": [t.system for t in empty], "task_id": [t.task_id for t in empty],
                             "repeat": [t.repeat for t in empty]})  # fmt: skip
        tokens = [reported.get((t.system, t.task_id, t.repeat), np.nan) for t in empty]
        rows = rows.assign(steps=0, tool_calls=0, hosts=0, first_site_step=np.nan, searches=0, fetches=0, pdfs=0,
                           other_tools=0, queries=0, time=np.nan, tokens=tokens, reached_site=False,
                           site_fetch_share=np.nan)  # fmt: skip
        out = pd.concat([out, rows], ignore_index=True)
    return out
