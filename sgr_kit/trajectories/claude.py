"""Reader of what Claude Code writes: ``stream-json`` transcripts and session logs.

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

**The model of a run.** Every assistant line names its model (``message.model``); a run's
``model`` is every model it called, the one with most output tokens first
(:func:`~sgr_kit.trajectories.agents.models_by_output`): the ``result`` line's ``modelUsage``
ordered by ``outputTokens``, else the assistant lines' models ordered by their messages' output
(a session log has no ``result`` line), else the ``system``/``init`` line's ``model``.

**Searches run by the provider.** Claude Code's ``WebSearch`` tool and the Messages API's
``web_search`` server tool are searched by Anthropic, not by the agent's machine; the searches
are counted in ``usage.server_tool_use.web_search_requests`` (per message, and for the run in
the ``result`` line's ``usage``; ``modelUsage`` has ``webSearchRequests`` per model). Their sum
is the run's ``provider_searches`` total (:data:`~sgr_kit.trajectories.steps.TOTAL_KEYS`); the
``WebSearch`` and ``server_tool_use`` blocks themselves are ``search`` steps.
"""

from __future__ import annotations

from typing import Any

from ..errors import SgrKitError, describe
from .agents import AgentReader, _max_known, _sum_known, _usage_number, models_by_output
from .steps import TOTAL_KEYS, Step, number, tool_step

__all__ = ["ClaudeCodeReader", "ClaudeSessionReader", "sniff_stream", "sniff_session", "STREAM_LABEL",
           "SESSION_LABEL"]

#: How notes name a Claude Code ``stream-json`` transcript.
STREAM_LABEL = "Claude Code stream-json"
#: How notes name a Claude Code session log.
SESSION_LABEL = "Claude Code session log"
#: ``type`` of the lines of a ``stream-json`` transcript.
STREAM_TYPES = frozenset({"system", "assistant", "user", "result", "stream_event", "rate_limit_event"})
#: ``type`` of the lines only a session log has.
SESSION_TYPES = frozenset({"summary", "file-history-snapshot", "last-prompt", "permission-mode", "mode",
                           "queue-operation", "ai-title", "progress"})  # fmt: skip


def _type(obj: dict) -> str:
    kind = obj.get("type")
    return kind if isinstance(kind, str) else ""


def sniff_session(obj: dict) -> bool:
    """True when ``obj`` (a file's first JSON object) is a line of a Claude Code session log.

    Examples
    --------
    >>> sniff_session({"type": "file-history-snapshot", "messageId": "m"}), sniff_session({"type": "assistant"})
    (True, False)
    """
    return _type(obj) in SESSION_TYPES or ("parentUuid" in obj and _type(obj) in STREAM_TYPES)


def sniff_stream(obj: dict) -> bool:
    """True when ``obj`` is a line of a Claude Code ``stream-json`` transcript.

    Examples
    --------
    >>> sniff_stream({"type": "system", "subtype": "init", "model": "claude-opus-4-7"})
    True
    """
    return _type(obj) in STREAM_TYPES


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


def _searches(usage: Any, what: str, at: str) -> int | None:
    """``server_tool_use.web_search_requests`` of an Anthropic ``usage`` (None when not there)."""
    tools = usage.get("server_tool_use") if isinstance(usage, dict) else None
    if not isinstance(tools, dict):
        return None
    return number(tools.get("web_search_requests"), what=f"{what}.server_tool_use.web_search_requests", loc=at,
                  integer=True)  # fmt: skip


class ClaudeCodeReader(AgentReader):
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
        self.message_model: dict[str, str] = {}  # message id -> the model that wrote it
        self.searches: dict[str, int] = {}  # message id -> server_tool_use.web_search_requests
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
                              number(mu.get("costUSD"), what="costUSD", loc=w),
                              number(mu.get("webSearchRequests"), what="webSearchRequests", loc=w, integer=True),
                              str(name)))  # fmt: skip
        if per_model and all(m[0] is not None and m[2] is not None for m in per_model):
            # every model the run called (a sub-agent's or a smaller model's too), as total_cost_usd counts them;
            # the usage object holds the main model's alone
            used = (_sum_known([m[0] for m in per_model]), _sum_known([m[1] for m in per_model]),
                    _sum_known([m[2] for m in per_model]))
            thinking = _sum_known([m[3] for m in per_model]) if any(m[3] is not None for m in per_model) else thinking
            if cost is None:
                cost = _sum_known([m[4] for m in per_model])  # type: ignore[arg-type]
        model = models_by_output({m[6]: m[2] for m in per_model}) if per_model else self._models()
        searches = _searches(usage, "usage", at)
        if per_model and any(m[5] is not None for m in per_model):
            searches = _sum_known([m[5] or 0 for m in per_model])
        self.totals = {
            "input_tokens": used[0] if used else None, "cached_input_tokens": used[1] if used else None,
            "output_tokens": used[2] if used else None, "reasoning_tokens": thinking, "cost_usd": cost,
            "seconds": duration / 1000 if duration is not None else None, "model": model,
            "provider_searches": searches if searches is not None else self._searches(),
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
        model = message.get("model")
        if isinstance(model, str) and model.strip() and not model.startswith("<"):  # "<synthetic>": no model call
            self.message_model[mid] = model.strip()
        searched = _searches(message.get("usage"), "usage", at)
        if searched is not None:
            self.searches[mid] = max(self.searches.get(mid, 0), searched)
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

    def _models(self) -> str | None:
        """The assistant lines' models, the one with most output first; else the init line's model."""
        output: dict[str, int | None] = {}
        for mid, model in self.message_model.items():
            _, _, out, final = self.usage.get(mid, (None, None, None, False))
            known = out if final else None
            if model not in output:
                output[model] = known
            elif known is not None:
                output[model] = (output[model] or 0) + known
        return models_by_output(output) or self.model

    def _searches(self) -> int | None:
        return sum(self.searches.values()) if self.searches else None

    def finish(self) -> list[Step]:
        """The steps (the answer last); sets :attr:`totals` (the ``result`` line's, else the model and searches)."""
        if self.totals is None and (self.message_model or self.model or self.searches):
            self.totals = {**dict.fromkeys(TOTAL_KEYS), "model": self._models(), "provider_searches": self._searches()}
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

    No ``result`` line: the last assistant text is the answer; the totals are the models and
    the provider's searches (the tokens are summed over the calls).
    """

    last_text_is_answer = True


#: The formats of this module: ``(name, label, sniff, reader class)``, the session log first (its
#: lines are also stream-json lines).
FORMATS = (
    ("claude-code-session", SESSION_LABEL, sniff_session, ClaudeSessionReader),
    ("claude-code", STREAM_LABEL, sniff_stream, ClaudeCodeReader),
)
