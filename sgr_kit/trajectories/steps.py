"""One step of a trajectory, one trajectory, and how a tool call becomes a step.

The documented format (the manual's Trajectories page, docs/guide/trajectories.md) writes each step as a JSON object::

    {"kind": "fetch", "tool": "fetch", "url": "https://arxiv.org/search/advanced?...",
     "text": "an excerpt of what came back", "t": 12.5, "tokens": 812}

``kind`` is one of :data:`sgr_kit.schema.STEP_KINDS`; every other key is optional: ``tool``
(the tool's name), ``url`` (fetch and pdf steps need one), ``query`` (search steps need one),
``args`` (the tool's arguments, an object: a ``url`` or ``query`` is taken from it when not
given), ``text`` (what the step returned or said), ``t`` (seconds since the trajectory
started), ``tokens`` (tokens of the model call that made the step) and that call's
``input_tokens``, ``cached_input_tokens``, ``output_tokens``, ``reasoning_tokens``. Unknown
keys are ignored. :func:`native_step` checks one; :func:`tool_step` turns an agent's tool call
(Claude Code's ``tool_use``, an OpenAI ``tool_calls`` entry) into a step. A record's
``totals`` (what the agent reports for the whole run: :data:`TOTAL_KEYS`) is checked by
:func:`record_totals`.
"""

from __future__ import annotations

import contextvars
import csv
import io
import math
import numbers
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, NamedTuple

from ..errors import SgrKitError, decode_yaml, describe
from ..schema import STEP_KINDS, TOOL_KINDS
from .hosts import all_urls, first_url, host_of

__all__ = [
    "EXCERPT_CHARS", "TOTAL_KEYS", "SECONDS_SOURCES", "KNOWN_TOOLS", "Step", "Trajectory", "excerpt", "native_step", "record_totals",
    "tool_step",
    "kind_of_tool", "classify_tool", "using_tool_kinds", "active_tool_kinds", "read_tool_kinds",
]  # fmt: skip

#: Step texts other than the final answer are cut to this many characters (the answer is kept whole).
EXCERPT_CHARS = 500

_URL_KEYS = ("url", "uri", "href", "link", "page_url", "target_url", "pdf_url", "source_url")
_QUERY_KEYS = ("query", "q", "search_query", "search_term", "queries", "question", "keywords", "text")
_FETCH_WORDS = ("fetch", "browse", "navigate", "open_url", "open_page", "visit", "scrape", "crawl", "read_url",
                "get_url", "goto", "get_page", "open")  # fmt: skip


class Step(NamedTuple):
    """One step: what the steps table holds per row, without the (system, task_id, repeat, step) key."""

    kind: str
    tool: str = ""
    url: str = ""
    host: str = ""
    query: str = ""
    text: str = ""
    t: float = math.nan
    tokens: int | None = None
    #: What the model call that made this step spent, as the agent counts it (None: not reported):
    #: every prompt token (cached ones included), the part of them read from a cache, every
    #: generated token (reasoning included), and the part of those spent on reasoning.
    input_tokens: int | None = None
    cached_input_tokens: int | None = None
    output_tokens: int | None = None
    reasoning_tokens: int | None = None
    #: What decided a tool call's kind: ``"known"`` (the table :data:`KNOWN_TOOLS`), ``"user"``
    #: (the user's ``tool_kinds``), ``"name"`` (the name rule alone), ``""`` (not a tool call,
    #: or a kind written in the trajectory itself).
    decided_by: str = ""
    #: Every ``http(s)`` URL written in the tool call's arguments (at most 20; :func:`~.hosts.all_urls`):
    #: where a shell command or another tool reached, for the protocol audit. Not in the steps table.
    arg_urls: tuple[str, ...] = ()


_USAGE_KEYS = ("input_tokens", "cached_input_tokens", "output_tokens", "reasoning_tokens")

#: The keys of :attr:`Trajectory.totals`: what a run spent as the agent itself reports it. ``model``
#: lists every model the run called, the one with most output tokens first (``", "``-joined);
#: ``provider_searches`` counts the web searches the model's provider ran for it (Claude's
#: ``server_tool_use.web_search_requests``, OpenAI's ``web_search_call``, Gemini's grounded
#: ``google_web_search``), None where the agent does not say.
TOTAL_KEYS: tuple[str, ...] = (
    "input_tokens", "cached_input_tokens", "output_tokens", "reasoning_tokens", "cost_usd", "seconds", "model",
    "provider_searches",
)  # fmt: skip
#: Where a run's ``seconds`` came from (``totals["seconds_source"]``, set by a reader when its
#: duration is not the agent's own report): ``reported`` (the agent's own duration: Claude Code's
#: ``duration_ms``, Codex's ``task_complete.duration_ms``, inspect_ai's ``total_time``),
#: ``timestamps`` (from the session's start, or the first line, to the last line's time),
#: ``last_step`` (the last timed step, by :func:`~sgr_kit.trajectories.trajectory_usage`),
#: ``unknown``.
SECONDS_SOURCES: tuple[str, ...] = ("reported", "timestamps", "last_step", "unknown")


@dataclass(frozen=True, slots=True)
class Trajectory:
    """One system's trajectory on one task (one repeat): its steps in order, where it was read.

    Attributes
    ----------
    system, task_id : str
    repeat : int
    steps : tuple of Step
    source : str
        ``file:line`` of a record, or the file of a one-trajectory file.
    format : str
        The format it was read as (e.g. ``"claude-code"``), ``""`` when not known.
    totals : dict or None
        What the run spent as the agent itself reports it (keys :data:`TOTAL_KEYS`, a value
        None where not reported; a reader adds ``seconds_source``, one of
        :data:`SECONDS_SOURCES`, when ``seconds`` is not the agent's own report); None when the
        format reports no totals.
    calls_totals : dict or None
        The per-call usage summed where every call's value is known.
    """

    system: str
    task_id: str
    repeat: int
    steps: tuple[Step, ...]
    source: str = ""
    format: str = ""
    totals: dict | None = None
    #: The usage of the run's model calls summed field by field (keys ``input_tokens``,
    #: ``cached_input_tokens``, ``output_tokens``, ``reasoning_tokens``), a field None unless every
    #: call reported it; None when the format does not tell its model calls.
    calls_totals: dict | None = None

    @property
    def answer(self) -> str | None:
        """The final answer: the text of the last ``answer`` step, None when there is none."""
        for step in reversed(self.steps):
            if step.kind == "answer":
                return step.text
        return None


def excerpt(text: str, *, limit: int = EXCERPT_CHARS) -> str:
    """``text`` cut to ``limit`` characters, with a note of how much was cut.

    Examples
    --------
    >>> excerpt("abcdef", limit=3)
    'abc… (3 more characters)'
    """
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit} more characters)"


#: Tools whose kind is known (looked up by full name, then by the bare name of an MCP tool
#: ``mcp__<server>__<tool>``). Claude Code's built-in tools (its documentation's tool list):
#: ``WebSearch`` and ``WebFetch`` touch the web, the others do not (``ToolSearch`` loads tool
#: definitions, ``Task``/``Agent`` start a sub-agent, ``Grep``/``Glob`` search local files). The MCP
#: servers of the paper's setup (Appendix, "Exposed tools and runtime restrictions"): Serper
#: search (``mcp-server-serper``: ``google_search``, ``scrape``) and the reference ``fetch``
#: server (``fetch``). Codex's shell and patch tools are not web tools; nor are Gemini CLI's
#: tools other than ``google_web_search`` and ``web_fetch``, Harbor terminus-2's keystrokes and
#: its ``mark_task_complete``, and inspect_ai's ``submit`` (how its ReAct agent answers).
KNOWN_TOOLS: dict[str, str] = {
    "WebSearch": "search", "WebFetch": "fetch", "web_search": "search", "google_search": "search",
    "scrape": "fetch", "fetch": "fetch",
    **dict.fromkeys((
        "Read", "Write", "Edit", "MultiEdit", "Bash", "BashOutput", "KillShell", "KillBash", "Glob", "Grep", "LS",
        "ToolSearch", "Task", "Agent", "TodoWrite", "TodoRead", "NotebookEdit", "NotebookRead", "ExitPlanMode",
        "SlashCommand", "Skill", "StructuredOutput", "ListMcpResourcesTool", "ReadMcpResourceTool",
        "AskUserQuestion", "shell", "local_shell", "exec_command", "write_stdin", "apply_patch", "update_plan",
        "view_image",
        # Gemini CLI's tools that do not touch the web (packages/core/src/tools/tool-names.ts)
        "glob", "grep_search", "search_file_content", "list_directory", "read_file", "run_shell_command",
        "write_file", "replace", "write_todos", "read_many_files", "save_memory", "activate_skill", "ask_user",
        "complete_task", "invoke_agent",
        # Harbor's terminus-2 (its keystrokes, and its end of task), inspect_ai's ReAct agent's answer tool
        "bash_command", "mark_task_complete", "submit",
    ), "tool"),
    # Gemini CLI's web tools: a search grounded by Google, and a fetch of the URLs in its prompt
    "google_web_search": "search", "web_fetch": "fetch",
}  # fmt: skip

_TOOL_KINDS: contextvars.ContextVar[Mapping[str, str] | None] = contextvars.ContextVar("sgr_kit_tool_kinds",
                                                                                       default=None)


class using_tool_kinds:  # noqa: N801 (used as a context manager, like a function)
    """A context in which :func:`tool_step` takes a user's tool kinds first (``{tool name: kind}``).

    Examples
    --------
    >>> with using_tool_kinds({"lookup": "search"}):
    ...     tool_step("lookup", {"q": "Boulenger 1890"}).kind
    'search'
    >>> tool_step("lookup", {"q": "Boulenger 1890"}).kind
    'tool'
    """

    def __init__(self, kinds: Mapping[str, str] | None) -> None:
        self.kinds = kinds
        self.token: contextvars.Token | None = None

    def __enter__(self) -> "using_tool_kinds":
        self.token = _TOOL_KINDS.set(self.kinds)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.token is not None:
            _TOOL_KINDS.reset(self.token)


def active_tool_kinds() -> Mapping[str, str] | None:
    """The user's tool kinds in force (:class:`using_tool_kinds`), None when there are none."""
    return _TOOL_KINDS.get()


def _bare(name: str) -> str:
    return name.rsplit("__", 1)[-1] if name.startswith("mcp__") else name


def kind_of_tool(name: str) -> str:
    """The step kind of a tool call by the tool's name alone (a Claude Code ``mcp__server__tool`` prefix ignored).

    Known tools (:data:`KNOWN_TOOLS`) have their kind; for others, names holding ``pdf`` are
    ``pdf``, ``search`` is ``search``, fetch-like words (``fetch``, ``browse``, ``navigate``,
    ``open_url``, ``visit``, ``scrape``...) are ``fetch``; any other tool is ``tool``. What a call
    becomes also depends on its arguments (:func:`tool_step`).

    Examples
    --------
    >>> [kind_of_tool(n) for n in ("WebSearch", "WebFetch", "mcp__papers__read_pdf", "Bash", "browser_navigate")]
    ['search', 'fetch', 'pdf', 'tool', 'fetch']
    >>> kind_of_tool("ToolSearch")
    'tool'
    """
    known = KNOWN_TOOLS.get(name, KNOWN_TOOLS.get(_bare(name)))
    return known if known is not None else _name_rule(name)


def _name_rule(name: str) -> str:
    bare = _bare(name).lower()
    if "pdf" in bare:
        return "pdf"
    if "search" in bare:
        return "search"
    if any(word in bare for word in _FETCH_WORDS):
        return "fetch"
    return "tool"


def classify_tool(name: str, kinds: Mapping[str, str] | None = None) -> tuple[str, str]:
    """``(kind, decided_by)`` of a tool by its name: the user's kinds, then :data:`KNOWN_TOOLS`, then the name rule.

    ``decided_by`` is ``"user"``, ``"known"`` or ``"name"``. A name is looked up whole, then
    without its ``mcp__<server>__`` prefix.
    """
    kinds = _TOOL_KINDS.get() if kinds is None else kinds
    for table, by in ((kinds, "user"), (KNOWN_TOOLS, "known")):
        if table:
            kind = table.get(name, table.get(_bare(name)))
            if kind is not None:
                return kind, by
    return _name_rule(name), "name"


def read_tool_kinds(source: Any) -> dict[str, str]:
    """Tool names and their kinds from a dict, or a CSV (``tool,kind``) or YAML (``tool: kind``) file.

    A kind is one of :data:`sgr_kit.schema.TOOL_KINDS` (``search``, ``fetch``, ``pdf``, ``tool``).
    A name may be written whole (``mcp__serper__google_search``) or bare (``google_search``).

    Examples
    --------
    >>> read_tool_kinds({"search_direct_flight": "tool"})
    {'search_direct_flight': 'tool'}
    >>> read_tool_kinds({"x": "web"})
    Traceback (most recent call last):
    ...
    sgr_kit.errors.SgrKitError: tool kinds: tool 'x': kind must be one of search, fetch, pdf, tool; found 'web'
    """
    where = "tool kinds"
    if isinstance(source, Mapping):
        pairs = list(source.items())
    elif isinstance(source, (str, os.PathLike)):
        path = Path(source)
        where = str(path)
        try:
            text = path.read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as exc:
            reason = getattr(exc, "strerror", None) or exc
            raise SgrKitError(f"{path}: the tool kinds file cannot be read ({reason})") from None
        if path.suffix.lower() in (".yaml", ".yml"):
            data = decode_yaml(text, path)
            if not isinstance(data, dict):
                raise SgrKitError(f"{path}: expected a mapping of tool names to kinds; found {type(data).__name__}")
            pairs = list(data.items())
        else:
            rows = list(csv.reader(io.StringIO(text)))
            if rows and [c.strip().lower() for c in rows[0][:2]] == ["tool", "kind"]:
                rows = rows[1:]
            pairs = []
            for n, row in enumerate(rows, start=2 if text.lower().startswith("tool") else 1):
                if not row or not "".join(row).strip():
                    continue
                if len(row) != 2:
                    raise SgrKitError(f"{path}:{n}: expected two columns tool,kind; found {len(row)}")
                pairs.append((row[0].strip(), row[1].strip()))
    else:
        raise SgrKitError(f"tool kinds: expected a file (CSV or YAML) or a mapping; found {type(source).__name__}")
    out: dict[str, str] = {}
    for name, kind in pairs:
        if not isinstance(name, str) or not name.strip():
            raise SgrKitError(f"{where}: a tool name must be text; found {describe(name)}")
        if kind not in TOOL_KINDS:
            raise SgrKitError(f"{where}: tool {describe(name)}: kind must be one of {', '.join(TOOL_KINDS)}; "
                              f"found {describe(kind)}")  # fmt: skip
        out[name.strip()] = kind
    return out


def _first(args: dict, keys: tuple[str, ...]) -> str:
    for key in keys:
        value = args.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            return " | ".join(v.strip() for v in value)
    return ""


def tool_step(name: str, args: Any, *, t: float = math.nan, tokens: int | None = None) -> Step:
    """The step of a tool call ``name(args)``: its kind, the URL or query it used.

    The kind is decided by the name (:func:`classify_tool`: a user's tool kinds given with
    :class:`using_tool_kinds`, then :data:`KNOWN_TOOLS`, then the name rule), and then by the
    arguments: a ``search`` needs a text query argument (``query``, ``q``, ``search_query``,
    ``queries``...), a ``fetch`` or ``pdf`` a URL; a call without one is a plain ``tool`` step
    (``search_direct_flight(origin, destination, date)`` is a tool, not a web search). The URL is
    the first of the arguments ``url``, ``uri``, ``href``, ``link`` ... or else the first
    ``http(s)`` URL written in any argument (a ``curl`` command in a shell call); a fetch of a
    ``.pdf`` path is a ``pdf`` step.

    Examples
    --------
    >>> tool_step("WebFetch", {"url": "https://arxiv.org/pdf/2101.01097.pdf", "prompt": "list"})[:4]
    ('pdf', 'WebFetch', 'https://arxiv.org/pdf/2101.01097.pdf', 'arxiv.org')
    >>> tool_step("Bash", {"command": "curl -s https://api.census.gov/data?get=NAME"}).host
    'api.census.gov'
    >>> tool_step("web_search", {"query": "Boulenger 1890 India snakes"})[:5]
    ('search', 'web_search', '', '', 'Boulenger 1890 India snakes')
    >>> tool_step("search_direct_flight", {"origin": "SFO", "destination": "JFK", "date": "2024-05-01"}).kind
    'tool'
    """
    args = args if isinstance(args, dict) else {"input": args}
    kind, by = classify_tool(name)
    url = _first(args, _URL_KEYS) if kind != "search" else ""
    if kind != "search" and not host_of(url):
        url = first_url(args) or url
    query = _first(args, _QUERY_KEYS) if kind == "search" else ""
    if kind == "search" and not query:
        kind = "tool"
    if kind == "fetch" and url.lower().split("?", 1)[0].endswith(".pdf"):
        kind = "pdf"
    if kind in ("fetch", "pdf") and not url:
        kind = "tool"
    return Step(kind=kind, tool=name, url=url, host=host_of(url), query=query, t=t, tokens=tokens, decided_by=by,
                arg_urls=all_urls(args))  # fmt: skip


def number(value: Any, *, what: str, loc: str, integer: bool = False) -> float | int | None:
    """``value`` as a number >= 0 (None for null or absent), else an error naming ``loc``."""
    if value is None:
        return None
    if type(value) is int and 0 <= value < 2**63:  # the common case, first
        return value if integer else float(value)
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool) and value >= 0
    if ok and isinstance(value, int):
        ok = value < 2**63  # (a count beyond any int64 is no count)
    elif ok:
        ok = math.isfinite(value) and (not integer or float(value).is_integer())
    if not ok:
        kind = "a whole number" if integer else "a number"
        raise SgrKitError(f"{loc}: {what} must be {kind} >= 0 or null; found {describe(value)}")
    return int(value) if integer else float(value)


def _text(value: Any, *, what: str, loc: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise SgrKitError(f"{loc}: {what} must be a string; found {describe(value)}")
    return value


def record_totals(raw: Any, *, loc: str) -> dict | None:
    """Check a record's ``totals`` (what the agent reports for the whole run) and return them.

    Keys are those of :data:`TOTAL_KEYS`, each optional (missing or null: not reported): the
    token counts whole numbers >= 0, ``cost_usd`` (USD) and ``seconds`` (the run's duration)
    numbers >= 0, ``model`` a string. ``raw`` None (no ``totals``) gives None.

    Examples
    --------
    >>> record_totals({"cost_usd": 0.42, "seconds": 812.5, "model": "m-1"}, loc="x.jsonl:3")["cost_usd"]
    0.42
    >>> record_totals({"cost_usd": "cheap"}, loc="x.jsonl:3")
    Traceback (most recent call last):
    ...
    sgr_kit.errors.SgrKitError: x.jsonl:3: totals.cost_usd must be a number >= 0 or null; found 'cheap'
    """
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise SgrKitError(f"{loc}: totals must be an object (what the agent reports for the whole run: "
                          f"{', '.join(TOTAL_KEYS)}); found {describe(raw)}")  # fmt: skip
    unknown = [k for k in raw if k not in TOTAL_KEYS]
    if unknown:
        raise SgrKitError(f"{loc}: totals.{str(unknown[0])[:60]} is not a total; expected some of "
                          f"{', '.join(TOTAL_KEYS)}")  # fmt: skip
    out: dict = {}
    for key in TOTAL_KEYS:
        if key == "model":
            model = _text(raw.get(key), what="totals.model", loc=loc).strip()
            out[key] = model or None
        else:
            out[key] = number(raw.get(key), what=f"totals.{key}", loc=loc,
                              integer=key in _USAGE_KEYS or key == "provider_searches")
    return out


def native_step(raw: Any, *, loc: str) -> Step:
    """Check one step of the documented format and return it (``loc`` names file, line and step).

    Examples
    --------
    >>> native_step({"kind": "search", "query": "cs.CV 2020 Q4 ViT", "t": 1.5}, loc="x.jsonl:3: step 0")[:5]
    ('search', '', '', '', 'cs.CV 2020 Q4 ViT')
    >>> native_step({"kind": "browse"}, loc="x.jsonl:3: step 1")
    Traceback (most recent call last):
    ...
    sgr_kit.errors.SgrKitError: x.jsonl:3: step 1: kind must be one of 'search', 'fetch', 'pdf', 'tool', \
'message', 'answer'; found 'browse'
    """
    if not isinstance(raw, dict):
        raise SgrKitError(f"{loc}: expected a step object with a kind; found {describe(raw)}")
    kind = raw.get("kind")
    if kind not in STEP_KINDS:
        raise SgrKitError(f"{loc}: kind must be one of {', '.join(map(repr, STEP_KINDS))}; found {describe(kind)}")
    args = raw.get("args", raw.get("arguments"))
    if args is not None and not isinstance(args, dict):
        raise SgrKitError(f"{loc}: args must be an object (the tool's arguments); found {type(args).__name__}")
    args = args or {}
    tool = _text(raw.get("tool"), what="tool", loc=loc)
    url = _text(raw.get("url"), what="url", loc=loc).strip() or (_first(args, _URL_KEYS) if kind != "search" else "")
    query = _text(raw.get("query"), what="query", loc=loc).strip() or (_first(args, _QUERY_KEYS) if kind == "search" else "")
    text = _text(raw.get("text"), what="text", loc=loc)
    if kind in ("fetch", "pdf") and not url:
        raise SgrKitError(f"{loc}: a {kind} step needs a url (or args.url); found none")
    if kind == "search" and not query:
        raise SgrKitError(f"{loc}: a search step needs a query (or args.query); found none")
    t = number(raw.get("t"), what="t (seconds since the start)", loc=loc)
    tokens = number(raw.get("tokens"), what="tokens", loc=loc, integer=True)
    used = {k: number(raw.get(k), what=k, loc=loc, integer=True) for k in _USAGE_KEYS}
    return Step(kind=kind, tool=tool, url=url, host=host_of(url), query=query,
                text=text if kind == "answer" else excerpt(text), t=math.nan if t is None else t,
                tokens=tokens, **used, arg_urls=all_urls(args))  # fmt: skip
