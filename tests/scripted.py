"""Scripted models for the runner's tests: inspect_ai's ``mockllm`` answering from a script per task.

``scripted_model(tasks, scripts)`` gives an inspect_ai ``Model`` whose every call is decided by
the sample it serves (found by the task's words in the prompt) and by the number of assistant
turns so far, so that samples running at once never take each other's turns. A script is a
list of ``(tool, arguments)`` calls, the last one repeated; each output has its ``usage`` set
(no tokenizer is ever downloaded). ``calls`` counts the calls per task id. ``demo_task_file``
writes some of the demo's tasks to a JSONL file of their own.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import jsonschema  # noqa: F401 - inspect_ai checks a tool call's input with it: its first import takes seconds,
# which would count against the tests' one- and two-second limits if it happened inside a sample

from inspect_ai.model import ModelOutput, ModelUsage, get_model

from sgr_kit.resources import demo_paths
from sgr_kit.run.task import task_input

def demo_task_file(folder: Path, ids: Sequence[str]) -> Path:
    """The demo's tasks ``ids`` (constraint and goal lines as the demo writes them) in ``folder/tasks.jsonl``."""
    lines = [line for role in ("constraint", "goal") for line in demo_paths()[role].read_text(encoding="utf-8").splitlines()
             if json.loads(line)["task_id"] in ids]  # fmt: skip
    path = Path(folder) / "tasks.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


#: The usage each scripted output reports.
USAGE = ModelUsage(input_tokens=120, output_tokens=30, total_tokens=150)


def tool_output(tool: str, arguments: dict, *, model: str = "mockllm/model") -> ModelOutput:
    """A model output calling ``tool`` with ``arguments`` (usage set)."""
    out = ModelOutput.for_tool_call(model, tool, arguments)
    out.usage = USAGE
    return out


def text_output(text: str, *, model: str = "mockllm/model") -> ModelOutput:
    """A model output of plain text (usage set)."""
    out = ModelOutput.from_content(model, text)
    out.usage = USAGE
    return out


def scripted_model(tasks: Mapping[str, Any], scripts: Mapping[str, list], *, name: str = "mockllm/model",
                   calls: Counter | None = None, fail: Callable[[str], bool] | None = None) -> Any:
    """A mockllm model playing ``scripts[task_id]`` (a list of ``(tool, args)``, the last repeated).

    ``fail(task_id)`` true makes the call raise (a model failure for that sample).
    """
    words = sorted(((task_input(tasks[t]), t) for t in scripts), key=lambda w: -len(w[0]))

    def generate(input, tools, tool_choice, config):  # noqa: A002 - mockllm's signature
        prompt = next(m.text for m in input if m.role == "user")
        task_id = next(t for text, t in words if text in prompt)
        if calls is not None:
            calls[task_id] += 1
        if fail is not None and fail(task_id):
            raise RuntimeError(f"scripted failure for {task_id}")
        turn = sum(m.role == "assistant" for m in input)
        script = scripts[task_id]
        step = script[min(turn, len(script) - 1)]
        if isinstance(step, str):
            return text_output(step, model=name)
        return tool_output(step[0], step[1], model=name)

    return get_model(name, custom_outputs=generate, memoize=False)
