"""The runner's own overhead per sample: ``sgr_bench`` with a scripted model and the loopback web.

The model is inspect_ai's ``mockllm`` answering instantly from a script (tests/scripted.py), so
what is measured is everything else a sample costs: inspect_ai's sample loop, the ReAct agent,
the log (``.eval``, every event), the paper's tools over the loopback web of tests/webfixture.py
(search, a page read through trafilatura, a two-page PDF read through pypdf), the stall
watchdog and sgr-kit's scorer. Two scripts per sample:

- ``tools``: search, fetch, read_pdf, then submit the reference (4 model calls, 3 tool calls);
- ``submit``: submit at once (1 model call): the sample loop, log and scorer alone.

Each measurement runs ``inspect_ai.eval`` on the demo's tasks (100 by default) in a fresh child
process after a one-sample warm-up (inspect_ai's first tool call imports jsonschema, seconds once
per process), with ``--max-samples`` samples at once, and reports samples per second, the
seconds per sample, and the child's peak resident memory.

Run on demand: ``.venv/bin/python benchmarks/bench_run.py`` (about a minute); the numbers are
quoted in ``benchmarks/README.md`` and the manual's Speed page. No timing assertion belongs in
the unit tests.
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

ROOT = Path(__file__).resolve().parents[1]


def _child(script: str, n_tasks: int, max_samples: int) -> dict:
    sys.path.insert(0, str(ROOT / "tests"))
    import os

    from inspect_ai import eval as inspect_eval
    from scripted import scripted_model
    from webfixture import serve

    from sgr_kit.prepare import TaskSet, load_tasks
    from sgr_kit.resources import demo_paths
    from sgr_kit.run import sgr_bench

    os.environ["SGR_FETCH_ALLOW_PRIVATE"] = "1"
    os.environ["SERPER_API_KEY"] = "benchmark"
    paths = demo_paths()
    everything = load_tasks(paths["constraint"], paths["goal"])
    tasks = TaskSet([everything[t] for t in list(everything)[:n_tasks]])
    with serve() as web, tempfile.TemporaryDirectory() as logs:
        def steps(task_id: str) -> list:
            done = ("submit", {"answer": tasks[task_id].reference})
            if script == "submit":
                return [done]
            return [("search", {"query": f"{task_id} records"}), ("fetch", {"url": web.page("county-table")}),
                    ("read_pdf", {"url": web.pdf_url}), done]  # fmt: skip

        scripts = {t: steps(t) for t in tasks}
        warm = TaskSet([tasks[next(iter(tasks))]])
        inspect_eval(sgr_bench(warm, search_url=web.search_url),
                     model=scripted_model(warm, {t: scripts[t] for t in warm}),
                     log_dir=f"{logs}/warm", display="none")  # fmt: skip
        start = time.perf_counter()
        (log,) = inspect_eval(sgr_bench(tasks, search_url=web.search_url), model=scripted_model(tasks, scripts),
                              log_dir=f"{logs}/run", display="none", max_samples=max_samples)  # fmt: skip
        seconds = time.perf_counter() - start
        scored = sum(1 for s in log.samples if s.scores["sgr_bench"].value["item_f1"] == 1.0)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"script": script, "samples": len(tasks), "max_samples": max_samples, "seconds": seconds,
            "scored_perfect": scored, "peak_mib": peak, "status": log.status}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=100, help="demo tasks to run (default 100)")
    parser.add_argument("--max-samples", type=int, nargs="+", default=[1, 10], help="samples at once (default 1 10)")
    parser.add_argument("--child", nargs=3, metavar=("SCRIPT", "TASKS", "MAX"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(_child(args.child[0], int(args.child[1]), int(args.child[2]))))
        return
    print(f"# {platform.machine()}, Python {platform.python_version()}, {args.tasks} demo tasks")
    print(f"{'script':8} {'at once':>7} {'samples/s':>10} {'s/sample':>9} {'peak MiB':>9}  status")
    for script in ("submit", "tools"):
        for max_samples in args.max_samples:
            done = subprocess.run([sys.executable, __file__, "--child", script, str(args.tasks), str(max_samples)],
                                  capture_output=True, text=True, check=True, cwd=tempfile.gettempdir())  # fmt: skip
            row = json.loads(done.stdout.strip().splitlines()[-1])
            rate = row["samples"] / row["seconds"]
            print(f"{script:8} {max_samples:>7} {rate:>10.1f} {row['seconds'] / row['samples']:>9.3f} "
                  f"{row['peak_mib']:>9.0f}  {row['status']}, {row['scored_perfect']}/{row['samples']} perfect")


if __name__ == "__main__":
    main()
