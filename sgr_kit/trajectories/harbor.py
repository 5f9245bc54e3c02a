"""Reader of Harbor trajectories: ``agent/trajectory.json`` (ATIF) and terminus-2's ``episode-N/`` files.

Harbor (laude-institute/harbor) runs an agent on a task in a container and keeps a **trial
folder** (``src/harbor/models/trial/paths.py``): ``config.json``, ``result.json`` (a
``TrialResult``: ``task_name``, ``agent_info.model_info.name``, ``agent_result`` with
``n_input_tokens``, ``n_cache_tokens``, ``n_output_tokens``, ``cost_usd``), and ``agent/``, what the
agent wrote. A job folder holds one trial folder per run (``<task>__<id>``).

**The trajectory** (``agent/trajectory.json``) is an ATIF document (Agent Trajectory Interchange
Format, Harbor's ``docs/rfcs/0001-trajectory-format.md`` and the pydantic models of
``src/harbor/models/trajectories/``; ``schema_version`` ``"ATIF-v1.0"`` to ``"ATIF-v1.6"``):
``agent`` (``name``, ``version``, ``model_name``), ``steps``, ``final_metrics``, and
``continued_trajectory_ref`` when the agent summarised its context and went on in another file
(``trajectory.cont-1.json``, read after it, its steps copied from before marked
``is_copied_context`` and skipped). Each step has ``step_id``, ``timestamp``, ``source``
(``system``, ``user`` or ``agent``), ``message``, and for an agent step ``model_name``,
``tool_calls`` (``tool_call_id``, ``function_name``, ``arguments``), ``observation.results``
(``source_call_id``, ``content``; a result without ``source_call_id`` answers the step's calls
together, as terminus-2 writes one terminal output for all its keystrokes) and ``metrics``
(``prompt_tokens`` with the cached ones, ``cached_tokens``, ``completion_tokens``, ``cost_usd``,
``extra.reasoning_tokens``).

An agent step's ``message`` is a ``message`` step, each tool call a tool-call step
(:func:`~sgr_kit.trajectories.steps.tool_step`: terminus-2's ``bash_command`` with its
``keystrokes`` is a ``tool`` step, a ``curl URL`` giving it its URL; ``mark_task_complete`` a
``tool`` step); an agent step that wrote the terminus JSON itself (``analysis``, ``plan``,
``commands``: Harbor's raw-content mode) is read as terminus-2's response below. The metrics
go on the step's first step, and the ``timestamp`` gives the times. The last agent message
without a tool call is the answer (a terminal agent answers in files, so most have none). The
totals are the ``final_metrics`` (``total_prompt_tokens``, ``total_cached_tokens``,
``total_completion_tokens``, ``total_cost_usd``: Harbor counts its sub-agents in them, so they
may exceed the steps' sum), the models (each agent step's ``model_name``, else the agent's, the
one with most completion tokens first), and ``seconds`` from the first to the last step's time
(``seconds_source`` ``timestamps``).

**Episodes.** terminus-2 (``src/harbor/agents/terminus_2/terminus_2.py``,
``_setup_episode_logging``) also writes ``agent/episode-N/prompt.txt`` (what the model was sent)
and ``response.txt`` (what it answered: a JSON object with ``analysis``, ``plan``, ``commands``
of ``keystrokes``, and ``task_complete``). A folder without ``trajectory.json`` (an older
terminus, or a run stopped before it was written) is read from them: each response a
``message`` step (``Analysis: ... Plan: ...``) and a ``bash_command`` step per command, whose
text is the terminal output the next episode's prompt shows; no tokens or times.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Iterator

from ..errors import SgrKitError, describe
from .agents import AgentReader, models_by_output, timestamp_seconds
from .notes import ReaderNote
from .records import MAX_LINE_BYTES, document
from .steps import TOTAL_KEYS, Step, excerpt, number, tool_step

__all__ = ["FORMAT", "LABEL", "EPISODES_LABEL", "HarborReader", "sniff", "continued", "agent_folder", "is_trial",
           "trial_defaults", "episode_steps"]  # fmt: skip

#: The format's name.
FORMAT = "harbor"
#: How notes name a Harbor trajectory.
LABEL = "Harbor trajectory (ATIF)"
#: How notes name a Harbor agent folder read from its episodes alone.
EPISODES_LABEL = "Harbor terminus-2 episodes"
_EPISODE = re.compile(r"episode-([0-9]{1,9})")
_FILE_NAME = re.compile(r"[A-Za-z0-9._-]{1,200}")


def sniff(obj: dict) -> bool:
    """True when ``obj`` is an ATIF trajectory document.

    Examples
    --------
    >>> sniff({"schema_version": "ATIF-v1.6", "session_id": "s", "agent": {"name": "terminus-2"}, "steps": []})
    True
    >>> sniff({"system": "s", "task_id": "t", "steps": []})
    False
    """
    version = obj.get("schema_version")
    return isinstance(version, str) and version.startswith("ATIF") and isinstance(obj.get("steps"), list)


def continued(path: Path) -> Iterator[tuple[str, dict]]:
    """``(loc, document)`` of a trajectory file and of the files it continues in (``continued_trajectory_ref``).

    A reference is a file name in the same folder; one that is not (a path) is an error.
    """
    seen: set[str] = set()
    while True:
        doc = document(path, None)
        if not isinstance(doc, dict):
            raise SgrKitError(f"{path}: expected an ATIF trajectory object; found {type(doc).__name__}")
        yield str(path), doc
        ref = doc.get("continued_trajectory_ref")
        if ref is None:
            return
        if not isinstance(ref, str) or not _FILE_NAME.fullmatch(ref) or ref in seen or ref.startswith("."):
            raise SgrKitError(f"{path}: continued_trajectory_ref must name another file of the same folder "
                              f"(e.g. trajectory.cont-1.json); found {describe(ref)}")  # fmt: skip
        seen.add(ref)
        path = path.parent / ref
        if not path.is_file():
            raise SgrKitError(f"{path}: missing: the trajectory before it continues in it (continued_trajectory_ref)")


def _count(value: Any, what: str, at: str) -> int | None:
    return number(value, what=what, loc=at, integer=True)


class HarborReader(AgentReader):
    """Turns one ATIF document (and the documents it continues in, one ``line`` each) into steps."""

    def __init__(self) -> None:
        super().__init__()
        self.models: dict[str, int | None] = {}
        self.usage: list[tuple] = []
        self.final: dict | None = None
        self.default_model: str | None = None
        self.first: float | None = None
        self.last: float | None = None
        self.last_plain: int | None = None

    def line(self, obj: dict, *, loc: str) -> None:
        """Read one ATIF document; ``loc`` names the file."""
        if not sniff(obj):
            raise SgrKitError(f"{loc}: expected an ATIF trajectory (schema_version \"ATIF-v1.x\", agent, steps); found "
                              f"keys {', '.join(map(str, obj))[:200] or 'none'}")  # fmt: skip
        agent = obj.get("agent") if isinstance(obj.get("agent"), dict) else {}
        if isinstance(agent.get("model_name"), str) and agent["model_name"].strip():
            self.default_model = self.default_model or agent["model_name"].strip()
        if isinstance(obj.get("final_metrics"), dict):
            self.final = (obj["final_metrics"], loc)  # the last file's (a continuation counts the whole run)
        for i, step in enumerate(obj["steps"]):
            at = f"{loc}: step {i + 1}"
            if not isinstance(step, dict):
                raise SgrKitError(f"{at}: expected a step object; found {type(step).__name__}")
            if step.get("is_copied_context"):
                continue  # copied from the trajectory before it (read already)
            self._step(step, at)

    def _step(self, step: dict, at: str) -> None:
        stamp = timestamp_seconds(step.get("timestamp"))
        if stamp is not None:
            self.first = stamp if self.first is None else min(self.first, stamp)
            self.last = stamp if self.last is None else max(self.last, stamp)
        if step.get("source") != "agent":
            return
        t = self.when(step)
        where = at
        metrics = step.get("metrics") if isinstance(step.get("metrics"), dict) else None
        used = self._metrics(metrics, where) if metrics is not None else {}
        model = step.get("model_name") if isinstance(step.get("model_name"), str) else None
        model = (model or "").strip() or None
        if model is not None or used:
            model = model or self.default_model or ""
            out = used.get("output_tokens")
            known = self.models.get(model)
            self.models[model] = out if known is None else known + (out or 0)
        self.usage.append(tuple(used.get(k) for k in ("input_tokens", "cached_input_tokens", "output_tokens",
                                                      "reasoning_tokens")))  # fmt: skip
        first = len(self.steps)
        message = step.get("message")
        text = message if isinstance(message, str) else "\n".join(
            p.get("text", "") for p in message if isinstance(p, dict) and isinstance(p.get("text"), str)
        ) if isinstance(message, list) else ""  # fmt: skip
        calls = step.get("tool_calls") or []
        if not isinstance(calls, list):
            raise SgrKitError(f"{where}: tool_calls must be a list; found {type(calls).__name__}")
        parsed = _terminus(text) if not calls else None
        if parsed is not None:  # raw-content mode: the model's own JSON, its commands the calls
            text, calls = parsed
        if text.strip():
            self.steps.append(Step(kind="message", text=text, t=t))
        ids: list[int] = []
        for call in calls:
            name = call.get("function_name") if isinstance(call, dict) else None
            if not isinstance(name, str) or not name:
                raise SgrKitError(f"{where}: a tool call needs a function_name; found {describe(call)}")
            args = call.get("arguments")
            if isinstance(call.get("tool_call_id"), str):
                self.calls[call["tool_call_id"]] = len(self.steps)
            ids.append(len(self.steps))
            self.steps.append(tool_step(name, args if args is not None else {}, t=t))
        observation = step.get("observation") if isinstance(step.get("observation"), dict) else {}
        results = observation.get("results") if isinstance(observation.get("results"), list) else []
        for result in results:
            if not isinstance(result, dict):
                continue
            content = result.get("content")
            content = content if isinstance(content, str) else ""
            if isinstance(result.get("source_call_id"), str):
                self.result(result["source_call_id"], content)
            elif ids:  # one output for every call of the step (terminus-2's terminal): on its last call
                self.steps[ids[-1]] = self.steps[ids[-1]]._replace(text=excerpt(content))
        if used and first < len(self.steps):
            self.steps[first] = self.steps[first]._replace(**used)
        self.last_plain = len(self.steps) - 1 if text.strip() and not calls else None

    @staticmethod
    def _metrics(metrics: dict, at: str) -> dict:
        prompt = _count(metrics.get("prompt_tokens"), "metrics.prompt_tokens", at)
        out = _count(metrics.get("completion_tokens"), "metrics.completion_tokens", at)
        extra = metrics.get("extra") if isinstance(metrics.get("extra"), dict) else {}
        return {"input_tokens": prompt, "cached_input_tokens": _count(metrics.get("cached_tokens"),
                                                                      "metrics.cached_tokens", at),
                "output_tokens": out,
                "reasoning_tokens": _count(extra.get("reasoning_tokens"), "metrics.extra.reasoning_tokens", at),
                "tokens": None if prompt is None or out is None else prompt + out}  # fmt: skip

    def finish(self) -> list[Step]:
        """The steps (the last agent message without a tool call the answer); sets :attr:`totals`."""
        if self.last_plain is not None and self.last_plain == len(self.steps) - 1:
            self.steps[-1] = self.steps[-1]._replace(kind="answer")
        totals = {**dict.fromkeys(TOTAL_KEYS), "model": models_by_output(self.models) or self.default_model}
        if self.final is not None:
            final, at = self.final
            totals.update(
                input_tokens=_count(final.get("total_prompt_tokens"), "final_metrics.total_prompt_tokens", at),
                cached_input_tokens=_count(final.get("total_cached_tokens"), "final_metrics.total_cached_tokens", at),
                output_tokens=_count(final.get("total_completion_tokens"), "final_metrics.total_completion_tokens",
                                     at),
                cost_usd=number(final.get("total_cost_usd"), what="final_metrics.total_cost_usd", loc=at))
        if self.first is not None and self.last is not None:
            totals.update(seconds=self.last - self.first, seconds_source="timestamps")
        self.totals = totals
        return super().finish()

    def calls_usage(self) -> list[tuple]:
        """``(input, cached, output, reasoning)`` of every agent step (one model call each)."""
        return list(self.usage)


def _terminus(text: str) -> tuple[str, list[dict]] | None:
    """``(message, calls)`` of a terminus-2 JSON response (``analysis``, ``plan``, ``commands``), None if it is not one."""
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        return None
    try:
        data = json.loads(text[start:end + 1])
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or not ({"analysis", "plan", "commands"} & set(data)):
        return None
    parts = [f"{label}: {data[key]}" for key, label in (("analysis", "Analysis"), ("plan", "Plan"))
             if isinstance(data.get(key), str) and data[key].strip()]  # fmt: skip
    commands = data.get("commands") if isinstance(data.get("commands"), list) else []
    calls = [{"function_name": "bash_command", "arguments": {"keystrokes": c.get("keystrokes", ""),
                                                             "duration": c.get("duration")}}
             for c in commands if isinstance(c, dict) and isinstance(c.get("keystrokes"), str)]  # fmt: skip
    if data.get("task_complete") is True:
        calls.append({"function_name": "mark_task_complete", "arguments": {}})
    return "\n".join(parts), calls


def agent_folder(path: Path) -> Path | None:
    """The folder holding a Harbor agent's files (``trajectory.json`` or ``episode-N/``): ``path`` or ``path/agent``."""
    for folder in (path, path / "agent"):
        try:
            if (folder / "trajectory.json").is_file() or any(
                    _EPISODE.fullmatch(p.name) and p.is_dir() for p in folder.iterdir()):  # fmt: skip
                return folder
        except OSError:
            continue
    return None


def is_trial(path: Path) -> bool:
    """Is ``path`` a Harbor trial folder (an ``agent/`` folder of trajectory or episodes, and ``result.json`` or ``config.json``)?"""
    return ((path / "result.json").is_file() or (path / "config.json").is_file()) and agent_folder(path) == path / "agent"


def trial_defaults(folder: Path) -> tuple[str, str]:
    """``(model, task)`` of a trial folder from its ``result.json`` (``""`` where it names none).

    The task is the result's ``task_name``, else the trial folder's name before ``__``.
    """
    trial = folder.parent if folder.name == "agent" else folder
    model = task = ""
    result = trial / "result.json"
    if result.is_file() and result.stat().st_size <= MAX_LINE_BYTES:
        try:
            data = json.loads(result.read_bytes().decode("utf-8-sig"))
        except (ValueError, RecursionError, OSError):
            data = None
        if isinstance(data, dict):
            info = data.get("agent_info") if isinstance(data.get("agent_info"), dict) else {}
            mi = info.get("model_info") if isinstance(info.get("model_info"), dict) else {}
            model = mi["name"].strip() if isinstance(mi.get("name"), str) else ""
            task = data["task_name"].strip() if isinstance(data.get("task_name"), str) else ""
    return model, task or trial.name.split("__", 1)[0]


def episode_steps(folder: Path) -> tuple[list[Step], list[ReaderNote]]:
    """The steps of a terminus-2 agent folder's ``episode-N/response.txt`` files (no tokens, no times)."""
    episodes = sorted((int(m.group(1)), p) for p in folder.iterdir()
                      if (m := _EPISODE.fullmatch(p.name)) and p.is_dir())  # fmt: skip
    steps: list[Step] = []
    notes: list[ReaderNote] = []
    pending: int | None = None  # the last command of the episode before, whose output the next prompt shows
    for n, path in episodes:
        prompt, response = path / "prompt.txt", path / "response.txt"
        if pending is not None and prompt.is_file():
            steps[pending] = steps[pending]._replace(text=excerpt(_read_text(prompt)))
        pending = None
        if not response.is_file():
            notes.append(ReaderNote("episodes without a response.txt (the run stopped there)", str(path)))
            continue
        text = _read_text(response)
        parsed = _terminus(text)
        message, calls = parsed if parsed is not None else (text, [])
        if message.strip():
            steps.append(Step(kind="message", text=excerpt(message)))
        for call in calls:
            steps.append(tool_step(call["function_name"], call["arguments"]))
        if calls:
            pending = len(steps) - 1
    return steps, notes


def _read_text(path: Path) -> str:
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_LINE_BYTES + 1)
    except OSError as exc:
        raise SgrKitError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    if len(raw) > MAX_LINE_BYTES:
        raise SgrKitError(f"{path}: more than {MAX_LINE_BYTES:,} bytes (the limit of a trajectory file)")
    return raw.decode("utf-8", "replace")

