"""Read inspect_ai eval logs (``.eval`` and ``.json``) with inspect_ai's own log reader.

inspect_ai is an optional dependency (``pip install 'sgr-kit[inspect]'``; ``make setup``
installs it). :func:`is_inspect_log` tells an eval log by its content (a ``.eval`` zip holding
``header.json`` or ``_journal/start.json``; a ``.json`` object starting with ``version`` and
``status`` before ``eval``), without inspect_ai. :func:`read_inspect_log` yields one
:class:`~sgr_kit.trajectories.steps.Trajectory` per sample and epoch, reading the samples one
at a time (``inspect_ai.log.read_eval_log_samples``; a ``.json`` log is parsed whole by
inspect_ai itself, a ``.eval`` log one sample at a time). A ``.eval`` that is not a zip, or a
damaged one, is an error saying so.

- ``system``: the eval's model (``eval.model``, e.g. ``openai/gpt-5.5``), or its task when the
  model is ``none``; ``task_id``: the sample's ``id``; ``repeat``: its ``epoch`` minus one
  (inspect_ai counts epochs from 1, sgr-kit repeats from 0). In a system's folder the folder
  names the system (:mod:`~sgr_kit.trajectories.layout`).
- Steps from the sample's ``messages``: an assistant message's text is a ``message`` step and
  each of its ``tool_calls`` (``function``, ``arguments``) a tool-call step
  (:func:`~sgr_kit.trajectories.steps.tool_step`); a ``tool`` message (``tool_call_id``,
  ``error``) gives the text of the call it answers (``[error] ...`` when it failed); system and
  user messages are no steps.
- **The answer**: the sample's final output (``output.completion``): the last message step with
  that text becomes it, or it is added (but not when a limit ended the sample and that text was
  written together with tool calls: the model was still at work, and gave no answer); when the completion is empty, the ``answer`` argument of
  the last ``submit`` tool call (how inspect_ai's ReAct agent answers: ``submit(answer)``), an
  ``answer`` step after that call (said in a note); else there is none.
- **Per step**: each assistant message is matched with the ``model`` event that wrote it: by the
  message's id (inspect_ai 0.3.73 and later write ids), else by its text and tool calls, in
  order (0.3.72 and before write none). The call's usage goes on the message's first step and
  its time (since the sample's first event) on each of its steps.

**Cache reads, counted once.** inspect_ai's ``ModelUsage`` has ``input_tokens``,
``input_tokens_cache_read``, ``input_tokens_cache_write``, ``output_tokens``,
``reasoning_tokens`` and ``total_tokens``. Whether the cache reads are *inside*
``input_tokens`` changed with inspect_ai's version and the provider (its CHANGELOG and the
providers' history, UKGovernmentBEIS/inspect_ai):

- Anthropic: never inside (``input_tokens`` is the uncached part, as Anthropic reports it);
- OpenAI and every provider converted by inspect_ai's OpenAI code (``model_output_from_openai``:
  the OpenAI-compatible ones, Together, OpenRouter, Fireworks, vLLM, SGLang, Ollama...,
  the Responses API, Grok): inside before **0.3.184** (28 February 2026: "Normalize handling
  of cached tokens in ``ModelUsage``", commit bf26615e), outside from it;
- Google: inside before **0.3.208** (19 April 2026: "Google: Correct counting for cached input
  tokens", commit 5120cd87), outside from it.

Each model call is decided by its own ``total_tokens`` where it has one (inside when ``total =
input + output``, outside when ``total = input + cache reads [+ cache writes] + output``, the
reasoning tokens allowed on either side, as the Google provider counts them apart), else by the
log's inspect_ai version (``eval.packages``) and the call's provider (the part of its model name
before ``/``), else (an unknown provider of an old version) as outside. sgr-kit's
``input_tokens`` is then every prompt token, ``input_tokens`` alone when the reads are inside,
``input_tokens + input_tokens_cache_read + input_tokens_cache_write`` when they are outside;
``cached_input_tokens`` is ``input_tokens_cache_read``. How each file was decided is said in a
note.

**Totals count provider calls.** A model event with ``cache: "read"`` was answered from
inspect_ai's own local response cache: no provider was paid. The totals are the sample's
``model_usage`` (which counts exactly the calls not so answered), decided as above per model;
where it is empty they are summed over the provider calls among the events, 0 when every call
was answered locally (the tokens of those calls said in a note, and 0 on their steps).
``cost_usd`` is ``total_cost`` where inspect_ai priced the calls, ``seconds`` the sample's
``total_time``, and ``model`` its models, the one with most output tokens first.

**The limit that ended a sample** (``EvalSample.limit``), when one did, is ``totals["limit"]``:
``{"type", "limit", "reason"}`` with inspect_ai's type (``time``, ``working``, ``message``,
``token``, ...), or ``stall`` for a ``custom`` limit whose reason starts with
:data:`STALL_REASON` (the stall limit of sgr-kit's runner, :mod:`sgr_kit.run.limits`);
:func:`~sgr_kit.trajectories.protocol.protocol_flags` reads it.
"""

from __future__ import annotations

import math
import zipfile
from pathlib import Path
from typing import Any, Iterator

from ..errors import SgrKitError, describe
from .agents import models_by_output
from .archive import check_archive
from .notes import ReaderNote
from .steps import TOTAL_KEYS, Step, Trajectory, excerpt, tool_step

__all__ = ["LABEL", "FORMAT", "STALL_REASON", "is_inspect_log", "read_inspect_log", "cache_inside", "OPENAI_OUTSIDE_FROM",
           "OUTSIDE_FROM", "OPENAI_STYLE", "NEVER_INSIDE"]

#: How notes name an inspect_ai eval log.
LABEL = "inspect_ai eval log"
#: The format's name as a trajectory's ``format``.
FORMAT = "inspect_ai"
#: How the reason of the limit that sgr-kit's runner uses to end a stalled sample begins
#: (an inspect_ai ``custom`` sample limit).
STALL_REASON = "Stall limit exceeded"
_HEAD_BYTES = 4096


def is_inspect_log(path: Any) -> bool:
    """True when ``path`` is an inspect_ai eval log (looked up without reading it whole).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "run.json"
    >>> _ = path.write_text('{"version": 2, "status": "success", "eval": {"task": "t"}}')
    >>> is_inspect_log(path), is_inspect_log(path.with_suffix(".jsonl"))
    (True, False)
    """
    path = Path(path)
    try:
        if not path.is_file():
            return False
        suffix = path.suffix.lower()
        if suffix == ".eval":
            if not zipfile.is_zipfile(path):
                return False
            with zipfile.ZipFile(path) as archive:
                names = set(archive.namelist())
            return "header.json" in names or "_journal/start.json" in names
        if suffix == ".json":
            with open(path, "rb") as handle:
                head = handle.read(_HEAD_BYTES).decode("utf-8", "replace").lstrip("\ufeff \t\r\n")
            if not head.startswith("{"):
                return False
            at_eval = head.find('"eval"')
            return at_eval > 0 and '"version"' in head[:at_eval] and '"status"' in head[:at_eval]
    except (OSError, zipfile.BadZipFile):
        return False
    return False


def _inspect():
    try:
        from inspect_ai.log import read_eval_log, read_eval_log_samples
    except ImportError:
        raise SgrKitError("reading inspect_ai eval logs needs inspect_ai: pip install 'sgr-kit[inspect]' "
                          "(make setup installs it)") from None  # fmt: skip
    return read_eval_log, read_eval_log_samples


def _why(exc: Exception) -> str:
    """inspect_ai's complaint, short: a pydantic error's fields, else its message."""
    errors = getattr(exc, "errors", None)
    if callable(errors):
        try:
            found = errors()
        except Exception:  # noqa: BLE001 - only for the message
            found = None
        if isinstance(found, list) and found:
            fields = []
            for error in found:
                loc = ".".join(str(p) for p in error.get("loc", ()) if "[" not in str(p))
                if loc and loc not in fields:
                    fields.append(loc)
            return f"{type(exc).__name__}: invalid {', '.join(fields[:4])}" + (" ..." if len(fields) > 4 else "")
    return f"{type(exc).__name__}: {_clean(str(exc))[:300]}"


def _clean(text: str) -> str:
    return text.encode("utf-8", "replace").decode("utf-8") if text and not text.isascii() else text


def _count(value: Any, what: str, at: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**63:
        raise SgrKitError(f"{at}: {what} must be a whole number from 0 to 2**63 - 1; found {describe(value)}")
    return value


def _cost(value: Any, what: str, at: str) -> float | None:
    if value is None:
        return None
    ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    if not ok or not math.isfinite(float(value)) or value < 0:
        raise SgrKitError(f"{at}: {what} must be a number >= 0; found {describe(value)}")
    return float(value)


def _sum(values: list[int | None]) -> int | None:
    known = [v for v in values if v is not None]
    return sum(known) if known else None


#: inspect_ai versions from which cache reads are *outside* ``input_tokens``, by provider (see the module).
OUTSIDE_FROM: dict[str, tuple[int, ...]] = {"google": (0, 3, 208), "vertex": (0, 3, 208)}
#: The version from which inspect_ai's OpenAI conversion leaves cache reads out of ``input_tokens``.
OPENAI_OUTSIDE_FROM = (0, 3, 184)
#: Providers whose usage inspect_ai converts with its OpenAI code (cache reads inside before 0.3.184).
OPENAI_STYLE = frozenset({
    "openai", "openai-api", "azureai", "grok", "together", "openrouter", "fireworks", "groq", "deepseek",
    "perplexity", "sambanova", "cloudflare", "ollama", "vllm", "sglang", "hf-inference-providers",
    "llama-cpp-python", "sagemaker", "moonshot",
})  # fmt: skip
#: Providers whose ``input_tokens`` never held the cache reads.
NEVER_INSIDE = frozenset({"anthropic", "bedrock", "mockllm"})
#: How notes name how the cache reads of a file's calls were decided.
CACHE_NOTE = "cache reads inside or outside input_tokens decided per call (inspect_ai changed it by version)"
#: How notes name model calls answered from inspect_ai's local cache.
LOCAL_CACHE_NOTE = ("model calls answered from inspect_ai's local response cache (cache: read): no provider was "
                    "paid, counted 0")  # fmt: skip
#: How notes name answers taken from a ``submit`` tool call.
SUBMIT_NOTE = "answers taken from the last submit tool call's answer (output.completion empty)"


def _usage_counts(usage: Any, what: str, at: str) -> dict[str, Any]:
    """The counts of one inspect_ai ``ModelUsage`` as written (None where absent)."""
    return {
        "fresh": _count(getattr(usage, "input_tokens", None), f"{what}.input_tokens", at),
        "read": _count(getattr(usage, "input_tokens_cache_read", None), f"{what}.input_tokens_cache_read", at),
        "write": _count(getattr(usage, "input_tokens_cache_write", None), f"{what}.input_tokens_cache_write", at),
        "output": _count(getattr(usage, "output_tokens", None), f"{what}.output_tokens", at),
        "reasoning": _count(getattr(usage, "reasoning_tokens", None), f"{what}.reasoning_tokens", at),
        "total": _count(getattr(usage, "total_tokens", None), f"{what}.total_tokens", at),
        "cost": _cost(getattr(usage, "total_cost", None), f"{what}.total_cost", at),
    }


def _version(text: Any) -> tuple[int, ...] | None:
    if not isinstance(text, str):
        return None
    parts = []
    for part in text.split("."):
        digits = "".join(c for c in part if c.isdigit()) if part[:1].isdigit() else ""
        if not digits:
            break
        parts.append(int(digits[:9]))
    return tuple(parts) or None


def cache_inside(counts: dict[str, Any], *, model: str, version: tuple[int, ...] | None) -> tuple[bool, str]:
    """Are the cache reads of one call inside its ``input_tokens``? And what decided it.

    ``counts`` are the call's usage as written (keys ``fresh``, ``read``,
    ``write``, ``output``, ``reasoning``, ``total``); ``model`` its model (``provider/name``);
    ``version`` the log's inspect_ai version.

    Examples
    --------
    >>> cache_inside({"fresh": 1731, "read": 1664, "write": None, "output": 28, "reasoning": None, "total": 1759},
    ...              model="openai/gpt-4o-mini", version=(0, 3, 73))
    (True, 'total_tokens')
    >>> cache_inside({"fresh": 12, "read": 900, "write": 0, "output": 5, "reasoning": None, "total": 0},
    ...              model="openai/gpt-4o-mini", version=(0, 3, 73))
    (True, 'version')
    """
    fresh, read, write, out = counts["fresh"] or 0, counts["read"] or 0, counts["write"] or 0, counts["output"] or 0
    total, reasoning = counts["total"], counts["reasoning"] or 0
    if not read:
        return False, "no cache reads"
    if total:
        outs = {out, out + reasoning}
        inside = any(total in (fresh + o, fresh + write + o) for o in outs)
        outside = any(total in (fresh + read + write + o, fresh + read + o) for o in outs)
        if inside != outside:
            return inside, "total_tokens"
    provider = model.split("/", 1)[0].lower() if "/" in model else ""
    if provider in NEVER_INSIDE:
        return False, "provider"
    if version is not None and provider in OPENAI_STYLE:
        return version < OPENAI_OUTSIDE_FROM, "version"
    if version is not None and provider in OUTSIDE_FROM:
        return version < OUTSIDE_FROM[provider], "version"
    if version is not None and version < OPENAI_OUTSIDE_FROM and read > fresh:
        return True, "reads larger than input_tokens"  # (an uncached part smaller than the cached one: inside)
    return False, "undecided"


def _ours(counts: dict[str, Any], inside: bool) -> dict[str, Any]:
    """sgr-kit's counts of one usage: every prompt token as input, the cache reads once."""
    fresh = counts["fresh"]
    extra = 0 if inside else (counts["read"] or 0) + (counts["write"] or 0)
    return {"input_tokens": None if fresh is None else fresh + extra, "cached_input_tokens": counts["read"],
            "output_tokens": counts["output"], "reasoning_tokens": counts["reasoning"], "cost_usd": counts["cost"]}


def _text(content: Any) -> str:
    """Text of a message's content: a string, or the text of its content parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [getattr(c, "text", None) for c in content if getattr(c, "type", None) == "text"]
        return "\n".join(p for p in parts if isinstance(p, str))
    return ""


class _Call:
    """One model event: its usage (sgr-kit's counts), time, the message it wrote, whether a provider was paid."""

    __slots__ = ("counts", "t", "mid", "text", "calls", "local", "model", "how", "used")

    def __init__(self, event: Any, start: Any, version: tuple[int, ...] | None, at: str) -> None:
        output = event.output
        choices = getattr(output, "choices", None) or []
        message = choices[0].message if choices else None
        self.mid = getattr(message, "id", None) if message is not None else None
        self.text = _text(getattr(message, "content", "")).strip() if message is not None else ""
        self.calls = tuple(getattr(c, "id", "") for c in (getattr(message, "tool_calls", None) or []))
        self.local = getattr(event, "cache", None) == "read"
        self.model = str(getattr(event, "model", "") or "")
        usage = getattr(output, "usage", None)
        self.counts: dict[str, Any] = {}
        self.how = ""
        if usage is not None:
            raw = _usage_counts(usage, "model event usage", at)
            inside, self.how = cache_inside(raw, model=self.model, version=version)
            self.counts = _ours(raw, inside)
        stamp = getattr(event, "timestamp", None)
        t = (stamp - start).total_seconds() if stamp is not None and start is not None else math.nan
        self.t = max(t, 0.0)
        self.used = False

    def matches(self, message: Any) -> bool:
        mid = getattr(message, "id", None)
        if isinstance(mid, str) and isinstance(self.mid, str):
            return mid == self.mid
        calls = tuple(getattr(c, "id", "") for c in (getattr(message, "tool_calls", None) or []))
        return _text(message.content).strip() == self.text and calls == self.calls


def _model_calls(sample: Any, version: tuple[int, ...] | None, at: str) -> list[_Call]:
    events = getattr(sample, "events", None) or []
    start = next((e.timestamp for e in events if getattr(e, "timestamp", None) is not None), None)
    return [_Call(e, start, version, at) for e in events
            if getattr(e, "event", None) == "model" and getattr(e, "output", None) is not None]  # fmt: skip


def _steps(sample: Any, calls: list[_Call], at: str) -> tuple[list[Step], bool]:
    """The steps of a sample, and whether its answer was taken from a ``submit`` call."""
    steps: list[Step] = []
    by_call: dict[str, int] = {}
    submitted: tuple[int, str] | None = None  # (index of the last submit step, its answer)
    working: set[int] = set()  # message steps written together with tool calls (the model was not done)
    cursor = 0
    for message in getattr(sample, "messages", None) or []:
        role = getattr(message, "role", None)
        where = f"{at}: step {len(steps)}"
        if role == "tool":
            index = by_call.get(getattr(message, "tool_call_id", None) or "")
            if index is not None:
                error = getattr(message, "error", None)
                text = f"[error] {error.message}" if error is not None else _text(message.content)
                steps[index] = steps[index]._replace(text=excerpt(_clean(text)))
            continue
        if role != "assistant":
            continue
        call = None
        for k in range(cursor, len(calls)):  # the model event that wrote it, in order
            if not calls[k].used and calls[k].matches(message):
                call, cursor = calls[k], k + 1
                call.used = True
                break
        counts, t = (call.counts, call.t) if call is not None else ({}, math.nan)
        if call is not None and call.local:
            counts = {**counts, "input_tokens": 0, "cached_input_tokens": 0, "output_tokens": 0,
                      "reasoning_tokens": 0} if counts else counts  # fmt: skip
        first = len(steps)
        text = _text(message.content)
        if text.strip():
            steps.append(Step(kind="message", text=_clean(text), t=t))
            if getattr(message, "tool_calls", None):
                working.add(len(steps) - 1)
        for tool_call in getattr(message, "tool_calls", None) or []:
            name = getattr(tool_call, "function", None)
            if not isinstance(name, str) or not name:
                raise SgrKitError(f"{where}: a tool call needs a function name; found {describe(name)}")
            args = getattr(tool_call, "arguments", None)
            if isinstance(getattr(tool_call, "id", None), str):
                by_call[tool_call.id] = len(steps)
            if name == "submit" and isinstance(args, dict) and isinstance(args.get("answer"), str):
                submitted = (len(steps), _clean(args["answer"]))
            steps.append(tool_step(_clean(name), args if args is not None else {}, t=t))
        if counts and first < len(steps):
            known = [counts["input_tokens"], counts["output_tokens"]]
            steps[first] = steps[first]._replace(
                input_tokens=counts["input_tokens"], cached_input_tokens=counts["cached_input_tokens"],
                output_tokens=counts["output_tokens"], reasoning_tokens=counts["reasoning_tokens"],
                tokens=sum(known) if None not in known else None)  # fmt: skip
    output = getattr(sample, "output", None)
    completion = _clean(getattr(output, "completion", "") or "") if output is not None else ""
    answer, from_submit = None, False
    same = [i for i, s in enumerate(steps) if s.kind == "message" and s.text.strip() == completion.strip()]
    # a limit that ended the sample while the model was still calling tools leaves its last words no answer
    unfinished = getattr(sample, "limit", None) is not None and bool(same) and same[-1] in working
    if completion.strip() and not unfinished:
        answer = same[-1] if same else None
        if answer is None:
            steps.append(Step(kind="answer", text=completion))
    elif submitted is not None:
        index, text = submitted
        steps.insert(index + 1, Step(kind="answer", text=text, t=steps[index].t))
        from_submit = True
    steps = [s._replace(kind="answer") if i == answer else s._replace(text=excerpt(s.text)) if s.kind == "message"
             else s for i, s in enumerate(steps)]  # fmt: skip
    return steps, from_submit


def _totals(sample: Any, calls: list[_Call], version: tuple[int, ...] | None, at: str) -> dict | None:
    usage = getattr(sample, "model_usage", None) or {}
    parts: dict[str, dict[str, Any]] = {}
    for name, u in usage.items():
        raw = _usage_counts(u, f"model_usage[{name!r}]", at)
        inside, _ = cache_inside(raw, model=str(name), version=version)
        parts[str(name)] = _ours(raw, inside)
    if not parts:  # no summary: the provider calls among the events (none: nothing paid)
        for call in calls:
            if call.local or not call.counts:
                continue
            part = parts.setdefault(call.model, dict.fromkeys(call.counts, 0))
            for key, value in call.counts.items():
                part[key] = None if part[key] is None or value is None else part[key] + value
    totals: dict[str, Any] = dict.fromkeys(TOTAL_KEYS)
    for key in ("input_tokens", "cached_input_tokens", "output_tokens", "reasoning_tokens"):
        totals[key] = _sum([p[key] for p in parts.values()])
    costs = [p.get("cost_usd") for p in parts.values() if p.get("cost_usd") is not None]
    totals["cost_usd"] = sum(costs) if costs else None
    if not parts and calls and all(c.local for c in calls):  # every call answered locally: 0 paid
        totals.update(input_tokens=0, cached_input_tokens=0, output_tokens=0, reasoning_tokens=0, cost_usd=0.0)
    seconds = getattr(sample, "total_time", None)
    totals["seconds"] = _cost(seconds, "total_time", at)
    outputs = {m: p["output_tokens"] for m, p in parts.items()}
    if not outputs:
        outputs = {c.model: None for c in calls if c.model}
    totals["model"] = _clean(models_by_output(outputs) or "") or None
    totals["limit"] = _ended_by(sample)
    return totals if any(v is not None for v in totals.values()) else None


def _ended_by(sample: Any) -> dict | None:
    """The limit that ended the sample (``stall`` for the runner's stall limit), None when none did."""
    limit = getattr(sample, "limit", None)
    if limit is None:
        return None
    reason = str(getattr(limit, "reason", None) or "")
    kind = str(getattr(limit, "type", ""))
    if kind == "custom" and reason.startswith(STALL_REASON):
        kind = "stall"
    value = getattr(limit, "limit", None)
    value = float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
    return {"type": kind, "limit": value, "reason": _clean(reason)}


def _check_archive(path: Path) -> None:
    """A ``.eval`` must be a whole zip archive holding an eval log's members, each of a size sgr-kit reads.

    Every member's size is checked (:func:`~sgr_kit.trajectories.archive.check_archive`) before
    inspect_ai reads one.
    """
    if path.suffix.lower() != ".eval":
        return
    if not zipfile.is_zipfile(path):
        raise SgrKitError(f"{path}: not a readable inspect_ai eval log (not a zip archive (an .eval log is a zip of "
                          f"JSON members): damaged, cut short, or not a log)")  # fmt: skip
    check_archive(path, one_of=("header.json", "_journal/start.json"))


def _describe(decided: dict[str, int], version: tuple[int, ...] | None) -> str:
    shown = ".".join(map(str, version)) if version else "an unknown version"
    parts = [f"{n} by {how}" for how, n in sorted(decided.items())]
    return (f"cache reads inside or outside input_tokens decided per call (inspect_ai {shown}): "
            f"{', '.join(parts)}; counted once")  # fmt: skip


def read_inspect_log(path: Any, *, notes: Any = None) -> Iterator[Trajectory]:
    """Yield the trajectories of an inspect_ai eval log, one sample (and epoch) at a time.

    Parameters
    ----------
    path : path
        A ``.eval`` log or its ``.json`` form.
    notes : NoteSink, optional
        Takes what was decided per file (cache semantics, answers from ``submit``, calls answered
        from inspect_ai's local cache) as :class:`~sgr_kit.trajectories.notes.ReaderNote` s.

    Raises
    ------
    SgrKitError
        inspect_ai missing, a ``.eval`` that is not a whole zip archive, a file inspect_ai cannot
        read (its message quoted), or a value out of range (naming the file, the sample, the
        step and the field).
    """
    path = Path(path)
    _check_archive(path)
    read_eval_log, read_eval_log_samples = _inspect()
    try:
        header = read_eval_log(str(path), header_only=True)
    except Exception as exc:  # inspect_ai raises its own and pydantic's errors
        raise SgrKitError(f"{path}: not a readable inspect_ai eval log ({_why(exc)})") from None
    model = getattr(header.eval, "model", None)
    system = model if isinstance(model, str) and model and model != "none" else header.eval.task
    packages = getattr(header.eval, "packages", None) or {}
    version = _version(packages.get("inspect_ai") if isinstance(packages, dict) else None)
    decided: dict[str, int] = {}
    submitted: list[str] = []
    local: list[tuple[str, int]] = []  # (sample, tokens) of calls answered from inspect's local cache
    samples = read_eval_log_samples(str(path), all_samples_required=False)
    while True:
        try:
            sample = next(samples)
        except StopIteration:
            break
        except Exception as exc:
            raise SgrKitError(f"{path}: a sample inspect_ai cannot read ({_why(exc)})") from None
        epoch = sample.epoch if isinstance(sample.epoch, int) and sample.epoch >= 1 else 1
        task_id = _clean(str(sample.id))
        at = f"{path}: sample {task_id} epoch {epoch}"
        calls = _model_calls(sample, version, at)
        for call in calls:
            if call.how and call.how != "no cache reads":
                decided[call.how] = decided.get(call.how, 0) + 1
            if call.local:
                local.append((at, sum(call.counts.get(k) or 0 for k in ("input_tokens", "output_tokens"))))
        steps, from_submit = _steps(sample, calls, at)
        if from_submit:
            submitted.append(at)
        yield Trajectory(_clean(system), task_id, epoch - 1, tuple(steps), at, FORMAT,
                         _totals(sample, calls, version, at))  # fmt: skip
    if notes is not None:
        file = str(path)
        if decided:
            notes.add(ReaderNote(CACHE_NOTE, file, _describe(decided, version)), file=file)
        if submitted:
            notes.add(ReaderNote(SUBMIT_NOTE, submitted[0], f"{len(submitted)} sample(s): the answer taken from "
                                 "the last submit tool call's answer (output.completion empty)"), file=file)
        if local:
            notes.add(ReaderNote(LOCAL_CACHE_NOTE, local[0][0], f"{len(local)} model call(s) answered from "
                                 f"inspect_ai's local response cache ({sum(n for _, n in local):,} tokens): no "
                                 "provider was paid, counted 0"), file=file)  # fmt: skip
