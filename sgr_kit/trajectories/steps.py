"""One step of a trajectory, one trajectory, and how a tool call becomes a step.

The documented format (README, "Trajectories") writes each step as a JSON object::

    {"kind": "fetch", "tool": "fetch", "url": "https://arxiv.org/search/advanced?...",
     "text": "an excerpt of what came back", "t": 12.5, "tokens": 812}

``kind`` is one of :data:`sgr_kit.schema.STEP_KINDS`; every other key is optional: ``tool``
(the tool's name), ``url`` (fetch and pdf steps need one), ``query`` (search steps need one),
``args`` (the tool's arguments, an object: a ``url`` or ``query`` is taken from it when not
given), ``text`` (what the step returned or said), ``t`` (seconds since the trajectory
started) and ``tokens`` (tokens of the model call that made the step). Unknown keys are
ignored. :func:`native_step` checks one; :func:`tool_step` turns an agent's tool call
(Claude Code's ``tool_use``, an OpenAI ``tool_calls`` entry) into a step.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any, NamedTuple

from ..errors import SgrKitError
from ..schema import STEP_KINDS
from .hosts import first_url, host_of

__all__ = ["EXCERPT_CHARS", "TOTAL_KEYS", "Step", "Trajectory", "excerpt", "native_step", "tool_step", "kind_of_tool"]

#: Step texts other than the final answer are cut to this many characters (the answer is kept whole).
EXCERPT_CHARS = 500

_URL_KEYS = ("url", "uri", "href", "link", "page_url", "target_url", "pdf_url", "source_url")
_QUERY_KEYS = ("query", "q", "search_query", "search_term", "queries", "question", "keywords")
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


#: The keys of :attr:`Trajectory.totals`: what a run spent as the agent itself reports it.
TOTAL_KEYS: tuple[str, ...] = (
    "input_tokens", "cached_input_tokens", "output_tokens", "reasoning_tokens", "cost_usd", "seconds", "model",
)  # fmt: skip


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
        None where not reported); None when the format reports no totals.
    """

    system: str
    task_id: str
    repeat: int
    steps: tuple[Step, ...]
    source: str = ""
    format: str = ""
    totals: dict | None = None

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


def kind_of_tool(name: str) -> str:
    """The step kind of a tool call by the tool's name (a Claude Code ``mcp__server__tool`` prefix ignored).

    Names holding ``pdf`` are ``pdf``; ``search`` is ``search``; fetch-like words (``fetch``,
    ``browse``, ``navigate``, ``open_url``, ``visit``, ``scrape``...) are ``fetch``; any other tool
    (a shell, a file reader, a sub-agent) is ``tool``.

    Examples
    --------
    >>> [kind_of_tool(n) for n in ("WebSearch", "WebFetch", "mcp__papers__read_pdf", "Bash", "browser_navigate")]
    ['search', 'fetch', 'pdf', 'tool', 'fetch']
    """
    bare = name.rsplit("__", 1)[-1].lower() if name.startswith("mcp__") else name.lower()
    if "pdf" in bare:
        return "pdf"
    if "search" in bare:
        return "search"
    if any(word in bare for word in _FETCH_WORDS):
        return "fetch"
    return "tool"


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

    The URL is the first of the arguments ``url``, ``uri``, ``href``, ``link`` ... or else the first
    ``http(s)`` URL written in any argument (a ``curl`` command in a shell call); a fetch of a
    ``.pdf`` path is a ``pdf`` step; a fetch-like call without any URL is a plain ``tool`` step.

    Examples
    --------
    >>> tool_step("WebFetch", {"url": "https://arxiv.org/pdf/2101.01097.pdf", "prompt": "list"})[:4]
    ('pdf', 'WebFetch', 'https://arxiv.org/pdf/2101.01097.pdf', 'arxiv.org')
    >>> tool_step("Bash", {"command": "curl -s https://api.census.gov/data?get=NAME"}).host
    'api.census.gov'
    >>> tool_step("web_search", {"query": "Boulenger 1890 India snakes"})[:5]
    ('search', 'web_search', '', '', 'Boulenger 1890 India snakes')
    """
    args = args if isinstance(args, dict) else {"input": args}
    kind = kind_of_tool(name)
    url = _first(args, _URL_KEYS) if kind != "search" else ""
    if kind != "search" and not host_of(url):
        url = first_url(args) or url
    query = _first(args, _QUERY_KEYS) if kind == "search" else ""
    if kind == "search" and not query:
        query = next((v.strip() for v in args.values() if isinstance(v, str) and v.strip()), "")
    if kind == "fetch" and url.lower().split("?", 1)[0].endswith(".pdf"):
        kind = "pdf"
    if kind in ("fetch", "pdf") and not url:
        kind = "tool"
    return Step(kind=kind, tool=name, url=url, host=host_of(url), query=query, t=t, tokens=tokens)


def number(value: Any, *, what: str, loc: str, integer: bool = False) -> float | int | None:
    """``value`` as a number >= 0 (None for null or absent), else an error naming ``loc``."""
    if value is None:
        return None
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool) and value >= 0 and math.isfinite(value)
    if ok and integer and float(value) != int(value):
        ok = False
    if not ok:
        kind = "a whole number" if integer else "a number"
        raise SgrKitError(f"{loc}: {what} must be {kind} >= 0 or null; found {value!r}")
    return int(value) if integer else float(value)


def _text(value: Any, *, what: str, loc: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise SgrKitError(f"{loc}: {what} must be a string; found {type(value).__name__} {value!r:.60}")
    return value


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
        raise SgrKitError(f"{loc}: expected a step object with a kind; found {type(raw).__name__} {raw!r:.60}")
    kind = raw.get("kind")
    if kind not in STEP_KINDS:
        raise SgrKitError(f"{loc}: kind must be one of {', '.join(map(repr, STEP_KINDS))}; found {kind!r}")
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
    return Step(kind=kind, tool=tool, url=url, host=host_of(url), query=query,
                text=text if kind == "answer" else excerpt(text), t=math.nan if t is None else t,
                tokens=tokens)  # fmt: skip
