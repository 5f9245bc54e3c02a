"""Scoring throughput and peak memory of sgr-kit (run with ``make benchmark``).

Generates seeded synthetic tasks (5 to 20 reference rows; string, integer,
decimal-with-units and id_list columns) and answers to them (a mix of exact
answers, wrong cells, missing and extra rows, duplicated rows, shuffled order,
Markdown or plain pipe tables, unit-converted values), then, for each profile:

1. scores every answer with :func:`sgr_kit.score.score_answer` on prepared tasks
   (per-cell records included) and reports answers per second;
2. runs :func:`sgr_kit.score.score_runs` end to end with (:func:`sgr_kit.score.score_with_cells`)
   (task preparation, scores table and cells table included).

With ``--distinct-cells`` every non-key answer cell is a value never seen
before, so that the canonicalizers' per-task memo never helps (worst case).

Peak memory is the process's peak resident set size (``resource.getrusage``)
and, with ``--tracemalloc``, the peak of Python allocations during one
``score_runs`` pass (slower: tracing costs time, so it is measured separately).
"""

from __future__ import annotations

import argparse
import itertools
import platform
import random
import resource
import sys
import time
import tracemalloc
from fractions import Fraction

import sgr_kit
from sgr_kit.score import prepare_task, score_answer, score_with_cells
from sgr_kit.taxonomy import cardinality_bin
from sgr_kit.types import Answer, FieldRule, Schema, Task

COLUMNS = ("station_id", "year", "analyte", "value", "members", "flag")
UNITS = {
    "mg/L": (Fraction(0), Fraction(1), Fraction(1)),
    "ug/L": (Fraction(0), Fraction(1), Fraction(1000)),
}
FIELDS = {
    "year": FieldRule(type="integer"),
    "value": FieldRule(type="decimal", units=UNITS),
    "members": FieldRule(type="id_list"),
    "flag": FieldRule(aliases={"yes": "Y", "no": "N"}, uppercase=True),
}
ANALYTES = ("dissolved oxygen", "nitrate", "phosphorus", "chloride", "sulfate", "iron")


def make_tasks(rng: random.Random, n_tasks: int) -> list[Task]:
    """Synthetic tasks with 5 to 20 reference rows keyed on (station_id, year)."""
    tasks = []
    schema = Schema(columns=COLUMNS, row_key=("station_id", "year"), fields=FIELDS)
    for t in range(n_tasks):
        n = rng.randint(5, 20)
        rows = []
        for i in range(n):
            members = ";".join(sorted(f"S-{rng.randint(100, 999)}" for _ in range(rng.randint(1, 4))))
            value = f"{rng.randint(0, 30)}.{rng.randint(0, 99):02d}"
            rows.append((f"USGS-{t:02d}{i:04d}", str(2000 + i), rng.choice(ANALYTES), value, members, rng.choice("YN")))
        reference = "\n".join(["|".join(COLUMNS)] + ["|".join(r) for r in rows])
        tasks.append(
            Task(
                task_id=f"bench_{t:03d}", base_id=f"bench_{t:03d}", variant="constraint",
                domain="WATER_QUALITY_PORTAL", ecosystem="Water Quality Portal", family="environmental monitoring",
                schema=schema, reference=reference, gold_rows=n, bin=cardinality_bin(n),
            )  # fmt: skip
        )
    return tasks


def _perturb_cell(rng: random.Random, column: str, value: str) -> str:
    if column == "value":
        number = float(value)
        return rng.choice([f"{number * 1000:.1f} ug/L", value + "0", f"{number + 0.01:.2f}", value + " mg/L"])
    if column == "members":
        return ", ".join(reversed(value.split(";")))
    if column == "flag":
        return rng.choice(["yes", "no", "maybe", ""])
    if column == "year":
        return rng.choice([value + ".0", str(int(value) + 1), "n/a"])
    return rng.choice(["", value.lower(), f"**{value}**", "unknown"])


_counter = itertools.count()


def _distinct(row: list[str]) -> list[str]:
    """The row with every non-key cell replaced by a value never seen before (worst case for memos)."""
    n = next(_counter)
    return row[:2] + [f"analyte {n}", f"{n}.5", f"S-{n};S-{n + 1}", f"F{n}"]


def make_answer(rng: random.Random, task: Task, *, distinct: bool = False) -> str:
    """One answer: the reference with seeded perturbations, as a Markdown or plain pipe table."""
    rows = [line.split("|") for line in task.reference.splitlines()[1:]]
    if distinct:
        rows = [_distinct(r) for r in rows]
    kind = rng.random()
    if kind > 0.15:  # 15 % exact answers, the rest perturbed
        rows = [list(r) for r in rows]
        for row in rows:
            if rng.random() < 0.3:
                j = rng.randrange(len(COLUMNS))
                row[j] = _perturb_cell(rng, COLUMNS[j], row[j])
        if rng.random() < 0.3:
            del rows[rng.randrange(len(rows))]
        if rng.random() < 0.3:
            rows.insert(rng.randrange(len(rows) + 1), [f"USGS-X{rng.randint(0, 99)}", "1999", "lead", "1", "S-1", "N"])
        if rng.random() < 0.15 and rows:
            rows.append(list(rng.choice(rows)))
        if rng.random() < 0.3:
            rng.shuffle(rows)
        if rng.random() < 0.1 and rows:
            rows[0] = rows[0][:-1]
    if rng.random() < 0.5:
        lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        return "Here is the table:\n\n" + "\n".join(lines)
    return "\n".join("|".join(r) for r in rows)


def make_runs(rng: random.Random, tasks: list[Task], n_answers: int, *, distinct: bool = False) -> list[Answer]:
    runs = []
    per_system = -(-n_answers // 4)
    for s in range(4):
        for i in range(per_system):
            task = tasks[i % len(tasks)]
            text = make_answer(rng, task, distinct=distinct)
            runs.append(Answer(f"system_{s}", task.task_id, i // len(tasks), text))
    return runs[:n_answers]


def _peak_rss_mib() -> float:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 2**10  # bytes on macOS, KiB elsewhere


def bench(tasks: list[Task], runs: list[Answer], profile: str, use_tracemalloc: bool) -> None:
    by_id = {t.task_id: t for t in tasks}
    start = time.perf_counter()
    prepared = {t.task_id: prepare_task(t, profile=profile) for t in tasks}
    prepare_s = time.perf_counter() - start

    start = time.perf_counter()
    cells = 0
    for answer in runs:
        cells += len(score_answer(prepared[answer.task_id], answer).cells)
    answer_s = time.perf_counter() - start

    start = time.perf_counter()
    scored = score_with_cells(by_id, runs, profile=profile)
    runs_s = time.perf_counter() - start

    print(f"profile {profile!r}:")
    print(f"  prepare_task      {len(tasks)} tasks in {prepare_s * 1000:.1f} ms")
    print(f"  score_answer      {len(runs) / answer_s:,.0f} answers/s "
          f"({cells / answer_s:,.0f} cells/s, {answer_s:.2f} s)")  # fmt: skip
    print(f"  score_runs+cells  {len(runs) / runs_s:,.0f} answers/s ({len(scored.scores)} score rows, "
          f"{len(scored.cells)} cell rows, {runs_s:.2f} s)")  # fmt: skip
    if use_tracemalloc:
        del scored
        tracemalloc.start()
        score_with_cells(by_id, runs, profile=profile)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        print(f"  score_runs+cells  peak Python allocations {peak / 2**20:.1f} MiB (tracemalloc)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=int, default=12_000, help="answers to score (default 12000)")
    parser.add_argument("--tasks", type=int, default=8, help="synthetic tasks (default 8)")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--profile", action="append", choices=("strict", "paper"),
                        help="profile(s) to measure (default: both)")  # fmt: skip
    parser.add_argument("--no-tracemalloc", action="store_true", help="skip the traced-allocation pass")
    parser.add_argument("--distinct-cells", action="store_true",
                        help="worst case: every non-key answer cell is a value never seen before")  # fmt: skip
    args = parser.parse_args(argv)

    rng = random.Random(args.seed)
    tasks = make_tasks(rng, args.tasks)
    runs = make_runs(rng, tasks, args.answers, distinct=args.distinct_cells)
    rows = [t.gold_rows for t in tasks]
    print(f"sgr-kit {sgr_kit.__version__}, Python {platform.python_version()}, {platform.machine()}")
    print(f"{len(runs)} answers over {len(tasks)} tasks ({min(rows)}-{max(rows)} reference rows, "
          f"{len(COLUMNS)} columns), seed {args.seed}"
          + (", every non-key cell distinct" if args.distinct_cells else ""))  # fmt: skip
    for profile in args.profile or ("strict", "paper"):
        bench(tasks, runs, profile, not args.no_tracemalloc)
    print(f"peak resident memory of the process: {_peak_rss_mib():.0f} MiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
