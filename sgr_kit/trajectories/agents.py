"""Readers of what agents write: Claude Code ``stream-json`` transcripts and session logs, OpenAI
Responses API items and OpenAI-style chat messages.

Each is read one line (one JSON object) at a time by a small state machine that turns the
agent's messages into :class:`~sgr_kit.trajectories.steps.Step` objects; nothing but the
current trajectory's steps is held. Every reader has ``line(obj, *, loc)``, ``finish()`` (the
steps), ``totals`` (what the run spent as the agent itself reports it, or None) and
``calls_usage()`` (the usage of each model call, to sum when every call reported it).

**Claude Code** (``claude -p ... --output-format stream-json --verbose``; 2.1.x): one JSON object
per line with a ``type``:

- ``system`` (``subtype: init``: session, tools, model; other subtypes): no step;
- ``assistant``: ``message.content`` is a list of blocks, one block per line as the message
  streams (each line repeating ``message.id`` and the usage of the message's start); a ``text``
  block is a ``message`` step, a ``tool_use`` block (``id``, ``name``, ``input``; MCP tools are
  named ``mcp__<server>__<tool>``) is a tool-call step
  (:func:`~sgr_kit.trajectories.steps.tool_step`); ``thinking`` blocks make no step.
  ``message.usage`` is kept per message id (each field's largest value over its lines; input is
  ``input_tokens + cache_read_input_tokens + cache_creation_input_tokens``, cached input
  ``cache_read_input_tokens``) and put on the message's first step, wherever it sat (a thinking
  block's too); the output count of a message whose every line says ``"stop_reason": null`` is
  the stream's placeholder and stays unknown;
- ``user``: ``message.content`` blocks of type ``tool_result`` (``tool_use_id``, ``content`` as text
  or a list of text blocks, ``is_error``) give the text of the tool call they answer; a plain
  prompt is no step;
- ``result``: the run's end; its ``result`` text is the ``answer`` step, at ``duration_ms / 1000``
  seconds (a last message of the same text becomes that answer: one answer), and its
  ``modelUsage`` (every model the run called), else ``usage``, its ``total_cost_usd`` and
  ``duration_ms`` are the run's totals. A transcript without a ``result`` line has no answer
  (scored ``missing``).

Other line types (``rate_limit_event``, ``stream_event``, and types later versions add) are
skipped. A line's ``timestamp`` (ISO 8601), when present, gives the steps' time since the first
one. **Claude Code session logs** (``~/.claude/projects/<project>/<session>.jsonl``) hold the
same ``assistant`` and ``user`` lines (with ``uuid``, ``parentUuid``, ``sessionId``), lines of
type ``summary`` or ``file-history-snapshot``, and no ``result`` line: the last assistant text
is the answer (:class:`ClaudeSessionReader`).

**OpenAI Responses API** items: see :class:`ResponsesReader`.

**OpenAI-style chat messages** (Chat Completions): one message per line, or the list under a
record's ``messages``. ``role: assistant`` messages with ``content`` (text, or a list of
``{"type": "text", "text": ...}`` parts) are ``message`` steps, each of their ``tool_calls``
(``{"id", "type": "function", "function": {"name", "arguments"}}``, ``arguments`` a JSON
string) a tool-call step; ``role: tool`` messages (``tool_call_id``, ``content``) give the text
of the call they answer; ``system`` and ``user`` messages are no steps. The last assistant
message with text and no tool calls is the ``answer``. A message's ``usage``
(``prompt_tokens``, ``completion_tokens``, ``prompt_tokens_details.cached_tokens``,
``completion_tokens_details.reasoning_tokens``, ``total_tokens``) and ``timestamp`` or
``created`` are read when a logger wrote them.
"""

from __future__ import annotations

import json
import math
from datetime import datetime
from typing import Any

from ..errors import SgrKitError, describe
from .hosts import host_of
from .steps import Step, excerpt, number, tool_step

__all__ = ["ClaudeCodeReader", "ClaudeSessionReader", "ChatReader", "ResponsesReader"]


def _block_text(content: Any) -> str:
    """Text of a tool result or message content: a string, or a list of text blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict) and isinstance(block.get("text"), str):
                parts.append(block["text"])
        return "\n".join(parts)
    return ""


def _seconds(value: Any) -> float | None:
    """A timestamp (ISO 8601 text or Unix seconds) as Unix seconds; None when absent or unreadable."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            stamp = float(value)
        except OverflowError:
            return None
        return stamp if math.isfinite(stamp) else None
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
        except ValueError:
            return None
    return None


class _Base:
    def __init__(self) -> None:
        self.steps: list[Step] = []
        self.calls: dict[str, int] = {}  # tool call id -> index of its step
        self.t0: float | None = None
        self.totals: dict | None = None

    def when(self, obj: dict) -> float:
        stamp = _seconds(obj.get("timestamp"))
        if stamp is None:
            return math.nan
        if self.t0 is None:
            self.t0 = stamp
        return max(stamp - self.t0, 0.0)

    def result(self, call_id: Any, content: Any, *, error: bool = False) -> None:
        index = self.calls.get(call_id) if isinstance(call_id, str) else None
        if index is None:
            return
        text = _block_text(content)
        self.steps[index] = self.steps[index]._replace(text=excerpt(("[error] " if error else "") + text))

    def finish(self) -> list[Step]:
        # tool results were cut when read; messages are kept whole until now (the last may be the answer)
        return [s._replace(text=excerpt(s.text)) if s.kind == "message" else s for s in self.steps]


#: The usage of one model call, in the order of :meth:`calls_usage`'s tuples.
_CALL_KEYS = ("input_tokens", "cached_input_tokens", "output_tokens", "reasoning_tokens")


def _arguments(raw: Any, name: str, at: str) -> Any:
    """A tool call's arguments: a JSON text (as OpenAI writes them) read, anything else as it is."""
    if not isinstance(raw, str):
        return raw if raw is not None else {}
    try:
        return json.loads(raw) if raw.strip() else {}
    except json.JSONDecodeError as exc:
        raise SgrKitError(f"{at}: the arguments of tool call {describe(name)} are not valid JSON "
                          f"({exc.msg} at column {exc.colno}): {describe(raw)}") from None  # fmt: skip
    except RecursionError:
        raise SgrKitError(f"{at}: the arguments of tool call {describe(name)} are nested too deeply to read") from None
    except ValueError:  # an integer of more digits than Python converts
        raise SgrKitError(f"{at}: the arguments of tool call {describe(name)} cannot be read (an integer of more digits "
                          "than Python converts)") from None


def _usage_number(usage: dict, key: str, at: str) -> int | None:
    return number(usage.get(key), what=f"usage.{key}", loc=at, integer=True)


def _anthropic_usage(usage: Any, at: str) -> tuple[int | None, int | None, int | None] | None:
    """``(input, cached input, output)`` of an Anthropic ``usage`` object (None when there is none).

    Input is every prompt token: ``input_tokens`` (the uncached part) plus
    ``cache_read_input_tokens`` and ``cache_creation_input_tokens``; cached input is
    ``cache_read_input_tokens``.
    """
    if not isinstance(usage, dict):
        return None
    plain = _usage_number(usage, "input_tokens", at)
    read = _usage_number(usage, "cache_read_input_tokens", at)
    written = _usage_number(usage, "cache_creation_input_tokens", at)
    output = _usage_number(usage, "output_tokens", at)
    total = None if plain is None else plain + (read or 0) + (written or 0)
    return total, read, output


def _sum_known(values: list[int | None]) -> int | None:
    return None if not values or any(v is None for v in values) else sum(values)  # type: ignore[arg-type]


def _max_known(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else max(a, b)


class ClaudeCodeReader(_Base):
    """Turns the lines of one Claude Code ``stream-json`` transcript into steps (:meth:`line`, :meth:`finish`).

    Usage is kept per message id as the message grows: each field's largest value over the
    lines of that id. A message whose every line says ``"stop_reason": null`` was written while
    it streamed: its input counts are final (they are known when a message starts), its output
    count is a placeholder and stays unknown. :attr:`totals` is the ``result`` line's summary.
    """

    #: A transcript without a ``result`` line: is its last text the answer? (a session log: yes)
    last_text_is_answer = False

    def __init__(self) -> None:
        super().__init__()
        self.usage: dict[str, list] = {}  # message id -> [input, cached, output, final]
        self.first_step: dict[str, int] = {}  # message id -> index of its first step
        self.step_message: list[str] = []  # message id of each step ("" for none)
        self.totals: dict | None = None
        self.model: str | None = None
        self.anonymous = 0

    def line(self, obj: dict, *, loc: str) -> None:
        """Read one line's object; ``loc`` is ``file:line`` for errors."""
        kind = obj.get("type")
        if not isinstance(kind, str):
            raise SgrKitError(
                f"{loc}: step {len(self.steps)}: expected a Claude Code stream-json line with a type "
                f"(system, assistant, user, result); found keys {', '.join(map(str, obj)) or 'none'}"
            )
        if kind == "assistant":
            self._assistant(obj, loc=loc)
        elif kind == "user":
            message = obj.get("message")
            content = message.get("content") if isinstance(message, dict) else None
            for block in content if isinstance(content, list) else ():
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    self.result(block.get("tool_use_id"), block.get("content"), error=bool(block.get("is_error")))
        elif kind == "system":
            if isinstance(obj.get("model"), str):
                self.model = obj["model"]
        elif kind == "result":
            self._result(obj, loc=loc)
        # rate_limit_event, stream_event, summary, file-history-snapshot and later types: no step

    def _result(self, obj: dict, *, loc: str) -> None:
        at = f"{loc}: step {len(self.steps)}"
        text = obj.get("result")
        if text is not None and not isinstance(text, str):
            raise SgrKitError(f"{at}: the result line's result must be text; found {type(text).__name__}")
        duration = number(obj.get("duration_ms"), what="duration_ms", loc=at)
        cost = number(obj.get("total_cost_usd"), what="total_cost_usd", loc=at)
        usage = obj.get("usage") if isinstance(obj.get("usage"), dict) else None
        used = _anthropic_usage(usage, at)
        details = usage.get("output_tokens_details") if usage is not None else None
        thinking = number(details.get("thinking_tokens"), what="usage.output_tokens_details.thinking_tokens", loc=at,
                          integer=True) if isinstance(details, dict) else None  # fmt: skip
        models = obj.get("modelUsage") if isinstance(obj.get("modelUsage"), dict) else {}
        per_model = []
        for name, mu in models.items():
            if not isinstance(mu, dict):
                continue
            w = f"{at}: modelUsage.{str(name)[:60]}"
            got = {k: number(mu.get(k), what=k, loc=w, integer=True) for k in (
                "inputTokens", "cacheReadInputTokens", "cacheCreationInputTokens", "outputTokens", "thinkingTokens")}
            plain = got["inputTokens"]
            per_model.append((None if plain is None else plain + (got["cacheReadInputTokens"] or 0)
                              + (got["cacheCreationInputTokens"] or 0), got["cacheReadInputTokens"],
                              got["outputTokens"], got["thinkingTokens"],
                              number(mu.get("costUSD"), what="costUSD", loc=w)))  # fmt: skip
        if per_model and all(m[0] is not None and m[2] is not None for m in per_model):
            # every model the run called (a sub-agent's or a smaller model's too), as total_cost_usd counts them;
            # the usage object holds the main model's alone
            used = (_sum_known([m[0] for m in per_model]), _sum_known([m[1] for m in per_model]),
                    _sum_known([m[2] for m in per_model]))
            thinking = _sum_known([m[3] for m in per_model]) if any(m[3] is not None for m in per_model) else thinking
            if cost is None:
                cost = _sum_known([m[4] for m in per_model])  # type: ignore[arg-type]
        model = ",".join(str(k) for k in models) if models else self.model
        self.totals = {
            "input_tokens": used[0] if used else None, "cached_input_tokens": used[1] if used else None,
            "output_tokens": used[2] if used else None, "reasoning_tokens": thinking, "cost_usd": cost,
            "seconds": duration / 1000 if duration is not None else None, "model": model,
        }
        if text is None:
            return
        t = duration / 1000 if duration is not None else self.when(obj)
        answer = Step(kind="answer", text=text, t=t)
        # the result repeats the last message's text: that message becomes the answer (one answer)
        if self.steps and self.steps[-1].kind == "message":
            mid = self.step_message[-1]
            first = len(self.steps) - 1
            while first > 0 and self.steps[first - 1].kind == "message" and self.step_message[first - 1] == mid:
                first -= 1
            said = "".join("".join(s.text for s in self.steps[first:]).split())
            if said == "".join(text.split()):
                answer = self.steps[first]._replace(kind="answer", text=text, t=t)
                del self.steps[first + 1:], self.step_message[first + 1:]
                self.steps[first] = answer
                return
        self.steps.append(answer)
        self.step_message.append("")

    def _assistant(self, obj: dict, *, loc: str) -> None:
        message = obj.get("message")
        at = f"{loc}: step {len(self.steps)}"
        if not isinstance(message, dict) or not isinstance(message.get("content"), (list, str)):
            raise SgrKitError(f"{at}: an assistant line needs message.content (a list of blocks); "
                              f"found {type(message).__name__ if not isinstance(message, dict) else 'none'}")  # fmt: skip
        t = self.when(obj)
        mid = message.get("id")
        if mid is None:
            self.anonymous += 1
            mid = f"\0line {self.anonymous}"
        elif not isinstance(mid, str):
            raise SgrKitError(f"{at}: message.id must be text; found {describe(mid)}")
        used = _anthropic_usage(message.get("usage"), at)
        if used is not None:
            final = "stop_reason" not in message or message["stop_reason"] is not None
            known = self.usage.get(mid)
            if known is None:
                self.usage[mid] = [*used, final]
            else:
                self.usage[mid] = [*(_max_known(a, b) for a, b in zip(known[:3], used)), known[3] or final]
        content = message["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        for block in blocks:
            at = f"{loc}: step {len(self.steps)}"
            if not isinstance(block, dict):
                raise SgrKitError(f"{at}: a content block must be an object; found {type(block).__name__}")
            btype = block.get("type")
            if btype == "text":
                if not isinstance(block.get("text"), str):
                    raise SgrKitError(f"{at}: a text block needs text; found {describe(block.get('text'))}")
                if not block["text"].strip():
                    continue
                step = Step(kind="message", text=block["text"], t=t)
            elif btype in ("tool_use", "server_tool_use"):
                name = block.get("name")
                if not isinstance(name, str) or not name:
                    raise SgrKitError(f"{at}: a tool_use block needs a name; found {describe(name)}")
                step = tool_step(name, block.get("input") or {}, t=t)
                if isinstance(block.get("id"), str):
                    self.calls[block["id"]] = len(self.steps)
            else:  # thinking, redacted_thinking, and block types not known here (their usage is counted)
                continue
            self.first_step.setdefault(mid, len(self.steps))
            self.steps.append(step)
            self.step_message.append(mid)

    def finish(self) -> list[Step]:
        if self.last_text_is_answer and self.steps and self.steps[-1].kind == "message":
            self.steps[-1] = self.steps[-1]._replace(kind="answer")
        for mid, (inp, cached, out, final) in self.usage.items():
            index = self.first_step.get(mid)
            if index is None:
                continue  # a message of thinking only: counted in totals_of_steps, on no step
            out = out if final else None
            self.steps[index] = self.steps[index]._replace(
                input_tokens=inp, cached_input_tokens=cached, output_tokens=out,
                tokens=None if inp is None or out is None else inp + out)
        return super().finish()

    def calls_usage(self) -> list[tuple[int | None, int | None, int | None, int | None]]:
        """``(input, cached, output, reasoning)`` of every model call (message id), placed on a step or not."""
        return [(inp, cached, out if final else None, None) for inp, cached, out, final in self.usage.values()]


class ClaudeSessionReader(ClaudeCodeReader):
    """A Claude Code session log (``~/.claude/projects/<project>/<session>.jsonl``).

    No ``result`` line: the last assistant text is the answer, and there are no totals.
    """

    last_text_is_answer = True


class ChatReader(_Base):
    """Turns OpenAI-style chat messages (one at a time, :meth:`line`) into steps."""

    def __init__(self) -> None:
        super().__init__()
        self.last_plain: int | None = None  # index of the last assistant text without tool calls
        self.calls_seen: list[tuple] = []  # the usage of every assistant message (one model call each)

    def line(self, obj: dict, *, loc: str) -> None:
        """Read one chat message; ``loc`` names the file, line (and message) for errors."""
        role = obj.get("role")
        at = f"{loc}: step {len(self.steps)}"
        if not isinstance(role, str):
            raise SgrKitError(f"{at}: expected a chat message with a role; found keys {', '.join(map(str, obj)) or 'none'}")
        if role == "tool" or role == "function":
            self.result(obj.get("tool_call_id", obj.get("name")), obj.get("content"))
            return
        if role != "assistant":
            return
        t = self.when(obj) if "timestamp" in obj else self._created(obj)
        used = self._usage(obj.get("usage"), at)
        self.calls_seen.append(tuple(used.get(k) for k in _CALL_KEYS))
        calls = obj.get("tool_calls") or []
        if not isinstance(calls, list):
            raise SgrKitError(f"{at}: tool_calls must be a list; found {type(calls).__name__}")
        if isinstance(obj.get("function_call"), dict):  # the older single-call form
            calls = [*calls, {"id": obj["function_call"].get("name"), "function": obj["function_call"]}]
        text = _block_text(obj.get("content"))
        self.last_plain = None
        if text.strip():
            self.steps.append(Step(kind="message", text=text, t=t)._replace(**used))
            used = {}
            if not calls:
                self.last_plain = len(self.steps) - 1
        for call in calls:
            at = f"{loc}: step {len(self.steps)}"
            function = call.get("function") if isinstance(call, dict) else None
            name = function.get("name") if isinstance(function, dict) else None
            if not isinstance(name, str) or not name:
                raise SgrKitError(f"{at}: a tool call needs function.name; found {describe(call)}")
            args = _arguments(function.get("arguments"), name, at)
            if isinstance(call.get("id"), str):
                self.calls[call["id"]] = len(self.steps)
            self.steps.append(tool_step(name, args, t=t)._replace(**used))
            used = {}

    def calls_usage(self) -> list[tuple]:
        return list(self.calls_seen)

    def _created(self, obj: dict) -> float:
        stamp = _seconds(obj.get("created"))
        if stamp is None:
            return math.nan
        if self.t0 is None:
            self.t0 = stamp
        return max(stamp - self.t0, 0.0)

    @staticmethod
    def _usage(usage: Any, at: str) -> dict:
        """The step fields of a Chat Completions ``usage`` (``prompt_tokens``, ``completion_tokens``, their details)."""
        if not isinstance(usage, dict):
            return {}
        prompt = _usage_number(usage, "prompt_tokens", at)
        completion = _usage_number(usage, "completion_tokens", at)
        total = _usage_number(usage, "total_tokens", at)
        pd_, cd_ = usage.get("prompt_tokens_details"), usage.get("completion_tokens_details")
        cached = number(pd_.get("cached_tokens"), what="usage.prompt_tokens_details.cached_tokens", loc=at,
                        integer=True) if isinstance(pd_, dict) else None  # fmt: skip
        reasoning = number(cd_.get("reasoning_tokens"), what="usage.completion_tokens_details.reasoning_tokens",
                           loc=at, integer=True) if isinstance(cd_, dict) else None  # fmt: skip
        if total is None and prompt is not None and completion is not None:
            total = prompt + completion
        return {"tokens": total, "input_tokens": prompt, "cached_input_tokens": cached,
                "output_tokens": completion, "reasoning_tokens": reasoning}

    def finish(self) -> list[Step]:
        if self.last_plain is not None and self.last_plain == len(self.steps) - 1:
            self.steps[-1] = self.steps[-1]._replace(kind="answer")
        return super().finish()


#: ``type`` of the OpenAI Responses API output items read here (and of a whole ``response`` object).
RESPONSES_TYPES = frozenset({"function_call", "function_call_output", "web_search_call", "reasoning", "message",
                             "custom_tool_call", "custom_tool_call_output", "response"})  # fmt: skip


class ResponsesReader(_Base):
    """Turns OpenAI Responses API output items (one at a time, :meth:`line`) into steps.

    Items: ``function_call`` (``name``, ``arguments`` a JSON text, ``call_id``) and
    ``custom_tool_call`` (``input`` text) are tool-call steps; ``function_call_output``
    (``call_id``, ``output``) gives the text of the call it answers; ``web_search_call`` is a
    ``search`` step by its ``action`` (``{"type": "search", "query", "queries"}``) or a ``fetch`` of
    its URL (``open_page``; ``find``, called ``find_in_page`` by Codex); a ``message`` with
    ``role: assistant`` and ``output_text``
    parts is a ``message`` step, the last one (with no tool call after it) the ``answer``;
    ``reasoning`` items and input messages are no steps. A whole ``response`` object
    (``"object": "response"``) is one model call: its ``output`` items are read in order and its
    ``usage`` (``input_tokens``, ``input_tokens_details.cached_tokens``, ``output_tokens``,
    ``output_tokens_details.reasoning_tokens``) is put on the first step it made.
    """

    def __init__(self) -> None:
        super().__init__()
        self.last_plain: int | None = None
        self.calls_seen: list[tuple[int | None, int | None, int | None, int | None]] = []

    def line(self, obj: dict, *, loc: str) -> None:
        """Read one output item or one response object; ``loc`` names the file and line for errors."""
        at = f"{loc}: step {len(self.steps)}"
        if obj.get("object") == "response" or obj.get("type") == "response":
            output = obj.get("output")
            if not isinstance(output, list):
                raise SgrKitError(f"{at}: a response object needs output (a list of items); "
                                  f"found {type(output).__name__}")  # fmt: skip
            first = len(self.steps)
            for i, item in enumerate(output):
                if not isinstance(item, dict):
                    raise SgrKitError(f"{loc}: output {i}: expected an output item object; found {type(item).__name__}")
                self._item(item, loc=f"{loc}: output {i}")
            used = self._usage(obj.get("usage"), at)
            if used:
                self.calls_seen.append(tuple(used.get(k) for k in _CALL_KEYS))
                if first < len(self.steps):
                    self.steps[first] = self.steps[first]._replace(**used)
            return
        self._item(obj, loc=loc)

    def _item(self, obj: dict, *, loc: str) -> None:
        kind = obj.get("type")
        at = f"{loc}: step {len(self.steps)}"
        t = self.when(obj) if "timestamp" in obj else math.nan
        if kind in ("function_call", "custom_tool_call"):
            name = obj.get("name")
            if not isinstance(name, str) or not name:
                raise SgrKitError(f"{at}: a {kind} item needs a name; found {describe(name)}")
            if kind == "function_call":
                args = _arguments(obj.get("arguments"), name, at)
            else:
                args = {"input": obj.get("input")}
            if isinstance(obj.get("call_id"), str):
                self.calls[obj["call_id"]] = len(self.steps)
            self.steps.append(tool_step(name, args, t=t))
            self.last_plain = None
        elif kind in ("function_call_output", "custom_tool_call_output"):
            self.result(obj.get("call_id"), obj.get("output"))
        elif kind == "web_search_call":
            action = obj.get("action") if isinstance(obj.get("action"), dict) else {}
            atype = action.get("type")
            if atype in ("open_page", "find", "find_in_page") and isinstance(action.get("url"), str) and action["url"]:
                url = action["url"]
                step = Step(kind="pdf" if url.lower().split("?", 1)[0].endswith(".pdf") else "fetch",
                            tool="web_search_call", url=url, host=host_of(url), t=t, decided_by="known")
            else:
                query = action.get("query")
                if not isinstance(query, str) or not query.strip():
                    queries = action.get("queries")
                    query = " | ".join(q for q in queries if isinstance(q, str)) if isinstance(queries, list) else ""
                step = Step(kind="search" if query.strip() else "tool", tool="web_search_call", query=query.strip(),
                            t=t, decided_by="known")
            self.steps.append(step)
            self.last_plain = None
        elif kind == "message" or (kind is None and "role" in obj):
            if obj.get("role") != "assistant":
                return
            content = obj.get("content")
            parts = content if isinstance(content, list) else [content]
            text = "".join(p.get("text", "") if isinstance(p, dict) and isinstance(p.get("text"), str)
                           else p if isinstance(p, str) else "" for p in parts)  # fmt: skip
            if text.strip():
                self.steps.append(Step(kind="message", text=text, t=t))
                self.last_plain = len(self.steps) - 1
        elif not isinstance(kind, str):
            raise SgrKitError(f"{at}: expected a Responses API output item with a type (function_call, "
                              f"web_search_call, message...); found keys {', '.join(map(str, obj)) or 'none'}")  # fmt: skip
        # reasoning and item types not known here: no step

    @staticmethod
    def _usage(usage: Any, at: str) -> dict:
        if not isinstance(usage, dict):
            return {}
        inp = _usage_number(usage, "input_tokens", at)
        out = _usage_number(usage, "output_tokens", at)
        idt, odt = usage.get("input_tokens_details"), usage.get("output_tokens_details")
        cached = number(idt.get("cached_tokens"), what="usage.input_tokens_details.cached_tokens", loc=at,
                        integer=True) if isinstance(idt, dict) else None  # fmt: skip
        reasoning = number(odt.get("reasoning_tokens"), what="usage.output_tokens_details.reasoning_tokens", loc=at,
                           integer=True) if isinstance(odt, dict) else None  # fmt: skip
        return {"input_tokens": inp, "cached_input_tokens": cached, "output_tokens": out,
                "reasoning_tokens": reasoning, "tokens": None if inp is None or out is None else inp + out}

    def calls_usage(self) -> list[tuple[int | None, int | None, int | None, int | None]]:
        return list(self.calls_seen)

    def finish(self) -> list[Step]:
        if self.last_plain is not None and self.last_plain == len(self.steps) - 1:
            self.steps[-1] = self.steps[-1]._replace(kind="answer")
        return super().finish()
