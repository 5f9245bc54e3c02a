"""Validate task files: every problem at once, for ``sgr-kit validate``.

:func:`validate` reads, builds and pairs every task (:func:`sgr_kit.prepare.tasks.collect`)
and prepares each for scoring under both profiles (:func:`sgr_kit.score.prepare_task`), so
that it reports everything ``sgr-kit score`` would refuse or adjust.
"""

from __future__ import annotations

import dataclasses
import warnings
from dataclasses import dataclass
from typing import Any, Mapping

import pandas as pd

from ..errors import SgrKitError
from ..load.release import Finding, as_source_list
from ..schema import PROFILES
from ..score import prepare_task
from ..taxonomy import BINS
from ..types import Task
from .tasks import collect

__all__ = ["ValidationReport", "validate"]

_REPORT_COLUMNS = ["severity", "task_id", "kind", "message"]
_SEVERITIES = ("error", "warning", "info")
_HEADINGS = {"error": "errors", "warning": "warnings", "info": "notes"}


@dataclass(frozen=True)
class ValidationReport:
    """Everything found while loading task files (see :func:`validate`).

    Attributes
    ----------
    findings : tuple of Finding
    tasks : TaskSet
        The tasks that could be built.
    sources : tuple of str
    """

    findings: tuple[Finding, ...]
    tasks: Any
    sources: tuple[str, ...]

    @property
    def ok(self) -> bool:
        """True when there is no error (warnings allowed)."""
        return not any(f.severity == "error" for f in self.findings)

    def frame(self) -> pd.DataFrame:
        """One row per finding: ``severity, task_id, kind, message``."""
        return pd.DataFrame([dataclasses.astuple(f) for f in self.findings], columns=_REPORT_COLUMNS, dtype=object)

    def text(self) -> str:
        """A human-readable report (the output of ``sgr-kit validate``)."""
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
        if tasks.decisions:
            lines.append("pairing decisions:")
            lines += [f"  {d.task_id} -> {d.base_id} [{d.rule}] {d.detail}" for d in tasks.decisions]
        for severity in _SEVERITIES:
            # informational pairing findings repeat the decisions listed above
            found = [
                f for f in self.findings
                if f.severity == severity and not (severity == "info" and f.kind in ("pairing", "unpaired"))
            ]
            if found:
                lines.append(f"{_HEADINGS[severity]} ({len(found)}):")
                lines += [f"  [{f.kind}] {f.message}" for f in found]
        n_err = sum(f.severity == "error" for f in self.findings)
        n_warn = sum(f.severity == "warning" for f in self.findings)
        lines.append(f"result: {'OK' if n_err == 0 else 'FAILED'} ({n_err} errors, {n_warn} warnings)")
        return "\n".join(lines)


def validate(source: Any, *more_sources: Any, pairing: Any = None, strict_pairing: bool = False) -> ValidationReport:
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
    taskset, findings = collect(sources, pairing=pairing, strict_pairing=strict_pairing, allow_invalid=False)
    failed = {f.task_id for f in findings if f.severity == "error"}
    findings += _scoring_findings({k: t for k, t in taskset.items() if k not in failed})
    return ValidationReport(tuple(findings), taskset, tuple(str(s) for s in sources))


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
