"""Reader of Gemini CLI session files (``~/.gemini/tmp/<project>/chats/session-*.json`` or ``.jsonl``).

Gemini CLI records every session (``packages/core/src/services/chatRecordingService.ts``, types
in ``chatRecordingTypes.ts``, google-gemini/gemini-cli). Two shapes, told by a first object with
``sessionId`` and ``projectHash``:

- **before v0.39** (April 2026): one JSON document, a ``ConversationRecord``: ``sessionId``,
  ``projectHash``, ``startTime``, ``lastUpdated``, ``messages`` (rewritten whole at each change);
- **v0.39 and later** (``feat(core): migrate chat recording to JSONL streaming``): JSON lines: the
  metadata first, then each message record as it is written. A message changed later (its
  tokens, its tool calls' results) is written again with the same ``id`` and replaces the earlier
  one in place; ``{"$rewindTo": id}`` removes that message and every one after it (the user
  rewound the conversation); ``{"$set": {...}}`` updates the metadata, and a ``$set`` of
  ``messages`` replaces them all (a checkpoint). Gemini CLI's own loader reads them so, and so
  does this reader.

A message record has ``id``, ``timestamp``, ``type`` and ``content`` (text, or a list of parts
with ``text``); ``type`` is ``user``, ``gemini``, ``info``, ``error`` or ``warning``. A ``gemini``
message's text is a ``message`` step and each of its ``toolCalls`` (``id``, ``name``, ``args``,
``result`` as function-response parts, ``resultDisplay``, ``status``) a tool-call step
(:func:`~sgr_kit.trajectories.steps.tool_step`: ``google_web_search`` is a ``search``,
``web_fetch`` a ``fetch`` of the URL in its ``prompt``); ``thoughts`` make no step. The last
``gemini`` message with text and no tool call is the ``answer``. ``error`` and ``warning``
messages are notes.

Tokens (``tokens``: ``input``, ``output``, ``cached``, ``thoughts``, ``tool``, ``total``, copied from
the Gemini API's ``usageMetadata``: ``promptTokenCount`` including the cached
``cachedContentTokenCount``, ``candidatesTokenCount`` *without* the ``thoughtsTokenCount``, and
``toolUsePromptTokenCount``; ``total`` is their sum): sgr-kit's ``input_tokens`` is ``input +
tool``, ``cached_input_tokens`` is ``cached``, ``output_tokens`` is ``output + thoughts``
(reasoning included, as everywhere in sgr-kit) and ``reasoning_tokens`` is ``thoughts``; put on
the first step of the message. The session's totals: its models (each message's ``model``, the
one with most output first), ``provider_searches`` (its ``google_web_search`` calls: Gemini CLI
runs each as a Gemini request grounded by Google Search), and ``seconds`` from ``startTime`` to
``lastUpdated`` (``seconds_source`` ``timestamps``). The tokens are the sum over the messages.
"""

from __future__ import annotations

import math
from typing import Any

from ..errors import SgrKitError, describe
from .agents import AgentReader, models_by_output, timestamp_seconds
from .notes import ReaderNote
from .steps import TOTAL_KEYS, Step, excerpt, number, tool_step

__all__ = ["FORMAT", "LABEL", "GeminiReader", "sniff", "SEARCH_TOOL"]

#: The format's name.
FORMAT = "gemini-cli"
#: How notes name a Gemini CLI session.
LABEL = "Gemini CLI session"
#: Gemini CLI's web search (``WEB_SEARCH_TOOL_NAME``), run by Google: a provider's search.
SEARCH_TOOL = "google_web_search"


def sniff(obj: dict) -> bool:
    """True when ``obj`` (a file's first JSON object) begins a Gemini CLI session.

    Examples
    --------
    >>> sniff({"sessionId": "s", "projectHash": "f53b", "startTime": "2025-10-10T06:59:39.894Z"})
    True
    >>> sniff({"sessionId": "s", "type": "user"})
    False
    """
    return isinstance(obj.get("sessionId"), str) and isinstance(obj.get("projectHash"), str)


def _text(content: Any) -> str:
    """Text of a ``PartListUnion``: a string, a part with ``text``, or a list of them."""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        text = content.get("text")
        return text if isinstance(text, str) else ""
    if isinstance(content, list):
        return "\n".join(t for t in (_text(c) for c in content) if t)
    return ""


def _result(call: dict) -> str:
    """What a tool call returned: its function response's ``output`` (or ``error``), other text parts, or its display."""
    parts = call.get("result")
    texts: list[str] = []
    for part in parts if isinstance(parts, list) else [parts] if parts else []:
        response = part.get("functionResponse") if isinstance(part, dict) else None
        if isinstance(response, dict):
            body = response.get("response")
            for key in ("output", "error", "content"):
                value = body.get(key) if isinstance(body, dict) else None
                if isinstance(value, str) and value:
                    texts.append(value)
                    break
        else:
            texts.append(_text(part))
    text = "\n".join(t for t in texts if t)
    display = call.get("resultDisplay")
    return text or (display if isinstance(display, str) else "")


class GeminiReader(AgentReader):
    """Turns the lines (or the document) of one Gemini CLI session into steps."""

    def __init__(self) -> None:
        super().__init__()
        self.messages: dict[str, tuple[dict, str]] = {}  # id -> (message record, where it was read)
        self.start: float | None = None
        self.updated: float | None = None

    def line(self, obj: dict, *, loc: str) -> None:
        """Read one line (the metadata, a message record, ``$rewindTo`` or ``$set``) or a whole legacy document."""
        if "$rewindTo" in obj:
            target = obj["$rewindTo"]
            ids = list(self.messages)
            cut = ids.index(target) if target in self.messages else 0
            for mid in ids[cut:]:
                del self.messages[mid]
            return
        update = obj.get("$set")
        if isinstance(update, dict):
            self._meta(update, loc)
            if isinstance(update.get("messages"), list):
                self.messages.clear()
                self._messages(update["messages"], loc)
            return
        if "sessionId" in obj and "projectHash" in obj:  # the metadata (a whole record in the legacy form)
            self._meta(obj, loc)
            if isinstance(obj.get("messages"), list):
                self._messages(obj["messages"], loc)
            elif "messages" in obj:
                raise SgrKitError(f"{loc}: messages must be a list of message records; found "
                                  f"{type(obj['messages']).__name__}")  # fmt: skip
            return
        self._messages([obj], loc)

    def _meta(self, meta: dict, loc: str) -> None:
        start, updated = timestamp_seconds(meta.get("startTime")), timestamp_seconds(meta.get("lastUpdated"))
        self.start = start if start is not None else self.start
        self.updated = updated if updated is not None else self.updated

    def _messages(self, records: list, loc: str) -> None:
        for i, record in enumerate(records):
            at = loc if len(records) == 1 else f"{loc}: message {i}"
            if not isinstance(record, dict) or not isinstance(record.get("id"), str) or not isinstance(
                    record.get("type"), str):  # fmt: skip
                keys = ", ".join(map(str, record))[:200] if isinstance(record, dict) else type(record).__name__
                raise SgrKitError(f"{at}: expected a Gemini CLI message record (id, timestamp, type, content); "
                                  f"found {keys or 'none'}")  # fmt: skip
            self.messages[record["id"]] = (record, at)  # a record written again replaces the earlier one in place

    def _t(self, record: dict, t0: float | None) -> float:
        stamp = timestamp_seconds(record.get("timestamp"))
        return max(stamp - t0, 0.0) if stamp is not None and t0 is not None else math.nan

    def finish(self) -> list[Step]:
        """The steps of the session's final messages; sets :attr:`totals`."""
        t0 = self.start
        if t0 is None:
            stamps = [timestamp_seconds(r.get("timestamp")) for r, _ in self.messages.values()]
            t0 = min((s for s in stamps if s is not None), default=None)
        models: dict[str, int | None] = {}
        searches = 0
        last_plain = None
        errors: list[tuple[str, str]] = []
        self.usage: list[tuple] = []
        for record, at in self.messages.values():
            kind = record["type"]
            if kind in ("error", "warning"):
                errors.append((at, _text(record.get("content"))))
                continue
            if kind != "gemini":
                continue
            where = f"{at}: step {len(self.steps)}"
            t = self._t(record, t0)
            used = self._tokens(record.get("tokens"), where)
            # every gemini message is a model call: one without tokens leaves the sum unknown
            self.usage.append(tuple(used.get(k) for k in ("input_tokens", "cached_input_tokens", "output_tokens",
                                                          "reasoning_tokens")))  # fmt: skip
            model = record.get("model")
            if isinstance(model, str) and model.strip():
                out = used.get("output_tokens") if used else None
                known = models.get(model.strip())
                models[model.strip()] = out if known is None else known + (out or 0)
            first = len(self.steps)
            text = _text(record.get("content"))
            if text.strip():
                self.steps.append(Step(kind="message", text=text, t=t))
            calls = record.get("toolCalls") or []
            if not isinstance(calls, list):
                raise SgrKitError(f"{where}: toolCalls must be a list; found {type(calls).__name__}")
            for call in calls:
                name = call.get("name") if isinstance(call, dict) else None
                if not isinstance(name, str) or not name:
                    raise SgrKitError(f"{at}: step {len(self.steps)}: a tool call needs a name; found {describe(call)}")
                args = call.get("args")
                step = tool_step(name, args if args is not None else {}, t=self._t(call, t0) if "timestamp" in call
                                 else t)  # fmt: skip
                failed = call.get("status") in ("error", "cancelled")
                self.steps.append(step._replace(text=excerpt(("[error] " if failed else "") + _result(call))))
                searches += name == SEARCH_TOOL
            if used and first < len(self.steps):
                self.steps[first] = self.steps[first]._replace(**used)
            last_plain = len(self.steps) - 1 if text.strip() and not calls else None
        if last_plain is not None and last_plain == len(self.steps) - 1:
            self.steps[-1] = self.steps[-1]._replace(kind="answer")
        if errors:
            first_at, message = errors[0]
            self.notes.append(ReaderNote("Gemini CLI recorded errors or warnings in the session (no step)", first_at,
                                         f"Gemini CLI recorded {len(errors)} error or warning message(s) (no step); "
                                         f"the first: {message[:160]}"))  # fmt: skip
        seconds = self.updated - self.start if self.start is not None and self.updated is not None else None
        self.totals = {**dict.fromkeys(TOTAL_KEYS), "model": models_by_output(models), "provider_searches": searches,
                       "seconds": seconds if seconds is None or seconds >= 0 else None,
                       "seconds_source": "timestamps"}  # fmt: skip
        return super().finish()

    @staticmethod
    def _tokens(tokens: Any, at: str) -> dict:
        """sgr-kit's counts of a message's ``tokens`` (see the module); ``{}`` without them."""
        if not isinstance(tokens, dict):
            return {}
        got = {k: number(tokens.get(k), what=f"tokens.{k}", loc=at, integer=True)
               for k in ("input", "output", "cached", "thoughts", "tool")}  # fmt: skip
        inp = None if got["input"] is None else got["input"] + (got["tool"] or 0)
        out = None if got["output"] is None else got["output"] + (got["thoughts"] or 0)
        return {"input_tokens": inp, "cached_input_tokens": got["cached"], "output_tokens": out,
                "reasoning_tokens": got["thoughts"], "tokens": None if inp is None or out is None else inp + out}

    def calls_usage(self) -> list[tuple]:
        """``(input, cached, output, reasoning)`` of every message that reported tokens."""
        return list(getattr(self, "usage", []))
