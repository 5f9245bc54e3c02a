"""Table blocks found in answer text, and the markup formats: HTML ``<table>`` and JSON.

Used by :mod:`sgr_kit.parse.paper`: a :class:`Block` is a candidate table before
header detection. This module reads the two markup formats into blocks; the
line formats (pipe, TAB, comma, records) are cut in :mod:`sgr_kit.parse.paper`.
"""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass, field
from html.parser import HTMLParser

__all__ = ["Block", "normalize_name", "html_blocks", "json_blocks"]

_JSON_ATTEMPTS = 200
_DECODER = json.JSONDecoder(parse_float=str, parse_int=str, parse_constant=str)

def normalize_name(name: str) -> str:
    """A column name as compared with header cells: case-folded, letters and digits only.

    Examples
    --------
    >>> normalize_name("**Predecessor ID**"), normalize_name("dissolved_oxygen (mg/L)")
    ('predecessorid', 'dissolvedoxygenmgl')
    """
    return "".join(ch for ch in unicodedata.normalize("NFKC", name).casefold() if ch.isalnum())


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
