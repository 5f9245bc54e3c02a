"""Did a run keep the protocol? One row per answer and flag.

The paper fixes how its CLI agents ran (Appendix C, "Exposed tools and runtime restrictions"
and "Execution budget and task isolation"):

- "the runtime exposes only three external retrieval tool classes: Serper search, fetch-based
  webpage reading, and PDF reading", and "a companion settings file additionally disables the
  Claude-native WebSearch and WebFetch tools"; prompts "instruct agents to solve the task
  through the designated search, fetch, and PDF tools while prohibiting alternative retrieval
  paths" ("Prompt template and controlled protocol");
- "The maximum runtime per task is 6000 seconds; runs are marked as stalled after 3000
  seconds without trace progress".

These are the profile ``paper`` (:data:`PAPER_PROTOCOL`). :func:`protocol_flags` checks a run
against a profile and raises four flags:

``over_budget``
    the run took longer than ``budget_seconds``: its duration is the agent's own ``seconds``
    (the usage table) when reported, else the time of its last step; or a runner's time limit
    of at least the budget ended it (an inspect_ai log's ``EvalSample.limit``, as sgr-kit's
    runner sets it: :mod:`sgr_kit.run.limits`);
``stalled``
    some stretch without a step was longer than ``stall_seconds``: between the start and the
    first step, between two steps, or (when the run's duration is reported) between the last
    step and the end. Only where step times are known; or the runner's stall limit of at least
    ``stall_seconds`` ended it (recorded in its inspect_ai log);
``tool_outside_protocol``
    a tool call of a kind the profile does not allow (``allowed_kinds``; the paper: ``search``,
    ``fetch``, ``pdf``, so any other tool, e.g. a shell running ``curl``), or of a tool the
    profile names as disabled (``disabled_tools``; the paper: Claude Code's native
    ``WebSearch`` and ``WebFetch``);
``benchmark_visited``
    a query or URL that reaches the benchmark itself: a URL under one of ``benchmark_urls``
    (the dataset page the paper's abstract names, ``huggingface.co/datasets/PKUAIWeb/SGR-BENCH``,
    and its files), a query or URL naming the benchmark (``benchmark_names``: ``SGR-Bench``
    spelt with a space, hyphen, underscore or nothing, the dataset id, the paper's title), or a
    query holding a whole line of the task's reference answer (its own text, at least
    ``reference_chars`` characters, header left aside).

A profile file (YAML or JSON) overrides any of the keys of :class:`Protocol` on top of the
paper's profile; ``protocol="none"`` turns the audit off (an empty table).
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any, Mapping

import numpy as np
import pandas as pd

from ..errors import SgrKitError, decode_json, decode_yaml, describe
from ..schema import TEXT_DTYPE
from ..types import Task
from .reach import _task_map

__all__ = ["FLAGS", "FLAG_COLUMNS", "Protocol", "PAPER_PROTOCOL", "read_protocol", "protocol_flags"]

#: The flags of :func:`protocol_flags`, in order.
FLAGS: tuple[str, ...] = ("over_budget", "stalled", "tool_outside_protocol", "benchmark_visited")
#: Columns of :func:`protocol_flags`.
FLAG_COLUMNS: tuple[str, ...] = ("system", "task_id", "repeat", "flag", "detail")
_KEY = ["system", "task_id", "repeat"]
_TOOL_KINDS = ("search", "fetch", "pdf", "tool")


@dataclass(frozen=True)
class Protocol:
    """A protocol profile: what a run may spend and use.

    Attributes
    ----------
    name : str
    budget_seconds : float or None
        Longest allowed run (None: no budget checked).
    stall_seconds : float or None
        Longest allowed stretch without a step (None: not checked).
    allowed_kinds : tuple of str
        Step kinds of tool calls the protocol allows (of ``search, fetch, pdf, tool``).
    disabled_tools : tuple of str
        Tool names the protocol disabled whatever their kind (compared case-insensitively).
    benchmark_urls : tuple of str
        URL prefixes (without scheme and ``www.``) that are the benchmark itself.
    benchmark_names : tuple of str
        Regular expressions (case-insensitive) naming the benchmark in a query or URL.
    reference_chars : int or None
        A query holding a line of the reference answer of at least this many characters is a
        visit of the benchmark (None: not checked).
    source : str
        Where the values come from.
    """

    name: str
    budget_seconds: float | None
    stall_seconds: float | None
    allowed_kinds: tuple[str, ...]
    disabled_tools: tuple[str, ...]
    benchmark_urls: tuple[str, ...]
    benchmark_names: tuple[str, ...]
    reference_chars: int | None = 20
    source: str = ""


#: The paper's protocol (Appendix C; the dataset page and title from the abstract and title page).
PAPER_PROTOCOL = Protocol(
    name="paper",
    budget_seconds=6000.0,
    stall_seconds=3000.0,
    allowed_kinds=("search", "fetch", "pdf"),
    disabled_tools=("WebSearch", "WebFetch"),
    benchmark_urls=("huggingface.co/datasets/PKUAIWeb/SGR-BENCH", "hf.co/datasets/PKUAIWeb/SGR-BENCH",
                    "huggingface.co/api/datasets/PKUAIWeb/SGR-BENCH"),  # fmt: skip
    benchmark_names=(r"\bsgr[\s_-]?bench\b", r"PKUAIWeb/SGR-BENCH",
                     r"Benchmarking\s+Search\s+Agents\s+on\s+State[\s-]Gated\s+Retrieval"),  # fmt: skip
    reference_chars=20,
    source="SGR-Bench paper, Appendix C ('Exposed tools and runtime restrictions', 'Execution budget and task "
           "isolation'); dataset page from its abstract",
)
_PROFILES = {"paper": PAPER_PROTOCOL}


def _seconds(value: Any, key: str, loc: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise SgrKitError(f"{loc}: {key} must be a number of seconds > 0 or null; found {describe(value)}")
    return float(value)


def _strings(value: Any, key: str, loc: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise SgrKitError(f"{loc}: {key} must be a list of non-empty strings; found {describe(value)}")
    return tuple(v.strip() for v in value)


def read_protocol(protocol: str | os.PathLike | Protocol | Mapping = "paper") -> Protocol | None:
    """The protocol profile ``protocol`` names: ``"paper"``, ``"none"`` (None: no audit), a YAML/JSON file or a mapping.

    A file or mapping holds any of the keys of :class:`Protocol` but ``name`` and ``source``
    (``budget_seconds``, ``stall_seconds``, ``allowed_kinds``, ``disabled_tools``,
    ``benchmark_urls``, ``benchmark_names``, ``reference_chars``); the others keep the
    paper's values. ``null`` turns a check off.

    Examples
    --------
    >>> read_protocol("paper").budget_seconds, read_protocol("none")
    (6000.0, None)
    >>> read_protocol({"budget_seconds": 1800}).budget_seconds
    1800.0
    >>> read_protocol({"budget": 1800})
    Traceback (most recent call last):
    ...
    sgr_kit.errors.SgrKitError: protocol: unknown key 'budget'; expected budget_seconds, stall_seconds, \
allowed_kinds, disabled_tools, benchmark_urls, benchmark_names, reference_chars
    """
    if isinstance(protocol, Protocol):
        return protocol
    if isinstance(protocol, str) and protocol in _PROFILES:
        return _PROFILES[protocol]
    if isinstance(protocol, str) and protocol == "none":
        return None
    loc = "protocol"
    if isinstance(protocol, Mapping):
        data, name = dict(protocol), "custom"
    elif isinstance(protocol, (str, os.PathLike)):
        path = Path(protocol)
        if not path.is_file():
            raise SgrKitError(f"protocol {str(protocol)!r}: expected 'paper', 'none' or a YAML/JSON profile file; "
                              f"no such file")  # fmt: skip
        loc, name = str(path), path.stem
        try:
            text = path.read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as exc:
            raise SgrKitError(f"{path}: cannot be read as UTF-8 text ({exc})") from None
        data = decode_json(text, path)[0] if path.suffix.lower() == ".json" else decode_yaml(text, path)
        if not isinstance(data, dict):
            raise SgrKitError(f"{path}: expected a mapping of protocol keys; found {type(data).__name__}")
    else:
        raise SgrKitError(f"protocol: expected 'paper', 'none', a profile file or a mapping; found "
                          f"{type(protocol).__name__}")  # fmt: skip
    keys = [f.name for f in fields(Protocol) if f.name not in ("name", "source")]
    for key in data:
        if key not in keys:
            raise SgrKitError(f"{loc}: unknown key {describe(key)}; expected {', '.join(keys)}")
    values: dict[str, Any] = {"name": name, "source": f"{loc} (over the paper's profile)"}
    for key in ("budget_seconds", "stall_seconds"):
        if key in data:
            values[key] = _seconds(data[key], key, loc)
    for key in ("allowed_kinds", "disabled_tools", "benchmark_urls", "benchmark_names"):
        if key in data:
            values[key] = () if data[key] is None else _strings(data[key], key, loc)
    for kind in values.get("allowed_kinds", ()):
        if kind not in _TOOL_KINDS:
            raise SgrKitError(f"{loc}: allowed_kinds: {describe(kind)} is not a tool kind; expected some of "
                              f"{', '.join(_TOOL_KINDS)}")  # fmt: skip
    for pattern in values.get("benchmark_names", ()):
        try:
            re.compile(pattern)
        except re.error as exc:
            raise SgrKitError(f"{loc}: benchmark_names: {describe(pattern)} is not a regular expression ({exc})") from None
    if "reference_chars" in data:
        value = data["reference_chars"]
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
            raise SgrKitError(f"{loc}: reference_chars must be a whole number >= 1 or null; found {describe(value)}")
        values["reference_chars"] = value
    return replace(PAPER_PROTOCOL, **values)


def _bare_url(url: str) -> str:
    text = re.sub(r"^[a-z][a-z0-9+.-]*://", "", url.strip(), flags=re.IGNORECASE)
    text = re.sub(r"^www\.", "", text, flags=re.IGNORECASE)
    return text.casefold()


def _normal(text: str) -> str:
    return " ".join(re.sub(r"[|\t,;]+", " ", text).split()).casefold()


def _reference_lines(task: Task, chars: int) -> tuple[str, ...]:
    header = _normal(" ".join(task.schema.columns)) if task.schema.columns else ""
    lines = []
    for line in str(task.reference or "").splitlines():
        norm = _normal(line)
        if len(norm) >= chars and norm != header:
            lines.append(norm)
    return tuple(dict.fromkeys(lines))


def _durations(usage: pd.DataFrame | None) -> dict[tuple, float]:
    if usage is None:
        return {}
    missing = [c for c in (*_KEY, "seconds") if c not in usage.columns]
    if missing:
        raise SgrKitError(f"usage lacks column(s) {', '.join(missing)}; expected the table of "
                          f"sgr_kit.trajectories.trajectory_usage")  # fmt: skip
    seconds = pd.to_numeric(usage["seconds"], errors="coerce").astype("float64")
    keep = seconds.notna()
    if "seconds_source" in usage.columns:  # a duration the agent did not report is its last step's time
        keep &= (usage["seconds_source"] == "reported").to_numpy()
    keys = zip(usage.loc[keep, "system"].astype(str), usage.loc[keep, "task_id"].astype(str),
               usage.loc[keep, "repeat"].astype(int))  # fmt: skip
    return dict(zip(keys, seconds[keep]))


def _steps(source: Any, tool_kinds: Any = None) -> tuple[pd.DataFrame, dict[tuple, dict]]:
    """The steps table, and the limit that ended each run where its log records one (read from a path only)."""
    if isinstance(source, pd.DataFrame):
        if tool_kinds is not None:
            raise SgrKitError("tool_kinds: a steps table's kinds were decided when it was read; pass tool_kinds to "
                              "load_trajectories (or the trajectories' path to protocol_flags)")  # fmt: skip
        missing = [c for c in (*_KEY, "step", "kind", "tool", "url", "query", "t") if c not in source.columns]
        if missing:
            raise SgrKitError(f"trajectories lacks column(s) {', '.join(missing)}; expected the steps table of "
                              f"sgr_kit.trajectories.load_trajectories")  # fmt: skip
        return source, {}
    from .read import iter_trajectories, steps_frame

    ended: dict[tuple, dict] = {}

    def noted(trajectories):
        for tr in trajectories:
            limit = (tr.totals or {}).get("limit")
            if isinstance(limit, dict):
                ended[(tr.system, tr.task_id, tr.repeat)] = limit
            yield tr

    return steps_frame(noted(iter_trajectories(source, tool_kinds=tool_kinds))), ended


def _fmt(seconds: float) -> str:
    return f"{seconds:,.0f} s" if seconds >= 10 else f"{seconds:,.1f} s"


def _ended(limit: dict | None, kind: str, allowed: float) -> str | None:
    """The detail of a runner's limit of ``kind`` (at least ``allowed``) that ended the run, else None."""
    if not limit or limit.get("type") != kind:
        return None
    value = limit.get("limit")
    if isinstance(value, (int, float)) and value < allowed:
        return None
    return f"ended by the runner's {kind} limit: {limit.get('reason') or kind}"


def _flags_of(key: tuple, part: pd.DataFrame, profile: Protocol, duration: float | None, names: list[re.Pattern],
              urls: tuple[str, ...], reference: tuple[str, ...],
              ended: dict | None = None) -> list[tuple[str, str]]:  # fmt: skip
    out: list[tuple[str, str]] = []
    t = part["t"].to_numpy(dtype=float)
    last = float(np.nanmax(t)) if np.isfinite(t).any() else math.nan
    if profile.budget_seconds is not None:
        ran, said = (duration, "the agent's reported duration") if duration is not None else \
            (last, "its last step's time")
        stopped = _ended(ended, "time", profile.budget_seconds)
        if np.isfinite(ran) and ran > profile.budget_seconds:
            out.append(("over_budget", f"ran {_fmt(ran)} ({said}); budget {_fmt(profile.budget_seconds)}"))
        elif stopped:
            out.append(("over_budget", f"{stopped}; budget {_fmt(profile.budget_seconds)}"))
    timed = np.isfinite(t).any() or (part.empty and duration is not None)  # no step at all: start to end
    if profile.stall_seconds is not None and timed:
        known = part.loc[np.isfinite(t), ["step", "t"]].sort_values("step")
        times = np.concatenate([[0.0], known["t"].to_numpy(dtype=float)])
        labels = ["the start", *[f"step {int(s)}" for s in known["step"]]]
        if duration is not None and duration > times[-1]:
            times, labels = np.append(times, duration), [*labels, "the end of the run"]
        gaps = np.diff(times)
        if len(gaps) and gaps.max() > profile.stall_seconds:
            i = int(np.argmax(gaps))
            out.append(("stalled", f"no step for {_fmt(gaps[i])} (from {labels[i]} at {_fmt(times[i])} to "
                                   f"{labels[i + 1]}); stall limit {_fmt(profile.stall_seconds)}"))  # fmt: skip
    stopped = _ended(ended, "stall", profile.stall_seconds) if profile.stall_seconds is not None else None
    if stopped and not any(flag == "stalled" for flag, _ in out):
        out.append(("stalled", stopped))
    calls = part[part["kind"].isin(_TOOL_KINDS)]
    disabled = {n.casefold() for n in profile.disabled_tools}
    off = ~calls["kind"].isin(profile.allowed_kinds) | calls["tool"].astype(str).str.casefold().isin(disabled)
    outside = calls[off]
    if len(outside):
        said = []
        for row in outside.head(3).itertuples(index=False):
            what = row.url or row.query
            said.append(f"step {row.step}: {row.tool or '(unnamed)'} ({row.kind}){' ' + what[:80] if what else ''}")
        more = f"; {len(outside) - 3} more" if len(outside) > 3 else ""
        out.append(("tool_outside_protocol", f"{len(outside)} call(s): {'; '.join(said)}{more}"))
    hits = []
    for row in part.itertuples(index=False):
        url, query = str(row.url or ""), str(row.query or "")
        bare = _bare_url(url) if url else ""
        if bare and any(bare.startswith(u) for u in urls):
            hits.append(f"step {row.step}: URL {url[:100]}")
            continue
        named = next((p for p in names for text in (url, query) if text and p.search(text)), None)
        if named is not None:
            hits.append(f"step {row.step}: {'query' if query and named.search(query) else 'URL'} "
                        f"{(query if query and named.search(query) else url)[:100]!r} names the benchmark")  # fmt: skip
            continue
        if query and reference:
            norm = _normal(query)
            if any(line in norm for line in reference):
                hits.append(f"step {row.step}: query {query[:100]!r} holds a line of the reference answer")
    if hits:
        more = f"; {len(hits) - 3} more" if len(hits) > 3 else ""
        out.append(("benchmark_visited", "; ".join(hits[:3]) + more))
    return out


def protocol_flags(
    path_or_steps: Any,
    tasks: Any = None,
    *,
    protocol: Any = "paper",
    tool_kinds: Any = None,
    usage: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """One row per answer and protocol flag it raises (see the module docstring for the flags).

    Parameters
    ----------
    path_or_steps : path or DataFrame
        Trajectories (read with :func:`~sgr_kit.trajectories.load_trajectories`) or their steps table.
    tasks : TaskSet, iterable of Task, or None
        The tasks, for their reference answers (a query holding a line of one is a visit of
        the benchmark). None: that check is left out; the others run.
    protocol : "paper", "none", path, mapping or Protocol, default "paper"
        The profile (:func:`read_protocol`); ``"none"`` returns an empty table.
    tool_kinds : mapping, path or None
        Tool names and their kinds, for tools whose kind the name does not tell (a search tool
        called ``serper``): passed to :func:`~sgr_kit.trajectories.load_trajectories` when
        ``path_or_steps`` is a path. A steps table's kinds were decided when it was read (pass
        them to ``load_trajectories``), so giving both is an error.
    usage : DataFrame, optional
        :func:`sgr_kit.trajectories.trajectory_usage` of the same runs: its ``seconds`` where
        the agent reported it (``seconds_source`` ``reported``, when the table has that column)
        is the run's duration. Without it the duration is the last step's time, and a stall at
        the end of a run cannot be seen.

    Returns
    -------
    DataFrame
        Columns ``system, task_id, repeat, flag, detail`` (:data:`FLAG_COLUMNS`), in the order
        of the trajectories and of :data:`FLAGS`; ``detail`` says what raised the flag (at most
        three steps named, and how many more).

    Raises
    ------
    SgrKitError
        A table that is not a steps table, a bad profile, a bad ``tool_kinds`` (or one given with
        a steps table).

    Examples
    --------
    >>> steps = pd.DataFrame({"system": "s", "task_id": "t", "repeat": 0, "step": [0, 1, 2, 3],
    ...     "kind": ["search", "tool", "fetch", "answer"], "tool": ["web_search", "Bash", "fetch", ""],
    ...     "url": ["", "https://x.org/a", "https://huggingface.co/datasets/PKUAIWeb/SGR-BENCH", ""],
    ...     "query": ["census tables", "", "", ""], "t": [5.0, 10.0, 3500.0, 3600.0]})
    >>> protocol_flags(steps)[["flag", "detail"]].to_dict("records")
    [{'flag': 'stalled', 'detail': 'no step for 3,490 s (from step 1 at 10 s to step 2); stall limit 3,000 s'}, \
{'flag': 'tool_outside_protocol', 'detail': '1 call(s): step 1: Bash (tool) https://x.org/a'}, \
{'flag': 'benchmark_visited', 'detail': 'step 2: URL https://huggingface.co/datasets/PKUAIWeb/SGR-BENCH'}]
    >>> len(protocol_flags(steps, protocol="none"))
    0
    """
    profile = read_protocol(protocol)
    empty = pd.DataFrame({c: pd.Series(dtype="int64" if c == "repeat" else TEXT_DTYPE) for c in FLAG_COLUMNS})
    if profile is None:
        return empty
    steps, ended = _steps(path_or_steps, tool_kinds)
    table = {} if tasks is None else _task_map(tasks)
    durations = _durations(usage)
    names = [re.compile(p, re.IGNORECASE) for p in profile.benchmark_names]
    urls = tuple(_bare_url(u) for u in profile.benchmark_urls)
    lines: dict[str, tuple[str, ...]] = {}
    rows, seen = [], set()
    for key, part in steps.groupby(_KEY, sort=False):
        key = (str(key[0]), str(key[1]), int(key[2]))
        reference: tuple[str, ...] = ()
        if profile.reference_chars is not None and key[1] in table:
            if key[1] not in lines:
                lines[key[1]] = _reference_lines(table[key[1]], profile.reference_chars)
            reference = lines[key[1]]
        for flag, detail in _flags_of(key, part, profile, durations.get(key), names, urls, reference, ended.get(key)):
            rows.append((*key, flag, detail))
        seen.add(key)
    for key in [*durations, *ended]:  # runs without any step: only their duration and ending limit can be checked
        if key not in seen:
            seen.add(key)
            for flag, detail in _flags_of(key, steps.iloc[:0], profile, durations.get(key), names, urls, (),
                                          ended.get(key)):  # fmt: skip
                rows.append((*key, flag, detail))
    if not rows:
        return empty
    out = pd.DataFrame(rows, columns=list(FLAG_COLUMNS))
    return out.astype({"system": TEXT_DTYPE, "task_id": TEXT_DTYPE, "repeat": "int64", "flag": TEXT_DTYPE,
                       "detail": TEXT_DTYPE})  # fmt: skip
