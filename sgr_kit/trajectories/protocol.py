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
    the run took longer than ``budget_seconds``: its duration is the agent's own reported
    duration (read with the trajectories, as :func:`~sgr_kit.trajectories.trajectory_usage`
    reads it, or from a usage table) when reported (or, where the log gives no duration, the
    span of the log's own timestamps), else the time of its last step; or a
    runner's time limit of at least the budget ended it (an inspect_ai log's
    ``EvalSample.limit``, as sgr-kit's runner sets it: :mod:`sgr_kit.run.limits`);
``stalled``
    some stretch without a step was longer than ``stall_seconds``, counted only where it is
    known: from the start to the first step, between two consecutive steps, or from the last
    step to the run's reported end, each end of the stretch with a known time and no step of
    unknown time between them; or the runner's stall limit of at least ``stall_seconds`` ended
    it (recorded in its inspect_ai log);
``tool_outside_protocol``
    a **retrieval** call the profile does not allow. The paper restricts the tools that
    retrieve from outside, not the agent's own bookkeeping: a call retrieves when it is a
    search, fetch or PDF call, or any other tool that reaches the web (a URL in its arguments:
    a shell running ``curl https://...``, a code tool fetching a page). Tools that retrieve
    nothing from outside (:data:`LOCAL_TOOLS`: loading tool definitions, plans and to-do lists,
    asking the user, starting a sub-agent, reading and editing local files) and other tools
    without a URL in their arguments (a shell running ``ls``) are never flagged. A retrieval call
    is outside the protocol when its kind is not in ``allowed_kinds`` (the paper: ``search``,
    ``fetch``, ``pdf``; so a shell reaching the web is flagged). Whatever the kind, a tool named
    in ``disabled_tools`` (the paper: Claude Code's native ``WebSearch`` and ``WebFetch``) is
    always flagged, and one named in ``allowed_tools`` never is;
``benchmark_visited``
    a query or URL that reaches the benchmark itself. URLs are those of the step and every URL
    in a tool call's arguments, parsed as a browser parses them and decoded as the server
    decodes them (:func:`~sgr_kit.trajectories.hosts.web_url`; ``%53GR-BENCH`` is ``SGR-BENCH``,
    ``hf.co`` is ``huggingface.co``): a URL under one of ``benchmark_urls`` (the dataset page the
    paper's abstract names, ``huggingface.co/datasets/PKUAIWeb/SGR-BENCH``, and its files), a
    URL on the Hub naming the dataset in its path or query
    (``datasets-server.huggingface.co/rows?dataset=PKUAIWeb%2FSGR-BENCH``), a query or URL
    naming the benchmark (``benchmark_names``: ``SGR-Bench`` spelt with a space, hyphen,
    underscore or nothing, the dataset id, the paper's title), or a query holding a whole line
    of the task's reference answer (its own text, at least ``reference_chars`` characters,
    header left aside).

A profile file (YAML or JSON) overrides any of the keys of :class:`Protocol` on top of the
paper's profile; ``protocol="none"`` turns the audit off (an empty table). The same profile is
what a run enforces and what the audit checks.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any, Iterator, Mapping, NamedTuple

import numpy as np
import pandas as pd

from ..errors import SgrKitError, decode_json, decode_yaml, describe
from ..schema import TEXT_DTYPE
from ..types import Task
from .hosts import host_of, registrable_domain, web_url
from .reach import _task_map

__all__ = ["FLAGS", "FLAG_COLUMNS", "LOCAL_TOOLS", "Protocol", "PAPER_PROTOCOL", "read_protocol", "protocol_flags",
           "is_retrieval", "describe_protocol"]

#: The flags of :func:`protocol_flags`, in order.
FLAGS: tuple[str, ...] = ("over_budget", "stalled", "tool_outside_protocol", "benchmark_visited")
#: Columns of :func:`protocol_flags`.
FLAG_COLUMNS: tuple[str, ...] = ("system", "task_id", "repeat", "flag", "detail")
_KEY = ["system", "task_id", "repeat"]
_TOOL_KINDS = ("search", "fetch", "pdf", "tool")
_RETRIEVAL_KINDS = ("search", "fetch", "pdf")

#: Tools that retrieve nothing from outside, whatever their arguments say: never a retrieval call
#: (compared case-insensitively, also without an MCP ``mcp__<server>__`` prefix). Claude Code's
#: built-in tools other than ``Bash``, ``PowerShell``, ``Monitor``, ``WebSearch`` and ``WebFetch``
#: (the tool names of its tools reference, code.claude.com/docs/en/tools-reference, and older
#: names: ``Task``, ``LS``, ``MultiEdit``, ``TodoRead``, ``NotebookRead``, ``KillBash``); Codex
#: CLI's (``codex-rs/core/src/tools/spec.rs``: ``update_plan``, ``apply_patch``, ``view_image``,
#: the MCP resource tools, ``request_user_input``, the sub-agent tools, the file tools; and the
#: ``todo_list`` and ``file_change`` items of ``codex exec --json``); inspect_ai's ReAct agent's
#: ``submit`` (its answer). Shells and code tools are
#: not here: they retrieve when their arguments hold a URL.
LOCAL_TOOLS: frozenset[str] = frozenset(name.casefold() for name in (
    # Claude Code: sub-agents, plans and to-dos, tool definitions, questions, local files, schedules
    "Agent", "Task", "TaskCreate", "TaskGet", "TaskList", "TaskUpdate", "TaskOutput", "TaskStop", "SendMessage",
    "TodoWrite", "TodoRead", "ToolSearch", "AskUserQuestion", "EnterPlanMode", "ExitPlanMode", "EnterWorktree",
    "ExitWorktree", "Read", "Write", "Edit", "MultiEdit", "NotebookEdit", "NotebookRead", "Glob", "Grep", "LS", "LSP",
    "Skill", "SlashCommand", "CronCreate", "CronDelete", "CronList", "BashOutput", "KillShell", "KillBash",
    "ListMcpResourcesTool", "ReadMcpResourceTool", "StructuredOutput",
    # Codex CLI: plans and to-dos, patches, images, MCP resources, questions, sub-agents, local files
    "update_plan", "todo_list", "apply_patch", "file_change", "view_image", "list_mcp_resources",
    "list_mcp_resource_templates", "read_mcp_resource", "request_user_input", "spawn_agent", "send_input", "wait",
    "close_agent", "collab_tool_call", "grep_files", "list_dir", "read_file", "get_memory",
    # inspect_ai: the ReAct agent's answer tool (its answer may hold URLs; it retrieves nothing)
    "submit",
))  # fmt: skip


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
        Kinds of retrieval calls the protocol allows (of ``search, fetch, pdf, tool``; ``tool``:
        other tools reaching the web, e.g. a shell running ``curl``).
    disabled_tools : tuple of str
        Tool names the protocol disabled whatever their kind (compared case-insensitively, also
        without an MCP ``mcp__<server>__`` prefix).
    benchmark_urls : tuple of str
        URL prefixes (without scheme and ``www.``) that are the benchmark itself; a dataset page
        (``.../datasets/<owner>/<name>``) also names the dataset id looked for in Hub URLs.
    benchmark_names : tuple of str
        Regular expressions (case-insensitive) naming the benchmark in a query or URL.
    reference_chars : int or None
        A query holding a line of the reference answer of at least this many characters is a
        visit of the benchmark (None: not checked).
    source : str
        Where the values come from.
    allowed_tools : tuple of str
        Tools allowed by name whatever they retrieve (compared as ``disabled_tools``), e.g. a
        lab's own retrieval tool whose kind is ``tool``.
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
    allowed_tools: tuple[str, ...] = ()


#: The paper's protocol (Appendix C; the dataset page and title from the abstract and title page).
PAPER_PROTOCOL = Protocol(
    name="paper",
    budget_seconds=6000.0,
    stall_seconds=3000.0,
    allowed_kinds=("search", "fetch", "pdf"),
    disabled_tools=("WebSearch", "WebFetch"),
    benchmark_urls=("huggingface.co/datasets/PKUAIWeb/SGR-BENCH", "hf.co/datasets/PKUAIWeb/SGR-BENCH",
                    "huggingface.co/api/datasets/PKUAIWeb/SGR-BENCH"),  # fmt: skip
    benchmark_names=(r"\bsgr[\s_-]?bench\b", r"\bPKUAIWeb/SGR-BENCH\b",
                     r"Benchmarking\s+Search\s+Agents\s+on\s+State[\s-]Gated\s+Retrieval"),  # fmt: skip
    reference_chars=20,
    source="SGR-Bench paper, Appendix C ('Exposed tools and runtime restrictions', 'Execution budget and task "
           "isolation'); dataset page from its abstract",
    allowed_tools=(),
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
    ``benchmark_urls``, ``benchmark_names``, ``reference_chars``, ``allowed_tools``); the others
    keep the paper's values. ``null`` turns a check off.

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
allowed_kinds, disabled_tools, benchmark_urls, benchmark_names, reference_chars, allowed_tools
    >>> read_protocol({"allowed_tools": ["mcp__lab__lookup"]}).allowed_tools
    ('mcp__lab__lookup',)
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
    for key in ("allowed_kinds", "disabled_tools", "benchmark_urls", "benchmark_names", "allowed_tools"):
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



def describe_protocol(profile: Protocol) -> str:
    """One sentence on a profile, numbers written as the flags write them.

    Examples
    --------
    >>> print(describe_protocol(PAPER_PROTOCOL).split(": ", 1)[1])
    budget 6,000 s, stall limit 3,000 s; retrieval allowed by kind: search, fetch, pdf; disabled tools: WebSearch, \
WebFetch; tools allowed by name: none; tools that retrieve nothing from outside (to-do lists, plans, tool \
definitions, questions, sub-agents, local files) are never flagged.
    """
    def seconds(value: float | None) -> str:
        return "none" if value is None else _fmt(value)

    return (f"Protocol profile {profile.name} ({profile.source}): budget {seconds(profile.budget_seconds)}, stall limit "
            f"{seconds(profile.stall_seconds)}; retrieval allowed by kind: {', '.join(profile.allowed_kinds) or 'none'}; "
            f"disabled tools: {', '.join(profile.disabled_tools) or 'none'}; tools allowed by name: "
            f"{', '.join(profile.allowed_tools) or 'none'}; tools that retrieve nothing from outside (to-do lists, "
            f"plans, tool definitions, questions, sub-agents, local files) are never flagged.")  # fmt: skip


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


def _tool_name(name: str) -> str:
    """A tool's name as profiles compare it: case-insensitive, without an MCP ``mcp__<server>__`` prefix."""
    name = str(name).strip()
    if name.startswith("mcp__"):
        name = name.rsplit("__", 1)[-1]
    return name.casefold()


def _names(tools: tuple[str, ...]) -> frozenset[str]:
    return frozenset({str(t).strip().casefold() for t in tools} | {_tool_name(t) for t in tools})


def _is_local(tool: str) -> bool:
    name = _tool_name(tool)
    return name in LOCAL_TOOLS or name.split(" ", 1)[0] in LOCAL_TOOLS  # "collab_tool_call spawn_agent"


def _web(urls: tuple[str, ...]) -> str:
    """The first of ``urls`` that is a web address (has a host), or ``""``."""
    return next((u for u in urls if host_of(u)), "")


def is_retrieval(kind: str, tool: str = "", urls: tuple[str, ...] = ()) -> bool:
    """Whether a tool call retrieves from outside: a search, fetch or PDF call, or another tool reaching the web.

    ``urls`` are the URLs of the call (the step's ``url`` and those in its arguments). A tool of
    :data:`LOCAL_TOOLS` never retrieves; any other tool of kind ``tool`` retrieves when one of its
    URLs is a web address (a shell running ``curl https://...``), and not otherwise.

    Examples
    --------
    >>> is_retrieval("search", "mcp__serper__google_search"), is_retrieval("tool", "ToolSearch")
    (True, False)
    >>> is_retrieval("tool", "Bash", ("https://hf.co/datasets/x",)), is_retrieval("tool", "Bash", ())
    (True, False)
    >>> is_retrieval("tool", "todo_list", ("https://arxiv.org/abs/1",))
    False
    """
    if kind in _RETRIEVAL_KINDS:
        return True
    if kind != "tool" or _is_local(tool):
        return False
    return bool(_web(urls))


class _Call(NamedTuple):
    step: int
    kind: str
    tool: str
    url: str
    query: str
    t: float
    urls: tuple[str, ...]  # the step's URL, then those of its arguments


_ALIASES = (("hf.co", "huggingface.co"),)  # the Hub's short domain


def _alias(host: str) -> str:
    for short, full in _ALIASES:
        if host == short or host.endswith("." + short):
            return host[: len(host) - len(short)] + full
    return host


def _path(text: str) -> str:
    return re.sub(r"/{2,}", "/", text).rstrip("/").casefold()


class _Benchmark:
    """What reaches the benchmark under a profile: its URLs (prefixes, and dataset ids on their sites) and names."""

    def __init__(self, profile: Protocol) -> None:
        self.prefixes: list[tuple[str, str]] = []
        self.ids: set[str] = set()
        self.sites: set[str] = set()
        for entry in profile.benchmark_urls:
            parsed = web_url(entry if "://" in entry else "https://" + entry)
            if parsed is None:
                continue
            host, path = _alias(parsed.host), _path(parsed.path)
            self.prefixes.append((host, path))
            self.sites.add(registrable_domain(host) or host)
            parts = path.strip("/").split("/")
            if "datasets" in parts and len(parts) >= parts.index("datasets") + 3:
                i = parts.index("datasets")
                self.ids.add("/".join(parts[i + 1:i + 3]))
        self.names = [re.compile(p, re.IGNORECASE) for p in profile.benchmark_names]

    def url(self, url: str) -> str:
        """How ``url`` reaches the benchmark (a phrase), or ``""``."""
        parsed = web_url(url)
        if parsed is None:
            return ""
        host, path = _alias(parsed.host), _path(parsed.path)
        for h, p in self.prefixes:
            if (host == h or host.endswith("." + h)) and (path == p or path.startswith(p + "/")):
                return "is the benchmark's dataset"
        if (registrable_domain(host) or host) in self.sites:
            values = [v.strip().strip("/").casefold() for _, v in parsed.params]
            for dataset in self.ids:
                if f"/{dataset}/" in path + "/" or any(v == dataset or v.startswith(dataset + "/") for v in values):
                    return "names the benchmark's dataset"
        decoded = f"{parsed.host}{parsed.path}?{parsed.query}"
        if any(p.search(text) for p in self.names for text in (url, decoded)):
            return "names the benchmark"
        return ""

    def query(self, query: str) -> bool:
        return any(p.search(query) for p in self.names)


def _durations(usage: pd.DataFrame | None) -> dict[tuple, float]:
    if usage is None:
        return {}
    missing = [c for c in (*_KEY, "seconds") if c not in usage.columns]
    if missing:
        raise SgrKitError(f"usage lacks column(s) {', '.join(missing)}; expected the table of "
                          f"sgr_kit.trajectories.trajectory_usage")  # fmt: skip
    seconds = pd.to_numeric(usage["seconds"], errors="coerce").astype("float64")
    keep = seconds.notna()
    if "seconds_source" in usage.columns:  # reported, or the span of the log's own times; else its last step's
        keep &= usage["seconds_source"].isin(("reported", "timestamps")).to_numpy()
    keys = zip(usage.loc[keep, "system"].astype(str), usage.loc[keep, "task_id"].astype(str),
               usage.loc[keep, "repeat"].astype(int))  # fmt: skip
    return dict(zip(keys, seconds[keep]))


def _runs(source: Any, tool_kinds: Any, durations: dict[tuple, float],
          ended: dict[tuple, dict]) -> Iterator[tuple[tuple, list[_Call]]]:  # fmt: skip
    """Each run's key and calls, from a steps table or from trajectories (whose reported durations go to
    ``durations``, and the runner's limit that ended a run, where its log records one, to ``ended``)."""
    if isinstance(source, pd.DataFrame):
        if tool_kinds is not None:
            raise SgrKitError("tool_kinds: a steps table's kinds were decided when it was read; pass tool_kinds to "
                              "load_trajectories (or the trajectories' path to protocol_flags)")  # fmt: skip
        missing = [c for c in (*_KEY, "step", "kind", "tool", "url", "query", "t") if c not in source.columns]
        if missing:
            raise SgrKitError(f"trajectories lacks column(s) {', '.join(missing)}; expected the steps table of "
                              f"sgr_kit.trajectories.load_trajectories")  # fmt: skip
        for key, part in source.groupby(_KEY, sort=False):
            calls = [_Call(int(r.step), str(r.kind), str(r.tool or ""), str(r.url or ""), str(r.query or ""),
                           float(r.t), (str(r.url),) if r.url else ())
                     for r in part[["step", "kind", "tool", "url", "query", "t"]].itertuples(index=False)]  # fmt: skip
            yield (str(key[0]), str(key[1]), int(key[2])), calls
        return
    from .source import each_trajectory

    for tr in each_trajectory(source, tool_kinds=tool_kinds):
        key = (tr.system, tr.task_id, tr.repeat)
        seconds = (tr.totals or {}).get("seconds")
        if seconds is not None and key not in durations:
            durations[key] = float(seconds)
        limit = (tr.totals or {}).get("limit")
        if isinstance(limit, dict):
            ended[key] = limit
        calls = [_Call(i, s.kind, s.tool, s.url, s.query, float(s.t),
                       tuple(dict.fromkeys(u for u in (s.url, *s.arg_urls) if u)))
                 for i, s in enumerate(tr.steps)]  # fmt: skip
        yield key, calls


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


def _stall(calls: list[_Call], duration: float | None) -> tuple[float, str, float, str] | None:
    """The longest known stretch without a step: (length, from, at, to), or None when none is known.

    A stretch counts only between two moments whose times are known with no step of unknown
    time between them: the start (0 s) and a first step with a time, two consecutive timed
    steps, the last step (timed) and the run's reported end.
    """
    points: list[tuple[float, str] | None] = [(0.0, "the start")]
    for call in sorted(calls, key=lambda c: c.step):
        points.append((call.t, f"step {call.step}") if math.isfinite(call.t) else None)
    if duration is not None:
        points.append((duration, "the end of the run"))
    best = None
    for before, after in zip(points, points[1:]):
        if before is None or after is None:
            continue
        gap = after[0] - before[0]
        if best is None or gap > best[0]:
            best = (gap, before[1], before[0], after[1])
    return best


def _flags_of(calls: list[_Call], profile: Protocol, duration: float | None, bench: _Benchmark,
              reference: tuple[str, ...], ended: dict | None = None) -> list[tuple[str, str]]:  # fmt: skip
    out: list[tuple[str, str]] = []
    times = [c.t for c in calls if math.isfinite(c.t)]
    last = max(times) if times else math.nan
    if profile.budget_seconds is not None:
        ran, said = (duration, "the agent's reported duration") if duration is not None else \
            (last, "its last step's time")
        stopped = _ended(ended, "time", profile.budget_seconds)
        if math.isfinite(ran) and ran > profile.budget_seconds:
            out.append(("over_budget", f"ran {_fmt(ran)} ({said}); budget {_fmt(profile.budget_seconds)}"
                                       f"{'; ' + stopped if stopped else ''}"))  # fmt: skip
        elif stopped:
            out.append(("over_budget", f"{stopped}; budget {_fmt(profile.budget_seconds)}"))
    if profile.stall_seconds is not None:
        stall = _stall(calls, duration)
        if stall is not None and stall[0] > profile.stall_seconds:
            gap, start, at, end = stall
            out.append(("stalled", f"no step for {_fmt(gap)} (from {start} at {_fmt(at)} to {end}); stall limit "
                                   f"{_fmt(profile.stall_seconds)}"))  # fmt: skip
    stopped = _ended(ended, "stall", profile.stall_seconds) if profile.stall_seconds is not None else None
    if stopped and out and out[-1][0] == "stalled":  # the stretch found above, and the limit that ended it
        out[-1] = ("stalled", f"{out[-1][1]}; {stopped}")
    elif stopped:
        out.append(("stalled", stopped))
    disabled, allowed = _names(profile.disabled_tools), _names(profile.allowed_tools)
    outside = []
    for call in calls:
        if call.kind not in _TOOL_KINDS:
            continue
        names = {call.tool.strip().casefold(), _tool_name(call.tool)}
        if names & disabled:
            outside.append((call, "disabled"))
        elif names & allowed:
            continue
        elif is_retrieval(call.kind, call.tool, call.urls) and call.kind not in profile.allowed_kinds:
            outside.append((call, ""))
    if outside:
        said = []
        for call, why in outside[:3]:
            what = (call.url or _web(call.urls) or call.query)[:80]
            said.append(f"step {call.step}: {call.tool or '(unnamed)'} ({call.kind}{', disabled' if why else ''})"
                        f"{' ' + what if what else ''}")  # fmt: skip
        more = f"; {len(outside) - 3} more" if len(outside) > 3 else ""
        out.append(("tool_outside_protocol", f"{len(outside)} call(s): {'; '.join(said)}{more}"))
    hits = []
    for call in calls:
        hit = next(((u, how) for u in call.urls for how in (bench.url(u),) if how), None)
        if hit is not None:
            url, how = hit
            hits.append(f"step {call.step}: URL {url[:100]}" if how == "is the benchmark's dataset" else
                        f"step {call.step}: URL {url[:100]!r} {how}")  # fmt: skip
        elif call.query and bench.query(call.query):
            hits.append(f"step {call.step}: query {call.query[:100]!r} names the benchmark")
        elif call.query and reference and any(line in _normal(call.query) for line in reference):
            hits.append(f"step {call.step}: query {call.query[:100]!r} holds a line of the reference answer")
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
    path_or_steps : path, list of Trajectory, or DataFrame
        Trajectories: a path (read with :func:`~sgr_kit.trajectories.iter_trajectories`), the
        list :func:`~sgr_kit.trajectories.source.read_trajectories` read, or their steps table
        (:func:`~sgr_kit.trajectories.load_trajectories`). Read trajectories carry what the
        steps table leaves out: each run's reported duration and the URLs in every tool call's
        arguments (a steps table has only each step's ``url``; give ``usage`` for durations).
    tasks : TaskSet, iterable of Task, or None
        The tasks, for their reference answers (a query holding a line of one is a visit of
        the benchmark). None: that check is left out; the others run.
    protocol : "paper", "none", path, mapping or Protocol, default "paper"
        The profile (:func:`read_protocol`); ``"none"`` returns an empty table.
    tool_kinds : mapping, path or None
        Tool names and their kinds, for tools whose kind the name does not tell (a search tool
        called ``serper``): applied as a path is read. A steps table's (and read
        trajectories') kinds were decided when they were read, so giving both is an error.
    usage : DataFrame, optional
        :func:`sgr_kit.trajectories.trajectory_usage` of the same runs: its ``seconds`` where
        the agent reported it (``seconds_source`` ``reported``, when the table has that column)
        is the run's duration, and runs it lists without any step are checked by their duration.
        Trajectories read here give their reported durations themselves.

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
    >>> steps = pd.DataFrame({"system": "s", "task_id": "t", "repeat": 0, "step": [0, 1, 2, 3, 4],
    ...     "kind": ["search", "tool", "tool", "fetch", "answer"], "tool": ["web_search", "TodoWrite", "Bash",
    ...     "fetch", ""], "url": ["", "", "https://x.org/a", "https://huggingface.co/datasets/PKUAIWeb/SGR-BENCH",
    ...     ""], "query": ["census tables", "", "", "", ""], "t": [5.0, 6.0, 10.0, 3500.0, 3600.0]})
    >>> protocol_flags(steps)[["flag", "detail"]].to_dict("records")
    [{'flag': 'stalled', 'detail': 'no step for 3,490 s (from step 2 at 10 s to step 3); stall limit 3,000 s'}, \
{'flag': 'tool_outside_protocol', 'detail': '1 call(s): step 2: Bash (tool) https://x.org/a'}, \
{'flag': 'benchmark_visited', 'detail': 'step 3: URL https://huggingface.co/datasets/PKUAIWeb/SGR-BENCH'}]
    >>> len(protocol_flags(steps, protocol="none"))
    0
    """
    profile = read_protocol(protocol)
    empty = pd.DataFrame({c: pd.Series(dtype="int64" if c == "repeat" else TEXT_DTYPE) for c in FLAG_COLUMNS})
    if profile is None:
        return empty
    table = {} if tasks is None else _task_map(tasks)
    durations = _durations(usage)
    bench = _Benchmark(profile)
    lines: dict[str, tuple[str, ...]] = {}
    rows, seen = [], set()
    ended: dict[tuple, dict] = {}
    for key, calls in _runs(path_or_steps, tool_kinds, durations, ended):
        reference: tuple[str, ...] = ()
        if profile.reference_chars is not None and key[1] in table:
            if key[1] not in lines:
                lines[key[1]] = _reference_lines(table[key[1]], profile.reference_chars)
            reference = lines[key[1]]
        for flag, detail in _flags_of(calls, profile, durations.get(key), bench, reference, ended.get(key)):
            rows.append((*key, flag, detail))
        seen.add(key)
    for key in [*durations, *ended]:  # runs without any step: only their duration and ending limit can be checked
        if key not in seen:
            seen.add(key)
            for flag, detail in _flags_of([], profile, durations.get(key), bench, (), ended.get(key)):
                rows.append((*key, flag, detail))
    if not rows:
        return empty
    out = pd.DataFrame(rows, columns=list(FLAG_COLUMNS))
    return out.astype({"system": TEXT_DTYPE, "task_id": TEXT_DTYPE, "repeat": "int64", "flag": TEXT_DTYPE,
                       "detail": TEXT_DTYPE})  # fmt: skip
