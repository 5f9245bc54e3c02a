"""Label files and annotation sheets: read back, and every bad input named by file and line."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sgr_kit.errors import SgrKitError
from sgr_kit.load.labels import label_code, load_labels, load_sheet
from sgr_kit.schema import ANNOTATION_LABELS, AUDIT_LABELS, ERROR_LABELS, LABEL_COLUMNS
from conftest import examples

HEADER = ",".join(LABEL_COLUMNS)


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_every_code_and_paper_name_reads_back():
    for code in ANNOTATION_LABELS:
        assert label_code(code) == code
        assert label_code(code.upper()) == code
    for code, name in ERROR_LABELS.items():
        assert label_code(name) == code
        assert label_code(f"  {name.lower()} ") == code
    assert set(ANNOTATION_LABELS) - set(AUDIT_LABELS) == {"not_analyzable"}


def test_two_files_of_two_annotators_read_into_one_table(tmp_path):
    a = _write(tmp_path, "a.csv", f"{HEADER}\nm,t1,0,ann,Correct,,2026-01-01T00:00:00+00:00\n")
    b = _write(tmp_path, "b.csv", f"{HEADER}\nm,t1,0,bob,not analyzable,\"no trace, empty\",\n")
    labels = load_labels([a, b])
    assert list(labels.columns) == [*LABEL_COLUMNS, "file", "line"]
    assert labels["label"].tolist() == ["correct", "not_analyzable"]
    assert labels["note"].tolist() == ["", "no trace, empty"]
    assert labels["repeat"].dtype == "int64"
    assert labels["file"].tolist() == [str(a), str(b)]


def test_note_and_labelled_at_may_be_absent(tmp_path):
    path = _write(tmp_path, "a.csv", "system,task_id,repeat,annotator,label\nm,t1,2,ann,scope_drift\n")
    labels = load_labels(path)
    assert labels.loc[0, "note"] == "" and labels.loc[0, "repeat"] == 2


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("system,task_id,annotator,label\nm,t1,ann,correct\n", r"a\.csv:1: label file lacks column\(s\) 'repeat'"),
        (f"{HEADER}\nm,t1,0,ann,wrong,,\n", r"a\.csv:2, column 'label': unknown label 'wrong'"),
        (f"{HEADER}\nm,t1,0,ann,correct,,\nm,t2,0,ann,correct,,\nm,t1,0,ann,scope_drift,,\n",
         r"a\.csv:4: duplicate item: annotator 'ann' labelled \(system 'm', task 't1', repeat 0\) already at line 2"),
        (f"{HEADER}\nm,t1,x,ann,correct,,\n", r"a\.csv:2: column 'repeat' should be a whole number from 0 to 2147483647; found 'x'"),
        (f"{HEADER}\nm,t1,0,,correct,,\n", r"a\.csv:2, column 'annotator': empty"),
        (f"{HEADER}\nm,t1,0,a|b,correct,,\n", r"a\.csv:2, column 'annotator': 'a\|b' is reserved"),
        (f"{HEADER}\nm,t1,0,ann,correct\n", r"a\.csv:2: expected 7 fields as in the header, found 5"),
    ],
)
def test_bad_label_files_name_file_and_line(tmp_path, text, match):
    path = _write(tmp_path, "a.csv", text)
    with pytest.raises(SgrKitError, match=match):
        load_labels(path)


def test_one_annotator_labelling_an_answer_in_two_files_is_an_error(tmp_path):
    a = _write(tmp_path, "a.csv", f"{HEADER}\nm,t1,0,ann,correct,,\n")
    b = _write(tmp_path, "b.csv", f"{HEADER}\nm,t1,0,ann,scope_drift,,\n")
    with pytest.raises(SgrKitError, match=r"b\.csv:2: duplicate item: .* already in .*a\.csv:2"):
        load_labels([a, b])


def test_missing_and_undecodable_files_are_errors(tmp_path):
    with pytest.raises(SgrKitError, match=r"label file .*nope\.csv not found"):
        load_labels(tmp_path / "nope.csv")
    bad = tmp_path / "bin.csv"
    bad.write_bytes(b"system,task_id\n\xff\xfe\n")
    with pytest.raises(SgrKitError, match=r"bin\.csv:2: not UTF-8 text .*; expected UTF-8 text"):
        load_labels(bad)


def test_sheet_reads_in_order_and_refuses_a_repeated_answer(tmp_path):
    path = _write(tmp_path, "s.csv", "system,task_id,repeat,slot\nm,t1,0,1\nn,t1,0,1\n")
    sheet = load_sheet(path)
    assert sheet[["system", "task_id", "repeat", "slot"]].values.tolist() == [["m", "t1", 0, 1], ["n", "t1", 0, 1]]
    _write(tmp_path, "s.csv", "system,task_id,repeat\nm,t1,0\nm,t1,0\n")
    with pytest.raises(SgrKitError, match=r"s\.csv:3: answer \(system 'm', task 't1', repeat 0\) already listed at line 2"):
        load_sheet(path)
    _write(tmp_path, "s.csv", "system,task\nm,t1\n")
    with pytest.raises(SgrKitError, match=r"s\.csv:1: annotation sheet lacks column\(s\) 'task_id', 'repeat'"):
        load_sheet(path)


def test_a_label_file_is_an_audit_file_and_not_analyzable_rows_are_left_out(tmp_path):
    from sgr_kit.load import load_audit

    path = _write(tmp_path, "a.csv", f"{HEADER}\nm,t1,0,ann,Correct,,\nm,t2,0,ann,not_analyzable,no trace,\n"
                                     "m,t3,0,ann,Criterion Mismatch,,\n")
    with pytest.warns(UserWarning, match=r"1 trajectory\(ies\) labelled not_analyzable left out"):
        audit = load_audit(path)
    assert audit[["task_id", "label"]].values.tolist() == [["t1", "correct"], ["t3", "criterion_mismatch"]]
    only = _write(tmp_path, "b.csv", f"{HEADER}\nm,t2,0,ann,not analyzable,,\n")
    with pytest.raises(SgrKitError, match=r"b\.csv: expected at least one analyzable labelled trajectory"):
        with pytest.warns(UserWarning, match="left out"):
            load_audit(only)


@settings(max_examples=examples(150), deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=300))
def test_any_text_is_read_or_refused_with_a_clear_error(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("fuzz") / "x.csv"
    path.write_text(f"{HEADER}\n{text}", encoding="utf-8")
    try:
        labels = load_labels(path)
    except SgrKitError as exc:
        assert "x.csv" in str(exc)
    else:
        assert set(labels["label"]) <= set(ANNOTATION_LABELS)
