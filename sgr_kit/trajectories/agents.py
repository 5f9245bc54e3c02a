"""Readers of what agents write: Claude Code ``stream-json`` transcripts and OpenAI-style chat messages.

Both are read one line (one JSON object) at a time by a small state machine that turns the
agent's messages into :class:`~sgr_kit.trajectories.steps.Step` objects; nothing but the
current trajectory's steps is held.

**Claude Code** (``claude -p ... --output-format stream-json --verbose``): one JSON object per line
with a ``type``:

- ``system`` (``subtype: init``: session, tools, model): no step;
- ``assistant``: ``message.content`` is a list of blocks; a ``text`` block is a ``message`` step,
  a ``tool_use`` block (``id``, ``name``, ``input``; MCP tools are named
  ``mcp__<server>__<tool>``) is a tool-call step (:func:`~sgr_kit.trajectories.steps.tool_step`);
  ``thinking`` blocks are skipped; ``message.usage`` (``input_tokens + output_tokens``) is counted
  once per message id, on its first step;
- ``user``: ``message.content`` blocks of type ``tool_result`` (``tool_use_id``, ``content`` as text
  or a list of text blocks, ``is_error``) give the text of the tool call they answer; a plain
  prompt is no step;
- ``result``: the run's end; its ``result`` text is the ``answer`` step, at ``duration_ms / 1000``
  seconds. A transcript without a ``result`` line has no answer (scored ``missing``).

Other line types (``stream_event``, and types later versions add) are skipped. A line's
``timestamp`` (ISO 8601), when present, gives the steps' time since the first one.

**OpenAI-style chat messages** (Chat Completions): one message per line, or the list under a
record's ``messages``. ``role: assistant`` messages with ``content`` (text, or a list of
``{"type": "text", "text": ...}`` parts) are ``message`` steps, each of their ``tool_calls``
(``{"id", "type": "function", "function": {"name", "arguments"}}``, ``arguments`` a JSON
string) a tool-call step; ``role: tool`` messages (``tool_call_id``, ``content``) give the text
of the call they answer; ``system`` and ``user`` messages are no steps. The last assistant
message with text and no tool calls is the ``answer``. A message's ``usage``
(``prompt_tokens + completion_tokens``, or ``total_tokens``) and ``timestamp`` or ``created``
are read when a logger wrote them.
"""

from __future__ import annotations

import json
import math
from datetime import datetime
from typing import Any

from ..errors import SgrKitError
from .steps import Step, excerpt, number, tool_step

__all__ = ["ClaudeCodeReader", "ChatReader"]


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
        return float(value)
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


class ClaudeCodeReader(_Base):
    """Turns the lines of one Claude Code ``stream-json`` transcript into steps (:meth:`line`, :meth:`finish`)."""

    def __init__(self) -> None:
        super().__init__()
        self.messages: set[str] = set()

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
        elif kind == "result":
            text = obj.get("result")
            if text is not None and not isinstance(text, str):
                raise SgrKitError(f"{loc}: step {len(self.steps)}: the result line's result must be text; "
                                  f"found {type(text).__name__}")  # fmt: skip
            duration = number(obj.get("duration_ms"), what="duration_ms", loc=f"{loc}: step {len(self.steps)}")
            if text is not None:
                t = duration / 1000 if duration is not None else self.when(obj)
                self.steps.append(Step(kind="answer", text=text, t=t))

    def _assistant(self, obj: dict, *, loc: str) -> None:
        message = obj.get("message")
        at = f"{loc}: step {len(self.steps)}"
        if not isinstance(message, dict) or not isinstance(message.get("content"), (list, str)):
            raise SgrKitError(f"{at}: an assistant line needs message.content (a list of blocks); "
                              f"found {type(message).__name__ if not isinstance(message, dict) else 'none'}")  # fmt: skip
        t = self.when(obj)
        tokens = None
        usage, mid = message.get("usage"), message.get("id")
        if isinstance(usage, dict) and (mid is None or mid not in self.messages):
            parts = [number(usage.get(k), what=f"usage.{k}", loc=at, integer=True) for k in ("input_tokens", "output_tokens")]
            known = [p for p in parts if p is not None]
            tokens = sum(known) if known else None
            if isinstance(mid, str):
                self.messages.add(mid)
        content = message["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        for block in blocks:
            at = f"{loc}: step {len(self.steps)}"
            if not isinstance(block, dict):
                raise SgrKitError(f"{at}: a content block must be an object; found {type(block).__name__}")
            btype = block.get("type")
            if btype == "text":
                if not isinstance(block.get("text"), str):
                    raise SgrKitError(f"{at}: a text block needs text; found {block.get('text')!r:.60}")
                if not block["text"].strip():
                    continue
                step = Step(kind="message", text=block["text"], t=t, tokens=tokens)
            elif btype in ("tool_use", "server_tool_use"):
                name = block.get("name")
                if not isinstance(name, str) or not name:
                    raise SgrKitError(f"{at}: a tool_use block needs a name; found {name!r}")
                step = tool_step(name, block.get("input") or {}, t=t, tokens=tokens)
                if isinstance(block.get("id"), str):
                    self.calls[block["id"]] = len(self.steps)
            else:  # thinking, redacted_thinking, and block types not known here
                continue
            tokens = None
            self.steps.append(step)


class ChatReader(_Base):
    """Turns OpenAI-style chat messages (one at a time, :meth:`line`) into steps."""

    def __init__(self) -> None:
        super().__init__()
        self.last_plain: int | None = None  # index of the last assistant text without tool calls

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
        tokens = self._tokens(obj.get("usage"), at)
        calls = obj.get("tool_calls") or []
        if not isinstance(calls, list):
            raise SgrKitError(f"{at}: tool_calls must be a list; found {type(calls).__name__}")
        if isinstance(obj.get("function_call"), dict):  # the older single-call form
            calls = [*calls, {"id": obj["function_call"].get("name"), "function": obj["function_call"]}]
        text = _block_text(obj.get("content"))
        self.last_plain = None
        if text.strip():
            self.steps.append(Step(kind="message", text=text, t=t, tokens=tokens))
            tokens = None
            if not calls:
                self.last_plain = len(self.steps) - 1
        for call in calls:
            at = f"{loc}: step {len(self.steps)}"
            function = call.get("function") if isinstance(call, dict) else None
            name = function.get("name") if isinstance(function, dict) else None
            if not isinstance(name, str) or not name:
                raise SgrKitError(f"{at}: a tool call needs function.name; found {call!r:.80}")
            raw = function.get("arguments")
            if isinstance(raw, str):
                try:
                    args = json.loads(raw) if raw.strip() else {}
                except json.JSONDecodeError as exc:
                    raise SgrKitError(f"{at}: the arguments of tool call {name!r} are not valid JSON "
                                      f"({exc.msg} at column {exc.colno}): {raw!r:.80}") from None  # fmt: skip
            else:
                args = raw if raw is not None else {}
            if isinstance(call.get("id"), str):
                self.calls[call["id"]] = len(self.steps)
            self.steps.append(tool_step(name, args, t=t, tokens=tokens))
            tokens = None

    def _created(self, obj: dict) -> float:
        stamp = _seconds(obj.get("created"))
        if stamp is None:
            return math.nan
        if self.t0 is None:
            self.t0 = stamp
        return max(stamp - self.t0, 0.0)

    @staticmethod
    def _tokens(usage: Any, at: str) -> int | None:
        if not isinstance(usage, dict):
            return None
        total = number(usage.get("total_tokens"), what="usage.total_tokens", loc=at, integer=True)
        if total is not None:
            return total
        parts = [number(usage.get(k), what=f"usage.{k}", loc=at, integer=True)
                 for k in ("prompt_tokens", "completion_tokens")]  # fmt: skip
        known = [p for p in parts if p is not None]
        return sum(known) if known else None

    def finish(self) -> list[Step]:
        if self.last_plain is not None and self.last_plain == len(self.steps) - 1:
            self.steps[-1] = self.steps[-1]._replace(kind="answer")
        return super().finish()
