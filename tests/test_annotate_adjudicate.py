"""Adjudication: disagreements, final labels, the audit file the report reads, and the view driven from Python."""

from __future__ import annotations

import pandas as pd
import pytest

from sgr_kit.annotate.adjudicate import (
    FINAL_COLUMNS, AdjudicationView, adjudicate, disagreements, write_final_labels,
)  # fmt: skip
from sgr_kit.annotate.store import LabelStore
from sgr_kit.errors import SgrKitError
from sgr_kit.load import load_audit
from sgr_kit.load.labels import load_labels


@pytest.fixture
def files(tmp_path):
    """Two annotators over four answers: t1 agreed, t2 and t3 disputed, t4 labelled by ann only."""
    ann = LabelStore(tmp_path / "ann.csv", "ann")
    bob = LabelStore(tmp_path / "bob.csv", "bob")
    for task, label, note in [("t1", "correct", ""), ("t2", "scope_drift", "wrong year filter"),
                              ("t3", "final_answer", ""), ("t4", "intent_rewriting", "dropped a constraint")]:
        ann.set("m", task, 0, label, note=note)
    for task, label, note in [("t1", "correct", "all rows right"), ("t2", "criterion_mismatch", "wrong field"),
                              ("t3", "not_analyzable", "trajectory truncated")]:
        bob.set("m", task, 0, label, note=note)
    return [tmp_path / "ann.csv", tmp_path / "bob.csv"]


def test_disagreements_list_each_annotators_label_and_note(files):
    table = disagreements(files)
    assert table[["task_id", "annotator", "label", "note"]].values.tolist() == [
        ["t2", "ann", "scope_drift", "wrong year filter"], ["t2", "bob", "criterion_mismatch", "wrong field"],
        ["t3", "ann", "final_answer", ""], ["t3", "bob", "not_analyzable", "trajectory truncated"]]


def test_agreed_and_single_labels_are_carried_over_disputes_wait(files):
    result = adjudicate(files)
    assert tuple(result.final.columns) == FINAL_COLUMNS
    assert result.final[["task_id", "label", "source"]].values.tolist() == [
        ["t1", "correct", "agreed"], ["t4", "intent_rewriting", "single"]]
    assert result.final.loc[0, "note"] == "bob: all rows right"
    assert not result.complete and sorted(set(result.pending["task_id"])) == ["t2", "t3"]
    with pytest.raises(SgrKitError, match=r"2 disagreement\(s\) not decided yet \(the first: system 'm', task 't2'"):
        write_final_labels(result, files[0].parent / "final.csv")


def test_decisions_settle_disputes_and_the_report_reads_the_final_file(files, tmp_path):
    decisions = pd.DataFrame({"system": ["m", "m"], "task_id": ["t2", "t3"], "repeat": [0, 0],
                              "label": ["Criterion Mismatch", "not_analyzable"], "note": ["field", ""]})
    result = adjudicate(files, decisions=decisions)
    assert result.complete
    path, left_out = write_final_labels(result, tmp_path / "final.csv")
    assert left_out == 1
    audit = load_audit(path)
    assert audit[["task_id", "label"]].values.tolist() == [
        ["t1", "correct"], ["t2", "criterion_mismatch"], ["t4", "intent_rewriting"]]
    with pytest.raises(SgrKitError, match=r"final\.csv already exists; pass --force"):
        write_final_labels(result, tmp_path / "final.csv")


def test_two_repeats_of_one_task_cannot_go_into_one_audit_file(tmp_path):
    labels = pd.DataFrame({"system": "m", "task_id": "t1", "repeat": [0, 1, 0, 1], "annotator": ["a", "a", "b", "b"],
                           "label": "correct"})
    with pytest.raises(SgrKitError, match=r"labels for several repeats of task 't1'"):
        write_final_labels(adjudicate(labels), tmp_path / "final.csv")


def test_the_view_walks_the_disputes_and_writes_the_final_file(files, tmp_path):
    out = tmp_path / "final.csv"
    view = AdjudicationView(files, out, adjudicator="carol")
    assert view.items == [("m", "t2", 0), ("m", "t3", 0)] and view.position == 0
    assert "wrong year filter" in view._detail.value and "Criterion Mismatch" in view._detail.value
    view._decide.click()  # no label picked: nothing happens
    assert "Pick a label first" in view._status.value and load_labels(tmp_path / "final-decisions.csv").empty
    view._choice.value = "criterion_mismatch"
    view._note.value = "the rubric names the field"
    view._decide.click()
    assert view.position == 1 and not out.exists()
    decided = load_labels(tmp_path / "final-decisions.csv")
    assert decided[["task_id", "annotator", "label", "note"]].values.tolist() == [
        ["t2", "carol", "criterion_mismatch", "the rubric names the field"]]
    view._previous.click()
    assert view.position == 0 and view._choice.value == "criterion_mismatch"
    view._next.click()
    view._choice.value = "final_answer"
    view._decide.click()
    assert view.written == out and view.left_out == 0
    assert load_audit(out)["label"].tolist() == ["correct", "criterion_mismatch", "final_answer", "intent_rewriting"]
    assert "All 2 disagreement(s) decided" in view._status.value


def test_reopening_resumes_at_the_first_undecided_dispute(files, tmp_path):
    out = tmp_path / "final.csv"
    first = AdjudicationView(files, out, adjudicator="carol")
    first.decide("scope_drift")
    again = AdjudicationView(files, out, adjudicator="carol")
    assert again.position == 1 and again.decided == 1
    with pytest.raises(SgrKitError, match=r"holds labels of 'carol', not of 'dave'"):
        AdjudicationView(files, out, adjudicator="dave")


def test_no_disputes_writes_the_final_file_at_once_and_never_overwrites_unasked(tmp_path):
    labels = pd.DataFrame({"system": "m", "task_id": ["t1", "t1"], "repeat": 0, "annotator": ["a", "b"],
                           "label": "correct", "note": ""})
    out = tmp_path / "final.csv"
    view = AdjudicationView(labels, out)
    assert view.items == [] and view.written == out and "No disagreements" in view._header.value
    with pytest.raises(SgrKitError, match=r"final label file .*final\.csv already exists"):
        AdjudicationView(labels, out)
    with pytest.raises(SgrKitError, match=r"expected a file name ending in \.csv"):
        AdjudicationView(labels, tmp_path / "final.txt")


def test_adjudication_with_the_sheet_refuses_labels_on_unknown_answers_listing_each(tmp_path):
    from sgr_kit.annotate import AdjudicationView, LabelStore, adjudicate
    from sgr_kit.errors import SgrKitError

    sheet = pd.DataFrame({"system": ["m", "m"], "task_id": ["t1", "t2"], "repeat": [0, 0]})
    ann, bob = LabelStore(tmp_path / "ann.csv", "ann"), LabelStore(tmp_path / "bob.csv", "bob")
    for store in (ann, bob):
        store.set("m", "t1", 0, "correct")
    ann.set("NoSuchBot", "t1", 0, "correct")
    bob.set("m", "t9", 0, "scope_drift")
    files = [tmp_path / "ann.csv", tmp_path / "bob.csv"]
    assert len(adjudicate(files).final) == 3  # without the sheet the stray labels are carried
    with pytest.raises(SgrKitError, match=r"(?s)2 label\(s\) on answers not in the sheet.*ann\.csv:3: .*NoSuchBot"
                                          r".*bob\.csv:3: .*unknown task 't9'"):
        adjudicate(files, answers=sheet)
    with pytest.raises(SgrKitError, match=r"ann\.csv:3"):
        AdjudicationView(files, tmp_path / "final.csv", answers=sheet)
    decided = pd.DataFrame({"system": ["m"], "task_id": ["t7"], "repeat": [0], "label": ["correct"]})
    with pytest.raises(SgrKitError, match=r"(?s)decisions: 1 label\(s\).*decisions, row 1: .*unknown task 't7'"):
        adjudicate(files[:1], decisions=decided, answers=[("m", "t1", 0), ("NoSuchBot", "t1", 0)])
