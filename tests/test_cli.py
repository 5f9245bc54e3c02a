"""The sgr-kit command line, used as a user would: files in, files and messages out."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from sgr_kit.cli import main

TASK = {
    "task_id": "kegg_900", "domain": "KEGG_BRITE", "autonomy_type": "ordered table",
    "oracle_output_cardinality": 3, "instruction": "List the orthologs.", "output_format": "id|name|genes",
    "start_url": "https://example.org", "oracle_answer": "id|name|genes\nK00001|alpha|12\nK00002|beta|7\nK00003|gamma|3",
    "metadata": {"synthetic": True}, "rubric": {"columns": ["id", "name", "genes"], "row_key": ["id"],
                                                "fields": {"genes": {"type": "integer"}}},
}


@pytest.fixture
def files(tmp_path):
    goal = dict(TASK, task_id="kegg_900-g")
    (tmp_path / "tasks.jsonl").write_text(json.dumps(TASK) + "\n" + json.dumps(goal) + "\n")
    runs = [
        {"system": "A", "task_id": "kegg_900", "answer": "id|name|genes\nK00001|alpha|12\nK00002|beta|7\nK00003|gamma|3"},
        {"system": "A", "task_id": "kegg_900-g", "answer": "K00003|gamma|3\nK00002|beta|7\nK00001|alpha|12"},
        {"system": "B", "task_id": "kegg_900", "answer": "NONE"},
    ]
    (tmp_path / "runs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in runs))
    return tmp_path


def test_score_writes_one_row_per_answer_and_missing(files, capsys):
    out = files / "scores.csv"
    rc = main(["score", "--tasks", str(files / "tasks.jsonl"), "--runs", str(files / "runs.jsonl"),
               "--out", str(out), "--cells", str(files / "cells.parquet"), "--no-progress"])
    assert rc == 0
    scores = pd.read_csv(out)
    assert len(scores) == 4  # B has no answer for kegg_900-g: status missing, not dropped
    s = scores.set_index(["system", "task_id"])
    assert s.loc[("A", "kegg_900"), ["item_f1", "row_f1", "poa"]].tolist() == [1.0, 1.0, 1.0]
    assert s.loc[("A", "kegg_900-g"), ["item_f1", "row_f1", "poa"]].tolist() == [1.0, 1.0, 0.0]
    assert s.loc[("B", "kegg_900"), "status"] == "empty"
    assert s.loc[("B", "kegg_900-g"), "status"] == "missing"
    assert s.loc[("A", "kegg_900-g"), "base_id"] == "kegg_900"
    cells = pd.read_parquet(files / "cells.parquet")
    assert set(cells["verdict"]) >= {"match"}
    assert "synthetic" in capsys.readouterr().out.lower()


def test_score_refuses_to_overwrite(files, capsys):
    out = files / "scores.csv"
    out.write_text("keep me\n")
    rc = main(["score", "--tasks", str(files / "tasks.jsonl"), "--runs", str(files / "runs.jsonl"),
               "--out", str(out), "--no-progress"])
    assert rc == 2
    assert "already exists; pass --force" in capsys.readouterr().err
    assert out.read_text() == "keep me\n"


def test_broken_runs_file_names_file_and_line(files, capsys):
    bad = files / "bad.jsonl"
    bad.write_text('{"system": "A", "task_id": "kegg_900", "answer": "x"}\n{"system": "A", "task_id": \n')
    rc = main(["score", "--tasks", str(files / "tasks.jsonl"), "--runs", str(bad), "--out",
               str(files / "s.csv"), "--no-progress"])
    err = capsys.readouterr().err
    assert rc == 2
    assert "sgr-kit: error:" in err and "bad.jsonl:2" in err
    assert not (files / "s.csv").exists()


def test_unknown_task_id_is_an_error(files, capsys):
    bad = files / "bad.jsonl"
    bad.write_text(json.dumps({"system": "A", "task_id": "kegg_901", "answer": "x"}) + "\n")
    rc = main(["score", "--tasks", str(files / "tasks.jsonl"), "--runs", str(bad), "--out",
               str(files / "s.csv"), "--no-progress"])
    err = capsys.readouterr().err
    assert rc == 2 and "bad.jsonl:1" in err and "kegg_901" in err


def test_summary_prints_means_and_synthetic_note(files, capsys):
    out = files / "scores.csv"
    main(["score", "--tasks", str(files / "tasks.jsonl"), "--runs", str(files / "runs.jsonl"),
          "--out", str(out), "--no-progress"])
    capsys.readouterr()
    assert main(["summary", str(out)]) == 0
    text = capsys.readouterr().out
    assert text.startswith("SYNTHETIC DATA")
    assert "100.00" in text and "failure policy 'zero'" in text


def test_summary_of_missing_file(tmp_path, capsys):
    assert main(["summary", str(tmp_path / "nope.csv")]) == 2
    assert "nope.csv does not exist" in capsys.readouterr().err


def test_validate_reports_pairing(files, capsys):
    rc = main(["validate", "--tasks", str(files / "tasks.jsonl")])
    text = capsys.readouterr().out
    assert rc == 0
    assert "kegg_900-g" in text


def test_audit_prints_counts(capsys):
    assert main(["audit"]) == 0
    assert "derived numbers checked" in capsys.readouterr().out


def test_demo_command_never_overwrites_a_changed_file_unasked(tmp_path, capsys):
    out = tmp_path / "demo"
    assert main(["demo", "--out", str(out)]) == 0
    assert "SYNTHETIC" in capsys.readouterr().out
    runs = out / "runs.jsonl"
    runs.write_text("my edits\n")
    assert main(["demo", "--out", str(out)]) == 2
    assert "runs.jsonl" in capsys.readouterr().err
    assert runs.read_text() == "my edits\n"
    assert main(["demo", "--out", str(out), "--force"]) == 0
    assert runs.read_text() != "my edits\n"
