"""Reading a scores table back (sgr_kit.load.scores): every problem names the file, the line or column, and what was expected."""

from __future__ import annotations

import pandas as pd
import pytest

from sgr_kit.errors import SgrKitError
from sgr_kit.load import load_scores, read_table

HEADER = "system,task_id,variant,repeat,status,item_f1,row_f1,poa,reason,synthetic"
GOOD = "A,t_001,constraint,0,parsed,0.5,1,1,,False"


def write(tmp_path, *lines, name="scores.csv"):
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_good_table_reads_back_typed(tmp_path):
    path = write(tmp_path, HEADER, GOOD, "NA,t_001-g,goal,1,parse_failure,,,,no table found: NA,True")
    table = load_scores(path)
    assert table["system"].tolist() == ["A", "NA"]  # "NA" is a name, not a missing value
    assert table["reason"].tolist() == ["", "no table found: NA"]
    assert table["synthetic"].tolist() == [False, True]
    assert table["item_f1"].isna().tolist() == [False, True]


def test_an_unclosed_quote_names_the_line_where_it_opens(tmp_path):
    path = write(tmp_path, HEADER, GOOD, 'B,t_001,constraint,0,parsed,0.5,1,1,"no table,False', GOOD)
    with pytest.raises(SgrKitError, match=r"scores\.csv:3: not valid CSV: a quoted field opened on this line is never closed"):
        load_scores(path)


def test_a_record_of_another_width_names_its_line(tmp_path):
    path = write(tmp_path, HEADER, GOOD, GOOD + ",extra")
    with pytest.raises(SgrKitError, match=r"scores\.csv:3: 11 fields; expected 10, as in the header \(line 1\)"):
        load_scores(path)


def test_a_corrupt_parquet_file_is_an_error(tmp_path):
    path = tmp_path / "scores.parquet"
    path.write_bytes(b"PAR1 this is not parquet")
    with pytest.raises(SgrKitError, match=r"scores file .*scores\.parquet: not a readable parquet file"):
        load_scores(path)


def test_a_non_numeric_metric_names_line_column_and_value(tmp_path):
    path = write(tmp_path, HEADER, GOOD, "B,t_001,constraint,0,parsed,high,1,1,,False")
    with pytest.raises(SgrKitError, match=r"scores\.csv:3: column 'item_f1' holds 'high'; expected a number in \[0, 1\]"):
        load_scores(path)


def test_a_metric_outside_the_unit_interval_is_an_error(tmp_path):
    path = write(tmp_path, HEADER, "B,t_001,constraint,0,parsed,0.5,47.39,1,,False")
    with pytest.raises(SgrKitError, match=r"scores\.csv:2: column 'row_f1' holds 47\.39; expected a fraction in \[0, 1\]"):
        load_scores(path)


@pytest.mark.parametrize(("row", "message"), [
    ("B,t_001,constraint,0,done,0.5,1,1,,False", r"column 'status' holds 'done'; expected one of parsed, empty"),
    ("B,t_001,both,0,parsed,0.5,1,1,,False", r"column 'variant' holds 'both'; expected one of constraint, goal"),
    ("B,t_001,constraint,-1,parsed,0.5,1,1,,False", r"column 'repeat' holds '-1'; expected an integer >= 0"),
    (",t_001,constraint,0,parsed,0.5,1,1,,False", r"column 'system' is empty; expected a name"),
    ("B,t_001,constraint,0,parsed,0.5,1,1,,maybe", r"column 'synthetic' holds 'maybe'; expected True or False"),
])  # fmt: skip
def test_values_a_scores_table_cannot_hold(tmp_path, row, message):
    with pytest.raises(SgrKitError, match=r"scores\.csv:3: " + message):
        load_scores(write(tmp_path, HEADER, GOOD, row))


def test_multiline_reasons_keep_line_numbers(tmp_path):
    path = write(tmp_path, HEADER, 'B,t_001,constraint,0,parsed,0.5,1,1,"a\nb",False', "C,t_001,constraint,0,parsed,x,1,1,,False")
    with pytest.raises(SgrKitError, match=r"scores\.csv:4: column 'item_f1' holds 'x'"):
        load_scores(path)


def test_parquet_rows_are_named_by_number(tmp_path):
    frame = pd.DataFrame({"system": ["A", "B"], "task_id": ["t", "t"], "variant": ["goal", "goal"], "repeat": [0, 0],
                          "status": ["parsed", "parsed"], "item_f1": [0.5, 2.0], "row_f1": [0.0, 0.0], "poa": [0.0, 0.0]})
    frame.to_parquet(tmp_path / "s.parquet")
    with pytest.raises(SgrKitError, match=r"s\.parquet, row 2: column 'item_f1' holds 2\.0; expected a fraction"):
        load_scores(tmp_path / "s.parquet")


def test_undecodable_and_empty_files(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_bytes(HEADER.encode() + b"\nA,\xff\xfe,constraint\n")
    with pytest.raises(SgrKitError, match=r"bad\.csv:2: not UTF-8 text"):
        load_scores(bad)
    empty = write(tmp_path, "", name="empty.csv")
    with pytest.raises(SgrKitError, match=r"scores file .*empty\.csv is empty; expected a header line and rows"):
        load_scores(empty)
    with pytest.raises(SgrKitError, match=r"audit file .*nope\.csv does not exist"):
        read_table(tmp_path / "nope.csv", what="audit file")


def test_a_table_without_a_language_column_is_english_and_languages_are_checked(tmp_path):
    assert load_scores(write(tmp_path, HEADER, GOOD))["language"].tolist() == ["en"]
    path = write(tmp_path, HEADER + ",language", GOOD + ",zh", GOOD.replace("A,", "B,", 1) + ",EN", name="two.csv")
    assert load_scores(path)["language"].tolist() == ["zh", "en"]
    bad = write(tmp_path, HEADER + ",language", GOOD + ",fr", name="bad.csv")
    with pytest.raises(SgrKitError, match=r"bad\.csv:2: column 'language' holds 'fr'; expected one of en, zh"):
        load_scores(bad)


def test_by_language_keeps_two_languages_apart_and_leaves_one_alone():
    from sgr_kit.load.scores import by_language

    scores = pd.DataFrame({"system": ["A", "A"], "task_id": ["t_001", "t_001"], "language": ["en", "zh"]})
    cells = pd.DataFrame({"system": ["A", "A"], "task_id": ["t_001", "t_001"], "language": ["zh", None]})
    labelled, labelled_cells = by_language(scores, cells)
    assert labelled["system"].tolist() == ["A [en]", "A [zh]"]
    assert labelled_cells["system"].tolist() == ["A [zh]", "A [en]"]  # cells without a language are English
    same, same_cells = by_language(scores.iloc[:1], cells)
    assert same["system"].tolist() == ["A"] and same_cells is cells
