"""Table blocks found in answer text: line formats, HTML ``<table>`` and JSON.

Used by :mod:`sgr_kit.parse.paper`: a :class:`Block` is a run of table lines (or
one HTML/JSON table) before header detection; the paper parser decides which
blocks form the table that is scored.

Line blocks (:func:`line_blocks`) are runs of pipe lines, of TAB lines and of
comma lines, split as the strict parser splits them. Blank lines do not end a
run; a prose line, a fence line (three backticks or tildes) or a line of another
kind does. A new block also starts at a Markdown header (a row followed by an
alignment row ``|---|``) and at a line repeating the schema's column names
(compared as :func:`normalize_name` does), so that a header line always opens
its block.
"""

from __future__ import annotations

import csv
import json
import re
import unicodedata
from dataclasses import dataclass, field
from html.parser import HTMLParser

from ..types import Schema
from .cells import RECORD_SEPARATORS, clean_cell, is_alignment, split_pipe

__all__ = [
    "Block", "normalize_name", "header_match", "is_header", "is_none", "line_blocks", "html_blocks", "json_blocks",
]

_JSON_ATTEMPTS = 200
_DECODER = json.JSONDecoder(parse_float=str, parse_int=str, parse_constant=str)
_FENCES = ("```", "~~~")
_SHORT_RULE = re.compile(r":?-+:?")  # an alignment cell of any length (a header marker)

def normalize_name(name: str) -> str:
    """A column name as compared with header cells: case-folded, letters and digits only.

    Examples
    --------
    >>> normalize_name("**Predecessor ID**"), normalize_name("dissolved_oxygen (mg/L)")
    ('predecessorid', 'dissolvedoxygenmgl')
    """
    if name.isascii():  # NFKC leaves ASCII unchanged and casefold is lower: the same result, faster
        return "".join(filter(str.isalnum, name.lower()))
    return "".join(filter(str.isalnum, unicodedata.normalize("NFKC", name).casefold()))


def column_names(columns, *spellings) -> dict[str, int]:
    """Each normalized name a header cell may use for a column, mapped to the column's position.

    ``spellings``: per-position sequences of other names (a task's header, its template's
    ``<placeholder>`` words); the schema's own name comes first, then each group in order.

    Examples
    --------
    >>> column_names(["site", "first_year"], [("Site",), ("earliest year",)])
    {'site': 0, 'firstyear': 1, 'earliestyear': 1}
    """
    names: dict[str, int] = {}
    for j, column in enumerate(columns):
        names.setdefault(normalize_name(column), j)
    for group in spellings:
        for j, spelled in enumerate(group):
            for name in (spelled,) if isinstance(spelled, str) else spelled:
                if normalize_name(name):
                    names.setdefault(normalize_name(name), j)
    return names


def header_match(cells: list[str], names: dict[str, int]) -> tuple[list[str], int, int]:
    """Normalized names of ``cells``, how many schema columns they name, how many are non-empty."""
    normal = [normalize_name(clean_cell(c)) for c in cells]
    found = {names[n] for n in normal if n in names}
    return normal, len(found), sum(1 for n in normal if n)


def is_header(cells: list[str], names: dict[str, int]) -> bool:
    """True when more than half of the row's cells (empty ones included) name distinct schema columns.

    With a schema of two columns or more, at least two must be named: a lone
    ``id`` cell is not a header (columns are counted, not their spellings in ``names``).

    Examples
    --------
    >>> names = {"id": 0, "name": 1, "n": 2}
    >>> is_header(["ID", "Name", "Source"], names), is_header(["", "id"], names), is_header(["Name", "fox"], names)
    (True, False, False)
    """
    _, found, _ = header_match(cells, names)
    return 2 * found > len(cells) and found >= min(2, len(set(names.values())))


def is_none(text: str) -> bool:
    """``NONE`` in any case, with emphasis, backticks or a final period."""
    return text.strip().strip("*_`~ ").rstrip(".").strip("*_`~ ").casefold() == "none"


@dataclass
class Block:
    """A run of table-like lines (or one JSON/HTML table) before header detection."""

    kind: str  # the format reported: pipe, tsv, csv, records, html, json
    start: int
    run: str = ""  # the kind of line that continues this block
    rows: list[list[str]] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    header: list[str] | None = None  # known from markup (alignment row, <th>, JSON keys)
    none_rows: int = 0
    loose: bool = False  # comma lines: a table only under the conditions of _acceptable
    issues: list[str] = field(default_factory=list)


class _HtmlTables(HTMLParser):
    """Collect the rows of every top-level ``<table>`` (nested tables become cell text)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[Block] = []
        self.ends: list[int] = []
        self._depth = 0
        self._row: list[str] | None = None
        self._cell: list[str] | None = None
        self._header_row = False
        self._in_head = False

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self._depth += 1
            if self._depth == 1:
                self.tables.append(Block(kind="html", start=self.getpos()[0]))
            return
        if self._depth != 1:
            return
        if tag == "thead":
            self._in_head = True
        elif tag == "tr":
            self._finish_row()
            self._row, self._header_row = [], True
        elif tag in ("td", "th"):
            if self._row is None:
                self._row, self._header_row = [], True
            self._finish_cell()
            self._cell = []
            self._header_row = self._header_row and (tag == "th" or self._in_head)
        elif tag == "br" and self._cell is not None:
            self._cell.append(" ")

    def handle_endtag(self, tag):
        if tag == "table" and self._depth:
            if self._depth == 1:
                self._finish_row()
                self.ends.append(self.getpos()[0])
            self._depth -= 1
        elif self._depth != 1:
            return
        elif tag in ("td", "th"):
            self._finish_cell()
        elif tag == "tr":
            self._finish_row()
        elif tag == "thead":
            self._in_head = False

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)

    def _finish_cell(self):
        if self._cell is not None and self._row is not None:
            self._row.append(" ".join("".join(self._cell).split()))
        self._cell = None

    def _finish_row(self):
        self._finish_cell()
        if self._row:
            table = self.tables[-1]
            if self._header_row and not table.rows and table.header is None:
                table.header = self._row
            else:
                table.rows.append(self._row)
                table.lines.append(0)
        self._row = None


def html_blocks(text: str) -> tuple[list[Block], set[int]]:
    """The HTML tables of ``text`` as blocks, and the (0-based) line numbers they take up.

    Malformed markup keeps the tables read before it; an unclosed table runs to the end of
    the text.
    """
    parser = _HtmlTables()
    try:
        parser.feed(text)
        parser.close()
    except Exception:  # HTMLParser on malformed markup: keep the tables read so far
        pass
    consumed: set[int] = set()
    unclosed = text.count("\n") + 1  # an unclosed table runs to the end of the text
    for table, end in zip(parser.tables, parser.ends + [unclosed] * len(parser.tables)):
        consumed.update(range(table.start - 1, end))
    return parser.tables, consumed


def _json_cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "; ".join(_json_cell(v) for v in value)
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def _json_block(value: object, start: int, names: dict[str, int]) -> Block | None:
    """A table from a decoded JSON value, or None when it holds no rows."""
    if isinstance(value, dict):
        if any(normalize_name(str(k)) in names for k in value):
            value = [value]  # one record
        else:
            lists = [v for v in value.values() if isinstance(v, list)]
            if len(lists) != 1:
                return None
            value = lists[0]
    if not isinstance(value, list):
        return None
    block = Block(kind="json", start=start)
    if not value:
        return block
    if all(v == {} or v == [] for v in value):
        return None
    if all(isinstance(v, dict) for v in value):
        keys: dict[str, None] = {}
        for record in value:
            keys.update(dict.fromkeys(map(str, record)))
        block.header = list(keys)
        block.rows = [[_json_cell(r.get(k)) for k in keys] for r in value]
    elif all(isinstance(v, list) for v in value):
        block.rows = [[_json_cell(c) for c in v] for v in value]
    elif len(names) == 1 and not any(isinstance(v, (dict, list)) for v in value):
        block.rows = [[_json_cell(v)] for v in value]
    else:
        return None
    block.lines = [0] * len(block.rows)
    return block


def json_blocks(lines: list[str], names: dict[str, int]) -> tuple[list[Block], set[int]]:
    """The JSON tables of ``lines`` (a list of objects or of lists, or an object of columns) as
    blocks, and the (0-based) line numbers they take up; ``names`` maps column names to
    positions.
    """
    joined = "\n".join(lines)
    offsets, position = [], 0
    for line in lines:
        offsets.append(position)
        position += len(line) + 1
    blocks: list[Block] = []
    consumed: set[int] = set()
    attempts = 0
    i = 0
    while i < len(lines) and attempts < _JSON_ATTEMPTS:
        body = lines[i].lstrip()
        if not body or body[0] not in "[{":
            i += 1
            continue
        attempts += 1
        start = offsets[i] + len(lines[i]) - len(body)
        try:
            value, end = _DECODER.raw_decode(joined, start)
        except (ValueError, RecursionError):
            i += 1
            continue
        last = joined.count("\n", start, end) + i
        rest_of_line = joined[end:offsets[last] + len(lines[last])]
        block = _json_block(value, i + 1, names) if not rest_of_line.strip() else None
        if block is None:
            i += 1
            continue
        previous = blocks[-1] if blocks else None
        if (  # one JSON object per line: one table
            previous is not None
            and isinstance(value, dict)
            and previous.lines and previous.lines[-1] == i
            and len(block.rows) == 1
        ):
            append_record(previous, block, i + 1)
        else:
            if isinstance(value, dict) and len(block.rows) == 1:
                block.lines = [i + 1]
            blocks.append(block)
        consumed.update(range(i, last + 1))
        i = last + 1
    return blocks, consumed


def append_record(table: Block, record: Block, line: int) -> None:
    header = table.header or []
    for name in record.header or []:
        if name not in header:
            header.append(name)
            for row in table.rows:
                row.append("")
    position = {name: p for p, name in enumerate(header)}
    row = [""] * len(header)
    for name, cell in zip(record.header or [], record.rows[0]):
        row[position[name]] = cell
    table.header = header
    table.rows.append(row)
    table.lines.append(line)


def _boundary(token: str, separator: str) -> int:
    """Position of the separator that ends a record inside ``token`` (-1 if none).

    The cell where one record ends and the next begins holds the separator; when it holds
    several (``Organics, Other,12030105``), the one written as a joint is preferred: not a
    thousands separator (``1,234``) and not followed by a space (cells such as ``Organics,
    Other`` or ``HOLDINGS, INC.`` put a space after their own comma; the release joins records
    "with commas and no spaces"). A lone separator is the joint whatever it looks like
    (``583,137`` ends one record at ``583``).

    Examples
    --------
    >>> _boundary("583,137", ","), _boundary("Organics, Other,12030105", ","), _boundary("abc", ",")
    (3, 15, -1)
    """
    found = [i for i, ch in enumerate(token) if ch == separator]
    if len(found) <= 1:
        return found[0] if found else -1

    def looks_inner(i: int) -> tuple[bool, bool]:
        after = token[i + 1:i + 5]
        thousands = (
            separator == ","
            and i > 0
            and token[i - 1].isdigit()
            and after[:3].isdigit()
            and len(after[:3]) == 3
            and not after[3:4].isdigit()
        )
        return token[i + 1:i + 2].isspace(), thousands

    return min(found, key=lambda i: (looks_inner(i), i))


def _records(body: str, separator: str, width: int) -> tuple[list[list[str]], str]:
    """Split a pipe line of one or more records; returns rows and an issue ("" if none)."""
    body = body.rstrip(separator + " ")
    if separator not in body:
        return [split_pipe(body)], ""
    pieces = [p.strip() for p in body.split(separator)]
    split = [split_pipe(p) for p in pieces if p]
    if all(len(cells) == width for cells in split):
        return split, ""
    cells = split_pipe(body)
    n = len(cells)
    if width >= 2 and n > width and (n - 1) % (width - 1) == 0:
        rows, current = [], [cells[0]]
        for i in range(1, n):
            if i % (width - 1) == 0 and i < n - 1:
                cut = _boundary(cells[i], separator)
                if cut < 0:
                    break
                current.append(cells[i][:cut].strip())
                rows.append(current)
                current = [cells[i][cut + 1:].strip()]
            else:
                current.append(cells[i])
        else:
            rows.append(current)
            return rows, ""
    if len(cells) <= width:
        return [cells], ""
    kept = [cells for p, cells in zip([p for p in pieces if p], split) if "|" in p]
    return kept, f"records split on every {separator!r} (cells did not line up in records of {width})"


def _unasked_records(body: str, width: int) -> tuple[list[list[str]], str]:
    """Records written on one line although one per line was asked: split where the width says.

    A pipe line of ``r * width - (r - 1)`` cells whose every record-ending cell holds the same
    separator (``,`` or ``;``) is ``r`` records (``a|1,b|2`` for a two-column schema); any
    other line is one row, as before.

    Examples
    --------
    >>> _unasked_records("a|1,b|2;c|3", 2)[0]  # two separators: left as one row
    [['a', '1,b', '2;c', '3']]
    >>> _unasked_records("a|x, y|1;b|z|2", 3)
    ([['a', 'x, y', '1'], ['b', 'z', '2']], "records on one line split at ';' by the schema's width")
    """
    cells = split_pipe(body)
    n = len(cells)
    if width < 2 or n <= width or (n - 1) % (width - 1):
        return [cells], ""
    ends = range(width - 1, n - 1, width - 1)

    def tight(separator: str) -> bool:  # every record-ending cell holds it written as a joint (no space after)
        return all(re.search(re.escape(separator) + r"(?!\s)", cells[i]) for i in ends)

    for separator in sorted(RECORD_SEPARATORS, key=lambda sep: not tight(sep)):
        if all(separator in cells[i] for i in ends):
            rows, _ = _records(body, separator, width)
            if all(len(r) == width for r in rows):
                return rows, f"records on one line split at {separator!r} by the schema's width"
    return [cells], ""


def _is_rule(cells: list[str]) -> bool:
    """A Markdown delimiter row: every cell dashes (any number), with optional colons."""
    return all(_SHORT_RULE.fullmatch(c.strip()) for c in cells)


class _Cutter:
    """Appends rows to the current block, opening a new block at a header."""

    def __init__(self, schema: Schema, names: dict[str, int]) -> None:
        self.names = names
        self.schema_names = [normalize_name(c) for c in schema.columns]
        self.blocks: list[Block] = []
        self.current: Block | None = None

    def start(self, kind: str, number: int) -> Block:
        block = self.current = Block(kind=kind, start=number, run=kind, loose=kind == "csv")
        self.blocks.append(block)
        return block

    def add(self, cells: list[str], number: int) -> None:
        block = self.current
        if block.rows and self._repeats_schema(cells):
            block = self.current = Block(kind=block.kind, start=number, run=block.run, loose=block.loose)
            self.blocks.append(block)
        block.rows.append(cells)
        block.lines.append(number)

    def _repeats_schema(self, cells: list[str]) -> bool:
        names = self.schema_names
        if len(cells) != len(names) or normalize_name(cells[0]) != names[0]:
            return False
        return [normalize_name(clean_cell(c)) for c in cells] == names

    def add_pipe(self, cells: list[str], number: int) -> None:
        """A pipe row; an alignment row marks a header and may start a new block.

        The row above an alignment row of the same width (and not itself made of
        dashes) is a header when it is the block's first row, or when its names
        match the schema (it then starts a new block). Otherwise an alignment row
        of three dashes or more is skipped, and a shorter one (``-|-``) is a data
        row, as strict does.
        """
        block = self.current
        if "-" in cells[0] and _is_rule(cells):
            above = block.rows[-1] if block.rows else None
            if above is not None and len(above) == len(cells) and not _is_rule(above):  # the delimiter row
                if block.header is None and len(block.rows) == 1:
                    block.header = block.rows.pop()
                    block.lines.pop()
                    return
                if is_header(above, self.names):
                    new = Block(kind=block.kind, start=block.lines[-1], run=block.run, header=block.rows.pop())
                    block.lines.pop()
                    self.blocks.append(new)
                    self.current = new
                    return
            if is_alignment(cells):
                return
        self.add(cells, number)


def line_blocks(
    lines: list[str], consumed: set[int], schema: Schema, names: dict[str, int], issues: list[str]
) -> tuple[list[Block], list[int], list[int], int]:
    """Runs of pipe / TSV / comma lines, the prose and ``NONE`` line numbers, the count of content lines.

    Lines in ``consumed`` (read as HTML or JSON) end a run and are skipped;
    issues about records on one line are appended to ``issues``.

    Examples
    --------
    >>> schema = Schema(columns=("id", "n"), row_key=("id",))
    >>> text = "id,n\\na,1\\nNote: next is provisional\\nb,2\\nid|n\\nc|3"
    >>> blocks, prose, nones, content = line_blocks(text.splitlines(), set(), schema, {"id": 0, "n": 1}, [])
    >>> [(b.kind, b.rows) for b in blocks], prose
    ([('csv', [['id', 'n'], ['a', '1']]), ('csv', [['b', '2']]), ('pipe', [['id', 'n'], ['c', '3']])], [3])
    """
    width = len(schema.columns)
    separator = schema.record_separator if schema.record_separator in RECORD_SEPARATORS else None
    cutter = _Cutter(schema, names)
    prose: list[int] = []
    nones: list[int] = []
    content = 0
    for index, line in enumerate(lines):
        if index in consumed:
            cutter.current = None
            continue
        body = line.strip()
        if not body:
            continue
        if body.startswith(_FENCES):
            cutter.current = None
            continue
        content += 1
        number = index + 1
        if "|" in body:
            kind = "pipe"
        elif "\t" in line:
            kind = "tsv"
        elif "," in body or (separator and width == 1 and separator in body):
            kind = "csv"
        else:
            cutter.current = None
            (nones if is_none(body) else prose).append(number)
            continue
        if kind == "csv" and not (separator and width == 1 and "|" not in body):
            try:
                cells = next(csv.reader([line]))
            except (csv.Error, StopIteration):
                cutter.current = None
                prose.append(number)
                continue
        block = cutter.current
        if block is None or block.run != kind:
            block = cutter.start(kind, number)
        if kind == "pipe":
            if separator:
                rows, issue = _records(body, separator, width)
                if len(rows) == 1 and len(rows[0]) > width:  # records joined by the other separator
                    rows, issue = _unasked_records(body, width)
                if issue:
                    issues.append(f"line {number}: {issue}")
                if len(rows) > 1:
                    block.kind = "records"
            else:
                rows, issue = _unasked_records(body, width)
                if issue:
                    issues.append(f"line {number}: {issue}")
                    block.kind = "records"
            for cells in rows:
                cutter.add_pipe(cells, number)
        elif kind == "tsv":
            cutter.add(line.split("\t"), number)
        elif separator and width == 1 and "|" not in body:  # one-column records on a line
            block.kind, block.loose = "records", True
            for cell in body.rstrip(separator).split(separator):
                block.rows.append([cell.strip()])
                block.lines.append(number)
        else:
            cutter.add(cells, number)
    return cutter.blocks, prose, nones, content
