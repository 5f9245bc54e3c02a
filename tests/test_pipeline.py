"""From files to scores (sgr_kit.pipeline): the streaming path writes what the in-memory path returns."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from sgr_kit.cli import main
from sgr_kit.errors import SgrKitError
from sgr_kit.output import table_csv
from sgr_kit.pipeline import score_files, score_files_to

DEMO = Path(__file__).resolve().parents[1] / "data" / "demo"
TASKS = [DEMO / "constraint.jsonl", DEMO / "goal.jsonl"]


@pytest.fixture(scope="module")
def in_memory():
    return score_files(TASKS, DEMO / "runs.jsonl", progress=False)[2]


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_streamed_outputs_hold_the_tables_of_score_files(tmp_path, in_memory, suffix):
    out, cells = tmp_path / f"scores{suffix}", tmp_path / f"cells{suffix}"
    _, _, scores = score_files_to(TASKS, DEMO / "runs.jsonl", out, cells=cells, progress=False)
    pd.testing.assert_frame_equal(scores, in_memory.scores)
    if suffix == ".csv":  # byte for byte what writing the in-memory tables gives
        assert out.read_bytes() == table_csv(in_memory.scores).encode()  # formula-safe, as every CSV written
        assert cells.read_bytes() == table_csv(in_memory.cells).encode()
    else:
        pd.testing.assert_frame_equal(pd.read_parquet(cells), in_memory.cells)
        pd.testing.assert_frame_equal(pd.read_parquet(out), in_memory.scores)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([out.name, cells.name])


def test_score_files_with_workers_returns_the_same_tables(in_memory, monkeypatch):
    import sgr_kit.score.parallel as parallel

    monkeypatch.setattr(parallel, "BATCH_ANSWERS", 100)
    scored = score_files(TASKS, DEMO / "runs.jsonl", progress=False, workers=2)[2]
    pd.testing.assert_frame_equal(scored.scores, in_memory.scores)
    pd.testing.assert_frame_equal(scored.cells, in_memory.cells)


def test_outputs_are_checked_before_anything_is_scored(tmp_path):
    (tmp_path / "o.csv").write_text("keep\n")
    with pytest.raises(SgrKitError, match=r"--out .*o\.csv already exists; pass --force"):
        score_files_to(TASKS, tmp_path / "missing-runs.jsonl", tmp_path / "o.csv")
    with pytest.raises(SgrKitError, match=r"--out and --cells name the same file"):
        score_files_to(TASKS, DEMO / "runs.jsonl", tmp_path / "x.csv", cells=tmp_path / "x.csv")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["o.csv"]


HOSTILE_IDS = ["../escape_001", "/tmp/abs_001", "a/b_001", "..", "C:\\x_001"]


def test_task_ids_never_build_a_path_outside_the_output_folder(tmp_path, capsys):
    sandbox = tmp_path / "sandbox"
    (sandbox / "out").mkdir(parents=True)
    records = [{"task_id": tid, "domain": "NVD", "oracle_answer": "id|n\nA|1\nB|2", "output_format": "id|n"}
               for tid in HOSTILE_IDS]  # fmt: skip
    (sandbox / "tasks.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    (sandbox / "runs.jsonl").write_text("".join(
        json.dumps({"system": sys, "task_id": tid, "answer": "A|1\nB|3"}) + "\n"
        for sys in ("../sys", "/abs/sys") for tid in HOSTILE_IDS))  # fmt: skip
    before = {p for p in tmp_path.rglob("*")}
    out = sandbox / "out"
    assert main(["score", "--tasks", str(sandbox / "tasks.jsonl"), "--runs", str(sandbox / "runs.jsonl"),
                 "--out", str(out / "scores.csv"), "--cells", str(out / "cells.parquet"), "--no-progress"]) == 0
    assert main(["summary", str(out / "scores.csv")]) == 0
    assert main(["validate", "--tasks", str(sandbox / "tasks.jsonl"), "--runs", str(sandbox / "runs.jsonl")]) == 0
    capsys.readouterr()
    created = {p for p in tmp_path.rglob("*")} - before
    assert created == {out / "scores.csv", out / "cells.parquet"}
    assert sorted(pd.read_csv(out / "scores.csv")["task_id"].unique()) == sorted(HOSTILE_IDS)


def test_runs_are_scored_against_the_language_they_name(original_dir, tmp_path):
    from sgr_kit.score import score_runs
    from sgr_kit.types import Answer

    root = tmp_path / "SGR-BENCH"
    for lang in ("data_en", "data_zh"):
        for path in original_dir.glob("*.json"):
            record = json.loads(path.read_text(encoding="utf-8"))
            if lang == "data_zh":
                record["instruction"] = "中文：" + record["instruction"]
            variant = "goal" if path.stem.endswith("-g") else "constraint"
            (root / lang / variant).mkdir(parents=True, exist_ok=True)
            (root / lang / variant / path.name).write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")
    reference = json.loads((original_dir / "comptox_012.json").read_text(encoding="utf-8"))["oracle_answer"]
    runs = tmp_path / "runs.jsonl"
    runs.write_text("\n".join(json.dumps(r) for r in [
        {"system": "S", "task_id": "comptox_012", "answer": reference},
        {"system": "S", "task_id": "comptox_012", "answer": reference.split(",")[0], "language": "zh"},
    ]) + "\n", encoding="utf-8")
    task_set, _, (scores, cells) = score_files(root, runs, progress=False)
    # each language: its 4 tasks, one answered; ids repeat across languages and never collide
    assert scores.groupby("language").size().to_dict() == {"en": 4, "zh": 4}
    answered = scores[scores["status"] == "parsed"].set_index("language")["item_f1"]
    assert answered["en"] == 1.0 and answered["zh"] == pytest.approx(2 / 3)  # one of two records: 12/18
    assert set(cells["language"]) == {"en", "zh"}
    out = tmp_path / "scores.csv"
    _, _, written = score_files_to(root, runs, out, progress=False, workers=1)
    assert written["language"].tolist() == scores["language"].tolist()
    # downstream (notebooks, report, explorer, summary) each system is shown once per language
    from sgr_kit.pipeline import load_inputs
    from sgr_kit.report.summary import format_summary

    inputs = load_inputs(tasks=root, runs=runs)
    assert sorted(inputs.scores["system"].unique()) == ["S [en]", "S [zh]"]
    assert sorted(inputs.cells["system"].unique()) == ["S [en]", "S [zh]"]
    assert "S [zh]" in format_summary(scores)
    # a zh answer scored against English tasks is an error naming both languages
    with pytest.raises(SgrKitError, match=r"names language 'zh', but task comptox_012 was loaded in 'en'"):
        score_runs(task_set, [Answer("S", "comptox_012", 0, "x", language="zh")])


def test_loading_notes_are_summed_up_after_the_first_few(capsys):
    from sgr_kit.pipeline import NOTES_SHOWN
    from sgr_kit.resources import demo_paths

    from sgr_kit.prepare import load_tasks

    demo = demo_paths()
    every = load_tasks(demo["constraint"], demo["goal"]).notes  # e.g. tasks whose row key is inferred
    assert len(every) > NOTES_SHOWN + 1
    capsys.readouterr()
    score_files([demo["constraint"], demo["goal"]], [demo["runs"]], progress=False)
    notes = [line for line in capsys.readouterr().err.splitlines() if line.startswith("note: ")]
    assert notes[:NOTES_SHOWN] == [f"note: {n}" for n in every[:NOTES_SHOWN]]
    assert len(notes) == NOTES_SHOWN + 1
    assert notes[-1].startswith(f"note: ... and {len(every) - NOTES_SHOWN} more notes") and "validate" in notes[-1]


def _two_language_release(original_dir, root):
    for lang in ("data_en", "data_zh"):
        for path in original_dir.glob("*.json"):
            record = json.loads(path.read_text(encoding="utf-8"))
            if lang == "data_zh":
                record["instruction"] = "中文：" + record["instruction"]
            folder = root / lang / ("goal" if path.stem.endswith("-g") else "constraint")
            folder.mkdir(parents=True, exist_ok=True)
            (folder / path.name).write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")
    return root


def test_a_system_gets_no_rows_in_a_language_it_never_answered(original_dir, tmp_path):
    from sgr_kit.aggregate import system_means
    from sgr_kit.pipeline import load_inputs
    from sgr_kit.report.summary import format_summary

    root = _two_language_release(original_dir, tmp_path / "SGR-BENCH")
    reference = json.loads((original_dir / "comptox_012.json").read_text(encoding="utf-8"))["oracle_answer"]
    runs = tmp_path / "runs.jsonl"
    runs.write_text("\n".join(json.dumps(r) for r in [
        {"system": "A", "task_id": "comptox_012", "answer": reference},
        {"system": "A", "task_id": "comptox_012", "answer": reference, "language": "zh"},
        {"system": "B", "task_id": "comptox_012", "answer": reference},
        {"system": "C", "task_id": "comptox_012", "answer": None, "language": "zh"},  # a null names its language
    ]) + "\n", encoding="utf-8")
    _, _, (scores, cells) = score_files(root, runs, progress=False)
    rows = scores.groupby(["system", "language"]).size().to_dict()
    assert rows == {("A", "en"): 4, ("A", "zh"): 4, ("B", "en"): 4, ("C", "zh"): 4}
    inputs = load_inputs(tasks=root, runs=runs)
    assert sorted(inputs.scores["system"].unique()) == ["A [en]", "A [zh]", "B [en]", "C [zh]"]
    means = system_means(inputs.scores)
    assert "B [zh]" not in set(means["system"]) and "C [en]" not in set(means["system"])
    summary = format_summary(scores)
    assert "B [zh]" not in summary and "B [en]" in summary
    written = tmp_path / "scores.csv"
    score_files_to(root, runs, written, progress=False, workers=2)  # the batched path keeps the same rows
    assert pd.read_csv(written).groupby(["system", "language"]).size().to_dict() == rows


@pytest.mark.parametrize("command", ["score", pytest.param("report", marks=pytest.mark.slow)])  # report: starts kernels
def test_language_zh_on_tasks_without_a_chinese_translation_is_an_error_naming_them(tmp_path, capsys, command):
    out = tmp_path / ("scores.csv" if command == "score" else "report")
    for tasks in (TASKS[0], DEMO):  # a file, and a folder without data_zh
        code = main([command, "--tasks", str(tasks), "--runs", str(DEMO / "runs.jsonl"), "--out", str(out),
                     "--language", "zh", "--no-progress"])
        err = capsys.readouterr().err
        assert code != 0 and "sgr-kit: error:" in err
        assert f"task source {tasks}: --language zh asks for the Chinese tasks" in err
        assert not out.exists()
    # answers that name zh where only English tasks are given: the same error, not a silent score against English
    runs = tmp_path / "runs.jsonl"
    runs.write_text(json.dumps({"system": "S", "task_id": "nvd_001", "answer": "x", "language": "zh"}) + "\n")
    with pytest.raises(SgrKitError, match=r"constraint\.jsonl: --language zh asks for the Chinese tasks, but this file"):
        score_files(TASKS, runs, progress=False)
