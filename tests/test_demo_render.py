"""Answer formats of the demo (sgr_kit.demo.render), read back by the paper-profile parser."""

from __future__ import annotations

from random import Random

import pytest

from sgr_kit.demo.render import FORMATS, TABLE_FORMATS, render
from sgr_kit.parse import parse_answer
from sgr_kit.prepare.tasks import build_schema

NAMES = ["id", "date", "label", "value"]
SPELLED = ["ID", "sampling date", "group label", "value"]  # the task's own spelling
# a cell holding `,` (and `;`) sits inside a record, as in the demo's tasks
ROWS = [["A-1", "2020-01-02", "Closed, with explanation", "12.50"],
        ["B-2", "2021-03-04", "In progress, pending; late", "7"],
        ["C-3", "2022-05-06", "x \"quoted\"; y", "0.125"]]


def _rows(separator: str, composite: bool) -> list[list[str]]:
    """The rows of a layout: every layout, composite ones on one line too, holds separators in cells."""
    return ROWS


def _schema(separator: str, composite: bool, header: bool = True):
    """The schema of a release-format task with this layout, as the package's loader builds it."""
    cells = [f"<{s}>" for s in (NAMES if composite else SPELLED)]  # a composite template names the schema
    template = "|".join([f"{cells[0]}:{cells[1]}", *cells[2:]] if composite else cells)
    records = ["|".join([f"{r[0]}:{r[1]}", *r[2:]] if composite else r) for r in _rows(separator, composite)]
    reference = separator.join(records)
    if header and separator == "\n" and not composite:  # the reference's header: the task's spelling
        reference = "|".join(SPELLED) + "\n" + reference
    rubric = {"normalization": {"schema": NAMES, "field_separator": "|", "record_separator": separator}}
    return build_schema(rubric, reference=reference, output_format=f"Each record formatted as {template}.",
                        cardinality=len(ROWS), loc="test")


LAYOUTS = [("\n", False), (",", False), (";", False), ("\n", True), (",", True)]


@pytest.mark.parametrize("separator, composite", LAYOUTS)
@pytest.mark.parametrize("fmt", TABLE_FORMATS)
def test_table_formats_round_trip_through_the_paper_parser(fmt, separator, composite):
    schema = _schema(separator, composite)
    # headers in the task's spelling (its template's words, whether or not the reference has a header)
    spelled = SPELLED if not composite else None
    rows = _rows(separator, composite)
    text = render(rows, NAMES, fmt, Random(0), spellings=spelled, composite=composite, separator=separator)
    parsed = parse_answer(text, schema, profile="paper")
    assert parsed.status == "parsed", text
    assert [list(r[: len(NAMES)]) for r in parsed.rows] == rows, text


def test_layouts_of_the_records():
    one = render(ROWS, NAMES, "one_line", Random(0), separator=",")
    assert "\n" not in one and one.count("|") == 9 and one.startswith("A-1|2020-01-02|Closed, with explanation|12.50,")
    assert render(ROWS, NAMES, "one_line", Random(0)).count(";") == 4  # a task asking for lines: `;`
    lines = render(ROWS, NAMES, "pipe_rows", Random(0), composite=True)
    assert lines.splitlines()[0] == "A-1:2020-01-02|Closed, with explanation|12.50"
    header = render(ROWS, NAMES, "pipe", Random(0), spellings=SPELLED, composite=True).splitlines()[0]
    assert header == "ID:sampling date|group label|value"  # the composite cell's header, as the template
    spellings = {render(ROWS, NAMES, "markdown", Random(s), spellings=SPELLED).splitlines()[0] for s in range(20)}
    assert spellings == {"| ID | sampling date | group label | value |", "| id | date | label | value |"}


@pytest.mark.parametrize("fmt, status", [("none", "empty"), ("prose", "parse_failure"),
                                         ("header_only", "parse_failure")])
def test_empty_and_unparseable_texts(fmt, status):
    text = render(ROWS, NAMES, fmt, Random(1))
    assert parse_answer(text, _schema("\n", False), profile="paper").status == status


def test_prose_has_no_table_punctuation():
    for seed in range(20):
        for fmt in ("prose", "markdown_prose", "fenced"):
            text = render(ROWS, NAMES, fmt, Random(seed))
            prose = [line for line in text.splitlines() if line and "|" not in line and not line.startswith("```")]
            assert all("," not in line and "\t" not in line for line in prose)


def test_unknown_format():
    assert "json" in FORMATS and "one_line" in TABLE_FORMATS
    with pytest.raises(ValueError, match="unknown answer format 'xml'"):
        render(ROWS, NAMES, "xml", Random(0))
