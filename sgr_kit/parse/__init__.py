"""Parse answer texts into rows of raw cells.

:func:`parse_answer` dispatches on the scoring profile: ``"strict"`` uses the
benchmark's own line parser (:func:`sgr_kit.parse.strict.parse_strict`);
``"paper"`` uses the tolerant parser of :mod:`sgr_kit.parse.paper` (Markdown,
TSV, CSV, HTML and JSON tables, mapped to the schema's column order by header).
The reference answer is parsed with the same routine as the answers.

A schema with ``composite`` cells (a template ``<County>:<Site>|<year>`` whose schema counts
``County`` and ``Site`` as two columns) is parsed as the template writes it, and each row of
that written width has its composite cells split on their joiner (``Hidalgo:TCEQMAIN-15808``
-> ``Hidalgo``, ``TCEQMAIN-15808``), in both profiles.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util

from ..errors import SgrKitError
from ..schema import check_profile
from ..types import ParsedTable, Schema
from .strict import parse_strict

__all__ = ["parse_answer", "parse_reference", "parse_strict", "written_schema"]


def _paper_parser():
    # The paper profile's parser is optional: without it the strict parser is used.
    # When the module exists, its own import errors are not hidden.
    if importlib.util.find_spec(f"{__name__}.paper") is None:
        return None
    return importlib.import_module(f"{__name__}.paper").parse_paper


def parse_answer(text: str, schema: Schema, *, profile: str = "paper") -> ParsedTable:
    """Parse an answer text under a scoring profile.

    Parameters
    ----------
    text : str
        The raw answer text.
    schema : Schema
        The task's schema.
    profile : {"paper", "strict"}, default "paper"

    Returns
    -------
    ParsedTable
        Status ``parsed``, ``empty`` or ``parse_failure`` (with a reason).

    Examples
    --------
    >>> schema = Schema(columns=("id", "n"), row_key=("id",))
    >>> parse_answer("| id | n |\\n|---|---|\\n| a | 1 |", schema, profile="strict").rows
    (('a', '1'),)
    >>> parse_answer("NONE", schema).status
    'empty'
    """
    check_profile(profile)
    if not isinstance(schema, Schema):
        raise SgrKitError(f"expected a Schema, found {type(schema).__name__}")
    if not isinstance(text, str):
        raise SgrKitError(f"answer text: expected str, found {type(text).__name__}")
    if schema.composite:
        return _expand(_parse(text, written_schema(schema), profile), schema)
    return _parse(text, schema, profile)


def parse_reference(text: str, schema: Schema, *, profile: str = "paper") -> ParsedTable:
    """Parse a task's reference answer: as an answer, records on one line read by width.

    The reference is parsed by the same routine as the answers (:func:`parse_answer`). One
    exception, in the ``strict`` profile: when records share a line (``,`` or ``;``) and the
    benchmark scorer's plain split on the separator breaks records whose cells hold it
    (``TRANSUNION INTERMEDIATE HOLDINGS, INC.``), the reference's rows are those read by the
    schema's width (the ``paper`` reading) whenever that reading gives rows of exactly the
    schema's width; otherwise the reference could not be scored at all (its keys would repeat).
    Answers are still split plainly under ``strict``.

    Examples
    --------
    >>> schema = Schema(("name", "n"), ("name",), record_separator=",")
    >>> parse_reference("Acme, Inc.|3,Beta|4", schema, profile="strict").rows
    (('Acme, Inc.', '3'), ('Beta', '4'))
    >>> parse_answer("Acme, Inc.|3,Beta|4", schema, profile="strict").rows
    (('Inc.', '3'), ('Beta', '4'))
    """
    parsed = parse_answer(text, schema, profile=profile)
    if profile != "strict" or not schema.record_separator or parsed.status != "parsed" or not parsed.issues:
        return parsed
    by_width = parse_answer(text, schema, profile="paper")
    k = len(schema.columns)
    if by_width.status == "parsed" and all(len(r) == k for r in by_width.rows):
        return by_width
    return parsed


def _parse(text: str, schema: Schema, profile: str) -> ParsedTable:
    if profile == "paper":
        parse_paper = _paper_parser()
        if parse_paper is not None:
            return parse_paper(text, schema)
    return parse_strict(text, schema)


def written_schema(schema: Schema) -> Schema:
    """The schema as the task's template writes a row: each composite cell one column.

    Examples
    --------
    >>> s = Schema(("county", "site", "year"), ("county", "site"), composite=((0, ":", 2),))
    >>> written_schema(s).columns
    ('county:site', 'year')
    """
    columns = list(schema.columns)
    spellings = list(schema.spellings) + [()] * (len(columns) - len(schema.spellings))
    for position, joiner, n in sorted(schema.composite, reverse=True):
        columns[position:position + n] = [joiner.join(columns[position:position + n])]
        spellings[position:position + n] = [tuple(joiner.join(p) for p in zip(*spellings[position:position + n]))]
    return dataclasses.replace(schema, columns=tuple(columns), row_key=tuple(columns[:1]), fields={},
                               composite=(), header_names=(), spellings=tuple(spellings) if schema.spellings else ())


def _expand(parsed: ParsedTable, schema: Schema) -> ParsedTable:
    """Split the composite cells of every row of the written width (rows of the schema's width stay)."""
    written = len(schema.columns) - sum(n - 1 for _, _, n in schema.composite)
    rows = []
    for row in parsed.rows:
        if len(row) != written:
            rows.append(row)
            continue
        cells = list(row)
        for position, joiner, n in sorted(schema.composite, reverse=True):
            parts = [p.strip() for p in cells[position].split(joiner, n - 1)]
            cells[position:position + 1] = parts + [""] * (n - len(parts))
        rows.append(tuple(cells))
    return dataclasses.replace(parsed, rows=tuple(rows))
