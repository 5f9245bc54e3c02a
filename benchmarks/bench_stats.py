"""Speed of the statistics layer (sgr_kit.stats) on one core.

Builds a seeded synthetic scores table with the benchmark's shape (11 systems x 100
tasks: 50 base problems in two variants; with ``--repeats 2`` every answer twice) from
:mod:`sgr_kit.stats.simulate`, then times, with numpy's BLAS restricted to one thread:

- ``bootstrap_means``: the main table, 11 systems x 3 variants x 3 metrics, ``n_boot``
  resamples (default 10,000), BCa; also with ``by="family", pooled=True``;
- ``paired_tests``: 11 systems + pooled, for each of the 3 metrics (``n_boot`` and
  ``n_perm`` 10,000);
- ``system_matrix``: 110 ordered pairs (55 distinct), Item-F1 overall;
- ``repeat_stats`` and ``power`` (paired and system-vs-system).

Each is run ``--runs`` times after one warm-up call; the median and the fastest
wall-clock times are printed.

    .venv/bin/python benchmarks/bench_stats.py
    .venv/bin/python benchmarks/bench_stats.py --n-boot 2000 --repeats 2
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"  # one core, as the target says

import argparse
import platform
import statistics
import sys
import time

import numpy as np
import pandas as pd
import scipy

from sgr_kit.schema import METRICS
from sgr_kit.stats import bootstrap_means, paired_tests, power, repeat_stats, system_matrix
from sgr_kit.stats.simulate import SimulationDesign, simulate_scores

SYSTEMS = ("GPT-5.5", "Claude Opus 4.7", "Gemini 3.1 Pro", "Qwen3.6-Plus", "GLM-5.1", "Seed-2.0 Pro", "Kimi K2.5",
           "DeepSeek V4 Pro", "Gemini Deep Research", "Google Search AI Mode", "OpenAI Deep Research")  # fmt: skip
ABILITIES = (0.9, 0.6, 0.5, -0.4, 0.8, -0.8, 0.0, 0.5, -0.8, -1.5, 0.3)


def _time(label: str, call, runs: int) -> tuple[str, float, float]:
    call()  # warm-up: imports, caches
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return label, statistics.median(times), min(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n-boot", type=int, default=10_000)
    parser.add_argument("--n-perm", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=1, help="answers per (system, task)")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    design = SimulationDesign(abilities=ABILITIES, systems=SYSTEMS, shift=0.2, n_repeats=args.repeats)
    scores = simulate_scores(design, seed=0)
    n_boot, n_perm = args.n_boot, args.n_perm
    cases = [
        ("bootstrap_means, main table (11 x 3 x 3)", lambda: bootstrap_means(scores, n_boot=n_boot)),
        ("bootstrap_means, percentile", lambda: bootstrap_means(scores, n_boot=n_boot, method="percentile")),
        ("bootstrap_means, by family, pooled",
         lambda: bootstrap_means(scores, n_boot=n_boot, by="family", pooled=True)),
        ("paired_tests, 3 metrics (3 x 12 rows)",
         lambda: [paired_tests(scores, metric=m, n_boot=n_boot, n_perm=n_perm) for m in METRICS]),
        ("system_matrix, Item-F1 overall (110 rows)", lambda: system_matrix(scores, n_boot=n_boot, n_perm=n_perm)),
        ("repeat_stats", lambda: repeat_stats(scores)),
        ("power, paired (12 x 3 rows)", lambda: power(scores)),
        ("power, systems (56 x 3 rows)", lambda: power(scores, comparison="systems")),
    ]  # fmt: skip
    print(f"sgr_kit.stats speed: Python {platform.python_version()}, numpy {np.__version__}, "
          f"scipy {scipy.__version__}, pandas {pd.__version__}, {platform.machine()}, "
          f"{os.cpu_count()} cores visible, BLAS threads 1")  # fmt: skip
    print(f"table: {len(scores)} answers, {scores['system'].nunique()} systems, {scores['task_id'].nunique()} tasks, "
          f"{args.repeats} repeat(s); n_boot={n_boot}, n_perm={n_perm}; "
          f"{args.runs} runs after a warm-up\n")  # fmt: skip
    print(f"| {'call':<44} | median (s) | fastest (s) |")
    print(f"|{'-' * 46}|------------|-------------|")
    for label, call in cases:
        label, median, fastest = _time(label, call, args.runs)
        print(f"| {label:<44} | {median:10.2f} | {fastest:11.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
