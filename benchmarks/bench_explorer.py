"""Responsiveness of the answer explorer (:mod:`sgr_kit.explore`) on the demo benchmark.

Scores the SYNTHETIC demo shipped with the package (tasks, runs, per-cell records), optionally replicates it
``--scale`` times as further repeats (more answers and cells, same shapes), builds the
explorer once, then times what a user's actions cost in the kernel:

1. ``filter change``: a filter set through the widgets (as a click in the browser
   does): selection, count and means, the list's options, and the answer view when the
   shown answer changes; cycled over realistic changes (systems, status, variant,
   family, score range, sort, text search, reset);
2. ``show answer``: choosing an answer in the list (cells lookup, re-score for the parse
   issues, HTML of the aligned table and text);
3. ``pair view``, ``compare view``: the side-by-side tabs;
4. ``state sent``: serializing the list's new state to JSON, as the kernel does for the
   front end (size and time);
5. for contrast, one answer's cells found by filtering the whole cells table (what the
   index avoids) against the index lookup.

Times are medians (and 95th percentiles) over ``--rounds`` rounds of ``time.perf_counter``.
The browser's own drawing is not included (see benchmarks/README-explorer.md).
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import time

import pandas as pd


def _ms(samples: list[float]) -> str:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
    return f"median {1000 * statistics.median(ordered):7.1f} ms   p95 {1000 * p95:7.1f} ms   (n={len(ordered)})"


def _scaled(inputs, scale: int):
    """The demo replicated ``scale`` times as repeats 0, 100, 200... (answers, cells and runs)."""
    from sgr_kit.types import Answer

    if scale == 1:
        return inputs.scores, inputs.cells, inputs.runs
    scores, cells = [], []
    runs = []
    for k in range(scale):
        s, c = inputs.scores.copy(), inputs.cells.copy()
        s["repeat"] += 100 * k
        c["repeat"] += 100 * k
        scores.append(s)
        cells.append(c)
        runs += [Answer(a.system, a.task_id, a.repeat + 100 * k, a.text, a.source) for a in inputs.runs]
    return pd.concat(scores, ignore_index=True), pd.concat(cells, ignore_index=True), runs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=1, help="replicate the demo this many times (default 1)")
    parser.add_argument("--rounds", type=int, default=40, help="timed actions of each kind (default 40)")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)

    import ipywidgets

    from sgr_kit.explore import explore
    from sgr_kit.pipeline import load_inputs
    from sgr_kit.resources import demo_paths

    demo = demo_paths()
    t0 = time.perf_counter()
    inputs = load_inputs(tasks=[demo["constraint"], demo["goal"]], runs=[demo["runs"]])
    t_load = time.perf_counter() - t0
    scores, cells, runs = _scaled(inputs, args.scale)
    print(f"sgr-kit explorer benchmark: Python {platform.python_version()}, pandas {pd.__version__}, "
          f"ipywidgets {ipywidgets.__version__}, {platform.machine()}")
    print(f"data: the SYNTHETIC demo x{args.scale}: {len(scores):,} answers, {len(cells):,} cell records, "
          f"{scores['system'].nunique()} systems (scoring the demo took {t_load:.1f} s)")

    t0 = time.perf_counter()
    app = explore(scores, cells, tasks=inputs.tasks, runs=runs, synthetic=inputs.synthetic)
    print(f"build the explorer (index the cells, widgets, first draw): {1000 * (time.perf_counter() - t0):.0f} ms")

    systems = list(app._filters["systems"].options)
    families = [v for _l, v in app._filters["families"].options]
    changes = [
        lambda: setattr(app._filters["systems"], "value", (systems[0][1],)),
        lambda: setattr(app._filters["statuses"], "value", ("parsed",)),
        lambda: setattr(app._filters["variants"], "value", ("goal",)),
        lambda: setattr(app._filters["families"], "value", (families[0], families[2])),
        lambda: setattr(app._range, "value", (20.0, 80.0)),
        lambda: setattr(app._sort, "value", "item_f1"),
        lambda: setattr(app._ascending, "value", False),
        lambda: setattr(app._text, "value", "total"),
        lambda: setattr(app._filters["systems"], "value", (systems[1][1], systems[2][1])),
        lambda: app.reset_filters(),
    ]
    # the text search builds its lower-cased texts on first use: once, outside the timing
    app.set_filters(text="x")
    app.reset_filters()

    filter_times = []
    for i in range(args.rounds):
        t0 = time.perf_counter()
        changes[i % len(changes)]()
        filter_times.append(time.perf_counter() - t0)
    print(f"filter change -> redraw (list, count, means, shown answer): {_ms(filter_times)}")

    app.reset_filters()
    rng = random.Random(args.seed)
    listed = list(app._listed)
    show_times = []
    for _ in range(args.rounds):
        position = rng.choice(listed)
        t0 = time.perf_counter()
        app._list.value = position
        show_times.append(time.perf_counter() - t0)
    print(f"show an answer (cells lookup, re-score, aligned table):      {_ms(show_times)}")

    pair_times, compare_times = [], []
    for _ in range(max(args.rounds // 2, 1)):
        app._list.value = rng.choice(listed)
        t0 = time.perf_counter()
        app._draw_pair()
        pair_times.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        app._draw_compare()
        compare_times.append(time.perf_counter() - t0)
    print(f"pair view (constraint vs goal):                              {_ms(pair_times)}")
    print(f"compare view (two systems):                                  {_ms(compare_times)}")

    state_times, sizes = [], []
    for _ in range(10):
        t0 = time.perf_counter()
        payload = json.dumps(app._list.get_state())
        state_times.append(time.perf_counter() - t0)
        sizes.append(len(payload))
    print(f"state sent for the full list ({len(app._list.options):,} entries, {max(sizes) / 1024:.0f} KiB): "
          f"{_ms(state_times)}")

    keys = [tuple(k) for k in scores[["system", "task_id", "repeat"]].sample(20, random_state=args.seed).to_numpy()]
    t0 = time.perf_counter()
    for system, task_id, repeat in keys:
        cells[(cells["system"] == system) & (cells["task_id"] == task_id) & (cells["repeat"] == repeat)]
    scan = (time.perf_counter() - t0) / len(keys)
    t0 = time.perf_counter()
    for key in keys:
        app._cells.records((key[0], key[1], int(key[2])))
    lookup = (time.perf_counter() - t0) / len(keys)
    print(f"one answer's cells: filtering the whole table {1000 * scan:.1f} ms; index lookup {1000 * lookup:.3f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
