"""What every reader of an agent's own files shares: the base of the readers, and the small readings they share.

Each agent format has its module: :mod:`~sgr_kit.trajectories.claude` (Claude Code
``stream-json`` transcripts and session logs), :mod:`~sgr_kit.trajectories.openai_api` (OpenAI
Responses API items and OpenAI-style chat messages), :mod:`~sgr_kit.trajectories.codex` (Codex
CLI), :mod:`~sgr_kit.trajectories.gemini` (Gemini CLI sessions),
:mod:`~sgr_kit.trajectories.harbor` (Harbor trajectories) and
:mod:`~sgr_kit.trajectories.inspect_log` (inspect_ai eval logs).

A reader is read one line (one JSON object) at a time by a small state machine that turns the
agent's messages into :class:`~sgr_kit.trajectories.steps.Step` objects; nothing but the current
trajectory's steps is held. Every reader has ``line(obj, *, loc)``, ``finish()`` (the steps),
``totals`` (what the run spent as the agent itself reports it, or None; keys
:data:`~sgr_kit.trajectories.steps.TOTAL_KEYS`), ``calls_usage()`` (the usage of each model call,
to sum when every call reported it) and ``notes`` (what it corrected or skipped,
:class:`~sgr_kit.trajectories.notes.ReaderNote` s).

:func:`models_by_output` orders the models of a run: the one that did most of the work (most
output tokens) first, the helpers after it.
"""

from __future__ import annotations

import json
import math
from datetime import datetime
from typing import Any

from ..errors import SgrKitError, describe
from .hosts import host_of
from .steps import Step, excerpt, number, tool_step

__all__ = ["AgentReader", "block_text", "timestamp_seconds", "tool_arguments", "models_by_output"]


def block_text(content: Any) -> str:
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


def timestamp_seconds(value: Any) -> float | None:
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


class AgentReader:
    """The base of the agent readers: steps, tool calls matched with their results, times since the first line."""

    def __init__(self) -> None:
        self.steps: list[Step] = []
        self.calls: dict[str, int] = {}  # tool call id -> index of its step
        self.t0: float | None = None
        self.totals: dict | None = None
        self.notes: list = []

    def when(self, obj: dict) -> float:
        """Seconds of ``obj``'s ``timestamp`` since the first one read (NaN without one)."""
        stamp = timestamp_seconds(obj.get("timestamp"))
        if stamp is None:
            return math.nan
        if self.t0 is None:
            self.t0 = stamp
        return max(stamp - self.t0, 0.0)

    def result(self, call_id: Any, content: Any, *, error: bool = False) -> None:
        """Give the step of tool call ``call_id`` the text of its result."""
        index = self.calls.get(call_id) if isinstance(call_id, str) else None
        if index is None:
            return
        text = block_text(content)
        self.steps[index] = self.steps[index]._replace(text=excerpt(("[error] " if error else "") + text))

    def finish(self) -> list[Step]:
        """The steps, message texts cut to excerpts."""
        # tool results were cut when read; messages are kept whole until now (the last may be the answer)
        return [s._replace(text=excerpt(s.text)) if s.kind == "message" else s for s in self.steps]


#: The usage of one model call, in the order of :meth:`calls_usage`'s tuples.
_CALL_KEYS = ("input_tokens", "cached_input_tokens", "output_tokens", "reasoning_tokens")


def tool_arguments(raw: Any, name: str, at: str) -> Any:
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


def _sum_known(values: list[int | None]) -> int | None:
    return None if not values or any(v is None for v in values) else sum(values)  # type: ignore[arg-type]


def _max_known(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else max(a, b)




def models_by_output(output: dict[str, int | None]) -> str | None:
    """The models of a run, the one with most output tokens first, the helpers after it (``", "``-joined).

    Models whose output is unknown keep the order they were met in, after the known ones.

    Examples
    --------
    >>> models_by_output({"claude-haiku-4-5": 812, "claude-sonnet-5": 30_114})
    'claude-sonnet-5, claude-haiku-4-5'
    >>> models_by_output({}) is None
    True
    """
    names = [m for m in output if m]
    order = sorted(range(len(names)), key=lambda i: (output[names[i]] is None, -(output[names[i]] or 0), i))
    return ", ".join(names[i] for i in order) or None
