"""The embedded demo benchmark: SYNTHETIC tasks and answers shaped like SGR-Bench.

``sgr-kit demo`` (:func:`write_demo`) writes ``data/demo/``: 50 synthetic base
problems as 100 tasks in the public release's own format and answer layouts
(``constraint.jsonl``, ``goal.jsonl``: ``rubric.normalization``, ``metadata`` with
``State-Gated Retrieval``, ``start_url``, ``all_involved_urls``), simulated answers of the paper's eleven systems
(``runs.jsonl``), the error injected into every answer (``truth.csv``), audit
labels for 22 task slots x the 8 CLI systems (``audit.csv``), a trajectory for every
answer of the 8 CLI systems (``trajectories.jsonl``, :mod:`~sgr_kit.demo.trajectories`)
and a README.
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
import functools
import io
import json
import os
from dataclasses import dataclass
from pathlib import Path
from random import Random
from types import MappingProxyType
from typing import Mapping

import numpy as np
import pandas as pd

from sgr_kit.demo.audit import CORRECT, slot_counts, solve_labels
from sgr_kit.demo.check import TOLERANCES, calibration_report
from sgr_kit.demo.simulate import Group, candidate_pool, cell_options, score_pool, select
from sgr_kit.demo.targets import Targets, paper_targets
from sgr_kit.demo.tasks import DemoProblem, inferred_key, make_problems, task_records
from sgr_kit.errors import SgrKitError
from sgr_kit.output import probe_writable, write_bytes
from sgr_kit.schema import METRICS
from sgr_kit.taxonomy import cardinality_bin, classify_domain
from sgr_kit.types import Answer, Schema, Task

__all__ = ["DEFAULT_SEED", "N_REPEAT_TASKS", "Demo", "as_task", "build_demo", "read_records", "reference_rows",
           "write_demo", "demo_files"]

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
        Task records in the public release's own format.
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


def _key_of(norm: dict, rows: list[tuple[str, ...]]) -> tuple[str, ...]:
    declared = norm.get("dedup_key")
    if declared:
        return tuple(n.strip() for n in declared.strip("() ").split(","))
    return inferred_key(tuple(norm["schema"]), rows)


def as_task(rec: dict) -> Task:
    """A :class:`Task` from one generated record: the demo's own, exact, reading of it.

    The schema is ``rubric.normalization.schema``; the key is ``dedup_key`` or else the
    shortest leading run of columns unique in the reference; records are split by the
    schema's width (the composite first cell by the template's ``:``); the header line,
    when there is one, is spelled as the constraint variant's template.
    """
    norm = rec["rubric"]["normalization"]
    columns = tuple(norm["schema"])
    sep = norm["record_separator"]
    rows = reference_rows(rec["oracle_answer"], columns, sep, header=norm.get("header_row", "").startswith("emit one"),
                          composite=rec["output_format"].split("|", 1)[0].count(">:<") == 1)
    schema = Schema(columns=columns, row_key=_key_of(norm, rows), record_separator=None if sep == "\n" else sep)
    eco, fam = classify_domain(rec["domain"])
    n = rec["oracle_output_cardinality"]
    task_id = rec["task_id"]
    goal = task_id.endswith("-g")
    return Task(
        task_id=task_id, base_id=task_id[:-2] if goal else task_id, variant="goal" if goal else "constraint",
        domain=rec["domain"], ecosystem=eco, family=fam, schema=schema, reference=rec["oracle_answer"],
        gold_rows=n, bin=cardinality_bin(n), instruction=rec["instruction"], output_format=rec["output_format"],
        metadata=rec["metadata"], rubric=rec["rubric"], source=task_id,
    )


def reference_rows(text: str, columns: tuple[str, ...], separator: str, *, header: bool,
                   composite: bool) -> list[tuple[str, ...]]:
    """The reference's records, read by the schema's width (the demo's own reader).

    A record written on one line ends after the schema's number of ``|`` fields, so a
    field holding the separator (``NORTHWIND CREDIT HOLDINGS, INC.``) stays one cell.

    Examples
    --------
    >>> reference_rows("a|x, y|1,b|z|2", ("k", "name", "n"), ",", header=False, composite=False)
    [('a', 'x, y', '1'), ('b', 'z', '2')]
    >>> reference_rows("H:T-1|3;H:T-2|4", ("c", "id", "n"), ";", header=False, composite=True)
    [('H', 'T-1', '3'), ('H', 'T-2', '4')]
    """
    width = len(columns) - (1 if composite else 0)
    lines = text.split("\n")
    if header:
        lines = lines[1:]
    records: list[list[str]] = []
    if separator == "\n":
        records = [ln.split("|") for ln in lines if ln]
    else:
        fields = text.split("|")
        current: list[str] = []
        for f in fields:
            if len(current) == width - 1 and separator in f:
                # this field ends the record and starts the next one (the demo puts no
                # separator in a record's last or first cell)
                cut = f.index(separator)
                records.append(current + [f[:cut]])
                current = [f[cut + 1:]]
            else:
                current.append(f)
        records.append(current)
    out = []
    for r in records:
        if composite:
            a, _, b = r[0].partition(":")
            r = [a, b, *r[1:]]
        out.append(tuple(r))
    return out


def read_records(records: list[dict]) -> dict[str, Task]:
    """Task records read by the package's own loader, as every user of the demo reads them.

    Parameters
    ----------
    records : list of dict
        Generated task records (:func:`~sgr_kit.demo.tasks.task_records`).

    Returns
    -------
    dict
        ``task_id -> Task``, in the order of ``records``.
    """
    import tempfile
    import warnings

    from sgr_kit.prepare import load_tasks

    with tempfile.TemporaryDirectory(prefix="sgr-demo-") as tmp:
        path = Path(tmp) / "tasks.jsonl"
        path.write_text(_jsonl(records), encoding="utf-8")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            loaded = load_tasks(path)
    return {r["task_id"]: loaded[r["task_id"]] for r in records}


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
    tasks = list(read_records(records).values())
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
    from sgr_kit.demo.trajectories import demo_trajectories, example_prices

    trajectories = demo_trajectories(demo.constraint + demo.goal, demo.runs, demo.truth,
                                     systems=paper_targets().cli_systems, seed=demo.seed)  # fmt: skip
    return {
        "constraint.jsonl": _jsonl(demo.constraint),
        "goal.jsonl": _jsonl(demo.goal),
        "runs.jsonl": _jsonl(demo.runs),
        "truth.csv": _csv(demo.truth),
        "audit.csv": _csv(demo.audit),
        "trajectories.jsonl": _jsonl(trajectories),
        "prices-example.csv": example_prices(),
        "README.md": readme_text(demo),
    }


@functools.lru_cache(maxsize=2)
def _files_of(seed: int) -> Mapping[str, str]:
    """:func:`demo_files` of the seed's demo, generated once per process (a second write compares, then writes)."""
    return MappingProxyType(demo_files(build_demo(seed=seed)))


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
    files = _files_of(seed)
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
