"""Answer formats of the demo (sgr_kit.demo.render), read back by the paper-profile parser."""

from __future__ import annotations

from random import Random

import pytest

from sgr_kit.demo.render import FORMATS, TABLE_FORMATS, render
from sgr_kit.parse import parse_answer
from sgr_kit.types import Schema

NAMES = ["id", "date", "value", "label"]
ROWS = [["A-1", "2020-01-02", "12.50", "Closed with explanation"],
        ["B-2", "2021-03-04", "7", "In progress, pending"],
        ["C-3", "2022-05-06", "0.125", "x \"quoted\""]]
SCHEMA = Schema(columns=tuple(NAMES), row_key=("id",))


@pytest.mark.parametrize("fmt", TABLE_FORMATS)
def test_table_formats_round_trip_through_the_paper_parser(fmt):
    text = render(ROWS, NAMES, fmt, Random(0))
    parsed = parse_answer(text, SCHEMA, profile="paper")
    assert parsed.status == "parsed"
    assert [list(r[: len(NAMES)]) for r in parsed.rows] == ROWS


@pytest.mark.parametrize("fmt, status", [("none", "empty"), ("prose", "parse_failure"),
                                         ("header_only", "parse_failure")])
def test_empty_and_unparseable_texts(fmt, status):
    text = render(ROWS, NAMES, fmt, Random(1))
    assert parse_answer(text, SCHEMA, profile="paper").status == status


def test_prose_has_no_table_punctuation():
    for seed in range(20):
        for fmt in ("prose", "markdown_prose", "fenced"):
            text = render(ROWS, NAMES, fmt, Random(seed))
            prose = [line for line in text.splitlines() if line and "|" not in line and not line.startswith("```")]
            assert all("," not in line and "\t" not in line for line in prose)


def test_unknown_format():
    assert "json" in FORMATS
    with pytest.raises(ValueError, match="unknown answer format 'xml'"):
        render(ROWS, NAMES, "xml", Random(0))
