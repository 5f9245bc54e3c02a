"""The strict line parser: every parsing rule of the benchmark's own scorer.

Source of the rules: the benchmark's deterministic scorer (public repository
Ninggggy/sgr-bench-extend, ten_task_phase/runtime/score.py, ``parse``), restated
in the project's reference-scorer notes, rules 1-7 of "Parsing".
"""

from __future__ import annotations

import pytest

from sgr_kit.errors import SgrKitError
from sgr_kit.parse import parse_answer
from sgr_kit.parse.strict import parse_strict
from sgr_kit.types import Schema

SCHEMA = Schema(columns=("id", "name", "value"), row_key=("id",))


def parse(text: str, **schema_options) -> object:
    schema = Schema(columns=("id", "name", "value"), row_key=("id",), **schema_options)
    return parse_strict(text, schema)


# rule 1: empty or NONE
@pytest.mark.parametrize("text", ["", "   \n\t ", "NONE", "none", "  None \n", "\nnOnE\n"])
def test_empty_and_none_are_empty(text):
    table = parse(text)
    assert table.status == "empty"
    assert table.rows == ()
    assert table.reason in ("empty answer", "answer is NONE")


def test_none_inside_text_is_not_empty():
    table = parse("NONE\nNONE")
    assert table.status == "parse_failure"


# rule 2: record separator
@pytest.mark.parametrize("separator", [",", ";"])
def test_record_separator_splits_records_first(separator):
    table = parse(f"a|x|1{separator}b|y|2{separator} c|z|3", record_separator=separator)
    assert table.status == "parsed"
    assert table.rows == (("a", "x", "1"), ("b", "y", "2"), ("c", "z", "3"))
    assert table.lines == (1, 2, 3)


def test_record_separator_newline_is_the_default_behaviour():
    assert parse("a|x|1\nb|y|2", record_separator="\n").rows == (("a", "x", "1"), ("b", "y", "2"))


def test_unsupported_record_separator_is_an_error():
    with pytest.raises(SgrKitError, match=r"record_separator: expected one of .* found '\|'"):
        parse("a|x|1", record_separator="|")


# rule 3: lines
def test_blank_lines_and_fences_are_skipped_but_fenced_lines_parsed():
    table = parse("```text\n\na|x|1\n```\n\nb|y|2")
    assert table.rows == (("a", "x", "1"), ("b", "y", "2"))
    assert table.lines == (3, 6)
    assert table.issues == ()


def test_pipe_rows_drop_one_outer_pipe_and_trim_cells():
    table = parse("| a | x | 1 |\n||b|y|")
    assert table.rows == (("a", "x", "1"), ("", "b", "y"))


def test_escaped_pipes_stay_inside_a_cell():
    table = parse(r"| a | x \| y | 1 |")
    assert table.rows == (("a", "x | y", "1"),)


def test_tab_rows_are_split_on_tabs_without_trimming():
    table = parse("a\t x \t1")
    assert table.rows == (("a", " x ", "1"),)


def test_pipe_wins_over_tab_and_comma():
    table = parse("a|x,\ty|1")
    assert table.rows == (("a", "x,\ty", "1"),)


def test_csv_before_a_header_is_prose():
    table = parse("Here are the results, sorted by id.\na,x,1")
    assert table.status == "parse_failure"
    assert table.issues == (
        "line 1: ignored_line 'Here are the results, sorted by id.'",
        "line 2: ignored_line 'a,x,1'",
    )
    assert table.reason == "no data row: 2 line(s) of prose ignored"


def test_csv_after_a_header_is_data_with_quotes_honoured():
    table = parse('ID,Name,Value\na,"Smith, J.",1\nb,"say ""hi""",2')
    assert table.rows == (("a", "Smith, J.", "1"), ("b", 'say "hi"', "2"))
    assert table.header == ("ID", "Name", "Value")


def test_csv_after_a_pipe_header_is_data():
    assert parse("id|name|value\na,x,1").rows == (("a", "x", "1"),)


def test_prose_lines_are_ignored_and_recorded():
    table = parse("Here is the table\na|x|1\nThanks")
    assert table.rows == (("a", "x", "1"),)
    assert table.issues == ("line 1: ignored_line 'Here is the table'", "line 3: ignored_line 'Thanks'")


def test_an_unreadable_csv_line_is_ignored_not_fatal():
    # csv refuses a field above its size limit (131072 characters by default)
    table = parse("id,name,value\n" + '"' + "x" * 200_000 + '",y,z\na|x|1')
    assert table.rows == (("a", "x", "1"),)
    assert table.issues[0].startswith("line 2: ignored_line (unreadable CSV")


# rule 4: alignment rows
@pytest.mark.parametrize("rule", ["|---|---|---|", "| :--- | :---: | ---: |", "|---|", "---\t----"])
def test_alignment_rows_are_skipped(rule):
    assert parse(f"{rule}\na|x|1").rows == (("a", "x", "1"),)


def test_short_dashes_are_not_an_alignment_row():
    table = parse("|--|--|--|\na|x|1")
    assert table.rows == (("--", "--", "--"), ("a", "x", "1"))


# rule 5: header
def test_header_is_cleaned_and_case_folded():
    table = parse("| **ID** | `Name` | VALUE |\n|---|---|---|\n| a | x | 1 |")
    assert table.rows == (("a", "x", "1"),)
    assert table.header == ("**ID**", "`Name`", "VALUE")


def test_header_in_another_order_is_a_data_row():
    table = parse("name|id|value\na|x|1")
    assert table.rows == (("name", "id", "value"), ("a", "x", "1"))
    assert table.header is None


def test_repeated_header_lines_are_all_skipped():
    assert parse("id|name|value\na|x|1\nid|name|value\nb|y|2").rows == (("a", "x", "1"), ("b", "y", "2"))


# rule 6: everything else is kept
def test_duplicates_and_wrong_widths_are_kept_and_recorded():
    table = parse("a|x|1\na|x|1\nb|y\nc|z|3|extra")
    assert table.rows == (("a", "x", "1"), ("a", "x", "1"), ("b", "y"), ("c", "z", "3", "extra"))
    assert table.issues == (
        "line 3: wrong_width (2 cells, expected 3)",
        "line 4: wrong_width (4 cells, expected 3)",
    )


# rule 7: status
@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("id|name|value", "no data row: only a header line"),
        ("id|name|value\nNONE", "no data row: only a header line"),
        ("| id | name | value |\n|---|---|---|", "no data row: only a header line"),
        ("I could not find any result.", "no data row: 1 line(s) of prose ignored"),
        ("```\n```", "no data row"),
    ],
)
def test_no_data_row_is_a_parse_failure_with_a_reason(text, reason):
    table = parse(text)
    assert table.status == "parse_failure"
    assert table.rows == ()
    assert table.reason == reason


def test_parsed_tables_record_the_format_and_line_numbers():
    table = parse("intro\n\n| a | x | 1 |")
    assert (table.status, table.format, table.lines) == ("parsed", "lines", (3,))


def test_non_text_input_is_an_error():
    with pytest.raises(SgrKitError, match="answer text: expected str, found bytes"):
        parse_strict(b"a|x|1", SCHEMA)


# the public dispatcher
def test_parse_answer_strict_is_parse_strict():
    text = "Result:\n| id | name | value |\n|---|---|---|\n| a | x | 1 |\nb,y"
    assert parse_answer(text, SCHEMA, profile="strict") == parse_strict(text, SCHEMA)


def test_parse_answer_paper_profile_parses_a_plain_table():
    table = parse_answer("| id | name | value |\n|---|---|---|\n| a | x | 1 |", SCHEMA, profile="paper")
    assert table.status == "parsed"
    assert table.rows == (("a", "x", "1"),)


def test_parse_answer_rejects_an_unknown_profile():
    with pytest.raises(SgrKitError, match=r"profile must be one of 'paper', 'strict'; found 'lenient'"):
        parse_answer("a|x|1", SCHEMA, profile="lenient")


def test_parse_answer_rejects_a_non_schema():
    with pytest.raises(SgrKitError, match="expected a Schema, found tuple"):
        parse_answer("a|x|1", ("id", "name"), profile="strict")
