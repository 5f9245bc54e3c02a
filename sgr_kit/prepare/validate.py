"""Validate task files, and runs files against them: every problem at once, for ``sgr-kit validate``.

:func:`validate` reads, builds and pairs every task (:func:`sgr_kit.prepare.tasks.collect`)
and prepares each for scoring under both profiles (:func:`sgr_kit.score.prepare_task`), so
that it reports everything ``sgr-kit score`` would refuse or adjust. With ``runs``, it also
reads the answers (:func:`sgr_kit.load.read_runs`) and reports, without scoring, unknown task
ids (with the closest known ids), duplicate answers, unreadable lines, empty answers, null
answers and answers that were not strings, and which tasks each system left unanswered.
"""

from __future__ import annotations

import dataclasses
import warnings
from dataclasses import dataclass
from typing import Any, Mapping

import pandas as pd

from ..errors import SgrKitError
from ..load.release import Finding, as_source_list
from ..load.runs import read_runs
from ..schema import PROFILES
from ..score import prepare_task, score_answer
from ..taxonomy import BINS
from ..types import Task
from .release import RENUMBERED_NOTE, release_check
from .tasks import collect

__all__ = ["ValidationReport", "validate", "trajectory_findings", "findings_text"]

_REPORT_COLUMNS = ["severity", "task_id", "kind", "message"]
_SEVERITIES = ("error", "warning", "info")
_HEADINGS = {"error": "errors", "warning": "warnings", "info": "notes"}
_SHOWN_PER_KIND = 20
_SHOWN_IDS = 5


@dataclass(frozen=True)
class ValidationReport:
    """Everything found while loading task files (see :func:`validate`).

    Attributes
    ----------
    findings : tuple of Finding
    tasks : TaskSet
        The tasks that could be built.
    sources : tuple of str
    runs : RunSet or None
        The answers that could be read, when runs were checked.
    run_sources : tuple of str
    """

    findings: tuple[Finding, ...]
    tasks: Any
    sources: tuple[str, ...]
    runs: Any = None
    run_sources: tuple[str, ...] = ()
    release: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        """True when there is no error (warnings allowed)."""
        return not any(f.severity == "error" for f in self.findings)

    def frame(self) -> pd.DataFrame:
        """One row per finding: ``severity, task_id, kind, message``."""
        return pd.DataFrame([dataclasses.astuple(f) for f in self.findings], columns=_REPORT_COLUMNS, dtype=object)

    def text(self, *, verbose: bool = False) -> str:
        """A human-readable report (the output of ``sgr-kit validate``).

        With ``verbose``, every task's schema is shown with where it came from (columns, row key,
        separators) and the prose the task carries (conditions, notes, state conditions).
        """
        tasks = self.tasks
        n_goal = sum(t.variant == "goal" for t in tasks.values())
        bins: dict[str, int] = {}
        for t in tasks.values():
            bins[t.bin] = bins.get(t.bin, 0) + 1
        lines = [
            f"tasks: {', '.join(self.sources)}",
            f"  {len(tasks)} tasks loaded: {len(tasks) - n_goal} constraint, {n_goal} goal, {len(tasks.pairs)} pairs",
        ]
        if bins:
            lines.append("  cardinality bins: " + ", ".join(f"{b}: {bins[b]}" for b in BINS if b in bins))
        languages = sorted({t.language for t in tasks.values()})
        if languages:
            lines.append(f"  language: {', '.join(languages)}")
        lines += list(self.release)
        if verbose:
            lines += _task_lines(tasks)
        if tasks.decisions:
            lines.append("pairing decisions:")
            lines += [f"  {d.task_id} -> {d.base_id} [{d.rule}] {d.detail}" for d in tasks.decisions]
        if self.runs is not None:
            lines += self._runs_lines()
        for severity in _SEVERITIES:
            # informational pairing findings repeat the decisions listed above
            found = [
                f for f in self.findings
                if f.severity == severity and not (severity == "info" and f.kind in ("pairing", "unpaired"))
            ]
            if found:
                lines.append(f"{_HEADINGS[severity]} ({len(found)}):")
                shown: dict[str, int] = {}
                for f in found:
                    shown[f.kind] = shown.get(f.kind, 0) + 1
                    if shown[f.kind] <= _SHOWN_PER_KIND:
                        lines.append(f"  [{f.kind}] {f.message}")
                for kind, n in shown.items():
                    if n > _SHOWN_PER_KIND:
                        lines.append(f"  [{kind}] ... and {n - _SHOWN_PER_KIND} more")
        n_err = sum(f.severity == "error" for f in self.findings)
        n_warn = sum(f.severity == "warning" for f in self.findings)
        lines.append(f"result: {'OK' if n_err == 0 else 'FAILED'} ({n_err} errors, {n_warn} warnings)")
        return "\n".join(lines)


    def _runs_lines(self) -> list[str]:
        runs, tasks = self.runs, self.tasks
        systems = list(runs.systems)
        lines = [
            f"runs: {', '.join(self.run_sources)}",
            f"  {len(runs)} answers from {len(systems)} system(s)"
            + (f"; {len(runs.nulls)} null (scored missing)" if runs.nulls else ""),
        ]
        answered: dict[str, set[str]] = {s: set() for s in systems}
        for answer in runs:
            answered.setdefault(answer.system, set()).add(answer.task_id)
        for system in systems:
            left = [t for t in tasks if t not in answered.get(system, set())]
            line = f"  {system}: {len(tasks) - len(left)} of {len(tasks)} tasks answered"
            if left:
                ids = ", ".join(left[:_SHOWN_IDS]) + (", ..." if len(left) > _SHOWN_IDS else "")
                line += f"; {len(left)} will be scored missing ({ids})"
            lines.append(line)
        return lines


def _prose_lines(value: Any, indent: str) -> list[str]:
    if isinstance(value, Mapping):
        out = []
        for key, item in value.items():
            if isinstance(item, (Mapping, list)):
                out.append(f"{indent}{key}:")
                out += _prose_lines(item, indent + "  ")
            else:
                out.append(f"{indent}{key}: {item}")
        return out
    if isinstance(value, list):
        return [f"{indent}- {item}" for item in value]
    return [f"{indent}{value}"]


def _task_lines(tasks: Mapping[str, Task]) -> list[str]:
    """Every task's schema, with where each part came from, and its prose (``validate --verbose``)."""
    lines = ["tasks in detail:"]
    for task in tasks.values():
        s = task.schema
        separator = {None: "one record per line"}.get(s.record_separator, f"records on one line, joined by "
                                                                          f"{s.record_separator!r}")
        lines += [
            f"  {task.task_id} ({task.domain}, {task.variant}, base {task.base_id}, {task.gold_rows} rows, "
            f"language {task.language}): {task.source}",
            f"    columns ({len(s.columns)}, from {s.columns_from}): {' | '.join(s.columns)}",
            f"    row key (from {s.key_from}): {', '.join(s.row_key)}",
            f"    records: {separator}; fields joined by '|'",
        ]
        if s.header_names:
            lines.append(f"    the reference's header spells them: {' | '.join(s.header_names)}")
        for position, joiner, n in s.composite:
            lines.append(f"    written as one cell joined by {joiner!r}: {', '.join(s.columns[position:position + n])}")
        prose = dict(task.prose)
        if prose.get("state_conditions") == prose.get("inclusion_conditions"):
            prose.pop("state_conditions", None)  # the release often repeats the inclusion conditions word for word
        if prose:
            lines.append("    prose (shown, never applied as a rule):")
            lines += _prose_lines(prose, "      ")
    return lines


def validate(
    source: Any, *more_sources: Any, pairing: Any = None, strict_pairing: bool = False, runs: Any = None,
    language: str = "en",
) -> ValidationReport:
    """Check task files and report every problem, without stopping at the first one.

    Reports every pairing decision, duplicate task ids, unreadable records, schema problems,
    unparseable references, cardinality mismatches, unpaired tasks and unknown domains, and
    prepares every task for scoring under both profiles, so that a reference that ``sgr-kit
    score`` would refuse (e.g. repeated row keys) is an error here too.

    Parameters
    ----------
    source : path, dataset id, or list of them
    *more_sources : path or dataset id
    pairing : path, optional
        An explicit ``task_id, base_id`` file (see :func:`sgr_kit.prepare.pairing.read_pairing_file`).
    strict_pairing : bool, default False
        Report pairing warnings as errors (as :func:`sgr_kit.prepare.load_tasks` does with it).
    runs : path or list of paths, optional
        Answers to check against the tasks that could be built, without scoring them.
    language : {"en", "zh"}, default "en"
        Which translation to read (see :func:`sgr_kit.prepare.load_tasks`).

    Returns
    -------
    ValidationReport
        ``.ok`` (no errors), ``.frame()`` (one row per finding) and ``.text()``.

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "t.jsonl"
    >>> task = {"task_id": "nvd_001", "domain": "NVD", "oracle_answer": "id|n\\nA|1", "output_format": "id|n"}
    >>> _ = path.write_text(json.dumps(task) + "\\n{broken\\n")
    >>> report = validate(path)
    >>> report.ok
    False
    >>> report.frame()[["severity", "kind"]].values.tolist()
    [['error', 'read'], ['info', 'unpaired']]
    """
    sources = as_source_list(source, *more_sources)
    taskset, findings = collect(sources, pairing=pairing, strict_pairing=strict_pairing, allow_invalid=False,
                                language=language)
    failed = {f.task_id for f in findings if f.severity == "error"}
    findings += _scoring_findings({k: t for k, t in taskset.items() if k not in failed})
    release, more = release_check(taskset)
    findings += more
    run_set, run_sources = None, ()
    if runs:
        run_sources = tuple(str(s) for s in as_source_list(runs))
        run_set, more = read_runs(runs, tasks=taskset, language=language)
        findings += more
        findings += _unreadable_answers(run_set, {k: t for k, t in taskset.items() if k not in failed})
        if any(f.kind == "unknown_task" for f in more) and not any(f.message == RENUMBERED_NOTE for f in findings):
            findings.append(Finding("info", "", "release", RENUMBERED_NOTE))  # unknown ids may be renumbered ones
    return ValidationReport(tuple(findings), taskset, tuple(str(s) for s in sources), run_set, run_sources,
                            tuple(release))


def _unreadable_answers(answers, tasks: Mapping[str, Task]) -> list[Finding]:
    """A warning for each answer in which no table can be read (it will be scored ``parse_failure``).

    The answer is parsed as ``sgr-kit score`` would (the ``paper`` profile, the default);
    its metrics are not reported. A prose answer such as "I could not find it" is
    readable input but holds no table: it scores nothing, so it is worth a warning.
    """
    found = []
    prepared: dict[str, Any] = {}
    for answer in answers:
        task = tasks.get(answer.task_id)
        if task is None or not answer.text.strip():
            continue
        if answer.task_id not in prepared:
            try:
                prepared[answer.task_id] = prepare_task(task, profile="paper")
            except SgrKitError:
                prepared[answer.task_id] = None
        if prepared[answer.task_id] is None:
            continue
        result = score_answer(prepared[answer.task_id], answer.text, profile="paper")
        if result.status == "parse_failure":
            found.append(Finding(
                "warning", answer.task_id, "unreadable_answer",
                f"{answer.source}: no table can be read in the answer of system {answer.system!r} to task "
                f"{answer.task_id} (repeat {answer.repeat}): {result.reason}; it will be scored 'parse_failure' "
                f"(no metrics; 0 under the default failure policy)",
            ))  # fmt: skip
    return found


def _scoring_findings(tasks: Mapping[str, Task]) -> list[Finding]:
    """Prepare every task for scoring under both profiles: what ``sgr-kit score`` would refuse or adjust."""
    found = []
    for task in tasks.values():
        for profile in PROFILES:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    prepare_task(task, profile=profile)
                except SgrKitError as exc:
                    found.append(Finding("error", task.task_id, "schema", f"{task.source}: {exc}"))
                    break
            found += [Finding("warning", task.task_id, "schema", f"{task.source}: {w.message}") for w in caught]
    return found


def trajectory_findings(runs: Any, trajectories: Any) -> list[Finding]:
    """What ``sgr-kit validate --runs R --trajectories T`` reports on the two together.

    Errors: trajectories of a system, task or repeat that no answer has (``unknown_system``,
    ``unknown_task``, ``unknown_repeat``, with the closest names: effort, cost and the protocol
    audit would leave them out). Warnings: answers whose text differs from their trajectory's
    final answer (``answer_differs``: the two files are not of the same runs), and systems whose
    answers lack trajectories (``no_trajectory``: their effort will be unknown).

    Parameters
    ----------
    runs : iterable of Answer
        The answers read (:func:`sgr_kit.load.read_runs`).
    trajectories : list of Trajectory
        The trajectories read (:func:`sgr_kit.trajectories.source.read_trajectories`).
    """
    from ..trajectories.match import differing_answers, match_trajectories

    runs, trajectories = list(runs), list(trajectories)
    answers = pd.DataFrame([(a.system, a.task_id, a.repeat) for a in runs], columns=["system", "task_id", "repeat"])
    keys = pd.DataFrame([(t.system, t.task_id, t.repeat) for t in trajectories],
                        columns=["system", "task_id", "repeat"])  # fmt: skip
    found = []
    for row in match_trajectories(answers, keys).itertuples(index=False):
        severity = "warning" if row.kind == "no_trajectory" else "error"
        found.append(Finding(severity, "", row.kind, row.message))
    for row in differing_answers(runs, trajectories).itertuples(index=False):
        found.append(Finding("warning", row.task_id, "answer_differs", row.message))
    return found


def findings_text(title: str, findings: list[Finding]) -> str:
    """``findings`` as ``sgr-kit validate`` prints them, under ``title``, with a result line."""
    lines = [title]
    for severity in _SEVERITIES:
        found = [f for f in findings if f.severity == severity]
        if found:
            lines.append(f"{_HEADINGS[severity]} ({len(found)}):")
            shown: dict[str, int] = {}
            for f in found:
                shown[f.kind] = shown.get(f.kind, 0) + 1
                if shown[f.kind] <= _SHOWN_PER_KIND:
                    lines.append(f"  [{f.kind}] {f.message}")
            lines += [f"  [{kind}] ... and {n - _SHOWN_PER_KIND} more" for kind, n in shown.items()
                      if n > _SHOWN_PER_KIND]  # fmt: skip
    n_err = sum(f.severity == "error" for f in findings)
    n_warn = sum(f.severity == "warning" for f in findings)
    lines.append(f"result: {'OK' if n_err == 0 else 'FAILED'} ({n_err} errors, {n_warn} warnings)")
    return "\n".join(lines)
