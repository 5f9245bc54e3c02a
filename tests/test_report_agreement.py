"""The report's error-profile page shows agreement when two or more label files are given (`--labels`)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from sgr_kit.annotate import LabelStore
from sgr_kit.cli import main
from test_report import write_fixture


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    folder = tmp_path_factory.mktemp("agreement")
    fixture = write_fixture(folder)
    audit = pd.read_csv(fixture["audit"])
    ann, bob = LabelStore(folder / "ann.csv", "ann"), LabelStore(folder / "bob.csv", "bob")
    for i, row in enumerate(audit.itertuples()):
        ann.set(row.system, row.task_id, 0, row.label)
        bob.set(row.system, row.task_id, 0, row.label if i % 4 else "criterion_mismatch")
    out = folder / "report"
    rc = main(["report", "--tasks", *fixture["tasks"], "--runs", *fixture["runs"], "--audit", fixture["audit"],
               "--labels", str(folder / "ann.csv"), "--labels", str(folder / "bob.csv"), "--notebooks", "05",
               "-p", "n_boot", "200", "--out", str(out), "--quiet", "--no-progress", "--workers", "1"])
    return rc, out, ann.labels, bob.labels


@pytest.mark.slow
def test_the_error_profile_page_shows_agreement_tables(report):
    rc, out, ann, bob = report
    assert rc == 0
    table = pd.read_csv(out / "tables" / "agreement.csv")
    expected = (ann["label"] == bob["label"]).mean()
    pair = table[(table["measure"] == "percent_agreement") & (table["annotators"] == "ann|bob")]
    assert pair["value"].item() == pytest.approx(expected)
    for name in ("category_agreement", "confusion_1", "disagreements"):
        assert (out / "tables" / f"{name}.csv").is_file(), name
    page = (out / "05_error_profiles.html").read_text(encoding="utf-8")
    assert "Agreement between annotators" in page and "krippendorff_alpha" in page


@pytest.mark.slow
def test_the_label_files_are_kept_in_the_report_and_named_in_the_provenance(report):
    _, out, _, _ = report
    assert (out / "labels-1.csv").is_file() and (out / "labels-2.csv").is_file()
    provenance = json.loads((out / "provenance.json").read_text())
    assert [r["path"].rsplit("/", 1)[-1] for r in provenance["inputs"] if r["role"] == "labels"] == [
        "ann.csv", "bob.csv"]


def test_a_missing_label_file_is_an_error_before_anything_is_written(tmp_path, capsys):
    out = tmp_path / "report"
    assert main(["report", "--labels", str(tmp_path / "nope.csv"), "--out", str(out), "--quiet"]) == 2
    assert "label file" in capsys.readouterr().err and not out.exists()
