"""Readers of what Codex CLI writes: ``codex exec --json`` event streams and session rollouts.

Two formats, each a ``(label, sniff, reader class)`` triple in :data:`FORMATS`:

- :data:`EXEC_LABEL`, :func:`sniff_exec`, :class:`CodexExecReader`;
- :data:`ROLLOUT_LABEL`, :func:`sniff_rollout`, :class:`CodexRolloutReader`.

A reader takes one JSON object per line (``reader.line(obj, loc="file:line")``), returns the
steps with ``reader.finish()`` and then holds in ``reader.totals`` what the run spent as Codex
itself counted it (keys :data:`~sgr_kit.trajectories.steps.TOTAL_KEYS`, None where not reported;
``totals`` is None when the file reported nothing). ``reader.notes`` lists what was read but not
turned into steps (errors Codex reported, skipped log lines, unknown line types), one sentence
each, for a caller to show.

**Lines that are not JSON.** A runner that merges Codex's standard error into its standard
output mixes Rust ``tracing`` lines (``2025-10-02T09:14:03.117Z ERROR codex_core::codex: ...``)
and messages such as ``Reading prompt from stdin...`` into the stream. :func:`is_log_line` says
whether a line that failed to parse as JSON is such a line (any line not starting with ``{``,
colour codes removed); a caller skips it and passes it to ``reader.log_line(text, loc=...)``,
which counts it for the notes. A line starting with ``{`` that is not valid JSON stays an error.

**Repeated keys.** Codex serialises a ``web_search`` item as ``{"id": "item_3", "type":
"web_search", "id": "ws_...", ...}``: the item's own id and, flattened into it, the search's id
(``ThreadItem { id, #[serde(flatten)] details }`` in ``codex-rs/exec/src/exec_events.rs``).
Python's ``json`` keeps the last value; the started and completed events of one search repeat
the same pair, so the item is still matched with itself (the id is read for nothing else).

**``codex exec --json``** (``codex-rs/exec/src/exec_events.rs``,
``event_processor_with_jsonl_output.rs``): one event per line with a ``type``:
``thread.started``, ``turn.started``, ``turn.completed`` (``usage``), ``turn.failed``
(``error.message``), ``error`` (``message``), ``item.started`` / ``item.updated`` /
``item.completed`` (an ``item`` with ``id`` and ``type``). Items become steps in the order they
started; a later event of the same item replaces the step with what it now knows:

- ``agent_message`` (``text``): a ``message`` step; the last one is the ``answer`` (Codex's own
  final message, which it writes with ``--output-last-message``), unless the turn failed;
- ``reasoning``: no step (its tokens are in the totals);
- ``command_execution`` (``command``, ``aggregated_output``, ``exit_code``, ``status``): a
  ``tool`` step named ``shell`` whose arguments are the command line, so a ``curl URL`` gives
  the step its URL; a ``failed`` or ``declined`` status prefixes the text with ``[error]``;
- ``mcp_tool_call`` (``server``, ``tool``, ``arguments``, ``result``, ``error``): a tool-call
  step named ``mcp__<server>__<tool>`` (:func:`~sgr_kit.trajectories.steps.tool_step`);
- ``web_search`` (``query``, ``action``): by its action, ``search`` is a ``search`` step (its
  ``queries`` joined by `` | `` when there are several, else its ``query``), ``open_page`` and
  ``find_in_page`` a ``fetch`` of their ``url`` (``pdf``
  for a ``.pdf``), named ``web_search``; versions before ``action`` existed wrote only
  ``query``, a search; an ``other`` action (or one without its URL) is a ``tool`` step;
- ``file_change`` (``changes``: ``path``, ``kind``), ``todo_list`` (``items``),
  ``collab_tool_call``: ``tool`` steps named after the item type (no URL is taken from them);
- ``plan`` (``text``): a ``message`` step;
- ``error`` items (warnings, a rerouted model), ``turn.failed`` and ``error`` events: no step,
  a note (they are Codex's, not a tool the agent called); after ``turn.failed`` the turn's last
  message is not an answer (Codex drops it too).

Tokens: ``turn.completed.usage`` holds ``input_tokens`` (every prompt token, cached ones
included), ``cached_input_tokens``, ``output_tokens`` (reasoning included; Codex copies the
Responses API's ``usage.output_tokens``), from 2026 ``reasoning_output_tokens`` and
``cache_write_input_tokens`` (part of input; sgr-kit has no column for it). In every version
whose source was read (the first JSON event processor, which copied the last
``token_count``'s ``total_token_usage``, to the current one, ``usage_from_last_total`` of the
thread's ``ThreadTokenUsage``), it is the **thread's running total**, not the turn's own count,
although its doc comment says "during the turn" (openai/codex issue 17539). So the totals are
the last report, never the sum of the turns. A running total never decreases: a report smaller
in some count than the one before starts a new count (a second process that did not carry the
total over), and the counts are then added, with a note. Per-step tokens are not reported.
The stream has no timestamps and names no model: ``seconds`` and ``model`` are None.

**Session rollouts** (``~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl``; each line a
``RolloutLine``: ``timestamp`` and a ``RolloutItem`` flattened as ``type`` and ``payload``,
``codex-rs/protocol/src/protocol.rs``):

- ``session_meta`` (``id``, ``timestamp``: the session's start, ``cwd``, ``cli_version``...): no
  step; ``turn_context``: its ``model`` is the model of the turn's calls (several models are
  listed the one with most output tokens first);
- ``response_item`` (``codex-rs/protocol/src/models.rs``, ``ResponseItem``): ``message`` with
  ``role: assistant`` (``output_text`` parts) a ``message`` step; ``function_call`` (``name``,
  ``arguments`` as JSON text, ``call_id``), ``custom_tool_call`` (``name``, ``input``) and
  ``local_shell_call`` (``action.command``) tool-call steps, whose ``function_call_output`` /
  ``custom_tool_call_output`` (``call_id``, ``output`` as text, content items or
  ``{"content": ...}``) give their text; MCP tools are named ``mcp__<server>__<tool>`` by
  current versions and ``<server>__<tool>`` by older ones (read as ``mcp__<server>__<tool>``:
  Codex's own tools have no ``__``); ``web_search_call`` (``action`` as above); ``reasoning``
  and other items no step;
- ``event_msg``: ``token_count`` (``info: {total_token_usage, last_token_usage}``, or ``info:
  null`` before the first count) gives the tokens; ``task_complete`` (``last_agent_message``)
  names the answer: the message step with that text becomes the ``answer`` (or it is added);
  without any ``task_complete`` a last message step (not marked ``phase: commentary``) is the
  answer. ``agent_message`` events repeat the ``response_item`` messages and are not read again,
  nor are the other events (``user_message``, ``exec_command_end``...), which repeat what the
  response items hold; ``error``, ``stream_error``, ``warning`` and ``turn_aborted`` are notes.

Tokens: ``total_token_usage`` is cumulative over a process's session (Codex adds each call's
``last_token_usage`` to it), so the totals are the **last** ``total_token_usage``, never a sum;
the fields mean what they mean in ``turn.completed`` above. A session **resumed** by a new
process (``codex resume``, Codex 0.40 and later append to the same rollout) counts again from
zero: a total smaller in some count than the one before starts a new segment, and the last
total of each segment is added, with one note naming the first line where it restarted. Each
``last_token_usage`` (one model call) is put on the first step made since the previous count
(a repeated count, same total, is not put again); a call that made no step (reasoning only) is
in the totals alone. ``seconds``: the sum of the turns' ``task_complete.duration_ms`` (Codex's
own time, ``seconds_source`` ``reported``; written by versions of 2026, e.g. 0.124) where every
``task_complete`` has one, else from ``session_meta``'s ``timestamp`` (the session's start) to
the last line's, else from the first line's (``seconds_source`` ``timestamps``); a step's ``t``
is its line's time since the first line.
"""

from __future__ import annotations

import math
import re
from datetime import datetime
from typing import Any, Callable

from ..errors import SgrKitError, describe
from .hosts import host_of
from .agents import models_by_output, tool_arguments
from .notes import ReaderNote
from .steps import TOTAL_KEYS, Step, excerpt, tool_step

__all__ = [
    "EXEC_LABEL", "ROLLOUT_LABEL", "FORMATS", "CodexExecReader", "CodexRolloutReader", "sniff_exec",
    "sniff_rollout", "is_log_line",
]  # fmt: skip

#: How notes name the event stream of ``codex exec --json``.
EXEC_LABEL = "Codex CLI exec events"
#: How notes name a Codex CLI session rollout (``~/.codex/sessions/.../rollout-*.jsonl``).
ROLLOUT_LABEL = "Codex CLI session rollout"

#: ``type`` of the events ``codex exec --json`` writes (``ThreadEvent`` in ``exec_events.rs``).
EXEC_TYPES = frozenset({
    "thread.started", "turn.started", "turn.completed", "turn.failed", "item.started", "item.updated",
    "item.completed", "item.plan.delta", "request_user_input", "error",
})  # fmt: skip
#: ``type`` of a rollout line (``RolloutItem``); each carries a ``payload`` object.
ROLLOUT_TYPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context", "compacted"})

_USAGE_KEYS = (  # Codex's name -> sgr-kit's
    ("input_tokens", "input_tokens"), ("cached_input_tokens", "cached_input_tokens"),
    ("output_tokens", "output_tokens"), ("reasoning_output_tokens", "reasoning_tokens"),
)  # fmt: skip
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def sniff_exec(obj: dict) -> bool:
    """True when ``obj`` (a file's first JSON object) is a ``codex exec --json`` event.

    Examples
    --------
    >>> sniff_exec({"type": "thread.started", "thread_id": "0199a213-81c0-7800-8aa1-bbab2a035a53"})
    True
    >>> sniff_exec({"type": "assistant", "message": {}})
    False
    """
    kind = obj.get("type")
    if not isinstance(kind, str) or kind not in EXEC_TYPES:
        return False
    if kind == "error":  # a bare error event: only with its message and nothing of another format
        return isinstance(obj.get("message"), str) and set(obj) <= {"type", "message"}
    return True


def sniff_rollout(obj: dict) -> bool:
    """True when ``obj`` is a Codex session rollout line (``type`` and a ``payload`` object).

    Examples
    --------
    >>> sniff_rollout({"timestamp": "2025-10-02T09:14:03.117Z", "type": "session_meta", "payload": {"id": "x"}})
    True
    >>> sniff_rollout({"type": "session_meta"})
    False
    """
    return isinstance(obj.get("type"), str) and obj["type"] in ROLLOUT_TYPES and isinstance(obj.get("payload"), dict)


def is_log_line(text: str) -> bool:
    """True when a line that is not JSON is a log line to skip (it does not start with ``{``).

    Examples
    --------
    >>> is_log_line("2025-10-02T09:14:03.117Z ERROR codex_core::codex: stream disconnected")
    True
    >>> is_log_line('{"type": "turn.completed", "usage": ')
    False
    """
    return not _ANSI.sub("", text).lstrip().startswith("{")


def _seconds(value: Any) -> float | None:
    if isinstance(value, str):
        try:
            stamp = datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
        except (ValueError, OverflowError, OSError):
            return None
        return stamp if math.isfinite(stamp) else None
    return None


def _obj(value: Any, what: str, at: str) -> dict:
    if not isinstance(value, dict):
        raise SgrKitError(f"{at}: {what} must be an object; found {describe(value)}")
    return value


def _str(value: Any, what: str, at: str, *, default: str | None = None) -> str:
    if value is None and default is not None:
        return default
    if not isinstance(value, str):
        raise SgrKitError(f"{at}: {what} must be text; found {describe(value)}")
    return value


def _clean(text: str) -> str:
    """``text`` with lone surrogates (from ``\\udXXX`` escapes) replaced, so it can be written out."""
    return text.encode("utf-8", "replace").decode("utf-8") if text and not text.isascii() else text


def _count(value: Any, what: str, at: str) -> int | None:
    """A token count: a whole number from 0 to 2**63 - 1 (Codex counts in ``i64``), None when absent."""
    if value is None:
        return None
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 2**63:
        raise SgrKitError(f"{at}: {what} must be a whole number from 0 to 2**63 - 1 or null; found {describe(value)}")
    return value


def _usage(value: Any, what: str, at: str) -> dict[str, int | None]:
    """Codex's ``TokenUsage`` as sgr-kit's counts (None where a count is absent)."""
    usage = _obj(value, what, at)
    return {ours: _count(usage.get(theirs), f"{what}.{theirs}", at) for theirs, ours in _USAGE_KEYS}


def _content_text(value: Any) -> str:
    """Text of a tool output: a string, a list of content items, or ``{"content": ...}``."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return _content_text(value.get("content", value.get("text")))
    if isinstance(value, list):
        return "\n".join(t for t in (_content_text(v) for v in value) if t)
    return ""


def _web_step(item: dict, at: str, t: float) -> Step:
    """The step of a ``web_search`` item or ``web_search_call`` response item, by its action."""
    action = item.get("action")
    query = item.get("query")
    query = _str(query, "web_search query", at) if query is not None else ""
    if action is None:  # versions before the action: a query only
        kind = "search" if query.strip() else "tool"
        return Step(kind=kind, tool="web_search", query=query.strip(), t=t)
    action = _obj(action, "web_search action", at)
    atype = action.get("type")
    if atype == "search":  # several queries (current versions) are joined, as a tool's list of queries is
        text = action.get("query")
        text = _str(text, "web_search action.query", at).strip() if text is not None else ""
        queries = action.get("queries")
        if queries is not None:
            if not isinstance(queries, list) or not all(isinstance(q, str) for q in queries):
                raise SgrKitError(f"{at}: web_search action.queries must be a list of texts; found {describe(queries)}")
            queries = [q.strip() for q in queries if q.strip()]
            if len(queries) > 1 or not text:
                text = " | ".join(queries) or text
        return Step(kind="search", tool="web_search", query=_clean(text or query.strip()), t=t)
    if atype in ("open_page", "find_in_page"):
        url = action.get("url")
        url = _str(url, f"web_search action.url ({atype})", at).strip() if url is not None else ""
        if not host_of(url):
            return Step(kind="tool", tool="web_search", text=atype, t=t)
        kind = "pdf" if url.lower().split("?", 1)[0].endswith(".pdf") else "fetch"
        pattern = action.get("pattern")
        text = f"find {pattern!r}" if atype == "find_in_page" and isinstance(pattern, str) else ""
        return Step(kind=kind, tool="web_search", url=url, host=host_of(url), text=text, t=t)
    return Step(kind="search" if query.strip() else "tool", tool="web_search", query=query.strip(), t=t)


class _Reader:
    """What both readers share: steps, notes, totals, skipped log lines."""

    def __init__(self) -> None:
        self.steps: list[Step] = []
        self.notes: list[ReaderNote] = []
        self.totals: dict | None = None
        self.log_lines = 0
        self._first_log = ""
        self._unknown: dict[str, int] = {}

    def log_line(self, text: str, *, loc: str) -> None:
        """Count a skipped non-JSON line (see :func:`is_log_line`) for the notes."""
        self.log_lines += 1
        if not self._first_log:
            self._first_log = f"{loc}: {_clean(text.strip())[:120]}"

    def _note(self, kind: str, place: str, detail: str = "") -> None:
        if not any(n.kind == kind for n in self.notes):  # once per file and kind: the first place
            self.notes.append(ReaderNote(kind, place, _clean(detail)))

    def _skip(self, kind: str) -> None:
        self._unknown[kind] = self._unknown.get(kind, 0) + 1

    def _finish_notes(self) -> None:
        if self.log_lines:
            self._note("lines that are not JSON skipped (log output)", self._first_log.split(": ", 1)[0],
                       f"skipped {self.log_lines} line(s) that are not JSON (log output), the first at "
                       f"{self._first_log}")  # fmt: skip
        if self._unknown:
            listed = ", ".join(f"{k} ({n})" for k, n in sorted(self._unknown.items()))
            self._note("line or item types not read here skipped", "",
                       f"skipped line or item types not read here: {_clean(listed)}")

    def _segments(self, reports: list[tuple[dict[str, int | None], str]]) -> dict[str, int | None]:
        """The running totals ``reports`` (in order) added over their segments, with a note where one restarted.

        A running total never decreases: a report smaller in some count than the one before
        starts a new segment (a second process that did not carry the total over); the last
        report of each segment is added.
        """
        total: dict[str, int | None] = dict.fromkeys(reports[0][0])
        last, restarts = reports[0][0], []
        for report, loc in reports[1:]:
            if any(report[k] is not None and last[k] is not None and report[k] < last[k] for k in report):
                restarts.append(loc)
                total = _add(total, last)
            last = report
        total = _add(total, last)
        if restarts:
            self._note(RESTARTED, restarts[0], f"totals restarted {len(restarts)} time(s), first at "
                       f"{restarts[0]} (a report smaller than the one before: a second process did not carry "
                       f"the count over): the {len(restarts) + 1} segments are added")  # fmt: skip
        return total

    def _at(self, loc: str) -> str:
        return f"{loc}: step {len(self.steps)}"


class CodexExecReader(_Reader):
    """Turns the events of one ``codex exec --json`` stream into steps (:meth:`line`, :meth:`finish`)."""

    def __init__(self) -> None:
        super().__init__()
        self._items: dict[str, int] = {}  # item id -> index of its step
        self._answer: int | None = None  # index of the last agent message of the current turn
        self._failed = False
        self._reports: list[tuple[dict[str, int | None], str]] = []  # (running total, where it was read)

    def line(self, obj: dict, *, loc: str) -> None:
        """Read one event; ``loc`` is ``file:line`` for errors."""
        kind = obj.get("type")
        at = self._at(loc)
        if not isinstance(kind, str):
            keys = _clean(", ".join(map(str, obj))) or "none"
            raise SgrKitError(f"{at}: expected a codex exec event with a type (thread.started, item.completed, "
                              f"turn.completed...); found keys {keys}")  # fmt: skip
        if kind in ("item.started", "item.updated", "item.completed"):
            self._item(_obj(obj.get("item"), f"{kind} item", at), at)
        elif kind == "thread.started":  # a new process (a resumed thread counts its items from item_0 again)
            self._items.clear()
        elif kind == "turn.started":
            self._answer, self._failed = None, False
        elif kind == "turn.completed":
            self._reports.append((_usage(obj.get("usage"), "turn.completed usage", at), loc))
        elif kind == "turn.failed":
            error = obj.get("error")
            message = error.get("message") if isinstance(error, dict) else error
            self._note("a turn failed (its last message is no answer)", loc,
                       f"the turn failed: {message if isinstance(message, str) else 'no message'}")
            self._answer, self._failed = None, True
        elif kind == "error":
            message = obj.get("message")
            self._note("Codex reported errors (no step)", loc,
                       f"Codex reported an error: {message if isinstance(message, str) else 'no message'}")
        elif kind != "item.plan.delta":
            self._skip(kind)

    def _item(self, item: dict, at: str) -> None:
        itype = item.get("type")
        iid = item.get("id")
        key = iid if isinstance(iid, str) else None
        if not isinstance(itype, str):
            raise SgrKitError(f"{at}: an item needs a type (agent_message, command_execution...); found {describe(itype)}")
        if itype == "reasoning":
            return
        if itype == "error":
            message = item.get("message")
            self._note("Codex reported errors (no step)", at.rsplit(": step", 1)[0],
                       f"Codex reported: {message if isinstance(message, str) else 'an error without a message'}")
            return
        step = self._step(itype, item, at)
        if step is None:
            self._skip(f"item {itype}")
            return
        index = self._items.get(key) if key is not None else None
        if index is None:
            index = len(self.steps)
            self.steps.append(step)
            if key is not None:
                self._items[key] = index
        else:
            self.steps[index] = step._replace(t=self.steps[index].t)
        if itype == "agent_message":
            self._answer = index
            self._failed = False

    @staticmethod
    def _step(itype: str, item: dict, at: str) -> Step | None:
        if itype in ("agent_message", "plan"):
            return Step(kind="message", text=_clean(_str(item.get("text"), f"{itype} text", at)))
        if itype == "command_execution":
            command = _str(item.get("command"), "command_execution command", at)
            output = _str(item.get("aggregated_output"), "command_execution aggregated_output", at, default="")
            status = item.get("status")
            step = tool_step("shell", {"command": _clean(command)})
            error = "[error] " if status in ("failed", "declined") else ""
            return step._replace(text=excerpt(error + _clean(output)))
        if itype == "mcp_tool_call":
            server = _str(item.get("server"), "mcp_tool_call server", at)
            tool = _str(item.get("tool"), "mcp_tool_call tool", at)
            args = item.get("arguments")
            step = tool_step(_clean(f"mcp__{server}__{tool}"), args if args is not None else {})
            error, result = item.get("error"), item.get("result")
            if isinstance(error, dict) and error.get("message") is not None:
                text = "[error] " + _content_text(error.get("message"))
            else:
                text = _content_text(result.get("content")) if isinstance(result, dict) else ""
            return step._replace(text=excerpt(_clean(text)))
        if itype == "web_search":
            return _web_step(item, at, math.nan)
        if itype == "file_change":
            changes = item.get("changes")
            if not isinstance(changes, list):
                raise SgrKitError(f"{at}: file_change changes must be a list; found {type(changes).__name__}")
            paths = [f"{c.get('kind', '')} {c.get('path', '')}".strip() for c in changes if isinstance(c, dict)]
            return Step(kind="tool", tool="file_change", text=excerpt(_clean("\n".join(map(str, paths)))))
        if itype == "todo_list":
            items = item.get("items")
            if not isinstance(items, list):
                raise SgrKitError(f"{at}: todo_list items must be a list; found {type(items).__name__}")
            texts = [str(i.get("text", "")) for i in items if isinstance(i, dict)]
            return Step(kind="tool", tool="todo_list", text=excerpt(_clean("\n".join(texts))))
        if itype == "collab_tool_call":
            return Step(kind="tool", tool=f"collab_tool_call {_clean(str(item.get('tool', '')))}".strip())
        return None

    def finish(self) -> list[Step]:
        """The steps (the last agent message as the ``answer``); sets :attr:`totals` and :attr:`notes`."""
        if self._answer is not None and not self._failed:
            self.steps[self._answer] = self.steps[self._answer]._replace(kind="answer")
        self._totals()
        self._finish_notes()
        return [s._replace(text=excerpt(s.text)) if s.kind == "message" else s for s in self.steps]

    def _totals(self) -> None:
        if not self._reports:
            return
        total = self._segments(self._reports)
        if len(self._reports) > 1 and not any(n.kind == RESTARTED for n in self.notes):
            self._note("several turn.completed reports: the last one is the run's total (Codex reports the "
                       "thread's running total)", self._reports[-1][1],
                       f"{len(self._reports)} turn.completed reports: the last one is the run's total "
                       "(Codex reports the thread's running total)")  # fmt: skip
        self.totals = {**dict.fromkeys(TOTAL_KEYS), **total}

#: The note's kind when a running total went down (the segments are added).
RESTARTED = ("totals restarted (a report smaller than the one before: a second process did not carry the count "
             "over): the segments are added")


def _add(a: dict[str, int | None], b: dict[str, int | None]) -> dict[str, int | None]:
    """Counts added key by key; a count unknown in ``b`` keeps ``a``'s, both unknown stay unknown."""
    return {k: (b[k] if a[k] is None else a[k] if b[k] is None else a[k] + b[k]) for k in a}


class CodexRolloutReader(_Reader):
    """Turns the lines of one Codex session rollout (``rollout-*.jsonl``) into steps."""

    def __init__(self) -> None:
        super().__init__()
        self._calls: dict[str, int] = {}  # call_id -> index of its step
        self._since = 0  # index of the first step made since the last token count
        self._total: dict[str, int | None] | None = None
        self._reports: list[tuple[dict[str, int | None], str]] = []  # (running total, where), each new count
        self._models: dict[str, int | None] = {}  # model -> output tokens of its calls (last_token_usage)
        self._model: str | None = None  # the model of the current turn
        self._start: float | None = None  # session_meta's timestamp: when the session started
        self._durations: list[float | None] = []  # task_complete.duration_ms of each turn, in seconds
        self._t0: float | None = None
        self._t1: float | None = None
        self._answer_text: str | None = None
        self._commentary: set[int] = set()  # message steps Codex marked as commentary (not an answer)

    def _when(self, obj: dict) -> float:
        stamp = _seconds(obj.get("timestamp"))
        if stamp is None:
            return math.nan
        if self._t0 is None:
            self._t0 = stamp
        self._t1 = stamp if self._t1 is None else max(self._t1, stamp)
        return max(stamp - self._t0, 0.0)

    def line(self, obj: dict, *, loc: str) -> None:
        """Read one rollout line; ``loc`` is ``file:line`` for errors."""
        kind = obj.get("type")
        at = self._at(loc)
        if not isinstance(kind, str):
            keys = _clean(", ".join(map(str, obj))) or "none"
            raise SgrKitError(f"{at}: expected a Codex rollout line with a type (session_meta, response_item, "
                              f"event_msg, turn_context); found keys {keys}")  # fmt: skip
        t = self._when(obj)
        if kind not in ROLLOUT_TYPES:
            self._skip(kind)
            return
        payload = _obj(obj.get("payload"), f"the payload of a {kind} line", at)
        if kind == "response_item":
            self._response_item(payload, at, t)
        elif kind == "event_msg":
            self._event(payload, at)
        elif kind in ("turn_context", "session_meta"):
            model = payload.get("model")
            if model is not None:
                model = _clean(_str(model, f"{kind} model", at))
                if model:
                    self._model = model
                    self._models.setdefault(model, None)
            if kind == "session_meta":
                start = _seconds(payload.get("timestamp"))
                if start is not None and self._start is None:
                    self._start = start

    def _response_item(self, item: dict, at: str, t: float) -> None:
        itype = item.get("type")
        if itype == "message":
            if item.get("role") != "assistant":
                return
            content = item.get("content")
            if isinstance(content, str):
                text = content
            elif isinstance(content, list):
                text = "\n".join(_str(c.get("text"), "message content text", at) for c in content
                                 if isinstance(c, dict) and c.get("type") in ("output_text", "text"))  # fmt: skip
            else:
                raise SgrKitError(f"{at}: an assistant message needs content (a list of output_text parts); "
                                  f"found {type(content).__name__}")  # fmt: skip
            if text.strip():
                if item.get("phase") == "commentary":
                    self._commentary.add(len(self.steps))
                self.steps.append(Step(kind="message", text=_clean(text), t=t))
        elif itype in ("function_call", "custom_tool_call"):
            name = _clean(_str(item.get("name"), f"{itype} name", at))
            if not name:
                raise SgrKitError(f"{at}: a {itype} needs a name; found ''")
            if "__" in name and not name.startswith("mcp__"):
                name = f"mcp__{name}"  # older versions: <server>__<tool>
            if itype == "function_call":
                raw = item.get("arguments")
                args = tool_arguments(raw, name, at)
            else:
                args = {"input": _clean(_str(item.get("input"), "custom_tool_call input", at, default=""))}
            self._call(item, tool_step(name, args, t=t), at)
        elif itype == "local_shell_call":
            action = item.get("action")
            command = action.get("command") if isinstance(action, dict) else None
            self._call(item, tool_step("local_shell", {"command": command if command is not None else ""}, t=t), at)
        elif itype in ("function_call_output", "custom_tool_call_output"):
            call_id = item.get("call_id")
            index = self._calls.get(call_id) if isinstance(call_id, str) else None
            if index is not None:
                output = item.get("output")
                failed = isinstance(output, dict) and output.get("success") is False
                text = ("[error] " if failed else "") + _content_text(output)
                self.steps[index] = self.steps[index]._replace(text=excerpt(_clean(text)))
        elif itype == "web_search_call":
            self.steps.append(_web_step(item, at, t))
        elif itype not in ("reasoning", "ghost_snapshot", "compaction", "compaction_summary"):
            self._skip(f"response_item {itype}")

    def _call(self, item: dict, step: Step, at: str) -> None:
        call_id = item.get("call_id")
        if isinstance(call_id, str):
            self._calls[call_id] = len(self.steps)
        self.steps.append(step)

    def _event(self, payload: dict, at: str) -> None:
        etype = payload.get("type")
        if etype == "token_count":
            info = payload.get("info")
            if info is None:
                return
            info = _obj(info, "token_count info", at)
            total = _usage(info.get("total_token_usage"), "token_count info.total_token_usage", at)
            last = info.get("last_token_usage")
            last = _usage(last, "token_count info.last_token_usage", at) if last is not None else None
            if total == self._total:  # the same count again (Codex repeats it with new rate limits)
                return
            self._total = total
            self._reports.append((total, at.rsplit(": step", 1)[0]))
            if last is not None and self._model is not None:
                out = last["output_tokens"]
                known = self._models.get(self._model)
                self._models[self._model] = out if known is None else known + (out or 0)
            if last is not None and self._since < len(self.steps):
                step = self.steps[self._since]
                known = [last["input_tokens"], last["output_tokens"]]
                self.steps[self._since] = step._replace(
                    input_tokens=last["input_tokens"], cached_input_tokens=last["cached_input_tokens"],
                    output_tokens=last["output_tokens"], reasoning_tokens=last["reasoning_tokens"],
                    tokens=sum(known) if None not in known else None)  # fmt: skip
            self._since = len(self.steps)
        elif etype == "task_complete":
            duration = payload.get("duration_ms")
            self._durations.append(None if duration is None else
                                   _count(duration, "task_complete duration_ms", at) / 1000)  # fmt: skip
            message = payload.get("last_agent_message")
            if message is not None:
                message = _clean(_str(message, "task_complete last_agent_message", at))
            self._answer_text = message
        elif etype in ("error", "stream_error", "turn_aborted", "warning"):
            message = payload.get("message", payload.get("reason"))
            self._note(f"Codex reported {etype} events (no step)", at.rsplit(": step", 1)[0],
                       f"Codex reported {etype}: {message if isinstance(message, str) else 'no message'}")

    def finish(self) -> list[Step]:
        """The steps (with the answer); sets :attr:`totals` and :attr:`notes`."""
        answer = self._answer_index()
        steps = []
        for i, s in enumerate(self.steps):
            steps.append(s._replace(kind="answer") if i == answer else
                         s._replace(text=excerpt(s.text)) if s.kind == "message" else s)  # fmt: skip
        known = self._t0 is not None and self._t1 is not None
        if answer is None and self._answer_text is not None:
            steps.append(Step(kind="answer", text=self._answer_text, t=self._t1 - self._t0 if known else math.nan))
        totals = dict.fromkeys(TOTAL_KEYS)
        if self._reports:
            totals.update(self._segments(self._reports))
        if self._durations and None not in self._durations:  # Codex's own time of each turn, added
            totals["seconds"] = sum(self._durations)  # type: ignore[arg-type]
        elif self._start is not None and self._t1 is not None:  # from the session's start to its last line
            totals.update(seconds=max(self._t1 - self._start, 0.0), seconds_source="timestamps")
        elif known:
            totals.update(seconds=self._t1 - self._t0, seconds_source="timestamps")
        totals["model"] = models_by_output(self._models)
        self.totals = totals if any(v is not None for v in totals.values()) else None
        self._finish_notes()
        return steps

    def _answer_index(self) -> int | None:
        messages = [i for i, s in enumerate(self.steps) if s.kind == "message"]
        if self._answer_text is not None:
            for i in reversed(messages):
                if self.steps[i].text.strip() == self._answer_text.strip():
                    return i
            return None
        if self.steps and self.steps[-1].kind == "message" and len(self.steps) - 1 not in self._commentary:
            return len(self.steps) - 1
        return None


#: The formats of this module: ``(label, sniff, reader class)``.
FORMATS: tuple[tuple[str, Callable[[dict], bool], type], ...] = (
    (EXEC_LABEL, sniff_exec, CodexExecReader),
    (ROLLOUT_LABEL, sniff_rollout, CodexRolloutReader),
)
