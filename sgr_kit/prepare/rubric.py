"""The rubric -> :class:`~sgr_kit.types.Schema`: columns, row key, separators, field rules.

Read from the later format's ``columns``, ``row_key`` and ``fields``, or from the public
release's own ``normalization`` object (``schema``, ``dedup_key``, ``record_separator``,
``field_separator``), or inferred from the reference and the ``output_format``.

Columns
    ``rubric.columns``, else ``rubric.normalization.schema`` (both *declared*), else inferred
    (below). A declared schema whose width no reference row has is an error naming the task.

Row key
    ``rubric.row_key``, else ``normalization.dedup_key`` (text ``"(a, b, c)"``, a list or one name;
    names matched to the columns ignoring case and ``_`` versus space; an unknown name is an
    error), else with ``columns`` declared the first column (the benchmark scorer's default), else
    the first column when it is unique in the reference, else the shortest leading run of columns
    that is (``Schema.key_from`` says which; ``sgr-kit validate`` reports it). A reference that
    repeats a whole row has no key: an error.

Inferred columns
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
       one extra line is the header;
    4. ``output_format``'s ``<a>|<b>|...`` template (``<HUC>|<MonitoringLocationIdentifier>|...``).

    Inferred columns whose count matches no reference row are an error. Whenever ``oracle_output_cardinality`` is given and differs from the
    reference's parsed rows, a warning says so (whichever way the header was decided).

Record separator
    The rubric's ``record_separator`` (``,`` or ``;``) when declared. Otherwise, when the
    reference is a single line containing ``|`` that splits on ``,`` (tried first) or ``;`` into
    at least two non-empty pieces, each with the same number of ``|``-separated cells (the schema's
    width when the rubric declares columns), that character is the separator
    (``Adams|12,Brown|7``). The ``output_format`` text is not needed for this.

Composite cells and header spelling
    A ``<a>:<b>|<c>`` template in ``output_format`` whose placeholders name the declared schema's
    columns in order (compared up to case, spaces, ``_`` and punctuation: ``<county>`` for
    ``County``) and count ``a`` and ``b`` as separate columns, over a reference of the template's
    width, makes ``Schema.composite`` (that written cell is split on ``:``). The width is read as
    records are: a reference on one line whose cells hold the separator (``Organics, Other``) fits
    when its count of cells is ``r * width - (r - 1)``.

    With a declared schema, the reference's first record is a header only when its cells name
    the columns: more than half of them (at least two) spelled as the schema or as the
    template's placeholders up to case, spaces, ``_`` and punctuation (``Inorganics start`` for
    ``Inorganics_start``, ``arXiv ID`` for ``arxiv_id``), never because of a count of records: a
    one-line reference holding one separator inside its cells splits plainly into
    cardinality + 1 pieces, and its first piece is still a record. A header in another spelling
    than the schema's is kept as ``Schema.header_names``; the template's placeholders and that
    header are kept as ``Schema.spellings`` (the ``paper`` profile reads an answer's header in
    them as a header, whether or not the reference has one).
"""

from __future__ import annotations

import dataclasses
import re
from fractions import Fraction
from types import MappingProxyType
from typing import Any, Mapping

from ..errors import SgrKitError
from ..parse import parse_reference
from ..parse.blocks import column_names, is_header, normalize_name
from ..parse.cells import RECORD_SEPARATORS, clean_cell
from ..schema import FIELD_TYPES
from ..types import FieldRule, ParsedTable, Schema

__all__ = [
    "build_schema", "dedup_names", "field_rule", "infer_separator", "name_key", "plain_records", "read_reference",
    "template_cells",
]

_NAME = re.compile(r"[^\W\d][\w .()/%#-]{0,79}")
_SNAKE = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+")
_TOKEN = r"[^\W\d][\w.()/%#-]*"
_PIPE_RUN = re.compile(rf"{_TOKEN}(?:[ \t]*\|[ \t]*{_TOKEN})+")
_CODE_SPAN = re.compile(r"`([^`\n]*\|[^`\n]*)`")
_COLUMN_LIST = re.compile(r"\bcolumns?\b[^:\n.]{0,40}:\s*([^\n]+?)(?:\.(?:\s|$)|\n|$)", re.IGNORECASE)
_UNIT_KEYS = ("offset", "scale_num", "scale_den")


def _pipe_cells(line: str) -> list[str]:
    body = line.strip()
    body = body[1:] if body.startswith("|") else body
    body = body[:-1] if body.endswith("|") else body
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", body)]


def plain_records(reference: str, separator: str) -> int:
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
    if not _fits(reference, separator, len(cells)):
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
        if (  # a header only when its cells name the columns, never from a count of records alone
            len(first) == len(columns)
            and [clean_cell(c).casefold() for c in first] != [c.casefold() for c in columns]
            and _names_columns(first, columns, _template_spellings(output_format, columns))
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
    spellings = _template_spellings(output_format, columns)
    if header_names:
        spellings = tuple(tuple(dict.fromkeys(s + (h,))) for s, h in zip(spellings, header_names))
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
        spellings=spellings if any(spellings) else (),
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


def _template_spellings(output_format: str, columns) -> tuple[tuple[str, ...], ...]:
    """Each column's spelling in the ``<a>|<b>|...`` template, when the template names as many columns.

    Examples
    --------
    >>> _template_spellings("rows as <site>|<earliest year with all six groups>", ["site", "first_year"])
    (('site',), ('earliest year with all six groups',))
    >>> _template_spellings("rows as <site>", ["site", "first_year"])
    ((), ())
    """
    cells = template_cells(output_format) or []
    flat = [name for cell in cells for name in cell]
    if len(flat) != len(columns):
        return tuple(() for _ in columns)
    return tuple((name,) if normalize_name(name) else () for name in flat)


def _names_columns(first, columns, spellings) -> bool:
    """The reference's first record is a header: more than half of its cells (at least two with two
    columns or more) name distinct columns, spelled as the schema or the task's template up to case,
    spaces, ``_`` and punctuation (``Inorganics start`` for ``Inorganics_start``)."""
    names = _named_cells(first)
    return names is not None and is_header(names, column_names(columns, spellings))


def _fits(reference: str, separator: str | None, width: int) -> bool:
    """Every record of the reference has ``width`` cells, read plainly or, for records on one line
    whose cells may hold the separator, by the line's count of cells (``r * width - (r - 1)``).

    Examples
    --------
    >>> _fits("a|x, y|1,b|z|2", ",", 3), _fits("a|x|1|q,b|z|2", ",", 3)
    (True, False)
    """
    records = [r for r in _records_of(reference, separator) if "|" in r]
    widths = {len(_pipe_cells(r)) for r in records}
    if not records or widths == {width}:
        return True
    lines = reference.strip().splitlines()
    if separator is None or width < 2 or len(lines) != 1:
        return False
    cells = len(_pipe_cells(lines[0]))
    return cells > width and (cells - 1) % (width - 1) == 0
