"""Reading trajectories: time linear in their number, memory flat when streamed.

The target (issue 16): reading 10,000 trajectories of 50 steps stays linear in time and flat in
memory. The script writes N synthetic trajectories of S steps (N = 1,000, 5,000 and 10,000 by
default; S = 50) in two layouts: a JSONL file of records in the documented step format, and a
``<system>/<task_id>/<repeat>.jsonl`` folder of Claude Code ``stream-json`` transcripts. Each
measurement runs in a fresh child process, which reports its wall time and its peak resident
memory (``resource.getrusage``), so one measurement never inherits another's memory:

- ``iterate``: :func:`sgr_kit.trajectories.iter_trajectories`, every step consumed (the streamed
  reader: memory should stay flat);
- ``reach``: :func:`sgr_kit.trajectories.site_reach` from the path (streamed in batches of 500
  trajectories: flat);
- ``table``: :func:`sgr_kit.trajectories.load_trajectories`, the whole tidy steps table in memory
  (grows with the table it returns, nothing else);
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


def _claude(i: int, steps: int) -> list[dict]:
    lines = [{"type": "system", "subtype": "init", "session_id": f"s{i}", "tools": ["WebFetch", "WebSearch"]}]
    for k in range(steps - 1):
        if k % 5 == 0:
            block = {"type": "tool_use", "id": f"t{k}", "name": "WebSearch", "input": {"query": f"query {i} {k}"}}
        elif k % 5 == 4:
            block = {"type": "text", "text": "thinking about the next filter " * 4}
        else:
            block = {"type": "tool_use", "id": f"t{k}", "name": "WebFetch",
                     "input": {"url": f"{SITE}?page={k}&item={i}", "prompt": "list rows"}}
        lines.append({"type": "assistant", "message": {"id": f"m{k}", "role": "assistant", "content": [block],
                                                        "usage": {"input_tokens": 500, "output_tokens": 40}}})
        if block["type"] == "tool_use":
            lines.append({"type": "user", "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": f"t{k}", "content": "page text " * 40}]}})
    lines.append({"type": "result", "subtype": "success", "duration_ms": 90000, "num_turns": steps,
                  "result": "id|date\n" + "\n".join(f"{i}.{r}|2020-11-16" for r in range(8))})
    return lines


def write_jsonl(path: Path, n: int, steps: int, task_ids: list[str]) -> None:
    with path.open("w", encoding="utf-8") as f:
        for i in range(n):
            record = {"system": SYSTEMS[i % len(SYSTEMS)], "task_id": task_ids[(i // len(SYSTEMS)) % len(task_ids)],
                      "repeat": i // (len(SYSTEMS) * len(task_ids)), **_native(i, steps)}
            f.write(json.dumps(record) + "\n")


def write_claude_folder(root: Path, n: int, steps: int, task_ids: list[str]) -> None:
    for i in range(n):
        system, task = SYSTEMS[i % len(SYSTEMS)], task_ids[(i // len(SYSTEMS)) % len(task_ids)]
        repeat = i // (len(SYSTEMS) * len(task_ids))
        path = root / system / task / f"{repeat}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(line) + "\n" for line in _claude(i, steps)), encoding="utf-8")


def _tasks(n_tasks: int):
    from sgr_kit.types import Schema, Task

    return [Task(t, t, "constraint", "ARXIV", "arXiv", "scholarly archives", Schema(("id",), ("id",)), "id\n1", 1,
                 "1-2", start_url=SITE) for t in _task_ids(n_tasks)]


def child(op: str, path: str, n_tasks: int) -> None:
    """One measurement in this (fresh) process: prints seconds, peak RSS and what was read."""
    from sgr_kit.trajectories import iter_trajectories, load_trajectories, site_reach

    tasks = _tasks(n_tasks)
    start = time.perf_counter()
    if op == "iterate":
        count = sum(len(t.steps) for t in iter_trajectories(path))
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
    parser.add_argument("--child", nargs=2, metavar=("OP", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child[0], args.child[1], args.tasks)
        return 0
    print(f"Python {platform.python_version()} on {platform.machine()}, {args.steps} steps per trajectory")
    base = measure("baseline", Path(__file__), args.tasks)
    print(f"baseline (import, tasks): peak {base['peak_mib']:.0f} MiB")
    print(f"{'layout':8} {'trajectories':>12} {'op':8} {'seconds':>8} {'us/step':>8} {'peak MiB':>9} {'over base':>9}")
    task_ids = _task_ids(args.tasks)
    with tempfile.TemporaryDirectory() as tmp:
        for layout in ("jsonl", "claude"):
            for n in args.sizes:
                path = Path(tmp) / f"{layout}-{n}"
                if layout == "jsonl":
                    path = path.with_suffix(".jsonl")
                    write_jsonl(path, n, args.steps, task_ids)
                    ops = ("iterate", "reach", "table")
                else:
                    write_claude_folder(path, n, args.steps, task_ids)
                    ops = ("iterate", "reach")
                for op in ops:
                    m = measure(op, path, args.tasks)
                    assert m["steps"] == n * args.steps, m
                    print(f"{layout:8} {n:>12,} {op:8} {m['seconds']:8.2f} {1e6 * m['seconds'] / m['steps']:8.1f} "
                          f"{m['peak_mib']:9.0f} {m['peak_mib'] - base['peak_mib']:9.0f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
