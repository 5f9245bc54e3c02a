"""Reading trajectories: time linear in their number, memory flat when streamed.

The target (issue 16): reading 10,000 trajectories of 50 steps stays linear in time and flat in
memory. The script writes N synthetic trajectories of S steps (N = 1,000, 5,000 and 10,000 by
default; S = 50) in several layouts: a JSONL file of records in the documented step format, and
``<system>/<task_id>/<repeat>.<ext>`` folders of each format an agent writes (:data:`FOLDER_LAYOUTS`:
Claude Code ``stream-json`` as 2.1.x streams it, the same saved as ``.txt`` with a log line, Claude
Code session logs, OpenAI Responses API objects, OpenAI chat messages, documented steps as a JSON
list; a format added later adds its writer there). Each
measurement runs in a fresh child process, which reports its wall time and its peak resident
memory (``resource.getrusage``), so one measurement never inherits another's memory:

- ``iterate``: :func:`sgr_kit.trajectories.iter_trajectories`, every step consumed (the streamed
  reader: memory should stay flat);
- ``reach``: :func:`sgr_kit.trajectories.site_reach` from the path (streamed in batches of 500
  trajectories: flat);
- ``table``: :func:`sgr_kit.trajectories.load_trajectories`, the whole tidy steps table in memory
  (grows with the table it returns, nothing else);
- ``usage``: :func:`sgr_kit.trajectories.trajectory_usage`, one row per trajectory (streamed);
- ``baseline``: importing sgr-kit and building the tasks, nothing read (subtracted from the peaks).

Run on demand: ``.venv/bin/python benchmarks/bench_trajectories.py`` (about three minutes on the
shared 2-core machine); the numbers are quoted in ``benchmarks/README.md``. No timing assertion
belongs in the unit tests.
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SYSTEMS = ("GPT-5.5", "Claude Opus 4.7", "Kimi K2.5", "GLM-5.1")
SITE = "https://www.example-archive.org/search"


def _task_ids(n_tasks: int) -> list[str]:
    return [f"arxiv_{i:03d}" for i in range(1, n_tasks + 1)]


def _native(i: int, steps: int) -> dict:
    out = []
    for k in range(steps - 1):
        if k % 5 == 0:
            out.append({"kind": "search", "tool": "web_search", "query": f"query {i} {k}", "t": k * 2.0,
                        "tokens": 300})
        elif k % 5 == 4:
            out.append({"kind": "message", "text": "thinking about the next filter " * 4, "t": k * 2.0})
        else:
            host = SITE if k % 3 else f"https://mirror{k % 4}.example.net/p"
            out.append({"kind": "fetch", "tool": "fetch", "url": f"{host}?page={k}&item={i}",
                        "text": "page text " * 40, "t": k * 2.0, "tokens": 800})
    out.append({"kind": "answer", "text": "id|date\n" + "\n".join(f"{i}.{r}|2020-11-16" for r in range(8))})
    return {"steps": out}


def _answer(i: int) -> str:
    return "id|date\n" + "\n".join(f"{i}.{r}|2020-11-16" for r in range(8))


def _claude(i: int, steps: int, *, session: bool = False) -> list[dict]:
    """A Claude Code transcript as 2.1.x streams it: one line per content block (a thinking block
    first), each repeating the message id and the usage of the message's start, and a result
    line with usage and modelUsage (a session log: no init or result line, a snapshot first)."""
    if session:
        lines: list[dict] = [{"type": "file-history-snapshot", "messageId": "m", "snapshot": {}, "isSnapshotUpdate": False}]
    else:
        lines = [{"type": "system", "subtype": "init", "session_id": f"s{i}", "tools": ["WebFetch", "WebSearch"],
                  "claude_code_version": "2.1.261"},
                 {"type": "rate_limit_event", "rate_limit_info": {"status": "allowed"}}]
    extra = {"parentUuid": None, "sessionId": f"s{i}", "timestamp": "2026-09-20T17:22:38.616Z"} if session else {}
    usage = {"input_tokens": 2, "cache_creation_input_tokens": 100, "cache_read_input_tokens": 4000, "output_tokens": 1}
    for k in range(steps - 1):
        if k % 5 == 0:
            block = {"type": "tool_use", "id": f"t{k}", "name": "WebSearch", "input": {"query": f"query {i} {k}"}}
        elif k % 5 == 4:
            block = {"type": "text", "text": "thinking about the next filter " * 4}
        else:
            block = {"type": "tool_use", "id": f"t{k}", "name": "WebFetch",
                     "input": {"url": f"{SITE}?page={k}&item={i}", "prompt": "list rows"}}
        for b in ({"type": "thinking", "thinking": "plan the next step", "signature": "x"}, block):
            lines.append({"type": "assistant", **extra, "message": {"id": f"m{k}", "role": "assistant", "content": [b],
                                                                   "stop_reason": None, "usage": usage}})
        if block["type"] == "tool_use":
            lines.append({"type": "user", **extra, "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": f"t{k}", "content": "page text " * 40}]}})
    if session:
        lines.append({"type": "assistant", **extra, "message": {"id": "m-last", "role": "assistant", "stop_reason":
                      "end_turn", "content": [{"type": "text", "text": _answer(i)}], "usage": usage}})
    else:
        lines.append({"type": "result", "subtype": "success", "duration_ms": 90000, "num_turns": steps,
                      "result": _answer(i), "total_cost_usd": 0.5,
                      "usage": {"input_tokens": 100, "cache_creation_input_tokens": 5000,
                                "cache_read_input_tokens": 200000, "output_tokens": 3000},
                      "modelUsage": {"claude-opus-4-7": {"inputTokens": 100, "outputTokens": 3000,
                                                         "cacheReadInputTokens": 200000,
                                                         "cacheCreationInputTokens": 5000, "costUSD": 0.5}}})
    return lines


def _responses(i: int, steps: int) -> list[dict]:
    """OpenAI Responses API ``response`` objects, one per model call (a reasoning item and one output item each)."""
    lines = []
    for k in range(steps):
        if k == steps - 1:
            item = {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": _answer(i)}]}
        elif k % 5 == 0:
            item = {"type": "web_search_call", "status": "completed", "action": {"type": "search",
                                                                                "query": f"query {i} {k}"}}
        elif k % 5 == 4:
            item = {"type": "message", "role": "assistant", "content": [
                {"type": "output_text", "text": "thinking about the next filter " * 4}]}
        else:
            item = {"type": "function_call", "call_id": f"c{k}", "name": "fetch",
                    "arguments": json.dumps({"url": f"{SITE}?page={k}&item={i}"})}
        lines.append({"object": "response", "output": [{"type": "reasoning", "summary": []}, item],
                      "usage": {"input_tokens": 5000, "input_tokens_details": {"cached_tokens": 4000},
                                "output_tokens": 300, "output_tokens_details": {"reasoning_tokens": 200}}})
    return lines


def _chat(i: int, steps: int) -> list[dict]:
    """OpenAI chat messages, one per line: each tool call its own assistant message, then its result."""
    lines: list[dict] = [{"role": "user", "content": "Find the papers ..."}]
    for k in range(steps - 1):
        name, args = ("web_search", {"query": f"query {i} {k}"}) if k % 5 == 0 else \
            ("fetch", {"url": f"{SITE}?page={k}&item={i}"})
        if k % 5 == 4:
            lines.append({"role": "assistant", "content": "thinking about the next filter " * 4,
                          "tool_calls": [{"id": f"x{k}", "type": "function", "function": {"name": "fetch",
                                          "arguments": json.dumps({"url": f"{SITE}?p={k}"})}}]})
            lines.append({"role": "tool", "tool_call_id": f"x{k}", "content": "page text " * 40})
            continue
        lines.append({"role": "assistant", "content": None, "usage": {"prompt_tokens": 900, "completion_tokens": 40},
                      "tool_calls": [{"id": f"c{k}", "type": "function",
                                      "function": {"name": name, "arguments": json.dumps(args)}}]})
        lines.append({"role": "tool", "tool_call_id": f"c{k}", "content": "page text " * 40})
    lines.append({"role": "assistant", "content": _answer(i)})
    return lines


#: Folder layouts: file suffix and the lines (JSON objects) of one trajectory. A JSON layout
#: writes the objects as one JSON list; ``txt`` mixes in a line that is not JSON.
FOLDER_LAYOUTS = {
    "claude": (".jsonl", _claude),
    "claude-txt": (".txt", _claude),
    "session": (".jsonl", lambda i, steps: _claude(i, steps, session=True)),
    "responses": (".jsonl", _responses),
    "chat": (".jsonl", _chat),
    "steps-json": (".json", lambda i, steps: _native(i, steps)["steps"]),
}


def _expected_steps(layout: str, steps: int) -> int:
    # a chat's thinking messages carry a tool call: one more step each
    return steps + (steps - 1) // 5 if layout == "chat" else steps


def write_jsonl(path: Path, n: int, steps: int, task_ids: list[str]) -> None:
    with path.open("w", encoding="utf-8") as f:
        for i in range(n):
            record = {"system": SYSTEMS[i % len(SYSTEMS)], "task_id": task_ids[(i // len(SYSTEMS)) % len(task_ids)],
                      "repeat": i // (len(SYSTEMS) * len(task_ids)), **_native(i, steps)}
            f.write(json.dumps(record) + "\n")


def write_folder(root: Path, layout: str, n: int, steps: int, task_ids: list[str]) -> None:
    suffix, lines_of = FOLDER_LAYOUTS[layout]
    for i in range(n):
        system, task = SYSTEMS[i % len(SYSTEMS)], task_ids[(i // len(SYSTEMS)) % len(task_ids)]
        repeat = i // (len(SYSTEMS) * len(task_ids))
        path = root / system / task / f"{repeat}{suffix}"
        path.parent.mkdir(parents=True, exist_ok=True)
        lines = lines_of(i, steps)
        if suffix == ".json":
            path.write_text(json.dumps(lines), encoding="utf-8")
            continue
        text = "".join(json.dumps(line) + "\n" for line in lines)
        if suffix == ".txt":
            text = "Warning: no stdin data received in 3s\n" + text
        path.write_text(text, encoding="utf-8")


def _tasks(n_tasks: int):
    from sgr_kit.types import Schema, Task

    return [Task(t, t, "constraint", "ARXIV", "arXiv", "scholarly archives", Schema(("id",), ("id",)), "id\n1", 1,
                 "1-2", start_url=SITE) for t in _task_ids(n_tasks)]


def child(op: str, path: str, n_tasks: int) -> None:
    """One measurement in this (fresh) process: prints seconds, peak RSS and what was read."""
    from sgr_kit.trajectories import iter_trajectories, load_trajectories, site_reach, trajectory_usage

    tasks = _tasks(n_tasks)
    start = time.perf_counter()
    if op == "iterate":
        count = sum(len(t.steps) for t in iter_trajectories(path, notes=lambda note: None))
    elif op == "usage":
        count = int(trajectory_usage(path)["steps"].sum())
    elif op == "table":
        count = len(load_trajectories(path))
    elif op == "reach":
        count = int(site_reach(path, tasks)["steps"].sum())
    else:
        count = 0
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    print(json.dumps({"op": op, "seconds": seconds, "peak_mib": peak, "steps": count}))


def measure(op: str, path: Path, n_tasks: int) -> dict:
    done = subprocess.run([sys.executable, __file__, "--child", op, str(path), "--tasks", str(n_tasks)],
                          check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 5000, 10000])
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--tasks", type=int, default=100)
    parser.add_argument("--layouts", nargs="+", default=["jsonl", *FOLDER_LAYOUTS],
                        help="jsonl (a file of records) and the folder layouts: " + ", ".join(FOLDER_LAYOUTS))
    parser.add_argument("--child", nargs=2, metavar=("OP", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child[0], args.child[1], args.tasks)
        return 0
    print(f"Python {platform.python_version()} on {platform.machine()}, {args.steps} steps per trajectory")
    base = measure("baseline", Path(__file__), args.tasks)
    print(f"baseline (import, tasks): peak {base['peak_mib']:.0f} MiB")
    print(f"{'layout':10} {'trajectories':>12} {'op':8} {'seconds':>8} {'us/step':>8} {'peak MiB':>9} {'over base':>9}")
    task_ids = _task_ids(args.tasks)
    with tempfile.TemporaryDirectory() as tmp:
        for layout in args.layouts:
            for n in args.sizes:
                path = Path(tmp) / f"{layout}-{n}"
                if layout == "jsonl":
                    path = path.with_suffix(".jsonl")
                    write_jsonl(path, n, args.steps, task_ids)
                    ops = ("iterate", "reach", "table")
                else:
                    write_folder(path, layout, n, args.steps, task_ids)
                    ops = ("iterate", "usage") if layout != "claude" else ("iterate", "reach", "usage")
                for op in ops:
                    m = measure(op, path, args.tasks)
                    assert m["steps"] == n * _expected_steps(layout, args.steps), m
                    print(f"{layout:10} {n:>12,} {op:8} {m['seconds']:8.2f} {1e6 * m['seconds'] / m['steps']:8.1f} "
                          f"{m['peak_mib']:9.0f} {m['peak_mib'] - base['peak_mib']:9.0f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
