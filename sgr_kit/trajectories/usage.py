"""What each run spent and did, one row per trajectory; which tools were classified how.

- :func:`trajectory_usage`: steps, tool calls by kind, tokens, cost and seconds per trajectory,
  as the agent itself reports them (Claude Code's ``result`` line, a record's ``totals``) or else
  summed over its model calls when every call reported them; unknown is missing, never 0; with
  a price file, the cost of the runs whose agent reports none (:mod:`.cost`);
- :func:`tool_kind_sources`: every tool with its kind, what decided it (the user's tool kinds,
  the table of known tools, or the name rule alone) and how often it was called, so a user can
  check the name rule and correct it with a tool-kinds file;
- :func:`read_tool_kinds`: that file (CSV or YAML, ``tool,kind``).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import pandas as pd
from ..schema import TOOL_KINDS
from .cost import price_usage
from .source import each_trajectory
from .steps import read_tool_kinds

__all__ = [
    "USAGE_COLUMNS", "USAGE_EXTRAS", "TOOL_KIND_COLUMNS", "trajectory_usage", "tool_kind_sources", "read_tool_kinds",
    "check_trajectories",
]  # fmt: skip

#: Columns of :func:`trajectory_usage`, in order.
USAGE_COLUMNS: tuple[str, ...] = (
    "system", "task_id", "repeat", "format", "steps", "tool_calls", "searches", "fetches", "pdfs", "other_tools",
    "input_tokens", "cached_input_tokens", "output_tokens", "reasoning_tokens", "cost_usd", "seconds",
)  # fmt: skip
#: Columns :func:`trajectory_usage` adds after :data:`USAGE_COLUMNS`, in order.
USAGE_EXTRAS: tuple[str, ...] = ("model", "hosts", "seconds_source", "cost_source", "provider_searches")
#: Columns of :func:`tool_kind_sources`, in order.
TOOL_KIND_COLUMNS: tuple[str, ...] = ("tool", "kind", "decided_by", "calls")

_TOKEN_KEYS = ("input_tokens", "cached_input_tokens", "output_tokens", "reasoning_tokens")


def _total(tr, key: str) -> Any:
    if tr.totals is not None and tr.totals.get(key) is not None:
        return tr.totals[key]
    if key in _TOKEN_KEYS and tr.calls_totals is not None:
        return tr.calls_totals.get(key)
    return None


def _seconds(tr) -> tuple[float | None, str]:
    reported = _total(tr, "seconds")
    if reported is not None:
        return reported, (tr.totals or {}).get("seconds_source") or "reported"
    times = [s.t for s in tr.steps if s.t == s.t]
    return (max(times), "last_step") if times else (None, "unknown")


def trajectory_usage(path: Any, *, format: str | None = None, tool_kinds: Any = None, prices: Any = None,
                     system: Any = None, task_id: Any = None, repeat: Any = None) -> pd.DataFrame:  # fmt: skip
    """One row per trajectory: what it did and what it spent, as the agent reports it.

    Parameters
    ----------
    path : path, list of paths, or list of Trajectory
        Trajectories (:func:`~sgr_kit.trajectories.load_trajectories`), or the list
        :func:`~sgr_kit.trajectories.source.read_trajectories` read.
    format : str, optional
        Read every file as this format (a name of :data:`~sgr_kit.trajectories.read.FORMATS`).
    tool_kinds : mapping, path or None
        Tool names and their kinds, taken first (:func:`read_tool_kinds`).
    prices : path, DataFrame or None
        A price file (:func:`sgr_kit.trajectories.cost.read_prices`): ``cost_usd`` is filled from
        it where the agent reports no cost (:func:`sgr_kit.trajectories.cost.price_usage`).
    system, task_id, repeat : optional
        The system, task and repeat of every trajectory read; by default a file given by itself
        takes the model it names (the main one) and its name without suffix
        (:func:`~sgr_kit.trajectories.iter_trajectories`).

    Returns
    -------
    DataFrame
        Columns :data:`USAGE_COLUMNS`: ``format`` (what the file was read as), ``steps``,
        ``tool_calls`` and their split into ``searches``, ``fetches``, ``pdfs`` and
        ``other_tools``; ``input_tokens`` (every prompt token, cached ones included),
        ``cached_input_tokens``, ``output_tokens`` (reasoning included), ``reasoning_tokens``,
        ``cost_usd`` and ``seconds`` (the run's duration). Each is the agent's own total where it
        reports one (Claude Code's ``result`` line, a record's ``totals``), else the sum over the
        run's model calls when every call reported it, else missing (<NA>, NaN), never 0.
        ``seconds`` without a reported duration is the time of the last timed step since the start.
        Then :data:`USAGE_EXTRAS`: ``model`` (the models the agent names, the one with most
        output tokens first, ``", "``-joined; ``""`` when it names none), ``hosts`` (distinct
        hosts of the steps' URLs), ``seconds_source`` (``reported``: the agent's own duration;
        ``timestamps``: from the session's start, or its first line, to its last line;
        ``last_step``; ``unknown``: :data:`~sgr_kit.trajectories.steps.SECONDS_SOURCES`),
        ``cost_source`` (``reported``: the agent's own cost, never replaced; ``priced``: tokens
        times ``prices``; ``unknown``: neither, the cost stays missing) and
        ``provider_searches`` (web searches the model's provider ran for the agent: Claude's
        ``server_tool_use.web_search_requests``, OpenAI's ``web_search_call`` items, Gemini
        CLI's ``google_web_search``; <NA> where the agent does not say; they are not tool
        calls of the agent's, so not in ``searches`` unless a step shows them), always present.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "trajectories.jsonl"
    >>> _ = path.write_text('{"system": "s", "task_id": "t_001", "steps": [{"kind": "search", "query": "q", '
    ...                     '"input_tokens": 900, "output_tokens": 40}, {"kind": "answer", "text": "a|1"}]}\\n')
    >>> trajectory_usage(path)[["steps", "searches", "input_tokens", "output_tokens", "reasoning_tokens", "cost_usd"]]
       steps  searches  input_tokens  output_tokens  reasoning_tokens  cost_usd
    0      2         1           900             40              <NA>       NaN
    """
    rows = []
    for tr in each_trajectory(path, format=format, tool_kinds=tool_kinds, system=system, task_id=task_id,
                              repeat=repeat):  # fmt: skip
        kinds = Counter(s.kind for s in tr.steps)
        calls = sum(kinds[k] for k in TOOL_KINDS)
        seconds, seconds_source = _seconds(tr)
        hosts = len({s.host for s in tr.steps if s.host})
        rows.append((tr.system, tr.task_id, tr.repeat, tr.format, len(tr.steps), calls, kinds["search"],
                     kinds["fetch"], kinds["pdf"], kinds["tool"], *(_total(tr, k) for k in _TOKEN_KEYS),
                     _total(tr, "cost_usd"), seconds, _total(tr, "model") or "", hosts,
                     seconds_source, _total(tr, "provider_searches")))  # fmt: skip
    frame = pd.DataFrame(rows, columns=[*USAGE_COLUMNS, "model", "hosts", "seconds_source", "provider_searches"])
    for col in ("system", "task_id", "format", "model", "seconds_source"):
        frame[col] = frame[col].astype(object)
    for col in ("repeat", "steps", "tool_calls", "searches", "fetches", "pdfs", "other_tools", "hosts"):
        frame[col] = frame[col].astype("int64")
    for col in (*_TOKEN_KEYS, "provider_searches"):
        frame[col] = pd.array([pd.NA if v is None else v for v in frame[col]], dtype="Int64")
    for col in ("cost_usd", "seconds"):
        frame[col] = np.array([np.nan if v is None else float(v) for v in frame[col]], dtype="float64")
    out = price_usage(frame, prices)
    return out[[*USAGE_COLUMNS, *USAGE_EXTRAS]]


def tool_kind_sources(path: Any, *, format: str | None = None, tool_kinds: Any = None) -> pd.DataFrame:
    """Every tool called in the trajectories: its kind, what decided it, and how many calls.

    ``decided_by`` is ``user`` (the ``tool_kinds`` given), ``known`` (the table of known tools,
    :data:`~sgr_kit.trajectories.steps.KNOWN_TOOLS`) or ``name`` (the name rule alone: check
    these, and correct them with a tool-kinds file). A tool whose calls became different kinds
    (a fetch without a URL is a ``tool`` call) has one row per kind. Sorted by ``decided_by``
    (the name rule first), then by calls.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "t.jsonl"
    >>> _ = path.write_text('{"system": "s", "task_id": "t", "messages": [{"role": "assistant", "tool_calls": ['
    ...     '{"id": "1", "function": {"name": "search_direct_flight", "arguments": "{\\\\"origin\\\\": \\\\"SFO\\\\"}"}}, '
    ...     '{"id": "2", "function": {"name": "Bash", "arguments": "{}"}}]}]}\\n')
    >>> tool_kind_sources(path)
                       tool  kind decided_by  calls
    0  search_direct_flight  tool       name      1
    1                  Bash  tool      known      1
    """
    counts: Counter = Counter()
    for tr in each_trajectory(path, format=format, tool_kinds=tool_kinds):
        for s in tr.steps:
            if s.decided_by:
                counts[(s.tool, s.kind, s.decided_by)] += 1
    order = {"name": 0, "user": 1, "known": 2}
    rows = sorted(((t, k, b, n) for (t, k, b), n in counts.items()), key=lambda r: (order.get(r[2], 3), -r[3], r[0]))
    frame = pd.DataFrame(rows, columns=list(TOOL_KIND_COLUMNS))
    frame["calls"] = frame["calls"].astype("int64")
    return frame


def check_trajectories(path: Any, *, format: str | None = None, tool_kinds: Any = None,
                       notes: list[str] | None = None) -> str:  # fmt: skip
    """A text report of trajectories for ``sgr-kit validate --trajectories``: what was read as what,
    and every tool whose kind the name rule alone decided, with its calls (check them; correct
    them with ``--tool-kinds``). ``path`` may be the list
    :func:`~sgr_kit.trajectories.source.read_trajectories` read, with the ``notes`` it gave.
    Raises :class:`~sgr_kit.errors.SgrKitError` on unreadable input.
    """
    notes = [] if notes is None else notes
    counts: Counter = Counter()
    n = 0
    formats: Counter = Counter()
    for tr in each_trajectory(path, format=format, tool_kinds=tool_kinds, notes=notes.append):
        n += 1
        formats[tr.format] += 1
        for s in tr.steps:
            if s.decided_by == "name":
                counts[(s.tool, s.kind)] += 1
    read_as = ", ".join(f"{name or 'unknown format'}: {count}" for name, count in formats.most_common())
    lines = [f"trajectories: {n} read" + (f" ({read_as})" if read_as else "")]
    lines += [f"  note: {note}" for note in notes]
    if counts:
        lines.append("tools classified by the name rule alone (check them; a --tool-kinds file of tool,kind "
                     "corrects them):")
        width = max(len(t) for t, _ in counts)
        lines += [f"  {t:<{width}}  {k:<6}  {c} call{'s' if c > 1 else ''}" for (t, k), c in
                  sorted(counts.items(), key=lambda item: (-item[1], item[0]))]  # fmt: skip
    else:
        lines.append("tools classified by the name rule alone: none")
    return "\n".join(lines)
