"""A task set beside the public release: how much of it, which domains, which ids; its fingerprint.

:func:`release_check` compares loaded tasks with the facts of the public release
(``PKUAIWeb/SGR-BENCH``; :data:`sgr_kit.taxonomy.RELEASE_DOMAIN_TASKS` and
:data:`~sgr_kit.taxonomy.RELEASE_ID_PREFIXES`): base tasks and pairs against the paper's 50
(100 tasks), base tasks per domain against the release's, base tasks with a variant missing,
ids not of the release's shape (``<prefix>_<number>[-g]`` with the domain's prefix) with the
closest release prefixes, crossed pairs (a goal variant that shares its reference with another
base task than its id names), and a note that ids were renumbered between revisions of the
release. ``sgr-kit validate`` prints it.

:func:`task_fingerprint` is the SHA-256 of the tasks' scored content (ids, pairing, language,
reference text, schema, row key, separators, field rules), independent of the order in which
the tasks were read: two reports with the same fingerprint scored the same tasks.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Mapping

from ..errors import closest
from ..load.release import Finding
from ..schema import PAPER_TASKS, PAPER_TASKS_PER_VARIANT
from ..taxonomy import RELEASE_DOMAIN_TASKS, RELEASE_ID_PREFIXES
from ..types import Task

__all__ = ["release_check", "task_fingerprint", "RENUMBERED_NOTE"]

_ID = re.compile(r"^(?P<prefix>[a-z]+)_(?P<number>\d{3})(?P<goal>-g)?$")
_UNCHECKED_DOMAINS = frozenset({"EUROPEPMC_PMC"})  # its prefix is not recorded
_SHOWN = 8
#: Said wherever ids are compared with the release.
RENUMBERED_NOTE = (
    "task ids were renumbered between revisions of the release (the same task is comptox_001 in one "
    "revision and comptox_010 in another): compare task sets by their fingerprint, not by their ids"
)


def _task_content(task: Task) -> dict:
    schema = task.schema
    fields = {
        column: [rule.type, sorted(rule.aliases.items()), rule.uppercase,
                 sorted((unit, [str(v) for v in conv]) for unit, conv in rule.units.items())]
        for column, rule in sorted(schema.fields.items())
    }  # fmt: skip
    return {
        "task_id": task.task_id, "base_id": task.base_id, "language": task.language, "reference": task.reference,
        "columns": list(schema.columns), "row_key": list(schema.row_key), "fields": fields,
        "record_separator": schema.record_separator, "composite": [list(c) for c in schema.composite],
        "header_names": list(schema.header_names),
    }  # fmt: skip


def task_fingerprint(tasks: Mapping[str, Task]) -> str:
    """SHA-256 (hex) of the tasks' scored content, the same whatever order the tasks come in.

    Each task's content (id, base id, language, reference text, columns, row key, field
    rules, record separator, composite cells, header spelling) is hashed on its own; the
    sorted task hashes are hashed again. Prose (instructions, conditions, notes) is not
    scored and not part of it.

    Parameters
    ----------
    tasks : mapping of task_id to Task
        E.g. a :class:`~sgr_kit.prepare.TaskSet`.

    Returns
    -------
    str
        64 hexadecimal digits.

    Examples
    --------
    >>> from sgr_kit.types import Schema
    >>> a = Task("t_001", "t_001", "constraint", "NVD", "NVD", "v", Schema(("id",), ("id",)), "x", 1, "1-2")
    >>> b = Task("t_002", "t_002", "constraint", "NVD", "NVD", "v", Schema(("id",), ("id",)), "y", 1, "1-2")
    >>> task_fingerprint({"t_001": a, "t_002": b}) == task_fingerprint({"t_002": b, "t_001": a})
    True
    >>> task_fingerprint({"t_001": a}) == task_fingerprint({"t_002": b})
    False
    """
    digests = sorted(
        hashlib.sha256(json.dumps(_task_content(t), sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()
        for t in tasks.values()
    )
    return hashlib.sha256("\n".join(digests).encode("ascii")).hexdigest()


def _shown(items: list[str]) -> str:
    return ", ".join(items[:_SHOWN]) + (f" and {len(items) - _SHOWN} more" if len(items) > _SHOWN else "")


def _not_release_ids(tasks: Mapping[str, Task], findings: list[Finding]) -> set[str]:
    """The ids of ``tasks`` not of the release's shape for their domain; an ``info`` finding for each."""
    unknown = set()
    for task in tasks.values():
        match = _ID.match(task.task_id)
        domain = task.domain.upper()
        if domain in _UNCHECKED_DOMAINS and match:
            continue
        prefixes = [p for p, ds in RELEASE_ID_PREFIXES.items() if domain in ds]
        if match and match["prefix"] in prefixes:
            continue
        unknown.add(task.task_id)
        head = match["prefix"] if match else task.task_id.split("_")[0]
        near = prefixes or closest(head, RELEASE_ID_PREFIXES)
        expected = f"{'/'.join(p + '_NNN' for p in near)}" if near else "<prefix>_NNN"
        findings.append(Finding(
            "info", task.task_id, "release",
            f"task {task.task_id} ({task.domain}): not an id of the release's shape; expected {expected}[-g]"
            + (f" (closest release prefixes: {', '.join(near)})" if near and not prefixes else ""),
        ))
    return unknown


def release_check(tasks: Mapping[str, Task]) -> tuple[list[str], list[Finding]]:
    """The task set beside the public release: summary lines and findings.

    Parameters
    ----------
    tasks : mapping of task_id to Task
        Paired tasks (a :class:`~sgr_kit.prepare.TaskSet`).

    Returns
    -------
    lines : list of str
        For ``sgr-kit validate``: how much of the release (base tasks, tasks and pairs against
        the paper's 50 / 100 / 50), base tasks per domain against the release's, variants missing,
        crossed pairs, the fingerprint.
    findings : list of Finding
        ``warning`` (kind ``release``) for a domain with more base tasks than the release has;
        ``info`` for ids not of the release's shape (with the closest release prefixes), and the
        renumbering note.

    Examples
    --------
    >>> from sgr_kit.types import Schema
    >>> t = Task("nvd_001", "nvd_001", "constraint", "NVD", "NVD", "v", Schema(("id",), ("id",)), "x", 1, "1-2")
    >>> lines, findings = release_check({"nvd_001": t})
    >>> lines[0]
    'release: a partial release: 1 of the 50 base tasks, 1 of the 100 tasks (1 constraint, 0 goal), 0 of the 50 pairs'
    """
    by_base: dict[str, dict[str, str]] = {}
    for task in tasks.values():
        by_base.setdefault(task.base_id, {})[task.variant] = task.task_id
    n_goal = sum(t.variant == "goal" for t in tasks.values())
    n_pairs = sum(1 for v in by_base.values() if len(v) == 2)
    full = len(by_base) == PAPER_TASKS_PER_VARIANT and len(tasks) == PAPER_TASKS and n_pairs == PAPER_TASKS_PER_VARIANT
    shape = "the full release" if full else "a partial release"
    if any(t.synthetic for t in tasks.values()):
        shape = f"SYNTHETIC tasks shaped like {shape}"  # e.g. the demo: simulated, never the release itself
    lines = [
        f"release: {shape}: {len(by_base)} of the "
        f"{PAPER_TASKS_PER_VARIANT} base tasks, {len(tasks)} of the {PAPER_TASKS} tasks "
        f"({len(tasks) - n_goal} constraint, {n_goal} goal), {n_pairs} of the {PAPER_TASKS_PER_VARIANT} pairs"
    ]
    findings: list[Finding] = []
    unknown = _not_release_ids(tasks, findings)
    domains: dict[str, set[str]] = {}
    for task in tasks.values():  # only ids of the release's shape count toward the release's domains
        if task.task_id not in unknown:
            domains.setdefault(task.domain.upper(), set()).add(task.base_id)
    shown = []
    for domain, expected in RELEASE_DOMAIN_TASKS.items():
        found = len(domains.get(domain, ()))
        shown.append(f"{domain} {found}/{expected}")
        if found > expected:
            findings.append(Finding(
                "warning", "", "release",
                f"domain {domain}: {found} base tasks loaded, the release has {expected} "
                f"({', '.join(sorted(domains[domain]))})",
            ))
    lines.append("  base tasks per domain (loaded/release): " + ", ".join(shown)
                 + (f" (the {len(unknown)} task(s) whose id is not of the release's shape not counted)" if unknown
                    else ""))  # fmt: skip
    other = sorted(d for d in domains if d not in RELEASE_DOMAIN_TASKS)
    if other:
        lines.append(f"  domains not in the release: {', '.join(other)}")
    missing = sorted(
        (f"{base}-g (goal variant)" if "constraint" in v else f"{base} (constraint variant)")
        for base, v in by_base.items() if len(v) == 1
    )
    if missing:
        lines.append(f"  variants missing ({len(missing)}): {_shown(missing)}")
    crossed = [
        (t.task_id, t.base_id) for t in tasks.values()
        if t.variant == "goal" and t.base_id != t.task_id.removesuffix("-g")
    ]
    for goal, base in crossed:
        lines.append(
            f"  crossed pair: {goal} shares the reference of {base} (its id suggests {goal.removesuffix('-g')}); "
            f"scored as the references pair them"
        )
    if unknown:  # only an id of another shape may be a renumbered one; a partial release alone says nothing
        findings.append(Finding("info", "", "release", RENUMBERED_NOTE))
    lines.append(f"  task-set fingerprint (SHA-256 of the scored content): {task_fingerprint(tasks)}")
    return lines, findings
