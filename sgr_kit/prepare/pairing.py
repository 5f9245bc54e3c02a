"""Pair goal tasks with their constraint task (``base_id``).

Every SGR-Bench problem has a constraint-guided task ``X`` and a goal-oriented task ``X-g``
sharing one reference answer (paper, section 3.3). A goal task is paired by these rules, each
recorded as a :class:`PairingDecision`:

``pairing_file``
    an explicit ``task_id, base_id`` file (CSV with a header, JSON list of objects or object
    ``{task_id: base_id}``, or JSONL) overrides everything; its ids must be loaded, its bases
    must be constraint tasks, and a constraint task can only be its own base;
``suffix``
    the task ``X`` exists and has the same reference (compared as canonical tables: strict
    parsing and strict canonicalization) and the same schema (columns, row key and record
    separator); prose (instructions, conditions, notes, even their capitalisation) may differ;
``same_reference``
    otherwise, exactly one other constraint task of the same domain has that reference and
    schema: pair with it, with a warning saying which base the id suggests (the release's
    crossed pairs: ``genome_003`` shares its reference with ``genome_004-g``);
``suffix_mismatch``
    otherwise ``X`` exists: pair with it anyway, with a warning saying what differs;
``unpaired``
    no ``X``: ``base_id`` is still ``X`` (the base problem's name), with a warning. A constraint
    task without any goal variant is recorded as ``unpaired`` too (a note).

Constraint tasks are their own base.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from ..canonicalize import column_canonicalizers
from ..errors import SgrKitError, decode_json, describe, text_value, where
from ..load.release import Finding, jsonl_lines, read_text
from ..types import ParsedTable, Task

__all__ = [
    "RULES",
    "PairingDecision",
    "assign_bases",
    "canonical_reference",
    "first_difference",
    "read_pairing_file",
    "variant_of",
]

#: Pairing rules, see the module docstring.
RULES = ("suffix", "same_reference", "pairing_file", "suffix_mismatch", "unpaired")
_GOAL_SUFFIX = "-g"


@dataclass(frozen=True, slots=True)
class PairingDecision:
    """How one task got its ``base_id``.

    Attributes
    ----------
    task_id, base_id : str
    rule : str
        One of :data:`RULES`.
    detail : str
        Why (what matched or differed, or the pairing file line).
    """

    task_id: str
    base_id: str
    rule: str
    detail: str


def variant_of(task_id: str) -> str:
    """``"goal"`` when the id ends in ``-g``, else ``"constraint"``.

    Examples
    --------
    >>> variant_of("census_001-g"), variant_of("census_001")
    ('goal', 'constraint')
    """
    return "goal" if task_id.endswith(_GOAL_SUFFIX) else "constraint"


def canonical_reference(task: Task, parsed: ParsedTable | None) -> tuple[tuple, list[str]]:
    """The task's reference as a canonical table, and its repeated row keys.

    Cells are canonicalized with the ``strict`` profile, so two references are the same table
    when every cell has the same canonical string. A reference that did not parse is
    represented by its stripped text.

    Returns
    -------
    table : tuple of tuple of str
    duplicated : list of str
        Row keys (cells joined by ``|``) that occur more than once.
    """
    if parsed is None or parsed.status == "parse_failure":
        return (("<unparsed>", task.reference.strip()),), []
    functions = column_canonicalizers(task.schema, profile="strict", reference_rows=parsed.rows)
    table = tuple(
        tuple(functions[i](cell) if i < len(functions) else cell for i, cell in enumerate(row)) for row in parsed.rows
    )
    index = task.schema.key_index
    seen: set[tuple] = set()
    duplicated: list[str] = []
    for row in table:
        key = tuple(row[i] if i < len(row) else "" for i in index)
        if key in seen and "|".join(key) not in duplicated:
            duplicated.append("|".join(key))
        seen.add(key)
    return table, duplicated


def _differences(a: Task, b: Task, canon: Mapping[str, tuple]) -> list[str]:
    out = []
    if a.schema.columns != b.schema.columns:
        out.append("columns differ")
    elif a.schema.row_key != b.schema.row_key:
        out.append(f"row keys differ ({'|'.join(a.schema.row_key)} vs {'|'.join(b.schema.row_key)})")
    if a.schema.record_separator != b.schema.record_separator:
        out.append(f"record separators differ ({a.schema.record_separator!r} vs {b.schema.record_separator!r})")
    if canon[a.task_id] != canon[b.task_id]:
        first = first_difference(canon[a.task_id], canon[b.task_id], a.schema.columns)
        out.append(f"reference tables differ ({a.gold_rows} vs {b.gold_rows} rows; {first})")
    return out


def first_difference(a: tuple, b: tuple, columns: tuple[str, ...]) -> str:
    """Where two canonical reference tables first differ, for messages.

    Examples
    --------
    >>> first_difference((("x", "1"), ("y", "2")), (("x", "1"), ("y", "3")), ("id", "n"))
    "first at row 2, column 'n': '2' vs '3'"
    >>> first_difference((("x", "1"),), (("x", "1"), ("y", "2")), ("id", "n"))
    "first at row 2: absent vs 'y|2'"
    """
    for i in range(max(len(a), len(b))):
        row_a = a[i] if i < len(a) else None
        row_b = b[i] if i < len(b) else None
        if row_a == row_b:
            continue
        if row_a is None or row_b is None:
            shown = ["absent" if r is None else repr("|".join(map(str, r))[:80]) for r in (row_a, row_b)]
            return f"first at row {i + 1}: {shown[0]} vs {shown[1]}"
        for j in range(max(len(row_a), len(row_b))):
            cell_a = row_a[j] if j < len(row_a) else None
            cell_b = row_b[j] if j < len(row_b) else None
            if cell_a != cell_b:
                name = repr(columns[j]) if j < len(columns) else f"{j + 1}"
                shown = ["absent" if c is None else repr(str(c)[:80]) for c in (cell_a, cell_b)]
                return f"first at row {i + 1}, column {name}: {shown[0]} vs {shown[1]}"
    return "same rows"  # pragma: no cover - only called when the tables differ


def read_pairing_file(path: Any) -> dict[str, tuple[str, str]]:
    """Read an explicit pairing file: ``{task_id: (base_id, location)}``.

    CSV (header with ``task_id`` and ``base_id``), JSON (a list of ``{task_id, base_id}`` objects
    or one ``{task_id: base_id}`` object) or JSONL. Locations are ``file:line``.
    """
    path = Path(path)
    if not path.is_file():
        raise SgrKitError(f"pairing file {path}: no such file; expected a CSV or JSON file of task_id, base_id")
    text = read_text(path, "pairing file")
    entries: list[tuple[Any, int | None]] = []  # (entry, line)
    suffix = path.suffix.lower()
    if suffix == ".csv":
        # lines end at \n (or \r\n) only, as a CSV writer ends them; each record at the line where it starts
        reader = csv.reader(io.StringIO(text, newline=""))
        try:
            header = next(reader, [])
            missing = [c for c in ("task_id", "base_id") if c not in header]
            if missing:
                raise SgrKitError(f"{where(path, 1)}: the header should name task_id and base_id; found {header}")
            start = reader.line_num + 1
            for row in reader:
                if row:  # a blank line
                    entries.append((dict(zip(header, row)), start))
                start = reader.line_num + 1
        except csv.Error as exc:
            raise SgrKitError(f"{where(path, reader.line_num)}: not valid CSV ({exc})") from None
    elif suffix == ".jsonl":
        entries = [(decode_json(ln, path, n)[0], n) for n, ln in jsonl_lines(text)]
    elif suffix == ".json":
        data = decode_json(text, path)[0]
        if isinstance(data, Mapping):
            data = [{"task_id": k, "base_id": v} for k, v in data.items()]
        if not isinstance(data, list):
            raise SgrKitError(f"{path}: expected a list of {{task_id, base_id}} objects or a mapping; "
                              f"found {describe(data)}")  # fmt: skip
        lines = text.splitlines()
        entries = [(e, _line_of(lines, e.get("task_id") if isinstance(e, Mapping) else None)) for e in data]
    else:
        raise SgrKitError(f"pairing file {path}: expected a .csv, .json or .jsonl file; found '{path.suffix}'")
    out: dict[str, tuple[str, str]] = {}
    for entry, line in entries:
        loc = where(path, line)
        if not isinstance(entry, Mapping):
            raise SgrKitError(f"{loc}: expected an object with task_id and base_id; found {describe(entry)}")
        task_id, base_id = (
            "" if entry.get(k) is None else text_value(entry[k], loc, k) for k in ("task_id", "base_id")
        )
        if not task_id or not base_id:
            raise SgrKitError(f"{loc}: task_id and base_id must both be given; found {describe(dict(entry))}")
        if task_id in out:
            raise SgrKitError(f"{loc}: task {task_id} is paired twice (also at {out[task_id][1]})")
        out[task_id] = (base_id, loc)
    return out


def _line_of(lines: list[str], task_id: Any) -> int | None:
    needle = json.dumps(task_id) if isinstance(task_id, str) else None
    for n, line in enumerate(lines, 1):
        if needle and needle in line:
            return n
    return None


def assign_bases(
    tasks: Mapping[str, Task], canon: Mapping[str, tuple], *, pairing: Any = None
) -> tuple[dict[str, Task], list[PairingDecision], list[Finding]]:
    """Give every goal task its ``base_id`` (see the module docstring for the rules).

    Parameters
    ----------
    tasks : mapping of task_id to Task
    canon : mapping of task_id to canonical reference table (:func:`canonical_reference`)
    pairing : path, optional
        An explicit pairing file.

    Returns
    -------
    tasks : dict
        The tasks with their ``base_id`` set.
    decisions : list of PairingDecision
    findings : list of Finding
    """
    findings: list[Finding] = []
    explicit: dict[str, tuple[str, str]] = {}
    if pairing is not None:
        try:
            explicit = read_pairing_file(pairing)
        except SgrKitError as exc:
            findings.append(Finding("error", "", "pairing", str(exc)))
        for task_id, (base_id, loc) in list(explicit.items()):
            problem = None
            if task_id not in tasks:
                problem = f"task {task_id} is not among the loaded tasks"
            elif base_id not in tasks:
                problem = f"base {base_id} of task {task_id} is not among the loaded tasks"
            elif tasks[base_id].variant != "constraint":
                problem = f"base {base_id} of task {task_id} is a goal task; a base must be a constraint task"
            elif tasks[task_id].variant == "constraint" and base_id != task_id:
                problem = f"task {task_id} is a constraint task, which is its own base; found base {base_id}"
            if problem:
                findings.append(Finding("error", task_id, "pairing", f"{loc}: {problem}"))
                del explicit[task_id]
    constraints = [t for t in tasks.values() if t.variant == "constraint"]
    decisions: list[PairingDecision] = []
    out = dict(tasks)
    for task in tasks.values():
        if task.variant == "constraint":
            continue
        tid, partner_id = task.task_id, task.task_id[: -len(_GOAL_SUFFIX)]
        partner = tasks.get(partner_id)
        if partner is not None and partner.variant != "constraint":  # e.g. "x-g-g": not a base
            partner = None
        if tid in explicit:
            base_id, loc = explicit[tid]
            diffs = _differences(task, tasks[base_id], canon)
            detail = f"from {loc}" + (f"; note: {', '.join(diffs)}" if diffs else "")
            decision = PairingDecision(tid, base_id, "pairing_file", detail)
            severity = "warning" if diffs else "info"
        elif partner is not None and not _differences(task, partner, canon):
            decision = PairingDecision(tid, partner_id, "suffix", "reference and schema match")
            severity = "info"
        else:
            same = [
                c for c in constraints
                if c.task_id != partner_id and c.domain.upper() == task.domain.upper()
                and not _differences(task, c, canon)
            ]
            if len(same) == 1:
                why = (f"{partner_id} differs: {', '.join(_differences(task, partner, canon))}"
                       if partner is not None else f"no task {partner_id}")
                crossed = f" (a crossed pair: the id suggests {partner_id}; scored with {same[0].task_id})"
                detail = f"{why}; {same[0].task_id} has the same reference{crossed if partner is not None else ''}"
                decision = PairingDecision(tid, same[0].task_id, "same_reference", detail)
            elif partner is not None:
                why = ", ".join(_differences(task, partner, canon))
                also = f"; same reference in {', '.join(c.task_id for c in same)}" if same else ""
                decision = PairingDecision(tid, partner_id, "suffix_mismatch", f"{why}{also}")
            else:
                also = f"; same reference in {', '.join(c.task_id for c in same)}" if same else ""
                decision = PairingDecision(tid, partner_id, "unpaired", f"no task {partner_id} is loaded{also}")
            severity = "warning"
        decisions.append(decision)
        out[tid] = dataclasses.replace(task, base_id=decision.base_id)
        kind = "unpaired" if decision.rule == "unpaired" else "pairing"
        message = f"{task.source}: task {tid} -> base {decision.base_id} [{decision.rule}]: {decision.detail}"
        findings.append(Finding(severity, tid, kind, message))
    bases = {d.base_id for d in decisions}
    for task in constraints:
        if task.task_id not in bases:
            decisions.append(PairingDecision(task.task_id, task.task_id, "unpaired", "no goal variant is loaded"))
            message = f"{task.source}: constraint task {task.task_id} has no goal variant loaded"
            findings.append(Finding("info", task.task_id, "unpaired", message))
    counts: dict[str, list[str]] = {}
    for d in decisions:
        if d.rule != "unpaired" or d.task_id != d.base_id:
            counts.setdefault(d.base_id, []).append(d.task_id)
    for base_id, goals in counts.items():
        if len(goals) > 1:
            findings.append(Finding(
                "warning", base_id, "pairing", f"base {base_id} has {len(goals)} goal variants: {', '.join(goals)}"
            ))
    return out, decisions, findings
