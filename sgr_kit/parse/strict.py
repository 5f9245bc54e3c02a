"""The benchmark's own line parser (the ``strict`` profile).

The reference answer is parsed by the same routine as the answers. Rules, in
order (see the reference scorer's rules):

1. the trimmed text empty or ``NONE`` (any case) -> status ``empty``;
2. with a ``record_separator`` (``,`` or ``;``) the text is first split on it
   into lines;
3. line by line: blank lines and fence lines (starting with three backticks)
   skipped; a line with ``|`` is split on ``|`` not preceded by a backslash
   (one leading and one trailing ``|`` dropped, cells trimmed, ``\\|`` -> ``|``);
   else a line with a TAB is split on tabs; else a line with a comma is one CSV
   record, a data row only once a header has been seen (before that it is
   prose); else the line is prose, ignored and recorded;
4. a row of Markdown alignment rules (``---``, ``:--:``) is skipped;
5. a row equal to the column names (cleaned, case-folded, same order) is the
   header, skipped; so is a row equal to the reference's own header line when the
   task spells it otherwise than its schema (``Schema.header_names``, release tasks
   whose columns come from ``normalization.schema``);
6. every other row is kept, duplicates and wrong widths included;
7. at least one data row -> ``parsed``, otherwise ``parse_failure``.
"""

from __future__ import annotations

import csv

from ..errors import SgrKitError
from ..types import ParsedTable, Schema
from .cells import RECORD_SEPARATORS, clean_cell, is_alignment, split_pipe

__all__ = ["parse_strict"]

_PROSE_SHOWN = 60


def parse_strict(text: str, schema: Schema) -> ParsedTable:
    """Parse an answer (or reference) text with the reference scorer's rules.

    Parameters
    ----------
    text : str
        The raw answer text.
    schema : Schema
        Gives the column names (for the header rule) and the record separator.

    Returns
    -------
    ParsedTable
        ``format="lines"``; ``rows`` hold the raw split cells (not cleaned) in
        answer order, ``lines`` their 1-based line numbers; ``issues`` record
        wrong widths (``"line 3: wrong_width (2 cells, expected 3)"``) and
        ignored prose lines (``"line 1: ignored_line 'Here is...'"``).

    Examples
    --------
    >>> schema = Schema(columns=("id", "name"), row_key=("id",))
    >>> t = parse_strict("Here you go:\\n| ID | Name |\\n|---|---|\\n| 1 | a \\\\| b |\\n2\\tc", schema)
    >>> t.status, t.rows, t.lines, t.header
    ('parsed', (('1', 'a | b'), ('2', 'c')), (4, 5), ('ID', 'Name'))
    >>> t.issues
    ("line 1: ignored_line 'Here you go:'",)
    >>> parse_strict(" none ", schema).status
    'empty'
    >>> r = parse_strict("id,name", schema)
    >>> r.status, r.reason
    ('parse_failure', 'no data row: only a header line')
    """
    if not isinstance(text, str):
        raise SgrKitError(f"answer text: expected str, found {type(text).__name__}")
    separator = schema.record_separator
    if separator and separator != "\n":
        if separator not in RECORD_SEPARATORS:
            raise SgrKitError(
                f"record_separator: expected one of {RECORD_SEPARATORS} or a newline, found {separator!r}"
            )
        text = "\n".join(text.split(separator))
    stripped = text.strip()
    if not stripped:
        return ParsedTable(status="empty", reason="empty answer", format="lines")
    if stripped.upper() == "NONE":
        return ParsedTable(status="empty", reason="answer is NONE", format="lines")

    names = [c.casefold() for c in schema.columns]
    spelled = [c.casefold() for c in schema.header_names] if len(schema.header_names) == len(names) else names
    width = len(names)
    rows: list[tuple[str, ...]] = []
    lines: list[int] = []
    issues: list[str] = []
    header: tuple[str, ...] | None = None
    prose = 0
    for number, line in enumerate(text.splitlines(), 1):
        body = line.strip()
        if not body or body.startswith("```"):
            continue
        if "|" in line:
            cells = split_pipe(line)
        elif "\t" in line:
            cells = line.split("\t")
        elif "," in line:
            try:
                cells = next(csv.reader([line]))
            except csv.Error as error:  # e.g. a field above csv's size limit: not a table row
                issues.append(f"line {number}: ignored_line (unreadable CSV: {error})")
                prose += 1
                continue
        else:
            issues.append(f"line {number}: ignored_line {line[:_PROSE_SHOWN]!r}")
            prose += 1
            continue
        if is_alignment(cells):
            continue
        if len(cells) == width and (
            all(clean_cell(c).casefold() == n for c, n in zip(cells, names))
            or all(clean_cell(c).casefold() == n for c, n in zip(cells, spelled))
        ):
            if header is None:
                header = tuple(cells)
            continue
        if "|" not in line and "\t" not in line and header is None:
            # prose with commas is not a CSV row unless a header has established a table
            issues.append(f"line {number}: ignored_line {line[:_PROSE_SHOWN]!r}")
            prose += 1
            continue
        if len(cells) != width:
            issues.append(f"line {number}: wrong_width ({len(cells)} cells, expected {width})")
        rows.append(tuple(cells))
        lines.append(number)

    if rows:
        return ParsedTable(
            status="parsed", rows=tuple(rows), lines=tuple(lines), issues=tuple(issues), header=header, format="lines"
        )
    if header is not None:
        reason = "no data row: only a header line"
    elif prose:
        reason = f"no data row: {prose} line(s) of prose ignored"
    else:
        reason = "no data row"
    return ParsedTable(status="parse_failure", issues=tuple(issues), reason=reason, header=header, format="lines")
