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


@pytest.mark.slow
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


# --- hardening: pipes, outputs, reading errors, validate --runs, workers, signals

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

DEMO = Path(__file__).resolve().parents[1] / "data" / "demo"
SGR_KIT = [sys.executable, "-m", "sgr_kit.cli"]


def _score_args(files, out, *more):
    return ["score", "--tasks", str(files / "tasks.jsonl"), "--runs", str(files / "runs.jsonl"), "--out", str(out),
            "--no-progress", *more]


@pytest.mark.concurrent
def test_a_closed_pipe_ends_the_command_quietly(tmp_path):
    # a summary long enough to overflow the pipe: `sgr-kit summary scores.csv | head -1`
    systems = [f"system-{i:04d}-with-a-name-long-enough-to-fill-the-pipe" for i in range(400)]  # about 150 KB
    table = pd.DataFrame({"system": systems, "task_id": "t_001", "variant": "constraint", "repeat": 0,
                          "status": "parsed", "item_f1": 0.5, "row_f1": 0.5, "poa": 1.0})
    table.to_csv(tmp_path / "scores.csv", index=False)
    writer = subprocess.Popen([*SGR_KIT, "summary", str(tmp_path / "scores.csv")], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)  # fmt: skip
    head = subprocess.Popen(["head", "-1"], stdin=writer.stdout, stdout=subprocess.PIPE)
    writer.stdout.close()  # only head reads the pipe now
    first, _ = head.communicate(timeout=120)
    err = writer.stderr.read().decode()
    assert writer.wait(timeout=120) == 0
    assert first.decode().startswith("scores.csv") or "answers" in first.decode()
    assert "Traceback" not in err and "BrokenPipe" not in err and "Exception ignored" not in err


def test_out_and_cells_naming_one_file_are_refused_before_anything_is_written(files, capsys):
    out = files / "o.csv"
    rc = main(_score_args(files, out, "--cells", str(files / "." / "o.csv")))
    assert rc == 2 and "--out and --cells name the same file" in capsys.readouterr().err
    assert not out.exists()


def test_an_output_below_a_file_or_on_a_folder_is_an_error(files, capsys):
    (files / "existing").write_text("keep\n")
    assert main(_score_args(files, files / "existing" / "o.csv")) == 2
    assert "existing is an existing file, not a folder" in capsys.readouterr().err
    (files / "dir.csv").mkdir()
    assert main(_score_args(files, files / "dir.csv")) == 2
    assert "dir.csv is a directory; expected a file name" in capsys.readouterr().err
    assert main(_score_args(files, files / "o.csv", "--cells", str(files / "existing" / "c.parquet"))) == 2
    assert "--cells output" in capsys.readouterr().err and not (files / "o.csv").exists()
    assert (files / "existing").read_text() == "keep\n"


@pytest.mark.parametrize(("name", "content", "message"), [
    ("s.csv", 'system,task_id,variant,repeat,status,item_f1,row_f1,poa\nA,t,goal,0,parsed,1,1,"1\n',
     r"s\.csv:2: not valid CSV: a quoted field opened on this line is never closed"),
    ("s.parquet", "PAR1garbage", r"s\.parquet: not a readable parquet file"),
    ("s.csv", "system,task_id,variant,repeat,status,item_f1,row_f1,poa\nA,t,goal,0,parsed,1,one,1\n",
     r"s\.csv:2: column 'row_f1' holds 'one'; expected a number in \[0, 1\]"),
])  # fmt: skip
def test_summary_of_a_damaged_scores_table_is_an_error_without_traceback(tmp_path, capsys, name, content, message):
    (tmp_path / name).write_text(content)
    assert main(["summary", str(tmp_path / name)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("sgr-kit: error: ") and "Traceback" not in err
    assert __import__("re").search(message, err)


def test_validate_checks_a_runs_file_against_the_tasks(files, capsys):
    runs = files / "check.jsonl"
    runs.write_text("\n".join(json.dumps(r) for r in [
        {"system": "A", "task_id": "kegg_90", "answer": "x"},
        {"system": "A", "task_id": "kegg_900", "answer": "x"},
        {"system": "A", "task_id": "kegg_900", "answer": "y"},
        {"system": "B", "task_id": "kegg_900-g", "answer": "  "},
    ]) + "\n")
    rc = main(["validate", "--tasks", str(files / "tasks.jsonl"), "--runs", str(runs)])
    out = capsys.readouterr().out
    assert rc == 1
    assert "check.jsonl:1: unknown task id 'kegg_90'" in out and "closest known ids: kegg_900" in out
    assert "check.jsonl:3: duplicate answer for system 'A', task kegg_900, repeat 0 (first at" in out
    assert "check.jsonl:4: the answer of system 'B' to task kegg_900-g (repeat 0) is empty" in out
    assert "A: 1 of 2 tasks answered; 1 will be scored missing (kegg_900-g)" in out
    assert "result: FAILED (2 errors" in out


def test_null_and_non_string_answers_are_noted_once_per_file(files, capsys):
    runs = files / "typed.jsonl"
    runs.write_text('{"system": "A", "task_id": "kegg_900", "answer": ["K00001|alpha|12"]}\n'
                    '{"system": "A", "task_id": "kegg_900-g", "answer": null}\n'
                    '{"system": "B", "task_id": "kegg_900-g", "answer": null}\n')
    rc = main(["score", "--tasks", str(files / "tasks.jsonl"), "--runs", str(runs), "--out", str(files / "s.csv"),
               "--no-progress"])  # fmt: skip
    err = capsys.readouterr().err
    assert rc == 0
    assert err.count("2 answers are null (first at") == 1 and "scored as missing" in err
    assert "1 answer is a JSON list, object or number, not a string" in err


def _big_runs(path: Path, repeats: int) -> Path:
    answers = [json.loads(line) for line in (DEMO / "runs.jsonl").read_text(encoding="utf-8").splitlines()]
    with path.open("w", encoding="utf-8") as fh:
        for r in range(repeats):
            for a in answers:
                fh.write(json.dumps({**a, "repeat": r * 10 + int(a.get("repeat", 0))}) + "\n")
    return path


def test_workers_give_byte_identical_outputs(tmp_path, monkeypatch, capsys):
    import sgr_kit.score.parallel as parallel

    monkeypatch.setattr(parallel, "BATCH_ANSWERS", 100)  # many batches, so that two workers really start
    runs = _big_runs(tmp_path / "runs.jsonl", 1)
    outputs = {}
    for workers in ("1", "2"):
        folder = tmp_path / f"w{workers}"
        rc = main(["score", "--tasks", str(DEMO / "constraint.jsonl"), "--tasks", str(DEMO / "goal.jsonl"),
                   "--runs", str(runs), "--out", str(folder / "scores.csv"), "--cells", str(folder / "cells.parquet"),
                   "--workers", workers, "--no-progress"])  # fmt: skip
        assert rc == 0
        outputs[workers] = [(folder / n).read_bytes() for n in ("scores.csv", "cells.parquet")]
    assert outputs["1"] == outputs["2"]


def test_workers_must_be_a_positive_number(capsys):
    with pytest.raises(SystemExit):
        main(["score", "--tasks", "t", "--runs", "r", "--out", "o.csv", "--workers", "0"])
    assert "expected a whole number of worker processes >= 1; found '0'" in capsys.readouterr().err


@pytest.mark.concurrent
@pytest.mark.parametrize(("how", "status"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_an_interrupted_score_leaves_the_earlier_outputs_intact(tmp_path, how, status):
    from sgr_kit.testing import PAUSE_DIR, held

    runs = _big_runs(tmp_path / "runs.jsonl", 4)  # about 4,800 answers: ten batches, so that two workers start
    out, cells = tmp_path / "scores.csv", tmp_path / "cells.parquet"
    out.write_text("earlier scores\n")
    cells.write_bytes(b"earlier cells")
    pauses = tmp_path / "pauses"
    pauses.mkdir()
    process = subprocess.Popen(
        [*SGR_KIT, "score", "--tasks", str(DEMO / "constraint.jsonl"), "--tasks", str(DEMO / "goal.jsonl"),
         "--runs", str(runs), "--out", str(out), "--cells", str(cells), "--force", "--no-progress", "--workers", "2"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True, env={**os.environ, PAUSE_DIR: str(pauses)},
    )  # fmt: skip
    with held(process, "score-cells-written", pauses):  # mid-write: a batch of cells in the temporary file
        assert any(p.name.startswith(".cells.parquet.") for p in tmp_path.iterdir())
        os.kill(process.pid, how)
        _, err = process.communicate(timeout=120)
    assert process.returncode == status, err.decode()
    assert "Traceback" not in err.decode() and "unfinished output files were removed" in err.decode()
    assert out.read_text() == "earlier scores\n" and cells.read_bytes() == b"earlier cells"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cells.parquet", "pauses", "runs.jsonl", "scores.csv"]
    deadline = time.monotonic() + 60
    while _running_in_group(process.pid):  # no worker process is left behind (dead ones may await reaping)
        assert time.monotonic() < deadline, _running_in_group(process.pid)
        time.sleep(0.1)


def _running_in_group(group: int) -> list[int]:
    """Processes of a process group that are not zombies (from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[2]) == group and fields[0] != "Z":
            found.append(int(entry.name))
    return found


def test_report_takes_every_scoring_option_of_score():
    from sgr_kit.cli import build_parser

    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, __import__("argparse")._SubParsersAction))
    options = {name: {o for a in sub._actions for o in a.option_strings} for name, sub in action.choices.items()}
    scoring = {"--tasks", "--runs", "--profile", "--rules", "--pairing", "--strict-pairing", "--no-progress"}
    assert scoring <= options["score"] and scoring <= options["report"]


def test_released_tasks_validate_verbosely_and_score_in_the_language_asked(original_dir, tmp_path, capsys):
    assert main(["validate", "--tasks", str(original_dir), "--verbose"]) == 0
    out = capsys.readouterr().out
    assert "row key (from normalization.dedup_key): generalPUCID, familyPUCID, typePUCID, side" in out
    assert "release: a partial release: 2 of the 50 base tasks" in out and "result: OK (0 errors" in out
    root = tmp_path / "release"
    for lang in ("data_en", "data_zh"):
        for path in original_dir.glob("*.json"):
            folder = root / lang / ("goal" if path.stem.endswith("-g") else "constraint")
            folder.mkdir(parents=True, exist_ok=True)
            (folder / path.name).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    reference = json.loads((original_dir / "waterquality_004.json").read_text(encoding="utf-8"))["oracle_answer"]
    runs = tmp_path / "runs.jsonl"
    runs.write_text(json.dumps({"system": "S", "task_id": "waterquality_004", "answer": reference}) + "\n",
                    encoding="utf-8")
    out_csv = tmp_path / "scores.csv"
    assert main(["score", "--tasks", str(root), "--runs", str(runs), "--out", str(out_csv), "--language", "zh",
                 "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "task-set fingerprint (SHA-256 of the 4 tasks' scored content): " in printed
    scores = pd.read_csv(out_csv)
    assert set(scores["language"]) == {"zh"}
    assert scores.loc[scores["status"] == "parsed", "item_f1"].tolist() == [1.0]


# ------------------------------------------------------------------ safety: inputs, the file system, names


def _score(files, out, *more):
    return main(["score", "--tasks", str(files / "tasks.jsonl"), "--runs", str(files / "runs.jsonl"),
                 "--out", str(out), "--no-progress", *more])


def test_score_never_replaces_its_input_even_with_force(files, capsys):
    runs = files / "runs.jsonl"
    before = runs.read_bytes()
    assert _score(files, runs.with_suffix(".csv"), "--force") == 0  # an ordinary output is fine
    csv_runs = runs.with_suffix(".csv")
    pd.DataFrame({"system": ["A"], "task_id": ["kegg_900"], "answer": ["NONE"]}).to_csv(csv_runs, index=False)
    kept = csv_runs.read_bytes()
    status = main(["score", "--tasks", str(files / "tasks.jsonl"), "--runs", str(csv_runs), "--out", str(csv_runs),
                   "--force", "--no-progress"])
    err = capsys.readouterr().err
    assert status == 2 and "is the input" in err and "even with --force" in err
    assert csv_runs.read_bytes() == kept and runs.read_bytes() == before


@pytest.mark.parametrize("command", [
    ["score", "--tasks", "{tasks}", "--runs", "{runs}", "--out", "/proc/sgr-kit-test/scores.csv", "--no-progress"],
    ["score", "--tasks", "{tasks}", "--runs", "{runs}", "--out", "{tmp}/s.csv", "--cells", "/proc/sgr-kit-test/c.parquet",
     "--no-progress"],
    ["audit", "--out", "/proc/sgr-kit-test/audit.csv"],
    ["demo", "--out", "/proc/sgr-kit-test/demo"],
    ["report", "--out", "/proc/sgr-kit-test/report", "--quiet", "--notebooks", "01"],
])
def test_an_unwritable_output_location_is_a_clean_error_naming_the_path_before_any_work(files, capsys, command):
    filled = [a.format(tasks=files / "tasks.jsonl", runs=files / "runs.jsonl", tmp=files) for a in command]
    assert main(filled) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith("sgr-kit: error:") and "/proc/sgr-kit-test" in captured.err
    assert "Traceback" not in captured.err and "scored" not in captured.out
    assert not (files / "s.csv").exists()


def test_a_full_disk_while_writing_is_a_clean_error_naming_the_path(files, capsys, monkeypatch):
    import errno

    def full(self, path, *args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(pd.DataFrame, "to_csv", full)
    assert _score(files, files / "scores.csv") == 2
    err = capsys.readouterr().err
    assert "sgr-kit: error: output" in err and "scores.csv" in err and "No space left on device" in err
    assert not (files / "scores.csv").exists() and not list(files.glob(".scores.csv.*"))


def test_a_deeply_nested_json_answer_names_the_file_and_line(files, capsys):
    deep = "[" * 1500 + "]" * 1500
    line = json.dumps({"system": "A", "task_id": "kegg_900", "answer": None}).replace("null", deep)
    (files / "deep.jsonl").write_text(json.dumps({"system": "B", "task_id": "kegg_900", "answer": "NONE"}) + "\n"
                                      + line + "\n")
    status = main(["score", "--tasks", str(files / "tasks.jsonl"), "--runs", str(files / "deep.jsonl"),
                   "--out", str(files / "s.csv"), "--no-progress"])
    err = capsys.readouterr().err
    assert status == 2 and "deep.jsonl:2: JSON nested too deeply" in err and "Traceback" not in err
    status = main(["validate", "--tasks", str(files / "tasks.jsonl"), "--runs", str(files / "deep.jsonl")])
    out = capsys.readouterr().out
    assert status == 1 and "deep.jsonl:2: JSON nested too deeply" in out


@pytest.mark.parametrize("name, value", [("n_boot", "abc"), ("n_boot", "null"), ("n_boot", "[1,2]"),
                                         ("n_boot", ".inf"), ("seed", "-1")])
def test_a_bad_report_parameter_is_refused_before_anything_is_scored_or_written(tmp_path, capsys, monkeypatch, name,
                                                                                value):
    monkeypatch.chdir(tmp_path)
    assert main(["report", "--out", "R", "--quiet", "-p", name, value]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"sgr-kit: error: -p {name}: expected") and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


def test_the_failure_policy_is_given_once(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["report", "--out", "R", "--quiet", "--failure-policy", "zero", "-p", "failure_policy",
                 "exclude"]) == 2
    assert "--failure-policy zero and -p failure_policy exclude disagree" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_names_reach_the_terminal_with_their_controls_visible(files, capsys):
    hostile = "Evil\x1b[2J\x1b[31m\u202eAgent"
    runs = [{"system": hostile, "task_id": "kegg_900", "answer": "NONE"},
            {"system": hostile, "task_id": "kegg_900-g", "answer": "NONE"}]
    (files / "hostile.jsonl").write_text("".join(json.dumps(r) + "\n" for r in runs))
    assert main(["score", "--tasks", str(files / "tasks.jsonl"), "--runs", str(files / "hostile.jsonl"),
                 "--out", str(files / "h.csv"), "--no-progress"]) == 0
    assert main(["summary", str(files / "h.csv")]) == 0
    main(["validate", "--tasks", str(files / "tasks.jsonl"), "--runs", str(files / "hostile.jsonl")])
    (files / "bad.jsonl").write_text(json.dumps({"system": hostile, "task_id": "nope\u202e", "answer": "x"}) + "\n")
    main(["validate", "--tasks", str(files / "tasks.jsonl"), "--runs", str(files / "bad.jsonl")])
    captured = capsys.readouterr()
    for stream in (captured.out, captured.err):
        assert "\x1b" not in stream and "\u202e" not in stream
    assert "Evil⟨U+001B⟩[2J⟨U+001B⟩[31m⟨RLO⟩Agent" in captured.out


def test_validate_notes_cells_holding_the_record_separator_and_exits_0(tmp_path, capsys):
    # one ';'-joined line, one cell holding ';' (a CVE list): a plain split gives 3 pieces, the width reads 2 records
    rec = {"task_id": "nvd_001", "domain": "NVD", "oracle_output_cardinality": 2,
           "oracle_answer": "CVE-1|CVE-7;CVE-8|9.8;CVE-2|none|7.5",
           "rubric": {"normalization": {"schema": ["cve", "related", "score"], "record_separator": ";"}}}
    (tmp_path / "t.jsonl").write_text(json.dumps(rec) + "\n", encoding="utf-8")
    assert main(["validate", "--tasks", str(tmp_path / "t.jsonl")]) == 0
    out = capsys.readouterr().out
    notes = out[out.index("notes"):]
    assert "task nvd_001: cells hold the record separator ';': a plain split gives 3 records, the schema's width " \
           "reads 2 records of 3 fields" in notes
    assert "the strict profile splits answers plainly on ';'" in notes


@pytest.mark.parametrize("value", ["0", "-2", "two"])
def test_report_workers_must_be_a_positive_number(capsys, tmp_path, value):
    with pytest.raises(SystemExit):
        main(["report", "--out", str(tmp_path / "r"), "--workers", value])
    assert f"expected a whole number of notebooks run at once >= 1; found '{value}'" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


def test_the_commands_leave_out_an_import_no_notebook_schema_needs():
    # jsonschema imports rfc3987_syntax when installed (a second of grammar compiling, for the "iri" format);
    # sgr-kit's commands leave it out, and nbformat still reads and validates a notebook
    code = ("import contextlib, sys\nfrom sgr_kit.cli import main\n"
            "with contextlib.suppress(SystemExit), contextlib.redirect_stdout(None):\n    main(['--version'])\n"
            "import nbformat\nnbformat.validate(nbformat.v4.new_notebook())\n"
            "print(sys.modules.get('rfc3987_syntax', 'absent'))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "None"
    started = subprocess.run([*SGR_KIT, "report", "--notebooks", "nope", "--out", "R", "--quiet"], capture_output=True,
                             text=True, timeout=120)  # a command that fails after its start: no traceback from the skip
    assert started.returncode == 2 and "Traceback" not in started.stderr, started.stderr[-2000:]


@pytest.mark.concurrent
def test_a_pause_point_gives_way_to_a_signal_another_thread_took(tmp_path):
    # The kernel may hand a process's SIGINT to any of its threads; Python then runs the handler in the main
    # thread when it next runs Python code. A pause point blocked in a read would never let it (a build held
    # at a point, interrupted by the test, stayed there: one failure in 240 rounds of make stress).
    from sgr_kit.testing import PAUSE_DIR, held

    code = ("import signal, sys, threading\n"
            "from sgr_kit.testing import pause\n"
            "def take_it():\n"
            "    sys.stdin.readline()  # the test says when: the main thread is held at the point\n"
            "    signal.pthread_kill(threading.get_ident(), signal.SIGINT)  # to this thread, not the main one\n"
            "threading.Thread(target=take_it, daemon=True).start()\n"
            "try:\n"
            "    pause('report-scoring')\n"
            "except KeyboardInterrupt:\n"
            "    print('interrupted at the pause point')\n")
    proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                            env={**os.environ, PAUSE_DIR: str(tmp_path)})
    try:
        with held(proc, "report-scoring", tmp_path):
            proc.stdin.write("go\n")
            proc.stdin.flush()
            out, _ = proc.communicate(timeout=120)  # still held: only the signal can end the pause
    finally:
        if proc.poll() is None:
            proc.kill()
    assert out == "interrupted at the pause point\n"
