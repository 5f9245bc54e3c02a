"""The embedded demo benchmark: SYNTHETIC tasks and answers shaped like SGR-Bench.

``sgr-kit demo`` (:func:`write_demo`) writes ``data/demo/``: 50 synthetic base
problems as 100 tasks in the release format (``constraint.jsonl``,
``goal.jsonl``), simulated answers of the paper's eleven systems
(``runs.jsonl``), the error injected into every answer (``truth.csv``), audit
labels for 22 task slots x the 8 CLI systems (``audit.csv``) and a README.
Nothing in it is real data: the tasks, references and answers are generated from
a seed; only the calibration targets (the paper's published means and counts)
and the taxonomy are real. See ``data/demo/README.md``.

Pipeline: :mod:`~sgr_kit.demo.tasks` (problems and task records) ->
:mod:`~sgr_kit.demo.errors` (the generative error model) ->
:mod:`~sgr_kit.demo.render` (answer formats) -> :mod:`~sgr_kit.demo.simulate`
(candidate pools, scoring, calibration by selection) ->
:mod:`~sgr_kit.demo.audit` (audit labels) -> :mod:`~sgr_kit.demo.check`
(calibration report) -> :func:`write_demo`.
"""

from __future__ import annotations

import csv
import io
import json
import os
from dataclasses import dataclass
from pathlib import Path
from random import Random

import numpy as np
import pandas as pd

from sgr_kit.demo.audit import CORRECT, slot_counts, solve_labels
from sgr_kit.demo.check import TOLERANCES, calibration_report
from sgr_kit.demo.simulate import Group, candidate_pool, cell_options, score_pool, select
from sgr_kit.demo.targets import Targets, paper_targets
from sgr_kit.demo.tasks import DemoProblem, make_problems, task_records
from sgr_kit.errors import SgrKitError
from sgr_kit.output import probe_writable, write_bytes
from sgr_kit.prepare.tasks import field_rule
from sgr_kit.schema import METRICS
from sgr_kit.taxonomy import cardinality_bin, classify_domain
from sgr_kit.types import Answer, Schema, Task

__all__ = ["DEFAULT_SEED", "N_REPEAT_TASKS", "Demo", "as_task", "build_demo", "write_demo", "demo_files"]

DEFAULT_SEED = 20250501
#: Tasks on which every system also has a second run (repeat 1).
N_REPEAT_TASKS = 10
_AIM = 0.5  # the optimiser's loss scale, as a share of each tolerance


@dataclass(frozen=True)
class Demo:
    """The demo benchmark in memory (what :func:`write_demo` writes).

    Attributes
    ----------
    seed : int
    constraint, goal : list of dict
        Task records in the release format.
    runs : list of dict
        ``system, task_id, repeat, answer``.
    truth : list of dict
        ``system, task_id, repeat, injected, severity, slips, format``.
    audit : list of dict
        ``system, task_id, base_id, family, label``.
    calibration : DataFrame
        Targets vs. achieved values (:func:`sgr_kit.demo.check.calibration_report`
        on the generated answers, scored with the default profile).
    """

    seed: int
    constraint: list
    goal: list
    runs: list
    truth: list
    audit: list
    calibration: pd.DataFrame


def as_task(rec: dict) -> Task:
    """A :class:`Task` from one generated record (the demo's own, exact, reading)."""
    rub = rec["rubric"]
    fields = {name: field_rule(spec, loc=f"demo task {rec['task_id']}: field {name!r}")
              for name, spec in rub["fields"].items()}
    schema = Schema(columns=tuple(rub["columns"]), row_key=tuple(rub["row_key"]), fields=fields)
    eco, fam = classify_domain(rec["domain"])
    n = rec["oracle_output_cardinality"]
    return Task(
        task_id=rec["task_id"], base_id=rec["metadata"]["base_id"], variant=rec["metadata"]["variant"],
        domain=rec["domain"], ecosystem=eco, family=fam, schema=schema, reference=rec["oracle_answer"],
        gold_rows=n, bin=cardinality_bin(n), instruction=rec["instruction"], output_format=rec["output_format"],
        metadata=rec["metadata"], rubric=rub, source=rec["task_id"],
    )


def _audit_slots(tasks: list[Task], targets: Targets, rng: Random) -> list[Task]:
    failures = {f: sum(c.values()) for f, c in targets.table5.items()}
    n_models = len(targets.cli_systems)
    n_slots = sum(targets.table4[targets.cli_systems[0]].values())
    n_correct = sum(c.get(CORRECT, 0) for c in targets.table4.values())
    counts = slot_counts(failures, n_slots=n_slots, n_models=n_models, n_correct=n_correct)
    slots = []
    for fam, n in counts.items():
        slots += rng.sample([t for t in tasks if t.family == fam], n)
    return slots


def build_demo(*, seed: int = DEFAULT_SEED) -> Demo:
    """Generate the demo benchmark in memory (deterministic for a seed).

    Parameters
    ----------
    seed : int, default DEFAULT_SEED

    Returns
    -------
    Demo
    """
    from sgr_kit.score import prepare_task, score_runs

    targets = paper_targets()
    problems: list[DemoProblem] = make_problems(seed=seed)
    constraint, goal = task_records(problems, seed=seed)
    records = [r for pair in zip(constraint, goal) for r in pair]
    tasks = [as_task(r) for r in records]
    by_base = {p.base_id: p for p in problems}
    pools = [candidate_pool(by_base[t.base_id], t.task_id, seed=seed) for t in tasks]
    scores = [score_pool(prepare_task(t, profile="paper"), pool) for t, pool in zip(tasks, pools)]

    rng = Random(f"sgr-demo-design-{seed}")
    slots = _audit_slots(tasks, targets, rng)
    labels = solve_labels(targets.table4, targets.table5, [t.family for t in slots], seed=seed)
    audit_label = {(m, slots[s].task_id): lab for (m, s), lab in labels.items()}
    repeat_ids = set(rng.sample([t.task_id for t in tasks], N_REPEAT_TASKS))

    cells, options, metrics = [], [], []
    for system in targets.systems:
        for ti, t in enumerate(tasks):
            label = audit_label.get((system, t.task_id))
            opts = cell_options(pools[ti], label=label, repeats=t.task_id in repeat_ids)
            cells.append((system, ti, label))
            options.append(opts)
            metrics.append(np.array([scores[ti][list(o)].mean(axis=0) for o in opts]))

    groups = _groups(cells, tasks, targets)
    choice = select(metrics, groups, seed=seed)

    runs, truth, audit = [], [], []
    for (system, ti, label), opts, ch in zip(cells, options, choice):
        t = tasks[ti]
        for rep, ci in enumerate(opts[ch]):
            c = pools[ti][ci]
            runs.append({"system": system, "task_id": t.task_id, "repeat": rep, "answer": c.text})
            truth.append({"system": system, "task_id": t.task_id, "repeat": rep, "injected": c.injected,
                          "severity": f"{c.severity:.2f}", "slips": ";".join(c.slips), "format": c.fmt})
        if label is not None:
            audit.append({"system": system, "task_id": t.task_id, "base_id": t.base_id,
                          "family": t.family, "label": label})
    audit.sort(key=lambda a: (targets.cli_systems.index(a["system"]), a["task_id"]))
    answers = [Answer(r["system"], r["task_id"], r["repeat"], r["answer"]) for r in runs]
    report = calibration_report(score_runs(tasks, answers), pd.DataFrame(audit), targets=targets)
    return Demo(seed=seed, constraint=constraint, goal=goal, runs=runs, truth=truth, audit=audit,
                calibration=report)


def _groups(cells: list, tasks: list[Task], targets: Targets) -> list[Group]:
    groups = []
    tol = {k: v / 100 * _AIM for k, v in TOLERANCES.items()}
    for (system, variant, metric), value in sorted(targets.table2.items()):
        members = tuple(i for i, (s, ti, _) in enumerate(cells) if s == system and tasks[ti].variant == variant)
        groups.append(Group(f"table2 {system} {variant} {metric}", METRICS.index(metric), value / 100,
                            tol[f"table2_{metric}"], members))
    for fam, value in sorted(targets.family.items()):
        members = tuple(i for i, (_, ti, _) in enumerate(cells) if tasks[ti].family == fam)
        groups.append(Group(f"family {fam} item_f1", 0, value / 100, tol["family"], members))
    for (b, metric), value in sorted(targets.bins.items()):
        members = tuple(i for i, (_, ti, _) in enumerate(cells) if tasks[ti].bin == b)
        groups.append(Group(f"bin {b} {metric}", METRICS.index(metric), value / 100, tol["bin"], members))
    for (label, metric), value in sorted(targets.table6.items()):
        members = tuple(i for i, (_, _, lab) in enumerate(cells) if lab == label)
        groups.append(Group(f"table6 {label} {metric}", METRICS.index(metric), value / 100, tol["table6"],
                            members))
    return groups


# ------------------------------------------------------------------------------------ writing


def _jsonl(records: list[dict]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


def _csv(records: list[dict]) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(records[0]), lineterminator="\n")
    w.writeheader()
    w.writerows(records)
    return buf.getvalue()


def demo_files(demo: Demo) -> dict[str, str]:
    """File name -> exact text of every file :func:`write_demo` writes."""
    from sgr_kit.demo.readme import readme_text

    return {
        "constraint.jsonl": _jsonl(demo.constraint),
        "goal.jsonl": _jsonl(demo.goal),
        "runs.jsonl": _jsonl(demo.runs),
        "truth.csv": _csv(demo.truth),
        "audit.csv": _csv(demo.audit),
        "README.md": readme_text(demo),
    }


def write_demo(out_dir: str | os.PathLike, *, seed: int = DEFAULT_SEED, force: bool = False) -> list[Path]:
    """Generate the demo and write it to ``out_dir``.

    Parameters
    ----------
    out_dir : path
    seed : int, default DEFAULT_SEED
    force : bool, default False
        Overwrite existing files whose content differs. Without it such a file
        raises :class:`~sgr_kit.errors.SgrKitError` before anything is written.

    Returns
    -------
    list of Path
        The files, in writing order. Identical files are left untouched.
    """
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise SgrKitError(f"demo output {out}: expected a folder, found a file")
    probe_writable(out / "README.md", what="demo output")
    files = demo_files(build_demo(seed=seed))
    if not force:
        for name, text in files.items():
            p = out / name
            if p.exists() and p.read_bytes() != text.encode("utf-8"):
                raise SgrKitError(
                    f"demo output {p} already exists with different content; pass force=True "
                    f"(sgr-kit demo --force) to overwrite it"
                )
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SgrKitError(f"demo output {out}: cannot create the folder ({exc.strerror or exc})") from None
    paths = []
    for name, text in files.items():
        p = out / name
        data = text.encode("utf-8")
        if not (p.exists() and p.read_bytes() == data):
            write_bytes(data, p, force=True)
        paths.append(p)
    return paths
