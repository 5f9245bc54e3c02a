"""Responsiveness of the annotation widget (:mod:`sgr_kit.annotate.widget`) on the demo benchmark.

Target: the widget shows the next answer in under 100 ms on the demo.

Loads the SYNTHETIC demo shipped with the package (tasks, runs, scored with per-cell
records, and its synthetic trajectories), draws the audit sample of 22 task slots
(``sgr_kit.stats.sample.audit_sample``, seed 0: every system's answer to 22 tasks), opens
the annotator on it with a temporary label file, then times in the kernel:

1. ``next answer``: what ``n`` (or the next button) costs: the answer's details (cells
   lookup and re-score for the parse issues), the task's conditions, the aligned table, the
   trajectory's steps, the progress line and the label buttons;
2. ``previous answer``: the same, backwards;
3. ``label + next``: what a label key costs: the label written to the file (the whole file,
   atomically, fsync-ed) and the next answer shown;
4. ``next answer, blind``: the same as 1 in blind mode (shuffled order, no metrics);
5. ``open and resume``: building the widget on a label file that holds 100 labels (reading
   the file, indexing cells and trajectories, the first draw);

and the size of the HTML the front end receives per answer. Times are medians and 95th
percentiles over ``--rounds`` actions of ``time.perf_counter``. The browser's own drawing is
not included (the browser test, ``tests/test_annotate_browser.py``, drives the real thing).
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

TARGET_MS = 100.0


def _stats(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
    return 1000 * statistics.median(ordered), 1000 * p95


def _line(name: str, samples: list[float]) -> str:
    median, p95 = _stats(samples)
    return f"{name:<34} median {median:7.1f} ms   p95 {p95:7.1f} ms   (n={len(samples)})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200, help="timed actions of each kind (default 200)")
    parser.add_argument("--slots", type=int, default=22, help="task slots of the sample (default 22)")
    args = parser.parse_args(argv)

    import ipywidgets
    import pandas as pd

    from sgr_kit.annotate import LabelStore, annotate
    from sgr_kit.pipeline import load_inputs
    from sgr_kit.resources import demo_dir
    from sgr_kit.stats.sample import audit_sample
    from sgr_kit.trajectories import load_trajectories

    t0 = time.perf_counter()
    inputs = load_inputs()
    steps = load_trajectories(demo_dir() / "trajectories.jsonl")
    sheet = audit_sample(inputs.scores, slots=args.slots, seed=0)
    t_load = time.perf_counter() - t0
    print(f"sgr-kit annotation widget benchmark: Python {platform.python_version()}, pandas {pd.__version__}, "
          f"ipywidgets {ipywidgets.__version__}, {platform.machine()}")
    print(f"data: the SYNTHETIC demo: {len(inputs.scores):,} answers, {len(inputs.cells):,} cell records, "
          f"{len(steps):,} trajectory steps; sample of {args.slots} slots = {len(sheet)} answers to label "
          f"(loading, scoring and sampling took {t_load:.1f} s)")

    folder = Path(tempfile.mkdtemp(prefix="sgr-bench-annotate-"))
    common = dict(tasks=inputs.tasks, runs=inputs.runs, trajectories=steps, synthetic=inputs.synthetic)

    t0 = time.perf_counter()
    app = annotate(sheet, inputs.scores, inputs.cells, annotator="bench", labels_path=folder / "a.csv", **common)
    print(f"open the widget (empty label file):  {1000 * (time.perf_counter() - t0):7.0f} ms")

    def cycle(action, reset) -> list[float]:
        times = []
        for _ in range(args.rounds):
            if reset():
                continue
            t0 = time.perf_counter()
            action()
            times.append(time.perf_counter() - t0)
        return times

    last = len(app.order) - 1
    next_times = cycle(app.next, lambda: app.position == last and app.show(0) is not None)
    previous_times = cycle(app.previous, lambda: app.position == 0 and app.show(last) is not None)
    app.show(0)
    label_times = cycle(lambda: app.press("2"), lambda: app.position == last and app.show(0) is not None)
    blind = annotate(sheet, inputs.scores, inputs.cells, annotator="bench", labels_path=folder / "b.csv",
                     blind=True, **common)
    blind_times = cycle(blind.next, lambda: blind.position == last and blind.show(0) is not None)

    store = LabelStore(folder / "resume.csv", "bench")
    for system, task_id, repeat in list(zip(sheet["system"], sheet["task_id"], sheet["repeat"]))[:100]:
        store.set(system, task_id, int(repeat), "scope_drift")
    open_times = []
    for _ in range(5):
        t0 = time.perf_counter()
        resumed = annotate(sheet, inputs.scores, inputs.cells, annotator="bench", labels_path=folder / "resume.csv",
                           **common)
        open_times.append(time.perf_counter() - t0)
    assert resumed.position == 100

    sizes = []
    for position in range(len(app.order)):
        app.show(position)
        sizes.append(sum(len(v.value.encode("utf-8")) for v in (app._title, app._task, app._answer, app._trajectory)))

    print(_line("next answer", next_times))
    print(_line("previous answer", previous_times))
    print(_line("label + next (write, fsync, draw)", label_times))
    print(_line("next answer, blind", blind_times))
    print(_line("open and resume (100 labels)", open_times))
    print(f"HTML sent per answer: median {statistics.median(sizes) / 1024:.1f} KiB, max {max(sizes) / 1024:.1f} KiB")
    _median, p95 = _stats(next_times)
    verdict = "met" if p95 < TARGET_MS else "MISSED"
    print(f"target: next answer under {TARGET_MS:.0f} ms -> {verdict} (p95 {p95:.1f} ms)")
    return 0 if p95 < TARGET_MS else 1


if __name__ == "__main__":
    sys.exit(main())
