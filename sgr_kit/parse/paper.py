"""Tolerant answer parsing: the ``paper`` profile.

A superset of the strict line parser (:mod:`sgr_kit.parse.strict`): a plain
pipe table gives the same rows, and more answers become tables.

1. The text is cut into blocks (:mod:`sgr_kit.parse.blocks`): JSON values (a
   list of objects keyed by column names, a list of lists, or an object holding
   such a list; also one object per line), HTML ``<table>`` elements, and runs of
   pipe lines, of TAB lines and of comma lines. Blank lines do not end a run; a
   prose line, a fence line or a line of another kind does, and so do a Markdown
   header (a row above an alignment row ``|---|``) and a line repeating the
   schema's column names, which open a new block.
2. A block's header is its alignment-marked first row (the row above a
   delimiter row of the same width, ``|---|`` or ``|-|``), its ``<th>`` row or
   JSON keys, or else its first row when that row's names match the schema
   (names compared ignoring case, spaces, underscores and punctuation; a column
   also answers to the task's own spellings of it, ``Schema.header_names`` and
   ``Schema.spellings``: the reference's header and the output template's
   ``<placeholder>`` words; more than
   half of the row's cells, empty ones included, must name distinct schema
   columns, and at least two when the schema has two or more). Repeats of the
   header, and lines equal to the schema's column names, are skipped. Cells are
   mapped to schema columns by name: missing columns give empty cells, unknown
   columns are appended as extra cells (``extra_columns``). In a header of the
   schema's width, a cell naming no column keeps its position when that
   position's column is named nowhere else; a header naming no column at all
   (known only from its alignment row or markup) maps by position.
3. Continuation: a table of pipe, TAB or comma lines does not end at prose, a
   fence or a change of line format. Later blocks under the same header (the
   same normalized names: a repeated header) belong to it, and so does a later
   block without a header that has a row of the header's width (or of the
   schema's width when the header names a schema column); its rows are mapped
   by the table's header. A block without such a row is kept too when it lies
   between two parts of the table or when the table has no data row before it
   (odd rows inside a table stay rows, with a ``wrong_width`` issue, as strict
   keeps them); after the table's last well-formed part it is left out (a note
   such as ``Sources: a | b``; recorded in ``issues``), and so are rows of
   another width that follow the table's last well-formed row after a blank
   line. A block with another header starts another table and ends the
   continuation.
4. Pipe and TAB blocks without a header that no headed table continues (those
   before the first header, or after a header of another width) form one table
   read by position, which continues past prose as in rule 3 (with the schema's
   width); it is joined to the scored table when that table is made of lines and
   its columns are in the schema's order (strict reads every pipe and TAB row).
   Comma lines without a header above them are a table only when every row has
   exactly the schema's width and there are two rows or more, or the lines are
   the whole answer (so prose with commas is not read as a row); they are never
   joined to another table (strict reads comma lines only after a header).
5. The table scored is the one with data rows whose header names the most
   schema columns, then one with a well-formed row (width of its header, or of
   the schema) over one without, then pipe, TAB, HTML or JSON over comma lines
   without a header, then the one with the most well-formed rows; ties go to the
   first. ``table`` and ``issues`` record it.
6. With a ``record_separator``, a pipe line holding several records
   (``a|1, b|2``) is split into records: on every separator when each piece
   then has the schema's width (as strict does), else at the cells where one
   record ends and the next begins (a ``,`` inside a number such as ``1,234`` is
   not a separator there).
7. ``NONE`` (any case) alone, in emphasis or a fence, after a header line, as a
   one-cell row, or beside prose, with no data row anywhere, is the empty answer;
   so is an empty JSON list. No data row otherwise is a ``parse_failure`` whose
   reason says what was seen.
8. An answer that is, as a whole, one explicit statement that nothing qualifies is
   the empty answer too, as a reviewer reads it (:func:`is_no_result`; the strict
   profile keeps the benchmark scorer's rule: only ``NONE`` is empty). The
   statement must be the whole answer (emphasis, quotes, a fence and a final
   period aside): one sentence of at most 200 characters opening with one of
   the phrasings of :data:`NO_RESULT_PHRASES`, optionally followed by a plain
   qualifier (``for the given criteria``, ``in the 2019 release``) without a
   comma, colon, semicolon, pipe or a word that takes it back (``but``,
   ``however``, ``except``, ``only``, ``although``, ``though``, ``other than``,
   ``unless``). A table with such a note is a table; "I could not find it"
   (the system failed to look, not a statement about the data) is prose.

Rules 3 and 4 make the parse keep every row of the schema's width that strict
keeps, in order, whenever the answer's only header lines are the schema's own
(in any case): a header in another order, naming other columns, or a second
table with another header are where the paper rules read the answer differently.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..errors import SgrKitError
from ..types import ParsedTable, Schema
from .cells import clean_cell
from .blocks import (
    Block,
    column_names,
    header_match,
    html_blocks,
    is_header,
    is_none,
    json_blocks,
    line_blocks,
    normalize_name,
)

__all__ = ["parse_paper", "normalize_name", "is_no_result", "NO_RESULT_PHRASES"]  # normalize_name from .blocks

_SHOWN = 10
_MARKUP = ("html", "json")

_QUALIFIED = r"(?:(?:qualifying|matching|relevant|eligible|such|valid|applicable)\s+)?"
_THINGS = r"(?:records?|rows?|results?|entries|entry|items?|data|matches|values?|tasks?|papers?|documents?)"
#: The openings of an explicit no-result statement (rule 8), as regular expressions matched
#: case-insensitively at the start of the whole answer; ``QUALIFIED`` stands for an optional
#: "qualifying", "matching", "relevant", "eligible", "such", "valid" or "applicable".
NO_RESULT_PHRASES: tuple[str, ...] = (
    rf"no\s+{_QUALIFIED}{_THINGS}\s+(?:were|was|are|is|could\s+be|can\s+be)\s+(?:found|returned|identified|available|listed)",
    rf"no\s+{_QUALIFIED}{_THINGS}\s+(?:found|returned|available|qualify|qualified|match|matched|meet|met|satisfy|satisfied|exist)",
    rf"there\s+(?:are|were|is)\s+no\s+{_QUALIFIED}{_THINGS}",
    rf"(?:i\s+|we\s+)?found\s+no\s+{_QUALIFIED}{_THINGS}",
    rf"(?:zero|0)\s+{_QUALIFIED}{_THINGS}\s+(?:were\s+|was\s+)?(?:found|returned|qualify|match|matched)",
    r"nothing\s+(?:qualifies|qualified|matches|matched|was\s+found|found|meets)",
    r"none\s+(?:found|qualify|qualifies|match|matched|exist)",
    r"no\s+(?:results?|matches)",
    r"(?:the\s+)?(?:result|answer|result\s+set|table)\s+is\s+empty",
)
_NO_RESULT = re.compile(rf"(?:{'|'.join(NO_RESULT_PHRASES)})(?P<tail>[^.!?\n]*)[.!]?", re.IGNORECASE)
_TAKEN_BACK = re.compile(
    r"[,:;|\t]|\b(?:but|however|except|only|although|though|other\s+than|unless|yet)\b", re.IGNORECASE
)
_NO_RESULT_LIMIT = 200


def is_no_result(text: str) -> bool:
    """True when the whole answer is one explicit statement that nothing qualifies (rule 8).

    Examples
    --------
    >>> is_no_result("No qualifying records were found."), is_no_result("**There are no matching rows.**")
    (True, True)
    >>> is_no_result("No records were found for the 2019 release")
    True
    >>> is_no_result("No records were found, but here is a close match: a|1")
    False
    >>> is_no_result("I could not find it."), is_no_result("No.")
    (False, False)
    """
    body = text.strip()
    if len(body) > _NO_RESULT_LIMIT + 20:
        return False
    lines = [ln for ln in body.splitlines() if ln.strip() and not ln.strip().startswith("```")]
    if len(lines) != 1:
        return False
    body = lines[0].strip().strip("*_`~\"' ").strip()
    if len(body) > _NO_RESULT_LIMIT:
        return False
    m = _NO_RESULT.fullmatch(body)
    return m is not None and _TAKEN_BACK.search(m["tail"]) is None


@dataclass
class _Part:
    """One block's data rows, below its header (if any)."""

    block: Block
    header: list[str] | None
    rows: list[list[str]]
    lines: list[int]


@dataclass
class _Layout:
    """How a header's cells map to the schema's columns."""

    header: tuple[str, ...] | None
    normal: list[str]  # normalized header names ([] without a header)
    matched: int  # schema columns the header names
    assign: list[int]  # schema column of each header cell (-1: an extra cell)
    identity: bool  # cells are in the schema's order
    expected: int  # width of a well-formed row
    extra: tuple[str, ...]


@dataclass
class _Table:
    layout: _Layout
    kind: str
    loose: bool = False
    parts: list[_Part] = field(default_factory=list)
    rows: list[tuple[str, ...]] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    fit: int = 0
    none_rows: int = 0
    issues: list[str] = field(default_factory=list)


def _part(block: Block, names: dict[str, int]) -> _Part:
    rows, lines = block.rows, block.lines
    if block.header is not None:
        return _Part(block, block.header, rows, lines)
    if rows and is_header(rows[0], names):
        return _Part(block, rows[0], rows[1:], lines[1:])
    return _Part(block, None, rows, lines)


def _layout(header: list[str] | None, schema: Schema, names: dict[str, int]) -> _Layout:
    width = len(schema.columns)
    if header is None:
        return _Layout(None, [], 0, [], True, width, ())
    normal, matched, _ = header_match(header, names)
    if not matched:
        return _Layout(tuple(header), normal, 0, [], True, width, ())
    exact = [c.casefold() for c in schema.columns]
    assign, used = [], set()
    for raw, n in zip(header, normal):
        j = names.get(n)
        folded = clean_cell(raw).casefold()
        if folded in exact and exact.index(folded) not in used:
            j = exact.index(folded)
        if j is None or j in used:
            assign.append(-1)
        else:
            assign.append(j)
            used.add(j)
    if len(header) == width:  # a header of the schema's width: unnamed cells keep their position
        assign = [i if j < 0 and i not in used else j for i, j in enumerate(assign)]
    if assign == list(range(width)):
        return _Layout(tuple(header), normal, matched, assign, True, width, ())
    extra = tuple(clean_cell(header[i]) for i, j in enumerate(assign) if j < 0)
    return _Layout(tuple(header), normal, matched, assign, False, len(header), extra)


def _layout_issues(layout: _Layout, schema: Schema) -> list[str]:
    if layout.header is None:
        return []
    if not layout.matched:
        return ["header names no schema column: cells taken by position"]
    if layout.identity:
        return []
    issues = []
    assign = [j for j in layout.assign if j >= 0]
    if assign != sorted(assign):
        issues.append("header columns in another order: cells mapped by name")
    missing = [c for j, c in enumerate(schema.columns) if j not in assign]
    if missing:
        issues.append(f"columns missing from the answer (empty cells): {', '.join(missing)}")
    if layout.extra:
        issues.append(f"columns not in the schema (extra cells): {', '.join(layout.extra)}")
    return issues


def _fill(table: _Table, schema: Schema) -> None:
    """Map the rows of the table's parts to the schema's columns (rows, lines, fit, issues)."""
    layout = table.layout
    width = len(schema.columns)
    normal, expected, assign = layout.normal, layout.expected, layout.assign
    first = [c.casefold() for c in schema.columns]
    rows, lines, issues = table.rows, table.lines, table.issues
    widths: list[int] = []
    for part in table.parts:
        issues += part.block.issues
        for cells, number in zip(part.rows, part.lines):
            if not cells:  # e.g. an empty JSON object
                continue
            if normal and len(cells) == len(normal) and normalize_name(cells[0]) == normal[0]:
                if [normalize_name(c) for c in cells] == normal:
                    continue  # a repeated header
            if len(cells) == width and clean_cell(cells[0]).casefold() == first[0]:
                if [clean_cell(c).casefold() for c in cells] == first:
                    continue  # the schema's header line (strict rule 5)
            if sum(1 for c in cells if c.strip()) == 1 and is_none(next(c for c in cells if c.strip())):
                table.none_rows += 1
                continue
            if len(cells) == expected:
                table.fit += 1
            else:
                where = f"line {number}: " if number else f"row {len(rows) + 1}: "
                issues.append(f"{where}wrong_width ({len(cells)} cells, expected {expected})")
            if layout.identity:
                rows.append(tuple(cells))
            else:
                mapped = [""] * width
                extras = []
                for i, cell in enumerate(cells):
                    j = assign[i] if i < len(assign) else -1
                    if j >= 0:
                        mapped[j] = cell
                    else:
                        extras.append(cell)
                while extras and not extras[-1].strip():
                    extras.pop()
                rows.append(tuple(mapped + extras))
            lines.append(number)
            widths.append(len(cells))
    _drop_trailing_note(table, widths, expected, width)


def _drop_trailing_note(table: _Table, widths: list[int], expected: int, width: int) -> None:
    """Rows of another width after the table's last well-formed row and a blank line are a note.

    E.g. ``Sources: arxiv.org | export.arxiv.org`` under a Markdown table: prose
    around a table is ignored (recorded in ``issues``). Strict counts such a line
    as a row of the wrong width; a row of the schema's width is always kept.
    """
    good = [i for i, w in enumerate(widths) if w == expected]
    if not good:
        return
    cut = good[-1] + 1
    rows, lines = table.rows, table.lines
    if cut >= len(rows) or not lines[cut] or not lines[cut - 1] or lines[cut] <= lines[cut - 1] + 1:
        return
    if any(w == width for w in widths[cut:]):
        return
    dropped = lines[cut:]
    del rows[cut:], lines[cut:]
    gone = set(dropped)
    table.issues[:] = [i for i in table.issues if _wrong_width_line(i) not in gone]
    table.issues.append(
        f"ignored {len(dropped)} line(s) of another width after the table and a blank line "
        f"(a note, not data): {_numbers(dropped)}"
    )


def _wrong_width_line(issue: str) -> int | None:
    """The line number of a ``line N: wrong_width ...`` issue, else None."""
    if not issue.startswith("line "):
        return None
    number, _, rest = issue[5:].partition(": ")
    return int(number) if number.isdigit() and rest.startswith("wrong_width") else None


def _loose_ok(part: _Part, width: int, content: int) -> bool:
    """Comma lines without a header must look like a table, not prose with commas."""
    whole = len(set(part.lines)) == content
    if part.block.kind == "records":
        return whole
    rows = part.rows
    if not rows or any(len(r) != width for r in rows):
        return False
    # one line that ends like a sentence is prose, even with the right number of commas
    return len(rows) >= 2 or whole and not rows[0][-1].rstrip().endswith((".", "!", "?", ":"))


def _tables(
    parts: list[_Part], schema: Schema, names: dict[str, int], content: int
) -> tuple[list[_Table], _Table | None, list[_Part]]:
    """Group parts into tables (rules 3 and 4); returns tables, the headerless pipe/TAB table, rejected parts."""
    width = len(schema.columns)
    tables: list[_Table] = []
    rejected: list[_Part] = []
    by_header: dict[tuple[str, ...], _Table] = {}
    current: _Table | None = None  # the headed table that headerless blocks continue
    pending: list[_Part] = []  # blocks after ``current`` that join it only if it continues
    plain: _Table | None = None
    loose: _Table | None = None
    none = _layout(None, schema, names)

    def alone(part: _Part) -> None:
        nonlocal plain, loose
        block = part.block
        if block.loose:
            if not _loose_ok(part, width, content):
                rejected.append(part)
                return
            if loose is None:
                loose = _Table(none, block.kind, loose=True)
                tables.append(loose)
            loose.parts.append(part)
        elif any(len(r) == width for r in part.rows):
            if plain is None:
                plain = _Table(none, block.kind)
                tables.append(plain)
            plain.parts.append(part)
        else:
            tables.append(_Table(none, block.kind, parts=[part]))

    for part in parts:
        kind = part.block.kind
        if kind in _MARKUP:
            tables.append(_Table(_layout(part.header, schema, names), kind, parts=[part]))
            continue
        if part.header is not None:
            layout = _layout(part.header, schema, names)
            table = by_header.get(tuple(layout.normal))
            if table is not None and table is current:
                table.parts += pending
            else:
                for held in pending:
                    alone(held)
            pending = []
            if table is None:
                table = by_header[tuple(layout.normal)] = _Table(layout, kind)
                tables.append(table)
            table.parts.append(part)
            current = table
            continue
        if current is None or (current is plain and part.block.loose):
            alone(part)
            if current is None:
                current = plain  # headerless pipe/TAB rows continue as a headed table does
            continue
        widths = {len(r) for r in part.rows}
        fits = current.layout.expected in widths or (current.layout.matched and width in widths)
        if fits or not any(p.rows for p in current.parts):
            current.parts += pending + [part]
            pending = []
        else:
            pending.append(part)
    for held in pending:
        alone(held)
    return tables, plain, rejected


def _numbers(numbers: list[int]) -> str:
    shown = ", ".join(map(str, numbers[:_SHOWN]))
    return shown + (", ..." if len(numbers) > _SHOWN else "")


def parse_paper(text: str, schema: Schema) -> ParsedTable:
    """Parse an answer (or reference) text with the paper profile's tolerant rules.

    Parameters
    ----------
    text : str
        The raw answer text: a Markdown or pipe table, TSV, CSV (with or without
        a header), an HTML table, JSON, or records on one line, with any prose
        or fences around it.
    schema : Schema
        The column names (for headers), their number and the record separator.

    Returns
    -------
    ParsedTable
        ``rows`` in the schema's column order (missing columns ``""``, unknown
        columns appended and named in ``extra_columns``); ``format`` one of
        ``pipe``, ``tsv``, ``csv``, ``html``, ``json``, ``records``; ``table`` the
        0-based index of the scored table among the tables found.

    Examples
    --------
    >>> schema = Schema(columns=("id", "name"), row_key=("id",))
    >>> t = parse_paper("Found:\\n\\n| Name | ID |\\n|---|---|\\n| a | 1 |\\n\\nDone.", schema)
    >>> t.status, t.rows, t.format, t.header
    ('parsed', (('1', 'a'),), 'pipe', ('Name', 'ID'))
    >>> parse_paper("id,name\\n1,a\\nNote: 2 is provisional\\n2,b", schema).rows
    (('1', 'a'), ('2', 'b'))
    >>> parse_paper('[{"id": 1, "name": "a", "note": "x"}]', schema).rows
    (('1', 'a', 'x'),)
    >>> parse_paper("id|name\\n**NONE**", schema).status
    'empty'
    >>> parse_paper("I could not find it.", schema).reason
    'no table found: 1 line of prose'
    >>> parse_paper("No qualifying records were found.", schema).reason
    'answer states that no record qualifies'
    """
    if not isinstance(text, str):
        raise SgrKitError(f"answer text: expected str, found {type(text).__name__}")
    if not isinstance(schema, Schema):
        raise SgrKitError(f"expected a Schema, found {type(schema).__name__}")
    stripped = text.strip()
    if not stripped:
        return ParsedTable(status="empty", reason="empty answer")
    if stripped.upper() == "NONE":
        return ParsedTable(status="empty", reason="answer is NONE")
    if is_no_result(stripped):
        return ParsedTable(status="empty", reason="answer states that no record qualifies")

    width = len(schema.columns)
    # the schema's names, then the task's own spelling of its header, then its template's
    names = column_names(schema.columns, schema.header_names, schema.spellings)
    lines = text.splitlines()
    issues: list[str] = []
    blocks: list[Block] = []
    consumed: set[int] = set()
    if "[" in text or "{" in text:
        blocks, consumed = json_blocks(lines, names)
    if "<" in text and "<table" in text.lower():
        html, more = html_blocks(text)
        blocks += [b for b in html if b.start - 1 not in consumed]
        consumed |= more
    found, prose, nones, content = line_blocks(lines, consumed, schema, names, issues)
    blocks += found
    blocks.sort(key=lambda b: b.start)

    tables, plain, rejected = _tables([_part(b, names) for b in blocks], schema, names, content)
    for table in tables:
        _fill(table, schema)
    none_rows = sum(t.none_rows for t in tables)
    with_rows = [t for t in tables if t.rows]
    if with_rows:
        position = {id(t): i for i, t in enumerate(tables)}  # by identity: linear in the number of tables
        best = max(with_rows, key=lambda t: (t.layout.matched, t.fit > 0, not t.loose, t.fit, -position[id(t)]))
        index = position[id(best)]
        if len(tables) > 1:
            issues.append(
                f"table {index + 1} of {len(tables)} scored ({best.kind}, "
                f"header names {best.layout.matched} of {width} columns, {len(best.rows)} rows)"
            )
        parts = best.parts
        if plain is not None and plain is not best and best.kind not in _MARKUP and best.layout.identity:
            parts = sorted(parts + plain.parts, key=lambda p: p.block.start)
            best = _Table(best.layout, best.kind, parts=parts)
            _fill(best, schema)
        joined = [p.lines[0] for p in parts[1:] if p.lines]
        if joined:
            issues.append(f"rows at line(s) {_numbers(joined)} continue the table past prose, fences or a header")
        used = {id(p) for p in parts}
        outside = [n for t in tables if t.kind not in _MARKUP for p in t.parts if id(p) not in used for n in p.lines]
        if outside:
            issues.append(f"ignored {len(outside)} row(s) outside the scored table: lines {_numbers(sorted(outside))}")
        ignored = prose + [n for p in rejected for n in p.lines]
        if ignored:
            issues.append(f"ignored {len(ignored)} line(s) of prose: {_numbers(sorted(ignored))}")
        if nones or none_rows:
            issues.append("a NONE line was ignored: the answer also has a table")
        return ParsedTable(
            status="parsed",
            rows=tuple(best.rows),
            lines=tuple(best.lines),
            issues=tuple(issues + _layout_issues(best.layout, schema) + best.issues),
            header=best.layout.header,
            extra_columns=best.layout.extra,
            table=index,
            format=best.kind,
        )

    headers = [t for t in tables if t.layout.header is not None]
    header = headers[0].layout.header if headers else None
    if nones or none_rows:
        reason = "answer is NONE" + (" after a header line" if header is not None else "")
        if prose:
            issues.append(f"ignored {len(prose)} line(s) of prose: {_numbers(prose)}")
        return ParsedTable(status="empty", issues=tuple(issues), reason=reason, header=header)
    if any(t.kind == "json" and not t.parts[0].block.rows for t in tables):
        return ParsedTable(status="empty", issues=tuple(issues), reason="empty JSON list", format="json")
    if header is not None:
        return ParsedTable(
            status="parse_failure",
            issues=tuple(issues),
            reason="no data row: only a header line",
            header=header,
            format=headers[0].kind,
        )
    seen = []
    if prose:
        seen.append(f"{len(prose)} line{'s' if len(prose) > 1 else ''} of prose")
    if rejected:
        widths = sorted({len(r) for p in rejected for r in p.block.rows})
        count = sum(len(p.block.rows) for p in rejected)
        seen.append(
            f"{count} comma-separated line{'s' if count > 1 else ''} without a header, not read as a table "
            f"(widths {', '.join(map(str, widths))}; the schema has {width} columns)"
        )
    reason = "no table found" + (": " + "; ".join(seen) if seen else "")
    return ParsedTable(status="parse_failure", issues=tuple(issues), reason=reason)
