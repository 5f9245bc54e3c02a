"""Build :class:`~sgr_kit.types.Task` objects from release records; :func:`load_tasks`.

Schema
    From the rubric's ``columns``, ``row_key`` and ``fields`` when present (checked: the row key
    and the fields must name columns, types must be in :data:`~sgr_kit.types.FIELD_TYPES`, units
    ``{offset, scale_num, scale_den}`` become exact fractions). Without ``columns`` they are
    inferred, in this order:

    1. the reference's first record, when it is a header: every cell is a distinct name (a
       letter or ``_`` first, then letters, digits, spaces or ``_ - . ( ) / % #``) and either
       every cell occurs as a word in ``output_format`` or every cell is lower snake_case with
       an underscore (``county_name``);
    2. ``output_format``: a code span with pipes (`` `County Name|Population` ``), else the first
       ``a|b|c`` run of names (names without spaces, trailing punctuation dropped), else a
       ``columns: a, b, c`` list up to the end of the sentence;
    3. the reference's first record again, whatever its cells look like (distinct and non-empty
       once cleaned), when the release's ``oracle_output_cardinality`` is exactly one less than
       the reference's number of records: the release says how many data rows there are, so the
       one extra line is the header.

    Inferred columns whose count matches no reference row are an error. The row key defaults to
    the first column. Whenever ``oracle_output_cardinality`` is given and differs from the
    reference's parsed rows, a warning says so (whichever way the header was decided).

Record separator
    The rubric's ``record_separator`` (``,`` or ``;``) when declared. Otherwise, when the
    reference is a single line containing ``|`` that splits on ``,`` (tried first) or ``;`` into
    at least two non-empty pieces, each with the same number of ``|``-separated cells (the schema's
    width when the rubric declares columns), that character is the separator
    (``Adams|12,Brown|7``). The ``output_format`` text is not needed for this.

Reference
    ``gold_rows`` counts the rows of the reference parsed with the ``strict`` profile (the
    benchmark's own parser). A reference that does not parse is an error: :func:`load_tasks`
    raises, naming the task, unless ``allow_invalid=True``, which keeps the task with
    ``gold_rows`` taken from ``oracle_output_cardinality`` (0 when absent) and a warning. An empty
    (``NONE``) reference gives ``gold_rows == 0`` with a warning; a disagreeing
    ``oracle_output_cardinality`` is a warning.

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
from fractions import Fraction
from types import MappingProxyType
from typing import Any, Iterator, Mapping

import pandas as pd

from ..errors import SgrKitError, UnknownIdError, closest
from ..load.release import Finding, Record, as_source_list, read_sources
from ..parse import parse_answer, parse_reference
from ..parse.blocks import normalize_name
from ..parse.cells import RECORD_SEPARATORS, clean_cell
from ..taxonomy import OTHER, cardinality_bin, classify_domain
from ..schema import FIELD_TYPES
from ..types import FieldRule, ParsedTable, Schema, Task
from .pairing import PairingDecision, assign_bases, canonical_reference, variant_of

__all__ = [
    "TaskSet", "build_schema", "build_task", "collect", "dedup_names", "field_rule", "infer_separator", "load_tasks",
    "name_key", "read_reference", "task_prose", "template_cells",
]

_NAME = re.compile(r"[^\W\d][\w .()/%#-]{0,79}")
_SNAKE = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+")
_TOKEN = r"[^\W\d][\w.()/%#-]*"
_PIPE_RUN = re.compile(rf"{_TOKEN}(?:[ \t]*\|[ \t]*{_TOKEN})+")
_CODE_SPAN = re.compile(r"`([^`\n]*\|[^`\n]*)`")
_COLUMN_LIST = re.compile(r"\bcolumns?\b[^:\n.]{0,40}:\s*([^\n]+?)(?:\.(?:\s|$)|\n|$)", re.IGNORECASE)
_UNIT_KEYS = ("offset", "scale_num", "scale_den")
_FRAME_COLUMNS = [
    "task_id", "base_id", "variant", "domain", "ecosystem", "family", "gold_rows", "bin",
    "columns", "row_key", "synthetic", "source",
]
_SHOWN_ERRORS = 10


def _pipe_cells(line: str) -> list[str]:
    body = line.strip()
    body = body[1:] if body.startswith("|") else body
    body = body[:-1] if body.endswith("|") else body
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", body)]


def _plain_records(reference: str, separator: str) -> int:
    """Records of a reference split plainly on the separator (the strict profile's reading)."""
    return len([p for p in "\n".join(reference.split(separator)).splitlines() if p.strip()])


def _records_of(reference: str, separator: str | None) -> list[str]:
    text = "\n".join(reference.split(separator)) if separator else reference
    return [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.strip().startswith("```")]


def infer_separator(reference: str, *, width: int | None = None) -> str | None:
    """The record separator of a one-line reference, or None.

    Examples
    --------
    >>> infer_separator("Adams|12,Brown|7")
    ','
    >>> infer_separator("Adams|12;Brown|7", width=2), infer_separator("Smith, John|12")
    (';', None)
    """
    lines = _records_of(reference, None)
    if len(lines) != 1 or "|" not in lines[0]:
        return None
    for sep in RECORD_SEPARATORS:
        pieces = [p.strip() for p in lines[0].split(sep)]
        if len(pieces) < 2 or not all(pieces):
            continue
        widths = {len(_pipe_cells(p)) for p in pieces}
        if len(widths) == 1 and min(widths) >= 2 and (width is None or widths == {width}):
            return sep
    return None


def _in_text(name: str, text: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text, re.IGNORECASE) is not None


def _is_header(cells: list[str], output_format: str) -> bool:
    if not cells or not all(_NAME.fullmatch(c) for c in cells):
        return False
    if len({c.casefold() for c in cells}) != len(cells):
        return False
    return all(_in_text(c, output_format) for c in cells) or all(_SNAKE.fullmatch(c) for c in cells)


def _columns_from_format(output_format: str) -> tuple[list[str], str] | None:
    for match in _CODE_SPAN.finditer(output_format):
        cells = _pipe_cells(match.group(1))
        if len(cells) >= 2 and all(_NAME.fullmatch(c) for c in cells):
            return cells, "a code span in output_format"
    match = _PIPE_RUN.search(output_format)
    if match:
        cells = [c.strip().rstrip(".,;:") for c in match.group(0).split("|")]
        if all(_NAME.fullmatch(c) for c in cells):
            return cells, "the a|b|c sequence in output_format"
    match = _COLUMN_LIST.search(output_format)
    if match:
        cells = [c.strip().strip("`'\"*") for c in re.split(r",|;|\band\b", match.group(1))]
        cells = [c for c in cells if c]
        if cells and all(_NAME.fullmatch(c) for c in cells):
            return cells, "the 'columns:' list in output_format"
    return None


def _fraction(value: Any, *, where_: str) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise SgrKitError(f"{where_}: expected a number; found {value!r}")
    try:
        return Fraction(str(value).strip())
    except (ValueError, ZeroDivisionError):
        raise SgrKitError(f"{where_}: expected a number; found {value!r}") from None


def field_rule(spec: Any, *, loc: str) -> FieldRule:
    """Read one rubric ``fields`` entry (type, aliases, uppercase, units) into a :class:`FieldRule`.

    The one place where the release's unit declarations ``{offset, scale_num, scale_den}``
    are read; they become exact fractions. ``loc`` names the task and field in errors.

    Examples
    --------
    >>> rule = field_rule({"type": "decimal", "units": {"mg/L": {}, "g/L": {"scale_num": 1000}}}, loc="t")
    >>> rule.type, rule.units["g/L"]
    ('decimal', (Fraction(0, 1), Fraction(1000, 1), Fraction(1, 1)))
    """
    if not isinstance(spec, Mapping):
        raise SgrKitError(f"{loc}: expected an object (type, aliases, uppercase, units); found {spec!r}")
    ftype = spec.get("type", "string")
    if ftype not in FIELD_TYPES:
        raise SgrKitError(f"{loc}: type should be one of {', '.join(FIELD_TYPES)}; found {ftype!r}")
    aliases = spec.get("aliases", {})
    if not isinstance(aliases, Mapping) or not all(isinstance(v, str) for v in aliases.values()):
        raise SgrKitError(f"{loc}: aliases should map strings to strings; found {aliases!r}")
    uppercase = spec.get("uppercase", False)
    if not isinstance(uppercase, bool):
        raise SgrKitError(f"{loc}: uppercase should be true or false; found {uppercase!r}")
    units_spec = spec.get("units", {})
    if not isinstance(units_spec, Mapping):
        raise SgrKitError(f"{loc}: units should map unit spellings to {{offset, scale_num, scale_den}}")
    units = {}
    for unit, conv in units_spec.items():
        conv = {} if conv is None else conv
        if not isinstance(conv, Mapping) or set(conv) - set(_UNIT_KEYS):
            raise SgrKitError(
                f"{loc}: unit {unit!r} should be an object with keys among {', '.join(_UNIT_KEYS)}; found {conv!r}"
            )
        offset, num, den = (
            _fraction(conv.get(k, d), where_=f"{loc}: unit {unit!r} {k}") for k, d in zip(_UNIT_KEYS, (0, 1, 1))
        )
        if num == 0 or den == 0:
            raise SgrKitError(f"{loc}: unit {unit!r}: scale_num and scale_den must not be 0")
        units[str(unit)] = (offset, num, den)
    return FieldRule(
        type=ftype,
        aliases=MappingProxyType({str(k): v for k, v in aliases.items()}),
        uppercase=uppercase,
        units=MappingProxyType(units),
    )


def _name_list(value: Any, *, loc: str, what: str) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)) or not value or not all(isinstance(v, str) and v.strip() for v in value):
        raise SgrKitError(f"{loc}: rubric '{what}' should be a non-empty list of column names; found {value!r}")
    names = [v.strip() for v in value]
    if len(set(names)) != len(names):
        raise SgrKitError(f"{loc}: rubric '{what}' repeats a name: {', '.join(names)}")
    return names


def _named_cells(cells: list[str]) -> list[str] | None:
    """Header cells as column names when they can be: cleaned, non-empty and distinct."""
    names = [clean_cell(c) for c in cells]
    if len(names) < 1 or not all(names) or len({n.casefold() for n in names}) != len(names):
        return None
    return names


def _normalization(rubric: Mapping[str, Any], *, loc: str) -> Mapping[str, Any]:
    """The rubric's ``normalization`` object (the release's machine-readable part), or ``{}``."""
    norm = rubric.get("normalization", {})
    if not isinstance(norm, Mapping):
        raise SgrKitError(f"{loc}: rubric 'normalization' should be an object; found {type(norm).__name__}")
    return norm


def _rubric_value(rubric: Mapping[str, Any], norm: Mapping[str, Any], key: str) -> Any:
    return rubric[key] if key in rubric else norm.get(key)


def _separator(value: Any, *, loc: str, what: str) -> str | None:
    if value is None or value in ("\n", "", "\\n", "\r\n") or (isinstance(value, str) and value.lower() == "newline"):
        return None
    if value not in RECORD_SEPARATORS:
        raise SgrKitError(f"{loc}: rubric '{what}' should be ',' or ';'; found {value!r} (or a newline: one record per line)")
    return value


def name_key(name: str) -> str:
    """A column name as compared between a rubric's parts: case-folded, ``_`` and spaces alike.

    The release spells one column ``accepted name`` in ``normalization.schema`` and
    ``accepted_name`` as a note's key.

    Examples
    --------
    >>> name_key("Accepted_Name") == name_key("accepted  name")
    True
    """
    return " ".join(name.replace("_", " ").casefold().split())


_DEDUP = re.compile(r"^\s*[\(\[]?(?P<body>.*?)[\)\]]?\s*$", re.DOTALL)


def dedup_names(value: Any, columns: tuple[str, ...] | list[str], *, loc: str) -> list[str]:
    """The columns a ``normalization.dedup_key`` names (``"(a, b, c)"``, a list, or one name).

    Names are matched to ``columns`` ignoring case and ``_`` versus space; a name that matches
    no column is an error naming the task, the name and the columns.

    Examples
    --------
    >>> dedup_names("(generalPUCID, familyPUCID, side)", ["generalPUCID", "familyPUCID", "side", "share"], loc="t")
    ['generalPUCID', 'familyPUCID', 'side']
    >>> dedup_names("accepted_name", ["accepted name", "year"], loc="t")
    ['accepted name']
    """
    if isinstance(value, str):
        body = _DEDUP.match(value)["body"]
        names = [n.strip().strip("`'\"") for n in body.split(",")]
    elif isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        names = [v.strip() for v in value]
    else:
        raise SgrKitError(f"{loc}: normalization 'dedup_key' should be text such as '(a, b)' or a list; found {value!r}")
    names = [n for n in names if n]
    if not names:
        raise SgrKitError(f"{loc}: normalization 'dedup_key' names no column; found {value!r}")
    by_key = {name_key(c): c for c in columns}
    unknown = [n for n in names if name_key(n) not in by_key]
    if unknown:
        raise SgrKitError(
            f"{loc}: normalization 'dedup_key' {value!r} names {', '.join(map(repr, unknown))}, not among the "
            f"schema's columns ({', '.join(columns)})"
        )
    out = [by_key[name_key(n)] for n in names]
    if len(set(out)) != len(out):
        raise SgrKitError(f"{loc}: normalization 'dedup_key' {value!r} names a column twice")
    return out


_TEMPLATE = re.compile(r"<[^<>\n|]+>(?:[^<>\n|]{0,3}<[^<>\n|]+>)*(?:\s*\|\s*<[^<>\n|]+>(?:[^<>\n|]{0,3}<[^<>\n|]+>)*)+")
_PLACEHOLDER = re.compile(r"<([^<>\n|]+)>")


def template_cells(output_format: str) -> list[list[str]] | None:
    """The ``<a>|<b>:<c>|...`` template of an ``output_format``: each written cell's placeholders.

    Examples
    --------
    >>> template_cells("each row formatted as <County>:<Site>|<year>|<n>.")
    [['County', 'Site'], ['year'], ['n']]
    >>> template_cells("Return a table.") is None
    True
    """
    match = _TEMPLATE.search(output_format)
    if not match:
        return None
    return [[p.strip() for p in _PLACEHOLDER.findall(cell)] for cell in match.group(0).split("|")]


def _composite(output_format: str, columns: list[str], reference: str, separator: str | None) -> tuple:
    """Composite cells of the ``<a>:<b>|...`` template when the schema counts ``a`` and ``b`` apart.

    Only when the template names every schema column in order (compared as :func:`name_key`,
    ignoring punctuation) and the reference's rows have the template's width, not the schema's.
    """
    match = _TEMPLATE.search(output_format)
    if not match:
        return ()
    cells = match.group(0).split("|")
    names = [[p.strip() for p in _PLACEHOLDER.findall(cell)] for cell in cells]
    flat = [normalize_name(n) for cell in names for n in cell]
    if len(flat) != len(columns) or flat != [normalize_name(c) for c in columns] or len(cells) == len(columns):
        return ()
    widths = {len(_pipe_cells(r)) for r in _records_of(reference, separator) if "|" in r}
    if widths and widths != {len(cells)}:
        return ()
    out, position = [], 0
    for cell, cell_names in zip(cells, names):
        if len(cell_names) > 1:
            joiners = set(re.findall(r">([^<>]*)<", cell.strip()))
            if len(joiners) != 1 or not next(iter(joiners)):
                return ()
            out.append((position, next(iter(joiners)), len(cell_names)))
        position += len(cell_names)
    return tuple(out)


def _key_rows(reference: str, schema: Schema) -> list[tuple]:
    """The reference's rows as the strict profile canonicalizes them (for choosing a key)."""
    from ..canonicalize import column_canonicalizers

    parsed = read_reference(reference, schema)
    if parsed.status != "parsed":
        return []
    functions = column_canonicalizers(schema, profile="strict", reference_rows=parsed.rows)
    k = len(schema.columns)
    return [tuple(functions[j](row[j]) if j < len(row) else "" for j in range(k)) for row in parsed.rows]


def _choose_key(reference: str, schema: Schema, *, loc: str) -> tuple[tuple[str, ...], str]:
    """The first column when unique in the reference, else the shortest unique leading run."""
    rows = _key_rows(reference, schema)
    columns = schema.columns
    if not rows:
        return columns[:1], "first column (default)"
    for n in range(1, len(columns) + 1):
        if len({row[:n] for row in rows}) == len(rows):
            if n == 1:
                return columns[:1], "first column, unique in the reference"
            return columns[:n], f"the first {n} columns: the shortest leading run unique in the reference"
    seen: set[tuple] = set()
    repeated = next(row for row in rows if row in seen or seen.add(row))  # type: ignore[func-returns-value]
    raise SgrKitError(
        f"{loc}: no row key: the rubric declares none (row_key, normalization.dedup_key), and the reference "
        f"repeats a whole row ({'|'.join(repeated)!r}) so no run of columns is unique; expected unique rows"
    )


def read_reference(reference: str, schema: Schema) -> ParsedTable:
    """The reference parsed as the scorer reads it (see :func:`sgr_kit.parse.parse_reference`).

    Examples
    --------
    >>> schema = Schema(("name", "n"), ("name",), record_separator=",")
    >>> read_reference("Acme, Inc.|3,Beta|4", schema).rows
    (('Acme, Inc.', '3'), ('Beta', '4'))
    """
    return parse_reference(reference, schema, profile="strict")


def build_schema(
    rubric: Mapping[str, Any],
    *,
    reference: str,
    output_format: str = "",
    loc: str = "",
    cardinality: int | None = None,
) -> Schema:
    """The schema of one task (see the module docstring for the inference rules).

    Parameters
    ----------
    rubric : mapping
        The decoded rubric (may lack ``columns``, ``row_key`` and ``fields``; the release's
        ``normalization`` object is read for ``schema``, ``dedup_key`` and the separators).
    reference : str
        The reference answer text.
    output_format : str
        The task's output-format text.
    loc : str
        Location prefix for error messages (``file:line: task <id>``).
    cardinality : int, optional
        The release's ``oracle_output_cardinality`` (data rows of the reference), used to
        recognize a header line.

    Returns
    -------
    Schema

    Examples
    --------
    >>> s = build_schema({}, reference="county|population\\nAdams|12", output_format="Give county|population.")
    >>> s.columns, s.row_key, s.declared
    (('county', 'population'), ('county',), False)
    >>> build_schema({}, reference="Adams|12,Brown|7", output_format="Give name|n records").record_separator
    ','
    >>> build_schema({}, reference="County Name|Pop. 2020\\nAdams|12", cardinality=1).columns
    ('County Name', 'Pop. 2020')
    >>> s = build_schema({"normalization": {"schema": ["a", "b", "c"], "record_separator": ",",
    ...                   "dedup_key": "(a, b)"}}, reference="1|x|5,1|y|6")
    >>> s.columns, s.row_key, s.record_separator, s.key_from
    (('a', 'b', 'c'), ('a', 'b'), ',', 'normalization.dedup_key')
    >>> build_schema({"normalization": {"schema": ["a", "b", "c"]}}, reference="1|x|5\\n1|y|6").row_key
    ('a', 'b')
    """
    norm = _normalization(rubric, loc=loc)
    field_sep = _rubric_value(rubric, norm, "field_separator")
    if field_sep is not None and field_sep != "|":
        raise SgrKitError(f"{loc}: rubric 'field_separator' {field_sep!r} is not supported; expected '|'")
    separator = _separator(_rubric_value(rubric, norm, "record_separator"), loc=loc, what="record_separator")
    declared = "columns" in rubric or "schema" in norm
    header_names: tuple[str, ...] = ()
    if declared:
        what = "columns" if "columns" in rubric else "normalization.schema"
        columns = _name_list(rubric["columns"] if "columns" in rubric else norm["schema"], loc=loc, what=what)
        columns_from = f"rubric.{what}" if what == "columns" else f"rubric.{what}"
        if separator is None and "record_separator" not in rubric and "record_separator" not in norm:
            separator = infer_separator(reference, width=len(columns))
        records = _records_of(reference, separator)
        first = _pipe_cells(records[0]) if records and "|" in records[0] else []
        if (
            len(first) == len(columns)
            and [clean_cell(c).casefold() for c in first] != [c.casefold() for c in columns]
            and _spelled_header(first, columns, output_format, cardinality, len(records))
        ):
            header_names = tuple(clean_cell(c) for c in first)
    else:
        if separator is None:
            separator = infer_separator(reference)
        records = _records_of(reference, separator)
        first = _pipe_cells(records[0]) if records and "|" in records[0] else []
        stated = _named_cells(first) if cardinality is not None and len(records) == cardinality + 1 else None
        template = template_cells(output_format)
        if _is_header(first, output_format):
            columns, columns_from = first, "the reference's header line"
        elif (found := _columns_from_format(output_format)) is None and stated is not None:
            columns, columns_from = stated, "the reference's header line (oracle_output_cardinality)"
        elif found is None and template is not None:
            columns = [name for cell in template for name in cell]
            columns_from = "the <placeholder> template in output_format"
            if len({c.casefold() for c in columns}) != len(columns):
                raise SgrKitError(f"{loc}: the output_format template repeats a name: {', '.join(columns)}")
        else:
            if found is None:
                shown = records[0][:80] if records else "(empty)"
                stated_note = (
                    f", oracle_output_cardinality ({cardinality}) is not one less than its {len(records)} lines"
                    if cardinality is not None else ", the release gives no oracle_output_cardinality"
                )
                raise SgrKitError(
                    f"{loc}: cannot tell the columns: the rubric has no 'columns', the reference's first line "
                    f"{shown!r} is not a header{stated_note}, output_format has no a|b|c sequence, <a>|<b> "
                    f"template or 'columns: a, b' list, and the rubric has no normalization 'schema'"
                )
            columns, how = found
            columns_from = how
            widths = {len(_pipe_cells(r)) for r in records if "|" in r}
            if widths and len(columns) not in widths:
                raise SgrKitError(
                    f"{loc}: {len(columns)} columns inferred from {how} ({', '.join(columns)}), but the "
                    f"reference's rows have {', '.join(map(str, sorted(widths)))} cells; declare rubric 'columns'"
                )
    composite = _composite(output_format, list(columns), reference, separator) if declared else ()
    if declared and not composite:
        _check_width(columns, reference, separator, loc=loc, columns_from=columns_from)
    fields_spec = rubric.get("fields", {})
    if not isinstance(fields_spec, Mapping):
        raise SgrKitError(f"{loc}: rubric 'fields' should map column names to rules; found {fields_spec!r}")
    fields = {}
    for column, spec in fields_spec.items():
        if column not in columns:
            raise SgrKitError(f"{loc}: fields name column {column!r}, not among the columns {', '.join(columns)}")
        fields[column] = field_rule(spec, loc=f"{loc}: field {column!r}")
    schema = Schema(
        columns=tuple(columns),
        row_key=tuple(columns[:1]),
        fields=MappingProxyType(fields),
        record_separator=separator,
        declared=declared,
        columns_from=columns_from,
        key_from="first column (default)",
        header_names=header_names,
        composite=composite,
    )
    if "row_key" in rubric:
        row_key = _name_list(rubric["row_key"], loc=loc, what="row_key")
        unknown = [c for c in row_key if c not in columns]
        if unknown:
            raise SgrKitError(f"{loc}: row_key names {', '.join(unknown)}, not among the columns {', '.join(columns)}")
        key_from = "rubric.row_key"
    elif "dedup_key" in norm:
        row_key = dedup_names(norm["dedup_key"], columns, loc=loc)
        key_from = "normalization.dedup_key"
    elif "columns" in rubric:
        row_key, key_from = columns[:1], "first column (default)"
    else:
        row_key, key_from = _choose_key(reference, schema, loc=loc)
    return dataclasses.replace(schema, row_key=tuple(row_key), key_from=key_from)


def _check_width(columns, reference, separator, *, loc: str, columns_from: str) -> None:
    """A declared schema whose width no reference row has is an error (the schema or the reference is wrong)."""
    records = [r for r in _records_of(reference, separator) if "|" in r]
    widths = {len(_pipe_cells(r)) for r in records}
    if not records or len(columns) in widths:
        return
    if separator is not None:  # cells may hold the separator: count the cells of the whole line
        cells = sum(len(_pipe_cells(r)) for r in reference.splitlines() if "|" in r)
        k = len(columns)
        if k > 1 and (cells - 1) % (k - 1) == 0 and len(reference.strip().splitlines()) == 1:
            return
    raise SgrKitError(
        f"{loc}: {columns_from} has {len(columns)} columns ({', '.join(columns)}), but the reference's rows have "
        f"{', '.join(map(str, sorted(widths)))} cells (first row: {records[0][:80]!r}); expected rows of "
        f"{len(columns)} cells"
    )


def _spelled_header(first, columns, output_format, cardinality, n_records) -> bool:
    """The reference's first line is a header in the task's own spelling of the schema's names."""
    names = _named_cells(first)
    if names is None:
        return False
    if cardinality is not None and n_records == cardinality + 1:
        return True
    normal = [normalize_name(c) for c in columns]
    return sum(normalize_name(n) in normal for n in names) * 2 > len(names)


def _cardinality(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return None


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
        plain = schema.record_separator and _plain_records(reference, schema.record_separator)
        if plain and plain != gold_rows:
            findings.append(Finding(
                "warning", tid, "separator",
                f"{loc}: a plain split on the record separator {schema.record_separator!r} gives {plain} records, "
                f"but {gold_rows} records of {len(schema.columns)} fields are read by the schema's width (cells hold "
                f"the separator; oracle_output_cardinality: {stated if stated is not None else 'not given'}); the "
                f"paper profile reads by width, the strict profile splits plainly as the benchmark's scorer does",
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
        they are also kept in ``TaskSet.warnings``.

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
    errors = [f.message for f in findings if f.severity == "error"]
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
