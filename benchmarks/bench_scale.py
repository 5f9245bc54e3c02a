"""Cost curves of ``sgr-kit score`` end to end: time and peak memory against answers and rows.

Every measurement runs the real command line in a fresh process,

    sgr-kit score --tasks ... --runs runs.jsonl --out scores.parquet --cells cells.parquet --workers N

(per-cell records included), on inputs generated from a fixed seed, and records the wall-clock
time, the CPU time of the main process and its workers (user + system, sampled from ``/proc``),
and the peak memory: the peak resident set of the main process (``VmHWM``) and the peak of the
sum over the main process and its worker processes (sampled every 20 ms). The load average
before each run is recorded too: on a shared machine, other work takes cores away. Two series:

``answers``
    1,000, 10,000 and 100,000 realistic answers: the SYNTHETIC demo benchmark's 100 tasks (2 to
    44 reference rows) and its answers (Markdown, pipe, TSV, CSV, HTML and JSON tables, prose,
    NONE, wrong, missing and extra rows...), repeated under new repeat numbers until the count
    is reached; with ``--workers 1`` and ``--workers 2``;
``rows``
    answers of 2, 44 and 1,000 rows (one task per size, six columns, the answers perturbed
    copies of the reference as in ``bench_scoring.py``), 500 answers each, ``--workers 2``.

Results go to ``benchmarks/results/scale.csv`` and the curves to ``benchmarks/scale.png``.
Run ``python benchmarks/bench_scale.py --help`` for the options; ``--quick`` measures a
small subset (1k and 10k answers) in a minute.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DEMO = ROOT / "data" / "demo"
sys.path.insert(0, str(HERE))

import bench_scoring  # noqa: E402  (the task and answer generator of the throughput benchmark)

FIELDS = ("series", "answers", "rows", "workers", "seconds", "cpu_seconds", "answers_per_s", "main_peak_mib",
          "tree_peak_mib", "cells", "load_before")  # fmt: skip
_TICKS = os.sysconf("SC_CLK_TCK")


def _rss_kib(pid: int, key: str) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(key):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of one process so far (from /proc/<pid>/stat)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    fields = stat[stat.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / _TICKS


def _tree(pid: int) -> list[int]:
    """The process and every descendant (workers are children of a fork server)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            ppid = int(stat[stat.rindex(")") + 2 :].split()[1])
            children.setdefault(ppid, []).append(int(entry.name))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += children.get(p, [])
    return out


def run_score(tasks: list[Path], runs: Path, folder: Path, workers: int) -> dict:
    """Run ``sgr-kit score`` once; wall time, peak memory of the main process and of the process tree."""
    cmd = [sys.executable, "-m", "sgr_kit.cli", "score", *sum((["--tasks", str(t)] for t in tasks), []),
           "--runs", str(runs), "--out", str(folder / "scores.parquet"), "--cells", str(folder / "cells.parquet"),
           "--workers", str(workers), "--force", "--no-progress"]  # fmt: skip
    peaks = {"main": 0, "tree": 0}
    cpu: dict[int, float] = {}
    start = time.perf_counter()
    process = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def sample() -> None:
        while process.poll() is None:
            peaks["main"] = max(peaks["main"], _rss_kib(process.pid, "VmHWM:"))
            tree = _tree(process.pid)
            peaks["tree"] = max(peaks["tree"], sum(_rss_kib(p, "VmRSS:") for p in tree))
            for p in tree:
                cpu[p] = max(cpu.get(p, 0.0), _cpu_seconds(p))
            time.sleep(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    _, err = process.communicate()
    seconds = time.perf_counter() - start
    sampler.join()
    if process.returncode != 0:
        raise SystemExit(f"sgr-kit score failed ({process.returncode}):\n{err.decode()}")
    import pyarrow.parquet as pq

    cells = pq.ParquetFile(folder / "cells.parquet").metadata.num_rows
    return {"seconds": seconds, "cpu_seconds": sum(cpu.values()), "main_peak_mib": peaks["main"] / 1024,
            "tree_peak_mib": peaks["tree"] / 1024, "cells": cells}  # fmt: skip


def demo_runs(path: Path, n: int) -> Path:
    """``n`` realistic answers: the demo's answers under new repeat numbers, in file order."""
    answers = [json.loads(line) for line in (DEMO / "runs.jsonl").read_text(encoding="utf-8").splitlines()]
    with path.open("w", encoding="utf-8") as fh:
        written, cycle = 0, 0
        while written < n:
            for a in answers[: n - written]:
                fh.write(json.dumps({**a, "repeat": cycle * 10 + int(a.get("repeat") or 0)}) + "\n")
            written += min(len(answers), n - written)
            cycle += 1
    return path


def sized_inputs(folder: Path, rows: int, n_answers: int, seed: int) -> tuple[Path, Path]:
    """One task whose reference has ``rows`` rows and ``n_answers`` perturbed answers to it, as files."""
    rng = random.Random(seed)
    columns = bench_scoring.COLUMNS
    reference_rows = []
    for i in range(rows):
        members = ";".join(sorted(f"S-{rng.randint(100, 999)}" for _ in range(rng.randint(1, 4))))
        value = f"{rng.randint(0, 30)}.{rng.randint(0, 99):02d}"
        reference_rows.append((f"USGS-{i:05d}", str(1000 + i), rng.choice(bench_scoring.ANALYTES), value, members,
                               rng.choice("YN")))  # fmt: skip
    reference = "\n".join(["|".join(columns)] + ["|".join(r) for r in reference_rows])
    fields = {"year": {"type": "integer"}, "value": {"type": "decimal", "units": {"mg/L": {}, "ug/L": {"scale_den": 1000}}},
              "members": {"type": "id_list"}, "flag": {"aliases": {"yes": "Y", "no": "N"}, "uppercase": True}}  # fmt: skip
    task = {"task_id": f"rows_{rows}", "domain": "WATER_QUALITY_PORTAL", "oracle_answer": reference,
            "output_format": "|".join(columns), "oracle_output_cardinality": rows,
            "rubric": {"columns": list(columns), "row_key": ["station_id", "year"], "fields": fields}}  # fmt: skip
    tasks = folder / f"tasks_{rows}.jsonl"
    tasks.write_text(json.dumps(task) + "\n", encoding="utf-8")
    from sgr_kit.prepare import load_tasks

    loaded = load_tasks(tasks)
    runs = folder / f"runs_{rows}.jsonl"
    with runs.open("w", encoding="utf-8") as fh:
        for i in range(n_answers):
            text = bench_scoring.make_answer(rng, loaded[f"rows_{rows}"])
            fh.write(json.dumps({"system": f"system_{i % 4}", "task_id": f"rows_{rows}", "repeat": i // 4,
                                 "answer": text}) + "\n")  # fmt: skip
    return tasks, runs


def _load() -> float:
    try:
        return float(Path("/proc/loadavg").read_text().split()[0])
    except OSError:  # pragma: no cover
        return float("nan")


def plot(results: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(11, 3.4), constrained_layout=True)
    answers = [r for r in results if r["series"] == "answers"]
    for workers, marker, color in ((1, "o", "#0072B2"), (2, "s", "#D55E00")):
        mine = sorted((r for r in answers if r["workers"] == workers), key=lambda r: r["answers"])
        if not mine:
            continue
        x = [r["answers"] for r in mine]
        axes[0].plot(x, [r["seconds"] for r in mine], marker=marker, color=color, label=f"--workers {workers}")
        axes[1].plot(x, [r["main_peak_mib"] for r in mine], marker=marker, color=color,
                     label=f"main process, --workers {workers}")  # fmt: skip
        if workers > 1:
            axes[1].plot(x, [r["tree_peak_mib"] for r in mine], marker=marker, color=color, linestyle=":",
                         label=f"main + workers, --workers {workers}")  # fmt: skip
    axes[0].set(xscale="log", yscale="log", xlabel="answers (demo mix)", ylabel="wall-clock time (s)",
                title="Time vs answers")  # fmt: skip
    axes[1].set(xscale="log", xlabel="answers (demo mix)", ylabel="peak resident memory (MiB)",
                title="Memory vs answers")  # fmt: skip
    rows = sorted((r for r in results if r["series"] == "rows"), key=lambda r: r["rows"])
    if rows:
        per = [r["seconds"] / r["answers"] * 1000 for r in rows]
        axes[2].plot([r["rows"] for r in rows], per, marker="o", color="#0072B2", label="time per answer")
        twin = axes[2].twinx()
        twin.plot([r["rows"] for r in rows], [r["main_peak_mib"] for r in rows], marker="s", color="#009E73",
                  linestyle="--", label="peak memory, main process")  # fmt: skip
        axes[2].legend(handles=axes[2].get_lines() + twin.get_lines(), fontsize=7, loc="upper left")
        twin.set_ylabel("peak resident memory (MiB)")
        axes[2].set(xscale="log", yscale="log", xlabel="rows per answer (500 answers)", ylabel="time per answer (ms)",
                    title="Cost vs answer size")  # fmt: skip
    for ax in axes[:2]:
        ax.legend(fontsize=7)
    fig.savefig(path, dpi=150, metadata={"Software": None})
    plt.close(fig)


def _read(path: Path) -> list[dict]:
    rows = []
    with path.open(newline="") as fh:
        for row in csv.DictReader(fh):
            rows.append({k: (v if k == "series" else (int(v) if v.isdigit() else (float(v) if v else v)))
                         for k, v in row.items()})  # fmt: skip
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="only 1k and 10k answers, --workers 2, no rows series")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--out", type=Path, default=HERE / "results" / "scale.csv", help="results table (CSV)")
    parser.add_argument("--plot", type=Path, default=HERE / "scale.png", help="the curves (PNG)")
    parser.add_argument("--replot", action="store_true", help="only redraw the curves from the results table")
    args = parser.parse_args(argv)
    if args.replot:
        plot(_read(args.out), args.plot)
        return 0

    counts = (1_000, 10_000) if args.quick else (1_000, 10_000, 100_000)
    worker_counts = (2,) if args.quick else (1, 2)
    tasks = [DEMO / "constraint.jsonl", DEMO / "goal.jsonl"]
    print(f"Python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} cores")
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for n in counts:
            runs = demo_runs(folder / f"runs_{n}.jsonl", n)
            for workers in worker_counts:
                load = _load()
                row = {"series": "answers", "answers": n, "rows": "", "workers": workers, **run_score(tasks, runs, folder, workers)}
                row.update(answers_per_s=n / row["seconds"], load_before=load)
                results.append(row)
                print(f"{n:>7} answers, --workers {workers}: {row['seconds']:6.1f} s ({row['answers_per_s']:,.0f}/s, "
                      f"{row['cpu_seconds']:.1f} CPU s), "
                      f"peak {row['main_peak_mib']:.0f} MiB main, {row['tree_peak_mib']:.0f} MiB with workers, "
                      f"{row['cells']:,} cells (load before {load:.1f})")  # fmt: skip
        if not args.quick:
            for rows in (2, 44, 1000):
                task_file, runs = sized_inputs(folder, rows, 500, args.seed)
                load = _load()
                row = {"series": "rows", "answers": 500, "rows": rows, "workers": 2, **run_score([task_file], runs, folder, 2)}
                row.update(answers_per_s=500 / row["seconds"], load_before=load)
                results.append(row)
                print(f"{rows:>5} rows per answer, 500 answers: {row['seconds']:6.1f} s "
                      f"({row['seconds'] / 500 * 1000:.1f} ms per answer), peak {row['main_peak_mib']:.0f} MiB main, "
                      f"{row['tree_peak_mib']:.0f} MiB with workers, {row['cells']:,} cells")  # fmt: skip
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=FIELDS)
        writer.writeheader()
        for r in results:
            writer.writerow({k: (f"{v:.3f}" if isinstance(v, float) else v) for k, v in r.items()})
    plot(results, args.plot)
    print(f"results -> {args.out}; curves -> {args.plot}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
