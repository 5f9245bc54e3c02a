"""The agreement tables of the error-profile page, from label files."""

from __future__ import annotations

import pytest

from sgr_kit.annotate import LabelStore, agreement_tables
from sgr_kit.errors import SgrKitError


@pytest.fixture
def files(tmp_path):
    stores = [LabelStore(tmp_path / f"{name}.csv", name) for name in ("cy", "al", "bo")]
    labels = {"cy": ["correct", "scope_drift", "final_answer"], "al": ["correct", "scope_drift", "scope_drift"],
              "bo": ["correct", "criterion_mismatch", "final_answer"]}
    for store in stores:
        for i, label in enumerate(labels[store.annotator]):
            store.set("m", f"t{i}", 0, label)
    return [s.path for s in stores]


def test_tables_come_in_display_order_with_one_confusion_matrix_per_pair(files):
    tables = agreement_tables(files, n_boot=50)
    assert [name for name, _, _ in tables] == [
        "agreement", "category_agreement", "confusion_1", "confusion_2", "confusion_3", "disagreements"]
    captions = {name: caption for name, caption, _ in tables}
    assert captions["confusion_1"] == "Confusion matrix: al (rows) against bo (columns)"
    assert captions["agreement"].startswith("Agreement between annotators (95% bootstrap")
    confusion = dict((name, frame) for name, _, frame in tables)["confusion_1"]
    assert confusion.columns[0] == "al \\ bo"
    assert confusion.set_index("al \\ bo").loc["scope_drift", "criterion_mismatch"] == 1
    disagreements = dict((name, frame) for name, _, frame in tables)["disagreements"]
    assert sorted(set(disagreements["task_id"])) == ["t1", "t2"]


def test_fewer_than_two_files_is_an_error(files):
    with pytest.raises(SgrKitError, match=r"agreement needs two or more files, found 1"):
        agreement_tables(files[0])
