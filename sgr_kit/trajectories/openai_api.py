"""Readers of the OpenAI API's shapes: Responses API output items and OpenAI-style chat messages.

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

**Searches run by the provider.** A Responses API ``web_search_call`` is a search OpenAI runs for
the model (no tool of the agent's): each with a ``search`` action is a ``search`` step named
``web_search_call``, and they are counted as the run's ``provider_searches``
(:data:`~sgr_kit.trajectories.steps.TOTAL_KEYS`). A ``response`` object's ``model`` names the
model of the run (several: the one with most output tokens first).
"""

from __future__ import annotations

import math
from typing import Any

from ..errors import SgrKitError, describe
from .agents import (_CALL_KEYS, AgentReader, _usage_number, block_text, models_by_output, timestamp_seconds,
                     tool_arguments)
from .hosts import host_of
from .steps import TOTAL_KEYS, Step, number, tool_step

__all__ = ["ChatReader", "ResponsesReader", "RESPONSES_TYPES", "sniff_chat", "sniff_responses", "CHAT_LABEL",
           "RESPONSES_LABEL"]

#: How notes name OpenAI-style chat messages.
CHAT_LABEL = "OpenAI chat messages"
#: How notes name OpenAI Responses API items.
RESPONSES_LABEL = "OpenAI Responses API items"


class ChatReader(AgentReader):
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
        text = block_text(obj.get("content"))
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
            args = tool_arguments(function.get("arguments"), name, at)
            if isinstance(call.get("id"), str):
                self.calls[call["id"]] = len(self.steps)
            self.steps.append(tool_step(name, args, t=t)._replace(**used))
            used = {}

    def calls_usage(self) -> list[tuple]:
        return list(self.calls_seen)

    def _created(self, obj: dict) -> float:
        stamp = timestamp_seconds(obj.get("created"))
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
        """The steps (the last assistant text without tool calls the answer)."""
        if self.last_plain is not None and self.last_plain == len(self.steps) - 1:
            self.steps[-1] = self.steps[-1]._replace(kind="answer")
        return super().finish()


#: ``type`` of the OpenAI Responses API output items read here (and of a whole ``response`` object).
RESPONSES_TYPES = frozenset({"function_call", "function_call_output", "web_search_call", "reasoning", "message",
                             "custom_tool_call", "custom_tool_call_output", "response"})  # fmt: skip


#: ``role`` of the chat messages (what makes a JSON object surely a chat message).
CHAT_ROLES = frozenset({"system", "developer", "user", "assistant", "tool", "function"})


def sniff_responses(obj: dict) -> bool:
    """True when ``obj`` (a file's first JSON object) is a Responses API output item or response object.

    Examples
    --------
    >>> sniff_responses({"type": "web_search_call", "action": {"type": "search", "query": "q"}})
    True
    >>> sniff_responses({"type": "message", "role": "assistant", "content": "text"})  # a chat message
    False
    """
    if obj.get("object") == "response":
        return True
    kind = obj.get("type")
    if kind == "message":  # a Responses message item has typed content parts; a chat message has none
        return isinstance(obj.get("content"), list)
    return isinstance(kind, str) and kind in RESPONSES_TYPES


def sniff_chat(obj: dict) -> bool:
    """True when ``obj`` is an OpenAI-style chat message (it has a ``role``).

    Examples
    --------
    >>> sniff_chat({"role": "assistant", "content": "a|1"})
    True
    """
    return "role" in obj


class ResponsesReader(AgentReader):
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
        self.models: dict[str, int | None] = {}  # model of each response object -> its output tokens
        self.searches = 0  # web_search_call items with a search action

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
            model = obj.get("model")
            if isinstance(model, str) and model.strip():
                known = self.models.get(model.strip())
                out = used.get("output_tokens")
                self.models[model.strip()] = out if known is None else known + (out or 0)
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
                args = tool_arguments(obj.get("arguments"), name, at)
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
                self.searches += step.kind == "search"
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
        """The steps (the last message the answer); the totals are the models and the provider's searches."""
        if self.last_plain is not None and self.last_plain == len(self.steps) - 1:
            self.steps[-1] = self.steps[-1]._replace(kind="answer")
        if self.models or self.searches:
            self.totals = {**dict.fromkeys(TOTAL_KEYS), "model": models_by_output(self.models),
                           "provider_searches": self.searches}
        return super().finish()


#: The formats of this module: ``(name, label, sniff, reader class)``; chat messages last (they are
#: told only by a ``role``).
FORMATS = (
    ("openai-responses", RESPONSES_LABEL, sniff_responses, ResponsesReader),
    ("openai-chat", CHAT_LABEL, sniff_chat, ChatReader),
)
