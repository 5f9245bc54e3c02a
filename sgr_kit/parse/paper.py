"""Tolerant answer parsing: the ``paper`` profile.

A superset of the strict line parser (:mod:`sgr_kit.parse.strict`): a plain
pipe table gives the same rows, and more answers become tables.

1. The text is cut into candidate tables: JSON values (a list of objects keyed
   by column names, a list of lists, or an object holding such a list; also one
   object per line), HTML ``<table>`` elements, and runs of pipe lines, of TAB
   lines and of comma lines. Blank lines do not end a run; a prose line, a fence
   line (three backticks or tildes) or a line of another kind does, and so does
   a new Markdown header (a row followed by an alignment row ``|---|``).
2. A table's header is its alignment-marked first row, its ``<th>`` row or JSON
   keys, or else its first row when that row's names match the schema (names
   compared ignoring case, spaces, underscores and punctuation; a majority of the
   row's non-empty cells must name schema columns). Repeats of the header, and
   lines equal to the schema's column names, are skipped. Cells are mapped to
   schema columns by name: missing columns give empty cells, unknown columns are
   appended as extra cells (``extra_columns``). In a header of the schema's
   width, a cell naming no column keeps its position when that position's column
   is named nowhere else; a header naming no column at all (known only from its
   alignment row or markup) maps by position.
3. A table without a header is taken by position. Comma lines without a header
   are a table only when every row has exactly the schema's width and there are
   two rows or more, or the lines are the whole answer (so prose with commas is
   not read as a row).
4. The table scored is the one with data rows whose header names the most
   schema columns, then with the most well-formed rows (width of its header, or
   of the schema); ties go to the first. ``table`` and ``issues`` record it.
5. With a ``record_separator``, a pipe line holding several records
   (``a|1, b|2``) is split into records: on every separator when each piece
   then has the schema's width (as strict does), else at the cells where one
   record ends and the next begins (a ``,`` inside a number such as ``1,234`` is
   not a separator there).
6. ``NONE`` (any case) alone, in emphasis or a fence, after a header line, as a
   one-cell row, or beside prose, with no data row anywhere, is the empty answer;
   so is an empty JSON list. No data row otherwise is a ``parse_failure`` whose
   reason says what was seen.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass

from ..canonicalize.strict import clean_cell
from ..errors import SgrKitError
from ..types import ParsedTable, Schema
from .blocks import Block, html_blocks, json_blocks, normalize_name
from .strict import RECORD_SEPARATORS

__all__ = ["parse_paper", "normalize_name"]  # normalize_name re-exported from .blocks

_SHOWN = 10
_FENCES = ("```", "~~~")


@dataclass
class _Candidate:
    block: Block
    rows: list[tuple[str, ...]]
    lines: list[int]
    header: tuple[str, ...] | None
    extra: tuple[str, ...]
    matched: int
    fit: int
    issues: list[str]


def _split_pipe(body: str) -> list[str]:
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|"):
        body = body[:-1]
    if "\\|" not in body:
        return [c.strip() for c in body.split("|")]
    cells, current, previous = [], [], ""
    for ch in body:
        if ch == "|" and previous != "\\":
            cells.append("".join(current))
            current = []
        else:
            current.append(ch)
        previous = ch
    cells.append("".join(current))
    return [c.strip().replace("\\|", "|") for c in cells]


def _is_rule(cell: str, minimum: int) -> bool:
    cell = cell.strip()
    if cell.startswith(":"):
        cell = cell[1:]
    if cell.endswith(":"):
        cell = cell[:-1]
    return len(cell) >= minimum and cell == "-" * len(cell)


def _is_alignment(cells: list[str], minimum: int = 3) -> bool:
    return all(_is_rule(c, minimum) for c in cells)


def _is_none(text: str) -> bool:
    return text.strip().strip("*_`~ ").rstrip(".").strip("*_`~ ").casefold() == "none"


def _boundary(token: str, separator: str) -> int:
    """Position of the separator that ends a record inside ``token`` (-1 if none)."""
    start = 0
    while True:
        i = token.find(separator, start)
        if i < 0:
            return -1
        after = token[i + 1:i + 5]
        thousands = (
            separator == ","
            and i > 0
            and token[i - 1].isdigit()
            and after[:3].isdigit()
            and len(after[:3]) == 3
            and not after[3:4].isdigit()
        )
        if not thousands:
            return i
        start = i + 1


def _records(body: str, separator: str, width: int) -> tuple[list[list[str]], str]:
    """Split a pipe line of one or more records; returns rows and an issue ("" if none)."""
    body = body.rstrip(separator + " ")
    if separator not in body:
        return [_split_pipe(body)], ""
    pieces = [p.strip() for p in body.split(separator)]
    split = [_split_pipe(p) for p in pieces if p]
    if all(len(cells) == width for cells in split):
        return split, ""
    cells = _split_pipe(body)
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


def _line_blocks(
    lines: list[str], consumed: set[int], schema: Schema, names: dict[str, int], issues: list[str]
) -> tuple[list[Block], list[int], list[int], int]:
    """Runs of pipe / TSV / comma lines; also the prose and ``NONE`` line numbers."""
    width = len(schema.columns)
    separator = schema.record_separator if schema.record_separator in RECORD_SEPARATORS else None
    blocks: list[Block] = []
    prose: list[int] = []
    nones: list[int] = []
    content = 0
    current: Block | None = None
    for index, line in enumerate(lines):
        if index in consumed:
            current = None
            continue
        body = line.strip()
        if not body:
            continue
        if body.startswith(_FENCES):
            current = None
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
            current = None
            (nones if _is_none(body) else prose).append(number)
            continue
        if current is None or current.run != kind:
            current = Block(kind=kind, start=number, run=kind, loose=kind == "csv")
            blocks.append(current)
        if kind == "pipe":
            if separator:
                rows, issue = _records(body, separator, width)
                if issue:
                    issues.append(f"line {number}: {issue}")
                if len(rows) > 1:
                    current.kind = "records"
            else:
                rows = [_split_pipe(body)]
            for cells in rows:
                current = _add_pipe_row(blocks, current, cells, number, names)
        elif kind == "tsv":
            current.rows.append(line.split("\t"))
            current.lines.append(number)
        elif separator and width == 1 and "|" not in body:  # one-column records on a line
            current.kind, current.loose = "records", True
            for cell in body.rstrip(separator).split(separator):
                current.rows.append([cell.strip()])
                current.lines.append(number)
        else:
            try:
                cells = next(csv.reader([line]))
            except (csv.Error, StopIteration):
                current = None
                prose.append(number)
                continue
            current.rows.append(cells)
            current.lines.append(number)
    return blocks, prose, nones, content


def _add_pipe_row(
    blocks: list[Block], block: Block, cells: list[str], number: int, names: dict[str, int]
) -> Block:
    """Append a pipe row; an alignment row marks a header and may start a new table.

    The row above an alignment row is a header when it is the table's first row,
    or when its names match the schema (it then starts a new table); otherwise
    the alignment row is only skipped, as strict does.
    """
    if "-" in cells[0] and _is_alignment(cells, 1):
        if block.rows and block.header is None and len(block.rows) == 1:
            block.header = block.rows.pop()
            block.lines.pop()
            return block
        if block.rows:
            _, found, nonempty = _header_match(block.rows[-1], names)
            if found and 2 * found > nonempty:
                new = Block(kind=block.kind, start=block.lines[-1], run=block.run, header=block.rows.pop())
                block.lines.pop()
                blocks.append(new)
                return new
        if _is_alignment(cells) or not block.rows:
            return block
    block.rows.append(cells)
    block.lines.append(number)
    return block


def _header_match(cells: list[str], names: dict[str, int]) -> tuple[list[str], int, int]:
    normal = [normalize_name(clean_cell(c)) for c in cells]
    found = {names[n] for n in normal if n in names}
    return normal, len(found), sum(1 for n in normal if n)


def _evaluate(block: Block, schema: Schema, names: dict[str, int]) -> _Candidate:
    """Find the block's header, map its rows to the schema's columns."""
    width = len(schema.columns)
    rows, lines = block.rows, block.lines
    issues = list(block.issues)
    header = block.header
    matched = 0
    normal: list[str] = []
    if header is not None:
        normal, matched, _ = _header_match(header, names)
    elif rows:
        normal, found, nonempty = _header_match(rows[0], names)
        if found and 2 * found > nonempty:
            header, matched = rows[0], found
            rows, lines = rows[1:], lines[1:]
        else:
            normal = []
    exact = [c.casefold() for c in schema.columns]
    if header is not None and matched:
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
        identity = assign == list(range(width))
    else:
        assign, identity = [], True
        if header is not None:
            issues.append("header names no schema column: cells taken by position")
    out_rows, out_lines, fit = [], [], 0
    expected = len(header) if header is not None and not identity else width
    extra = tuple(clean_cell(header[i]) for i, j in enumerate(assign) if j < 0) if not identity else ()
    for cells, number in zip(rows, lines):
        if not cells:  # e.g. an empty JSON object
            continue
        if normal and len(cells) == len(normal) and normalize_name(cells[0]) == normal[0]:
            if [normalize_name(c) for c in cells] == normal:
                continue  # a repeated header
        if len(cells) == width and clean_cell(cells[0]).casefold() == exact[0]:
            if [clean_cell(c).casefold() for c in cells] == exact:
                continue  # the schema's header line (strict rule 5)
        if sum(1 for c in cells if c.strip()) == 1 and _is_none(next(c for c in cells if c.strip())):
            block.none_rows += 1
            continue
        if len(cells) == expected:
            fit += 1
        else:
            where = f"line {number}: " if number else f"row {len(out_rows) + 1}: "
            issues.append(f"{where}wrong_width ({len(cells)} cells, expected {expected})")
        if identity:
            out_rows.append(tuple(cells))
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
            out_rows.append(tuple(mapped + extras))
        out_lines.append(number)
    if header is not None and not identity:
        missing = [schema.columns[j] for j in range(width) if j not in assign]
        if [j for j in assign if j >= 0] != sorted(j for j in assign if j >= 0):
            issues.append("header columns in another order: cells mapped by name")
        if missing:
            issues.append(f"columns missing from the answer (empty cells): {', '.join(missing)}")
        if extra:
            issues.append(f"columns not in the schema (extra cells): {', '.join(extra)}")
    return _Candidate(
        block=block,
        rows=out_rows,
        lines=out_lines,
        header=tuple(header) if header is not None else None,
        extra=extra,
        matched=matched,
        fit=fit,
        issues=issues,
    )


def _acceptable(candidate: _Candidate, width: int, content: int) -> bool:
    """Comma lines without a header must look like a table, not prose with commas."""
    block = candidate.block
    if not block.loose or candidate.header is not None:
        return True
    whole = len(set(block.lines)) == content
    if block.kind == "records":
        return whole
    rows = candidate.rows
    if not rows or any(len(r) != width for r in rows):
        return False
    # one line that ends like a sentence is prose, even with the right number of commas
    return len(rows) >= 2 or whole and not rows[0][-1].rstrip().endswith((".", "!", "?", ":"))


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
    >>> parse_paper('[{"id": 1, "name": "a", "note": "x"}]', schema).rows
    (('1', 'a', 'x'),)
    >>> parse_paper("id|name\\n**NONE**", schema).status
    'empty'
    >>> parse_paper("I could not find it.", schema).reason
    'no table found: 1 line of prose'
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

    width = len(schema.columns)
    names: dict[str, int] = {}
    for j, column in enumerate(schema.columns):
        names.setdefault(normalize_name(column), j)
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
    line_blocks, prose, nones, content = _line_blocks(lines, consumed, schema, names, issues)
    blocks += line_blocks
    blocks.sort(key=lambda b: b.start)

    candidates = [_evaluate(b, schema, names) for b in blocks]
    accepted = [c for c in candidates if _acceptable(c, width, content)]
    rejected = [c for c in candidates if not _acceptable(c, width, content)]
    none_rows = sum(c.block.none_rows for c in candidates)
    with_rows = [c for c in accepted if c.rows]
    if with_rows:
        best = max(with_rows, key=lambda c: (c.matched, c.fit, -accepted.index(c)))
        index = accepted.index(best)
        if len(accepted) > 1:
            issues.append(
                f"table {index + 1} of {len(accepted)} scored ({best.block.kind}, "
                f"header names {best.matched} of {width} columns, {len(best.rows)} rows)"
            )
        ignored = prose + [n for c in rejected for n in c.block.lines]
        if ignored:
            issues.append(f"ignored {len(ignored)} line(s) of prose: {_numbers(sorted(ignored))}")
        if nones or none_rows:
            issues.append("a NONE line was ignored: the answer also has a table")
        return ParsedTable(
            status="parsed",
            rows=tuple(best.rows),
            lines=tuple(best.lines),
            issues=tuple(issues + best.issues),
            header=best.header,
            extra_columns=best.extra,
            table=index,
            format=best.block.kind,
        )

    headers = [c for c in accepted if c.header is not None]
    header = headers[0].header if headers else None
    if nones or none_rows:
        reason = "answer is NONE" + (" after a header line" if header is not None else "")
        if prose:
            issues.append(f"ignored {len(prose)} line(s) of prose: {_numbers(prose)}")
        return ParsedTable(status="empty", issues=tuple(issues), reason=reason, header=header)
    if any(c.block.kind == "json" and not c.block.rows for c in accepted):
        return ParsedTable(status="empty", issues=tuple(issues), reason="empty JSON list", format="json")
    if header is not None:
        return ParsedTable(
            status="parse_failure",
            issues=tuple(issues),
            reason="no data row: only a header line",
            header=header,
            format=headers[0].block.kind,
        )
    seen = []
    if prose:
        seen.append(f"{len(prose)} line{'s' if len(prose) > 1 else ''} of prose")
    if rejected:
        widths = sorted({len(r) for c in rejected for r in c.block.rows})
        count = sum(len(c.block.rows) for c in rejected)
        seen.append(
            f"{count} comma-separated line{'s' if count > 1 else ''} without a header, not read as a table "
            f"(widths {', '.join(map(str, widths))}; the schema has {width} columns)"
        )
    reason = "no table found" + (": " + "; ".join(seen) if seen else "")
    return ParsedTable(status="parse_failure", issues=tuple(issues), reason=reason)
