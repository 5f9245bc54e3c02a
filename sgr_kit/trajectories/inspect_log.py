"""Read inspect_ai eval logs (``.eval`` and ``.json``) with inspect_ai's own log reader.

inspect_ai is an optional dependency (``pip install 'sgr-kit[inspect]'``; ``make setup``
installs it). :func:`is_inspect_log` tells an eval log by its content (a ``.eval`` zip holding
``header.json`` or ``_journal/start.json``; a ``.json`` object starting with ``version`` and
``status`` before ``eval``), without inspect_ai. :func:`read_inspect_log` yields one
:class:`~sgr_kit.trajectories.steps.Trajectory` per sample and epoch, reading the samples one
at a time (``inspect_ai.log.read_eval_log_samples``; a ``.json`` log is parsed whole by
inspect_ai itself, a ``.eval`` log one sample at a time).

- ``system``: the eval's model (``eval.model``, e.g. ``openai/gpt-5.5``), or its task when the
  model is ``none``; ``task_id``: the sample's ``id``; ``repeat``: its ``epoch`` minus one
  (inspect_ai counts epochs from 1, sgr-kit repeats from 0).
- Steps from the sample's ``messages``: an assistant message's text is a ``message`` step and
  each of its ``tool_calls`` (``function``, ``arguments``) a tool-call step
  (:func:`~sgr_kit.trajectories.steps.tool_step`); a ``tool`` message (``tool_call_id``,
  ``error``) gives the text of the call it answers (``[error] ...`` when it failed); system and
  user messages are no steps. The sample's final output (``output.completion``) is the
  ``answer``: the last message step with that text becomes it, or it is added.
- Per step: the model call that wrote an assistant message (the ``model`` event whose output
  message has the message's id) gives its first step the call's usage and its time since the
  sample's first event.
- Totals: the sample's ``model_usage`` (summed over its models; ``model`` lists them), and
  ``total_time`` as ``seconds``. inspect_ai's ``ModelUsage.input_tokens`` *excludes* the tokens
  read from and written to a cache (its documentation, 0.3.285), so sgr-kit's ``input_tokens``
  is ``input_tokens + input_tokens_cache_read + input_tokens_cache_write`` and
  ``cached_input_tokens`` is ``input_tokens_cache_read``; ``output_tokens`` (reasoning included,
  as the providers report it) and ``reasoning_tokens`` are taken as they are; ``cost_usd`` is
  ``total_cost`` where inspect_ai priced the calls.
- The limit that ended a sample (``EvalSample.limit``), when one did, as ``totals["limit"]``:
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

from ..errors import SgrKitError
from .archive import check_archive
from .steps import TOTAL_KEYS, Step, Trajectory, excerpt, tool_step

__all__ = ["LABEL", "FORMAT", "STALL_REASON", "is_inspect_log", "read_inspect_log"]

#: How notes name an inspect_ai eval log.
LABEL = "inspect_ai eval log"
#: The format's name as a trajectory's ``format``.
FORMAT = "inspect_ai"
_HEAD_BYTES = 4096
#: How the reason of the limit that sgr-kit's runner uses to end a stalled sample begins
#: (an inspect_ai ``custom`` sample limit).
STALL_REASON = "Stall limit exceeded"


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
        shown = "a very large number" if isinstance(value, int) and value.bit_length() > 200 else f"{value!r:.60}"
        raise SgrKitError(f"{at}: {what} must be a whole number from 0 to 2**63 - 1; found {shown}")
    return value


def _cost(value: Any, what: str, at: str) -> float | None:
    if value is None:
        return None
    ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    if not ok or not math.isfinite(float(value)) or value < 0:
        raise SgrKitError(f"{at}: {what} must be a number >= 0; found {value!r:.60}")
    return float(value)


def _sum(values: list[int | None]) -> int | None:
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def _usage(usage: Any, what: str, at: str) -> dict[str, Any]:
    """sgr-kit's counts of one inspect_ai ``ModelUsage`` (input with cached ones, see the module)."""
    fresh = _count(getattr(usage, "input_tokens", None), f"{what}.input_tokens", at)
    read = _count(getattr(usage, "input_tokens_cache_read", None), f"{what}.input_tokens_cache_read", at)
    write = _count(getattr(usage, "input_tokens_cache_write", None), f"{what}.input_tokens_cache_write", at)
    return {
        "input_tokens": None if fresh is None else fresh + (read or 0) + (write or 0),
        "cached_input_tokens": read,
        "output_tokens": _count(getattr(usage, "output_tokens", None), f"{what}.output_tokens", at),
        "reasoning_tokens": _count(getattr(usage, "reasoning_tokens", None), f"{what}.reasoning_tokens", at),
        "cost_usd": _cost(getattr(usage, "total_cost", None), f"{what}.total_cost", at),
    }


def _text(content: Any) -> str:
    """Text of a message's content: a string, or the text of its content parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [getattr(c, "text", None) for c in content if getattr(c, "type", None) == "text"]
        return "\n".join(p for p in parts if isinstance(p, str))
    return ""


def _calls(sample: Any, at: str) -> dict[str, tuple[dict[str, Any], float]]:
    """For each assistant message id: the usage and start time of the model call that wrote it."""
    events = getattr(sample, "events", None) or []
    start = next((e.timestamp for e in events if getattr(e, "timestamp", None) is not None), None)
    calls: dict[str, tuple[dict[str, Any], float]] = {}
    for event in events:
        if getattr(event, "event", None) != "model" or getattr(event, "output", None) is None:
            continue
        choices = getattr(event.output, "choices", None) or []
        message = choices[0].message if choices else None
        mid = getattr(message, "id", None)
        if not isinstance(mid, str):
            continue
        usage = event.output.usage
        counts = _usage(usage, "model event usage", at) if usage is not None else {}
        stamp = getattr(event, "timestamp", None)
        t = (stamp - start).total_seconds() if stamp is not None and start is not None else math.nan
        calls[mid] = (counts, max(t, 0.0))
    return calls


def _steps(sample: Any, at: str) -> list[Step]:
    calls = _calls(sample, at)
    steps: list[Step] = []
    by_call: dict[str, int] = {}
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
        counts, t = calls.get(getattr(message, "id", None) or "", ({}, math.nan))
        first = len(steps)
        text = _text(message.content)
        if text.strip():
            steps.append(Step(kind="message", text=_clean(text), t=t))
        for call in getattr(message, "tool_calls", None) or []:
            name = getattr(call, "function", None)
            if not isinstance(name, str) or not name:
                raise SgrKitError(f"{where}: a tool call needs a function name; found {name!r:.60}")
            args = getattr(call, "arguments", None)
            if isinstance(getattr(call, "id", None), str):
                by_call[call.id] = len(steps)
            steps.append(tool_step(_clean(name), args if args is not None else {}, t=t))
        if counts and first < len(steps):
            known = [counts["input_tokens"], counts["output_tokens"]]
            steps[first] = steps[first]._replace(
                input_tokens=counts["input_tokens"], cached_input_tokens=counts["cached_input_tokens"],
                output_tokens=counts["output_tokens"], reasoning_tokens=counts["reasoning_tokens"],
                tokens=sum(known) if None not in known else None)  # fmt: skip
    output = getattr(sample, "output", None)
    completion = _clean(getattr(output, "completion", "") or "") if output is not None else ""
    answer = None
    if completion.strip():
        same = [i for i, s in enumerate(steps) if s.kind == "message" and s.text.strip() == completion.strip()]
        answer = same[-1] if same else None
        if answer is None:
            steps.append(Step(kind="answer", text=completion))
    return [s._replace(kind="answer") if i == answer else s._replace(text=excerpt(s.text)) if s.kind == "message" else s
            for i, s in enumerate(steps)]  # fmt: skip


def _totals(sample: Any, at: str) -> dict | None:
    usage = getattr(sample, "model_usage", None) or {}
    parts = [_usage(u, f"model_usage[{m!r}]", at) for m, u in usage.items()]
    totals: dict[str, Any] = dict.fromkeys(TOTAL_KEYS)
    for key in ("input_tokens", "cached_input_tokens", "output_tokens", "reasoning_tokens"):
        totals[key] = _sum([p[key] for p in parts])
    costs = [p["cost_usd"] for p in parts if p["cost_usd"] is not None]
    totals["cost_usd"] = sum(costs) if costs else None
    seconds = getattr(sample, "total_time", None)
    totals["seconds"] = _cost(seconds, "total_time", at)
    totals["model"] = _clean(", ".join(str(m) for m in usage)) or None
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


def read_inspect_log(path: Any) -> Iterator[Trajectory]:
    """Yield the trajectories of an inspect_ai eval log, one sample (and epoch) at a time.

    Raises
    ------
    SgrKitError
        inspect_ai missing, a file inspect_ai cannot read (its message quoted), or a value out
        of range (naming the file, the sample, the step and the field).
    """
    path = Path(path)
    if path.suffix.lower() == ".eval":  # a zip: every member's size checked before inspect_ai reads one
        check_archive(path)
    read_eval_log, read_eval_log_samples = _inspect()
    try:
        header = read_eval_log(str(path), header_only=True)
    except Exception as exc:  # inspect_ai raises its own and pydantic's errors
        raise SgrKitError(f"{path}: not a readable inspect_ai eval log ({_why(exc)})") from None
    model = getattr(header.eval, "model", None)
    system = model if isinstance(model, str) and model and model != "none" else header.eval.task
    samples = read_eval_log_samples(str(path), all_samples_required=False)
    while True:
        try:
            sample = next(samples)
        except StopIteration:
            return
        except Exception as exc:
            raise SgrKitError(f"{path}: a sample inspect_ai cannot read ({_why(exc)})") from None
        epoch = sample.epoch if isinstance(sample.epoch, int) and sample.epoch >= 1 else 1
        task_id = _clean(str(sample.id))
        at = f"{path}: sample {task_id} epoch {epoch}"
        yield Trajectory(_clean(system), task_id, epoch - 1, tuple(_steps(sample, at)), at, FORMAT,
                         _totals(sample, at))  # fmt: skip
