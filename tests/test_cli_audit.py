"""``sgr-kit sample`` and ``sgr-kit agreement``, used as a user would: files in, files and messages out."""

from __future__ import annotations

import pandas as pd
import pytest

from sgr_kit.annotate import LabelStore
from sgr_kit.cli import main


@pytest.fixture
def scores(tmp_path):
    rows = [(system, f"t_{k:03d}{suffix}", 0, variant, family, "parsed", 0.5, 0.5, 0.5)
            for k, family in enumerate(["scholarly archives"] * 6 + ["official statistics"] * 4)
            for variant, suffix in (("constraint", ""), ("goal", "-g")) for system in ("A", "B", "C")]
    path = tmp_path / "scores.csv"
    pd.DataFrame(rows, columns=["system", "task_id", "repeat", "variant", "family", "status", "item_f1", "row_f1",
                                "poa"]).to_csv(path, index=False)
    return path


def test_sample_writes_the_sheet_and_the_same_seed_gives_the_same_file(scores, tmp_path, capsys):
    out = tmp_path / "sheet.csv"
    assert main(["sample", "--scores", str(scores), "--slots", "5", "--seed", "3", "--out", str(out)]) == 0
    assert "sampled 5 task slots x 3 systems = 15 answers (seed 3)" in capsys.readouterr().out
    sheet = pd.read_csv(out)
    assert list(sheet.columns[:3]) == ["system", "task_id", "repeat"] and len(sheet) == 15
    first = out.read_bytes()
    assert main(["sample", "--scores", str(scores), "--slots", "5", "--seed", "3", "--out", str(out)]) == 2
    assert "already exists; pass --force" in capsys.readouterr().err
    assert main(["sample", "--scores", str(scores), "--slots", "5", "--seed", "3", "--out", str(out), "--force"]) == 0
    assert out.read_bytes() == first


def test_sample_balanced_and_its_errors(scores, tmp_path, capsys):
    out = tmp_path / "sheet.csv"
    assert main(["sample", "--scores", str(scores), "--slots", "4", "--balance", "family,variant",
                 "--out", str(out)]) == 0
    assert pd.read_csv(out).drop_duplicates("slot").groupby(["family", "variant"]).size().tolist() == [1, 1, 1, 1]
    assert main(["sample", "--scores", str(scores), "--slots", "99", "--out", str(tmp_path / "b.csv")]) == 2
    assert "slots: 99 requested, but only 20 task(s)" in capsys.readouterr().err
    assert main(["sample", "--scores", str(scores), "--out", str(tmp_path / "b.txt")]) == 2
    assert "expected a file name ending in .csv" in capsys.readouterr().err
    assert not (tmp_path / "b.csv").exists()


@pytest.fixture
def labels(tmp_path):
    ann, bob = LabelStore(tmp_path / "ann.csv", "ann"), LabelStore(tmp_path / "bob.csv", "bob")
    for task, a, b in [("t1", "correct", "correct"), ("t2", "scope_drift", "criterion_mismatch"),
                       ("t3", "scope_drift", "scope_drift"), ("t4", "final_answer", "final_answer")]:
        ann.set("m", task, 0, a)
        bob.set("m", task, 0, b)
    return [tmp_path / "ann.csv", tmp_path / "bob.csv"]


def test_agreement_prints_the_table_confusion_matrix_categories_and_disagreements(labels, tmp_path, capsys):
    out = tmp_path / "agreement.csv"
    assert main(["agreement", *map(str, labels), "--n-boot", "200", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    for expected in ("cohen_kappa    ann|bob", "krippendorff_alpha", "Confusion matrix: ann (rows) against bob",
                     "Agreement per category", "Disagreements (1 answers)", "scope_drift criterion_mismatch"):
        assert expected in text, expected
    table = pd.read_csv(out)
    assert table.loc[table["measure"] == "percent_agreement", "value"].tolist() == [0.75, 0.75]


def test_agreement_errors_are_clean(labels, tmp_path, capsys):
    assert main(["agreement", str(labels[0])]) == 2
    assert "expected labels of two or more annotators, found 'ann'" in capsys.readouterr().err
    bad = tmp_path / "bad.csv"
    bad.write_text("system,task_id,repeat,annotator,label\nm,t1,0,zed,typo\n")
    assert main(["agreement", str(labels[0]), str(bad)]) == 2
    assert "bad.csv:2, column 'label': unknown label 'typo'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["agreement", str(labels[0]), str(labels[1]), "--ci", "95"])
    assert "expected a level between 0 and 1" in capsys.readouterr().err


def test_agreement_says_what_its_bootstrap_resamples_and_cluster_chooses_it(labels, tmp_path, capsys):
    tables = {}
    for cluster in ("task", "system", "answer"):
        out = tmp_path / f"{cluster}.csv"
        assert main(["agreement", *map(str, labels), "--n-boot", "200", "--cluster", cluster, "--out", str(out)]) == 0
        tables[cluster] = pd.read_csv(out)
        said = {"task": "intervals over tasks (the answers to one task drawn together)",
                "system": "intervals over systems", "answer": "intervals over answers (taken as independent)"}
        assert said[cluster] in capsys.readouterr().out
    # one answer per task: a task is an answer; one system: every resample is the whole sample
    pd.testing.assert_frame_equal(tables["task"], tables["answer"])
    assert (tables["system"]["ci_low"] == tables["system"]["value"]).all()
    with pytest.raises(SystemExit):
        main(["agreement", *map(str, labels), "--cluster", "repeat"])
    assert "invalid choice: 'repeat'" in capsys.readouterr().err
