"""Reading Codex CLI streams and rollouts, Gemini CLI sessions, Harbor trajectories and inspect_ai logs: linear time.

Writes synthetic runs (SYNTHETIC: made here, in the shapes of the fixtures in
``tests/fixtures/trajectories/codex``) of S steps each, N = 250, 500 and 1,000 by default:

- ``exec``: ``codex exec --json`` streams (a web search, an MCP call and a shell command per
  round, each started and completed, a reasoning item, a ``tracing`` log line every 25 lines);
- ``rollout``: session rollouts (a ``web_search_call``, a ``function_call`` and its output, a
  ``token_count`` per round);
- ``gemini``: Gemini CLI sessions (JSONL: the metadata, then per round a ``gemini`` record with a
  ``google_web_search`` call, written again with its result and tokens, as Gemini CLI does);
- ``harbor``: Harbor ATIF ``trajectory.json`` documents (per round an agent step with a
  ``bash_command`` curl, its observation and metrics);
- ``inspect``: one inspect_ai ``.eval`` log of N/10 samples written by inspect_ai's own ``eval``
  (a mock model with scripted outputs calling a real tool), read with
  :func:`sgr_kit.trajectories.inspect_log.read_inspect_log`.

Codex files are read one line at a time (``json.loads``, non-JSON lines skipped with
:func:`sgr_kit.trajectories.codex.is_log_line`) into the format's reader, as a line reader does.
Gemini and Harbor files are read by :func:`sgr_kit.trajectories.iter_trajectories` from a
``<system>/<task>.<ext>`` folder (their format told by content). Prints seconds and microseconds per step; a linear reader keeps the microseconds per step flat
as N grows. Run on demand: ``.venv/bin/python benchmarks/bench_trajectories_codex.py``.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
import time
from pathlib import Path

from sgr_kit.trajectories import codex


def exec_lines(i: int, rounds: int) -> list[str]:
    out = [json.dumps({"type": "thread.started", "thread_id": f"t{i}"}), json.dumps({"type": "turn.started"})]
    n = 0
    for r in range(rounds):
        items = [
            {"type": "reasoning", "text": "**Planning**"},
            {"type": "web_search", "query": f"query {i} {r}", "action": {"type": "search", "query": f"query {i} {r}"}},
            {"type": "mcp_tool_call", "server": "fetch", "tool": "fetch",
             "arguments": {"url": f"https://www.example-archive.org/p?i={i}&r={r}"},
             "result": {"content": [{"type": "text", "text": "page text " * 40}]}, "error": None,
             "status": "completed"},
            {"type": "command_execution", "command": f"bash -lc 'curl -s https://api.example.net/q?r={r}'",
             "aggregated_output": "rows " * 50, "exit_code": 0, "status": "completed"},
        ]
        for item in items:
            item = {"id": f"item_{n}", **item}
            n += 1
            if item["type"] != "reasoning":
                out.append(json.dumps({"type": "item.started", "item": item}))
            out.append(json.dumps({"type": "item.completed", "item": item}))
            if len(out) % 25 == 0:
                out.append("2026-05-02T10:14:03.117512Z  WARN codex_core::codex: retrying sampling request")
    out.append(json.dumps({"type": "item.completed", "item": {"id": f"item_{n}", "type": "agent_message",
                                                              "text": "id|date\n1|2020-11-16"}}))
    usage = {"input_tokens": 9000 * rounds, "cached_input_tokens": 8000 * rounds, "output_tokens": 300 * rounds,
             "reasoning_output_tokens": 100 * rounds}
    out.append(json.dumps({"type": "turn.completed", "usage": usage}))
    return out


def rollout_lines(i: int, rounds: int) -> list[str]:
    stamp = "2026-05-02T10:{:02d}:{:02d}.000Z"
    out = [json.dumps({"timestamp": stamp.format(0, 0), "type": "session_meta", "payload": {"id": f"s{i}"}}),
           json.dumps({"timestamp": stamp.format(0, 0), "type": "turn_context", "payload": {"model": "gpt-5.5"}})]
    total = 0
    for r in range(rounds):
        t = stamp.format((r // 60) % 60, r % 60)
        total += 9000
        last = {"input_tokens": 9000, "cached_input_tokens": 8000, "output_tokens": 300, "reasoning_output_tokens": 100}
        for payload in (
            {"type": "web_search_call", "status": "completed", "action": {"type": "search", "query": f"q {i} {r}"}},
            {"type": "function_call", "name": "mcp__fetch__fetch", "call_id": f"c{r}",
             "arguments": json.dumps({"url": f"https://www.example-archive.org/p?i={i}&r={r}"})},
            {"type": "function_call_output", "call_id": f"c{r}", "output": "page text " * 40},
        ):
            out.append(json.dumps({"timestamp": t, "type": "response_item", "payload": payload}))
        info = {"total_token_usage": {k: v * (r + 1) for k, v in last.items()}, "last_token_usage": last}
        out.append(json.dumps({"timestamp": t, "type": "event_msg", "payload": {"type": "token_count", "info": info}}))
    out.append(json.dumps({"timestamp": stamp.format(59, 59), "type": "response_item", "payload": {
        "type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "id|date"}]}}))
    return out


def gemini_lines(i: int, rounds: int) -> list[str]:
    out = [json.dumps({"sessionId": f"s{i}", "projectHash": "h" * 64, "startTime": "2026-05-03T09:00:00.000Z",
                       "lastUpdated": "2026-05-03T09:59:00.000Z"}),
           json.dumps({"id": "u", "timestamp": "2026-05-03T09:00:00.000Z", "type": "user", "content": "q"})]
    for r in range(rounds):
        call = {"id": f"c{r}", "name": "google_web_search", "args": {"query": f"query {i} {r}"},
                "timestamp": "2026-05-03T09:00:01.000Z", "status": "executing"}
        record = {"id": f"g{r}", "timestamp": "2026-05-03T09:00:01.000Z", "type": "gemini", "content": "",
                  "toolCalls": [call], "model": "gemini-2.5-pro"}
        out.append(json.dumps(record))
        done = {**call, "status": "success", "result": [{"functionResponse": {"id": f"c{r}", "name": call["name"],
                                                                                "response": {"output": "page " * 40}}}]}
        tokens = {"input": 9000, "output": 30, "cached": 8000, "thoughts": 100, "tool": 0, "total": 9130}
        out.append(json.dumps({**record, "toolCalls": [done], "tokens": tokens}))
    out.append(json.dumps({"id": "end", "timestamp": "2026-05-03T09:59:00.000Z", "type": "gemini",
                           "content": "id|date\n1|2020-11-16", "model": "gemini-2.5-pro"}))
    return out


def harbor_lines(i: int, rounds: int) -> list[str]:
    steps = [{"step_id": 1, "source": "user", "message": "task"}]
    for r in range(rounds):
        steps.append({"step_id": r + 2, "timestamp": f"2026-03-04T11:{r % 60:02d}:00+00:00", "source": "agent",
                      "model_name": "gpt-5-mini", "message": "Analysis: ...\nPlan: ...",
                      "tool_calls": [{"tool_call_id": f"call_{r}_1", "function_name": "bash_command",
                                      "arguments": {"keystrokes": f"curl -s 'https://api.example.net/q?i={i}&r={r}'\n",
                                                    "duration": 1.0}}],
                      "observation": {"results": [{"content": "rows " * 50}]},
                      "metrics": {"prompt_tokens": 9000, "completion_tokens": 40, "cached_tokens": 8000}})
    doc = {"schema_version": "ATIF-v1.6", "session_id": f"s{i}", "agent": {"name": "terminus-2", "version": "2.0.0",
           "model_name": "openai/gpt-5-mini"}, "steps": steps,
           "final_metrics": {"total_prompt_tokens": 9000 * rounds, "total_completion_tokens": 40 * rounds}}
    return [json.dumps(doc)]


def read_folder(folder: Path) -> int:
    from sgr_kit.trajectories import iter_trajectories

    return sum(len(t.steps) for t in iter_trajectories(folder, notes=lambda _: None))


def read_lines(path: Path) -> int:
    reader = None
    with open(path, encoding="utf-8") as handle:
        for n, line in enumerate(handle, start=1):
            try:
                obj = json.loads(line)
            except json.JSONDecodeError:
                if codex.is_log_line(line) and reader is not None:
                    reader.log_line(line, loc=f"{path}:{n}")
                    continue
                raise
            if reader is None:
                reader = next(cls for _, sniff, cls in codex.FORMATS if sniff(obj))()
            reader.line(obj, loc=f"{path}:{n}")
    return len(reader.finish())


def write_inspect(root: Path, samples: int, rounds: int) -> Path:
    from inspect_ai import Task, eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.solver import generate, use_tools
    from inspect_ai.tool import tool

    @tool
    def web_search():
        async def execute(query: str) -> str:
            """Search the web.

            Args:
                query: What to search for.
            """
            return "results " * 40

        return execute

    outputs = []
    for _ in range(samples):
        for r in range(rounds):
            outputs.append(ModelOutput.for_tool_call("mockllm/model", "web_search", {"query": f"q {r}"}))
        outputs.append(ModelOutput.from_content("mockllm/model", "id|date"))
    for o in outputs:
        o.usage = ModelUsage(input_tokens=900, output_tokens=30, total_tokens=930, input_tokens_cache_read=800)
    task = Task(dataset=[Sample(id=f"t{k}", input="q") for k in range(samples)],
                solver=[use_tools(web_search()), generate()])  # fmt: skip
    [log] = inspect_eval(task, model=get_model("mockllm/model", custom_outputs=outputs), max_samples=1,
                         log_dir=str(root), display="none")  # fmt: skip
    return Path(log.location)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[250, 500, 1000])
    parser.add_argument("--rounds", type=int, default=12, help="rounds of tool calls per run")
    parser.add_argument("--no-inspect", action="store_true", help="skip inspect_ai (needs the [inspect] extra)")
    parser.add_argument("--formats", nargs="+", default=["exec", "rollout", "gemini", "harbor"],
                        help="the line formats to measure (default: all)")
    args = parser.parse_args(argv)
    print(f"Python {platform.python_version()} on {platform.machine()}; SYNTHETIC runs of {args.rounds} rounds")
    print(f"{'format':8} {'runs':>6} {'steps':>8} {'seconds':>8} {'us/step':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        makers = {"exec": exec_lines, "rollout": rollout_lines, "gemini": gemini_lines, "harbor": harbor_lines}
        for fmt in args.formats:
            make = makers[fmt]
            for n in args.sizes:
                folder = Path(tmp) / f"{fmt}-{n}" / "system"
                folder.mkdir(parents=True)
                paths = []
                for i in range(n):
                    path = folder / f"{i}.{'json' if fmt == 'harbor' else 'jsonl'}"
                    path.write_text("\n".join(make(i, args.rounds)) + "\n", encoding="utf-8")
                    paths.append(path)
                start = time.perf_counter()
                steps = read_folder(folder.parent) if fmt in ("gemini", "harbor") else sum(read_lines(p) for p in paths)
                seconds = time.perf_counter() - start
                print(f"{fmt:8} {n:>6,} {steps:>8,} {seconds:8.2f} {1e6 * seconds / steps:8.1f}", flush=True)
        if not args.no_inspect:
            from sgr_kit.trajectories.inspect_log import read_inspect_log

            for n in args.sizes:
                samples = max(n // 10, 1)
                log = write_inspect(Path(tmp) / f"inspect-{n}", samples, args.rounds)
                start = time.perf_counter()
                steps = sum(len(t.steps) for t in read_inspect_log(log))
                seconds = time.perf_counter() - start
                rate = 1e6 * seconds / steps
                print(f"{'inspect':8} {samples:>6,} {steps:>8,} {seconds:8.2f} {rate:8.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
