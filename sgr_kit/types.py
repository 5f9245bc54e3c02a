"""The data types that flow through the pipeline.

load (``Task``, ``Answer``) -> parse -> canonicalize -> align -> metrics
(``ScoreResult`` in :mod:`sgr_kit.score`).

All types are frozen: a loaded task or answer is never changed by scoring.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from types import MappingProxyType
from typing import Any, Mapping

__all__ = ["FieldRule", "Schema", "Task", "Answer", "ParsedTable"]

_EMPTY: Mapping[str, Any] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class FieldRule:
    """How one column's cells are cleaned before comparison (the rubric's ``fields``).

    Attributes
    ----------
    type : {"string", "integer", "decimal", "id_list"}
    aliases : mapping of str to str
        Exact cleaned string -> canonical string, applied first.
    uppercase : bool
        Upper-case the value.
    units : mapping of str to (offset, scale_num, scale_den)
        Declared unit spellings for numeric columns; a value ``x unit`` becomes
        ``(x - offset) * scale_num / scale_den``.
    """

    type: str = "string"
    aliases: Mapping[str, str] = field(default_factory=lambda: _EMPTY)
    uppercase: bool = False
    units: Mapping[str, tuple[Fraction, Fraction, Fraction]] = field(default_factory=lambda: _EMPTY)


@dataclass(frozen=True, slots=True)
class Schema:
    """A task's answer schema: columns in order, the row key, per-column rules.

    Attributes
    ----------
    columns : tuple of str
    row_key : tuple of str
        Columns whose cleaned cells identify a row (default: the first column).
    fields : mapping of str to FieldRule
        Columns without an entry use ``FieldRule()`` (plain string).
    record_separator : str or None
        ``","`` or ``";"`` when the task asks for records on one line.
    declared : bool
        True when ``columns`` came from the rubric (``columns`` or ``normalization.schema``),
        False when inferred from the reference's header line or the ``output_format`` text.
    columns_from, key_from : str
        Where the columns and the row key came from (e.g. ``"normalization.schema"``,
        ``"normalization.dedup_key"``, ``"first column, unique in the reference"``); shown by
        ``sgr-kit validate --verbose``.
    header_names : tuple of str
        The reference's own header line when its spelling differs from ``columns``
        (``arXiv ID`` for the column ``arxiv_id``): a line of these names is a header too.
    composite : tuple of (int, str, int)
        Cells that the task's ``<a>:<b>|<c>`` template writes as one although the schema counts
        them as several columns: ``(position in the written row, joiner, columns)``. A row of
        the written width has each such cell split on its joiner (see :mod:`sgr_kit.parse`).
    spellings : tuple of tuple of str
        Other spellings of each column found in the task itself (its ``output_format``'s
        ``<placeholder>`` template, its reference's header), position by position: a header line
        in these words is read as a header by the ``paper`` profile (never by ``strict``). Not
        compared between schemas: the two variants of a task may word their templates differently.
    """

    columns: tuple[str, ...]
    row_key: tuple[str, ...]
    fields: Mapping[str, FieldRule] = field(default_factory=lambda: _EMPTY)
    record_separator: str | None = None
    declared: bool = True
    columns_from: str = field(default="columns", compare=False)  # where they came from: descriptive only
    key_from: str = field(default="row_key", compare=False)
    header_names: tuple[str, ...] = ()
    composite: tuple[tuple[int, str, int], ...] = ()
    spellings: tuple[tuple[str, ...], ...] = field(default=(), compare=False)

    def rule(self, column: str) -> FieldRule:
        """The rule of ``column`` (a plain string rule when none is declared)."""
        return self.fields.get(column, _STRING)

    @property
    def key_index(self) -> tuple[int, ...]:
        """Positions of the row-key columns in ``columns``."""
        return tuple(self.columns.index(c) for c in self.row_key)


_STRING = FieldRule()


@dataclass(frozen=True, slots=True)
class Task:
    """One SGR-Bench task, as loaded from the release.

    Attributes
    ----------
    task_id : str
    base_id : str
        Id of the constraint task whose reference this task shares (itself for a
        constraint task).
    variant : {"constraint", "goal"}
    domain, ecosystem, family : str
        See :mod:`sgr_kit.taxonomy`.
    schema : Schema
    reference : str
        The reference answer text (``oracle_answer``).
    gold_rows : int
        Rows in the parsed reference.
    bin : str
        Appendix K cardinality bin of ``gold_rows``.
    instruction, output_format : str
    metadata, rubric : mapping
        As in the release (decoded when they were JSON strings).
    source : str
        Where the task was read from (``file:line`` or a file path).
    start_url : str
        The release's ``start_url`` (``""`` when absent): where the task's website starts.
    all_involved_urls : tuple of str
        The release's ``all_involved_urls`` (empty when absent). With ``start_url`` they name the
        task's site (:func:`sgr_kit.trajectories.task_sites`).
    prose : mapping of str to object
        The task's rules written as prose, kept to be read, never applied: the rubric's
        ``inclusion_conditions``, ``exclusion_conditions``, ``header_row``, ``selection_rule``,
        ``sorting_or_selection``, ``stop_condition``, per-column notes (``column_notes``, a
        mapping column -> text) and the metadata's ``State-Gated Retrieval`` conditions.
    language : str
        ``"en"`` or ``"zh"``: which translation of the release the task was read from.
    """

    task_id: str
    base_id: str
    variant: str
    domain: str
    ecosystem: str
    family: str
    schema: Schema
    reference: str
    gold_rows: int
    bin: str
    instruction: str = ""
    output_format: str = ""
    metadata: Mapping[str, Any] = field(default_factory=lambda: _EMPTY)
    rubric: Mapping[str, Any] = field(default_factory=lambda: _EMPTY)
    source: str = ""
    start_url: str = ""
    all_involved_urls: tuple[str, ...] = ()
    prose: Mapping[str, Any] = field(default_factory=lambda: _EMPTY)
    language: str = "en"

    @property
    def synthetic(self) -> bool:
        """True when the task is simulated (``metadata.synthetic``), e.g. the demo."""
        return bool(self.metadata.get("synthetic", False))


@dataclass(frozen=True, slots=True)
class Answer:
    """One system's answer to one task (one repeat).

    Attributes
    ----------
    system, task_id : str
    repeat : int
    text : str
        The raw answer text, exactly as given.
    source : str
        Where it was read from (``file:line`` or a file path).
    language : str
        The release language the answer was given in (``"en"`` or ``"zh"``); it is scored
        against the tasks of that language.
    """

    system: str
    task_id: str
    repeat: int
    text: str
    source: str = ""
    language: str = "en"


@dataclass(frozen=True, slots=True)
class ParsedTable:
    """An answer (or reference) text parsed into rows of raw cells.

    Attributes
    ----------
    status : {"parsed", "empty", "parse_failure"}
    rows : tuple of tuple of str
        Data rows in answer order, cells split from the table syntax but not yet
        cleaned. Under the ``paper`` profile the cells are already mapped to the
        schema's column order (missing columns as ``""``, unknown columns appended).
    lines : tuple of int
        1-based line of each row in the text (0 where a format has no lines).
    issues : tuple of str
        Things noticed while parsing, e.g. ``"line 4: wrong_width (2 cells, expected 3)"``.
    reason : str
        Why the status is ``empty`` or ``parse_failure``.
    header : tuple of str or None
        The header line found in the text, if any.
    extra_columns : tuple of str
        Names of answer columns that are not in the schema (paper profile).
    table : int
        Which table of a multi-table answer was scored (0 = the first).
    format : str
        What was recognized: ``"lines"`` (strict), ``"pipe"``, ``"tsv"``, ``"csv"``,
        ``"html"``, ``"json"``, ``"records"``.
    """

    status: str
    rows: tuple[tuple[str, ...], ...] = ()
    lines: tuple[int, ...] = ()
    issues: tuple[str, ...] = ()
    reason: str = ""
    header: tuple[str, ...] | None = None
    extra_columns: tuple[str, ...] = ()
    table: int = 0
    format: str = ""
