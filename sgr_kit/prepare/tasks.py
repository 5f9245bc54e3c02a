"""Build :class:`~sgr_kit.types.Task` objects from release records; :func:`load_tasks`.

Schema
    Read from the rubric by :mod:`sgr_kit.prepare.rubric` (:func:`build_schema`): the later
    format's ``columns``/``row_key``/``fields``, the public release's ``normalization``
    (``schema``, ``dedup_key``, separators), or inferred from the reference and ``output_format``.
    The rubric's prose (conditions, notes, the metadata's state conditions) is kept on the task as
    ``Task.prose`` (:func:`task_prose`), never read as a rule.

Reference
    ``gold_rows`` counts the rows of the reference parsed with the ``strict`` profile (the
    benchmark's own parser). A reference that does not parse is an error: :func:`load_tasks`
    raises, naming the task, unless ``allow_invalid=True``, which keeps the task with
    ``gold_rows`` taken from ``oracle_output_cardinality`` (0 when absent) and a warning. An empty
    (``NONE``) reference gives ``gold_rows == 0`` with a warning; a disagreeing
    ``oracle_output_cardinality`` is a warning. A reference whose cells hold its record
    separator (a plain split gives more records than the schema's width reads) is an ``info``
    finding, shown by ``sgr-kit validate`` and kept in ``TaskSet.notes``, never a warning at
    load: loading chooses no profile, the reference is read by width in both profiles, and the
    only difference (``strict`` splits *answers* plainly, as the benchmark's scorer does) is a
    property of the task, not of the load, so repeating it on every load (every report, notebook
    and test) would only be noise; ``sgr-kit validate`` names each such task and what strict does.

Variant, base and taxonomy
    ``goal`` when the id ends in ``-g``, else ``constraint``; ``base_id`` is set by
    :mod:`sgr_kit.prepare.pairing`; ecosystem and family come from
    :func:`sgr_kit.taxonomy.classify_domain` (an unknown domain is ``other``, with a warning) and
    ``bin`` from the reference's row count (Appendix K).
"""

from __future__ import annotations

import dataclasses
import re
import warnings
from types import MappingProxyType
from typing import Any, Iterator, Mapping

import pandas as pd

from ..errors import MAX_WHOLE, SgrKitError, UnknownIdError, closest
from ..load.release import Finding, Record, as_source_list, read_sources
from ..taxonomy import OTHER, cardinality_bin, classify_domain
from ..trajectories.hosts import url_list
from ..types import ParsedTable, Task
from .pairing import PairingDecision, assign_bases, canonical_reference, variant_of
from .rubric import (  # re-exported: the schema of a task is built there
    build_schema,
    dedup_names,
    field_rule,
    infer_separator,
    name_key,
    plain_records,
    read_reference,
    template_cells,
)

__all__ = [
    "TaskSet", "build_schema", "build_task", "collect", "dedup_names", "field_rule", "infer_separator", "load_tasks",
    "name_key", "read_reference", "task_prose", "template_cells",
]

_FRAME_COLUMNS = [
    "task_id", "base_id", "variant", "domain", "ecosystem", "family", "gold_rows", "bin",
    "columns", "row_key", "synthetic", "source",
]
_SHOWN_ERRORS = 10


def _cardinality(value: Any) -> int | None:
    # a whole number of rows, 0 to MAX_WHOLE; anything else is as if not given
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, str) and re.fullmatch("[0-9]{1,18}", value.strip()):
        value = int(value)
    return value if isinstance(value, int) and 0 <= value <= MAX_WHOLE else None


def build_task(
    record: Record, *, allow_invalid: bool = False
) -> tuple[Task | None, ParsedTable | None, list[Finding]]:
    """Build one task (``base_id`` not yet paired) and parse its reference.

    Returns the task (None when it cannot be built), the strict parse of its reference and the
    findings (errors, warnings) about it.
    """
    data, tid = record.data, record.data["task_id"]
    loc = f"{record.source}: task {tid}"
    findings: list[Finding] = []
    reference = data["oracle_answer"]
    stated = _cardinality(data.get("oracle_output_cardinality"))
    try:
        schema = build_schema(data["rubric"], reference=reference, output_format=data.get("output_format", ""),
                              loc=loc, cardinality=stated)  # fmt: skip
        parsed = read_reference(reference, schema)
    except SgrKitError as exc:
        return None, None, [Finding("error", tid, "schema", str(exc))]
    if parsed.status == "parse_failure":
        severity = "warning" if allow_invalid else "error"
        findings.append(Finding(
            severity, tid, "unparseable_reference",
            f"{loc}: the reference answer does not parse with the strict parser ({parsed.reason})"
            + ("; gold_rows taken from oracle_output_cardinality" if allow_invalid else ""),
        ))
        if not allow_invalid:
            return None, parsed, findings
        gold_rows = stated or 0
    else:
        gold_rows = len(parsed.rows)
        if parsed.status == "empty":
            message = f"{loc}: the reference answer is empty ({parsed.reason})"
            findings.append(Finding("warning", tid, "cardinality", message))
        findings += [Finding("warning", tid, "schema", f"{loc}: reference {issue}") for issue in parsed.issues]
        plain = schema.record_separator and plain_records(reference, schema.record_separator)
        if plain and plain != gold_rows:
            sep = schema.record_separator
            findings.append(Finding(
                "info", tid, "separator",
                f"{loc}: cells hold the record separator {sep!r}: a plain split gives {plain} records, the "
                f"schema's width reads {gold_rows} records of {len(schema.columns)} fields (oracle_output_"
                f"cardinality: {stated if stated is not None else 'not given'}); the paper profile reads answers "
                f"by width too, the strict profile splits answers plainly on {sep!r} as the benchmark's scorer "
                f"does, so an answer written like the reference reads as {plain} records there (the reference "
                f"itself is read by width in both profiles)",
            ))
        if stated is not None and stated != gold_rows:
            header = (
                f" (its first line {'|'.join(parsed.header)!r} was read as the header)"
                if parsed.header is not None and not schema.declared else ""
            )
            findings.append(Finding(
                "warning", tid, "cardinality",
                f"{loc}: oracle_output_cardinality is {stated} but the reference has {gold_rows} rows{header}",
            ))
    ecosystem, family = classify_domain(data["domain"], warn=False)
    if family == OTHER:
        findings.append(Finding(
            "warning", tid, "domain", f"{loc}: unknown domain {data['domain']!r}: ecosystem and family set to 'other'"
        ))
    variant = variant_of(tid)
    task = Task(
        task_id=tid,
        base_id=tid if variant == "constraint" else tid.removesuffix("-g"),
        variant=variant,
        domain=data["domain"],
        ecosystem=ecosystem,
        family=family,
        schema=schema,
        reference=reference,
        gold_rows=gold_rows,
        bin=cardinality_bin(gold_rows),
        instruction=data.get("instruction", ""),
        output_format=data.get("output_format", ""),
        metadata=MappingProxyType(dict(data["metadata"])),
        rubric=MappingProxyType(dict(data["rubric"])),
        source=record.source,
        start_url=str(data.get("start_url") or ""),
        all_involved_urls=url_list(data.get("all_involved_urls")),
        prose=MappingProxyType(task_prose(data["rubric"], data["metadata"], schema.columns)),
        language=record.language,
    )
    if schema.key_from.startswith("the first"):
        findings.append(Finding(
            "info", tid, "schema",
            f"{loc}: no row key declared and the first column repeats in the reference; rows are keyed by "
            f"{schema.key_from} ({', '.join(schema.row_key)})",
        ))
    return task, parsed, findings


#: Rubric keys kept as prose on the task (never read as rules).
PROSE_KEYS = (
    "inclusion_conditions", "exclusion_conditions", "header_row", "selection_rule", "sorting_or_selection",
    "stop_condition",
)
#: Rubric and normalization keys that are machine-readable (everything else there is prose).
_RULE_KEYS = frozenset({
    "columns", "row_key", "fields", "record_separator", "field_separator", "normalization", "schema", "dedup_key",
})


def task_prose(rubric: Mapping[str, Any], metadata: Mapping[str, Any], columns: tuple[str, ...]) -> dict[str, Any]:
    """The task's rules written as prose, to be shown and read, never applied.

    Rubric keys of :data:`PROSE_KEYS` (top level or in ``normalization``), per-column notes
    (``normalization`` keys naming a column, spelled with ``_`` or spaces) as ``column_notes``,
    other prose keys as they are, and the metadata's ``State-Gated Retrieval`` as
    ``state_conditions``.

    Examples
    --------
    >>> p = task_prose({"inclusion_conditions": ["x"], "normalization": {"schema": ["accepted name"],
    ...                 "accepted_name": "as listed", "header_row": "omit"}}, {}, ("accepted name",))
    >>> p["inclusion_conditions"], p["header_row"], p["column_notes"]
    (['x'], 'omit', {'accepted name': 'as listed'})
    """
    norm = rubric.get("normalization") if isinstance(rubric.get("normalization"), Mapping) else {}
    by_key = {name_key(c): c for c in columns}
    out: dict[str, Any] = {}
    notes: dict[str, Any] = {}
    for source in (rubric, norm):
        for key, value in source.items():
            if key in _RULE_KEYS or value in (None, "", [], {}):
                continue
            column = by_key.get(name_key(str(key)))
            if column is not None:
                notes[column] = value
            elif key in PROSE_KEYS or isinstance(value, (str, list, Mapping)):
                out.setdefault(str(key), value)
    if notes:
        out["column_notes"] = notes
    state = metadata.get("State-Gated Retrieval")
    if state:
        out["state_conditions"] = state
    return out


class TaskSet(Mapping[str, Task]):
    """A read-only mapping task_id -> Task, constraint ids sorted, each followed by its goal variant.

    Attributes
    ----------
    pairs : tuple of (str, str)
        ``(constraint_id, goal_id)`` for every goal task whose base task is loaded.
    decisions : tuple of PairingDecision
        How every goal task (and every constraint task without a goal variant) was paired.
    warnings : tuple of str
        The warnings emitted while loading.
    notes : tuple of str
        Informational notes (folders skipped, identical copies collapsed...).
    """

    def __init__(self, tasks=(), *, decisions=(), warnings=(), notes=()) -> None:
        ordered = sorted(tasks, key=lambda t: (t.base_id, t.variant != "constraint", t.task_id))
        self._tasks = {t.task_id: t for t in ordered}
        position = {tid: i for i, tid in enumerate(self._tasks)}
        self.decisions: tuple[PairingDecision, ...] = tuple(
            sorted(decisions, key=lambda d: position.get(d.task_id, len(position)))
        )
        self.warnings: tuple[str, ...] = tuple(warnings)
        self.notes: tuple[str, ...] = tuple(notes)
        self.pairs: tuple[tuple[str, str], ...] = tuple(
            (t.base_id, t.task_id) for t in ordered
            if t.variant == "goal" and t.base_id in self._tasks and self._tasks[t.base_id].variant == "constraint"
        )

    def __getitem__(self, task_id: str) -> Task:
        """The task ``task_id``; an unknown id raises :class:`~sgr_kit.errors.UnknownIdError`.

        The error is a :class:`KeyError` (so ``in`` and ``.get`` work as for any mapping) whose
        message names the closest known ids.

        Examples
        --------
        >>> tasks = TaskSet()
        >>> tasks["arxiv_01"]
        Traceback (most recent call last):
        ...
        sgr_kit.errors.UnknownIdError: unknown task id 'arxiv_01': not among the 0 loaded tasks
        """
        try:
            return self._tasks[task_id]
        except (KeyError, TypeError):
            close = closest(str(task_id), self._tasks)
            hint = f"; closest known ids: {', '.join(close)}" if close else ""
            raise UnknownIdError(
                f"unknown task id {task_id!r}: not among the {len(self._tasks)} loaded tasks{hint}"
            ) from None

    def __contains__(self, task_id: object) -> bool:
        try:
            return task_id in self._tasks
        except TypeError:
            return False

    def get(self, task_id, default=None):
        """The task ``task_id``, or ``default`` when it is not loaded."""
        try:
            return self._tasks.get(task_id, default)
        except TypeError:
            return default

    def __iter__(self) -> Iterator[str]:
        return iter(self._tasks)

    def __len__(self) -> int:
        return len(self._tasks)

    def __repr__(self) -> str:
        n_goal = sum(t.variant == "goal" for t in self._tasks.values())
        return f"TaskSet({len(self)} tasks: {len(self) - n_goal} constraint, {n_goal} goal, {len(self.pairs)} pairs)"

    def frame(self) -> pd.DataFrame:
        """The tasks as a tidy table, one row per task, in the set's order.

        Returns
        -------
        DataFrame
            Columns ``task_id, base_id, variant, domain, ecosystem, family, gold_rows, bin,
            columns`` (the number of schema columns), ``row_key`` (names joined by ``|``),
            ``synthetic, source``.
        """
        rows = [
            (t.task_id, t.base_id, t.variant, t.domain, t.ecosystem, t.family, t.gold_rows, t.bin,
             len(t.schema.columns), "|".join(t.schema.row_key), t.synthetic, t.source)
            for t in self._tasks.values()
        ]
        frame = pd.DataFrame(rows, columns=_FRAME_COLUMNS)
        return frame.astype({"gold_rows": "int64", "columns": "int64", "synthetic": "bool"})


def collect(
    sources: list[Any], *, pairing: Any = None, strict_pairing: bool = False, allow_invalid: bool = False,
    language: str = "en",
) -> tuple[TaskSet, list[Finding]]:
    """Read, build and pair every task, collecting every finding instead of stopping at the first."""
    records, findings = read_sources(sources, language=language)
    built: dict[str, Task] = {}
    canon: dict[str, tuple] = {}
    for record in records:
        task, parsed, more = build_task(record, allow_invalid=allow_invalid)
        findings += more
        if task is None:
            continue
        built[task.task_id] = task
        try:
            canon[task.task_id], duplicated = canonical_reference(task, parsed)
        except SgrKitError as exc:
            findings.append(Finding("error", task.task_id, "schema", f"{task.source}: task {task.task_id}: {exc}"))
            del built[task.task_id]
            continue
        if duplicated:
            findings.append(Finding(
                "error", task.task_id, "schema",
                f"{task.source}: task {task.task_id}: the reference repeats row key(s) {', '.join(duplicated)}; "
                f"reference keys must be unique (the scorer aligns rows by key)",
            ))
    paired, decisions, more = assign_bases(built, canon, pairing=pairing)
    if strict_pairing:  # a goal task must pair by its suffix (or the pairing file) with the same reference
        more = [
            dataclasses.replace(f, severity="error") if f.severity == "warning" and f.kind in ("pairing", "unpaired")
            else f
            for f in more
        ]
    findings += more
    if not paired and not any(f.severity == "error" for f in findings):
        findings.append(Finding(
            "error", "", "read", f"no task found in {', '.join(map(str, sources))}; expected release records "
            "with task_id, domain and oracle_answer"
        ))
    taskset = TaskSet(
        paired.values(),
        decisions=decisions,
        warnings=[f.message for f in findings if f.severity == "warning"],
        notes=[f.message for f in findings if f.severity == "info" and f.kind not in ("pairing", "unpaired")],
    )
    return taskset, findings


def _same_error_once(errors: list[str]) -> list[str]:
    """One line per distinct problem: an error repeated on many lines of a file is said once, with its count.

    Records that lack what every task has (``domain``, ``oracle_answer``) but look like answers
    get a hint that the file is a runs file.

    Examples
    --------
    >>> _same_error_once(["r.jsonl:1: required key 'domain' is missing", "r.jsonl:2: required key 'domain' is missing"])
    ["r.jsonl:1: required key 'domain' is missing (and on 1 more line of r.jsonl, the same; is it a runs file? answers go to --runs or load_runs)"]
    """
    seen: dict[tuple[str, str], list[str]] = {}
    order: list[tuple[str, str]] = []
    for message in errors:
        match = re.match(r"^(.*?):(\d+): (.*)$", message, flags=re.S)
        key = (match.group(1), match.group(3)) if match else ("", message)
        if key not in seen:
            seen[key] = []
            order.append(key)
        seen[key].append(message)
    out = []
    for key in order:
        first, more = seen[key][0], len(seen[key]) - 1
        if more:
            hint = "; is it a runs file? answers go to --runs or load_runs" if "required key" in key[1] else ""
            first += f" (and on {more} more line{'s' if more > 1 else ''} of {key[0]}, the same{hint})"
        out.append(first)
    return out


def load_tasks(
    source: Any, *more_sources: Any, pairing: Any = None, strict_pairing: bool = False, allow_invalid: bool = False,
    language: str = "en",
) -> TaskSet:
    """Load SGR-Bench tasks from release files, folders, parquet files or a Hugging Face dataset.

    Parameters
    ----------
    source : path, dataset id, or list of them
        See :mod:`sgr_kit.load.release` for the formats; several sources merge.
    *more_sources : path or dataset id
        More sources (e.g. ``constraint.jsonl, goal.jsonl``).
    pairing : path, optional
        A CSV/JSON/JSONL file of ``task_id, base_id`` that overrides the pairing of goal tasks.
    strict_pairing : bool, default False
        Make every pairing warning an error: each goal task must share its reference and schema
        with its ``-g``-less partner (or with the base the pairing file gives), and no base may
        have two goal variants.
    allow_invalid : bool, default False
        Keep tasks whose reference does not parse (with a warning) instead of raising.
    language : {"en", "zh"}, default "en"
        The translation to read where a source holds both ``data_en/`` and ``data_zh/`` (files
        below ``data_zh/`` are Chinese whatever this says); every task carries its ``language``.

    Returns
    -------
    TaskSet

    Raises
    ------
    SgrKitError
        Listing every error found (unreadable files, bad lines, duplicate ids, schema problems,
        unparseable references, bad pairing file), each with its file, line and task.

    Warns
    -----
    UserWarning
        For every warning (pairing by shared reference, unknown domains, cardinality mismatches...);
        they are also kept in ``TaskSet.warnings``. Cells holding the record separator are not
        warned about (see the module docstring): ``TaskSet.notes`` and ``sgr-kit validate`` say so.

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> rows = [{"task_id": t, "domain": "NVD", "oracle_answer": "cve|score\\nCVE-1|9.8\\nCVE-2|7.5",
    ...          "output_format": "Return cve|score rows."} for t in ("nvd_001", "nvd_001-g")]
    >>> _ = (folder / "tasks.jsonl").write_text("\\n".join(json.dumps(r) for r in rows))
    >>> tasks = load_tasks(folder / "tasks.jsonl")
    >>> tasks
    TaskSet(2 tasks: 1 constraint, 1 goal, 1 pairs)
    >>> t = tasks["nvd_001-g"]
    >>> t.base_id, t.variant, t.family, t.gold_rows, t.bin, t.schema.columns
    ('nvd_001', 'goal', 'vulnerability databases', 2, '1-2', ('cve', 'score'))
    """
    taskset, findings = collect(
        as_source_list(source, *more_sources), pairing=pairing, strict_pairing=strict_pairing,
        allow_invalid=allow_invalid, language=language,
    )
    errors = _same_error_once([f.message for f in findings if f.severity == "error"])
    if errors:
        shown = errors[:_SHOWN_ERRORS]
        more = len(errors) - len(shown)
        tail = f"\n... and {more} more error(s); `sgr-kit validate --tasks ...` lists them all" if more else ""
        raise SgrKitError("\n".join(shown) + tail)
    unpaired = [f for f in findings if f.severity == "warning" and f.kind == "unpaired"]
    for f in findings:
        if f.severity == "warning" and (f.kind != "unpaired" or len(unpaired) <= 3):
            warnings.warn(f.message, UserWarning, stacklevel=2)
    if len(unpaired) > 3:
        ids = ", ".join(f.task_id for f in unpaired[:5]) + (", ..." if len(unpaired) > 5 else "")
        warnings.warn(
            f"{len(unpaired)} goal tasks have no constraint task loaded ({ids}); their base_id is their id "
            f"without '-g' (see TaskSet.decisions)",
            UserWarning,
            stacklevel=2,
        )
    return taskset
