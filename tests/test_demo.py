"""The committed SYNTHETIC demo (data/demo): regeneration, shape, loading, calibration, audit."""

from __future__ import annotations

import json
import statistics
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest

from random import Random

from sgr_kit.demo import DEFAULT_SEED, as_task, build_demo, demo_files, write_demo
from sgr_kit.demo.check import check_folder, summary
from sgr_kit.demo.render import TABLE_FORMATS, render
from sgr_kit.demo.tasks import make_problems
from sgr_kit.errors import SgrKitError
from sgr_kit.load import load_runs
from sgr_kit.prepare import load_tasks

DEMO = Path(__file__).resolve().parents[1] / "data" / "demo"
FILES = ("constraint.jsonl", "goal.jsonl", "runs.jsonl", "truth.csv", "audit.csv", "trajectories.jsonl",
         "prices-example.csv", "README.md")

# The release's shape: domain counts of the release (README of the release fixtures).
DOMAIN_COUNTS = {
    "EUROPEPMC_PMC": 5, "REPTILE_DATABASE": 5, "WATER_OFFICE": 5, "WATER_QUALITY_PORTAL": 5,
    "ARXIV": 4, "CENSUS_GOV": 4, "COMPTOX_CHEMEXPO": 4, "CFPB_REPORTS": 4,
    "CFPB_COMPLAINT_DATABASE": 3, "NVD": 3, "CDC_WONDER": 2, "KEGG_BRITE": 2, "KEGG_GENOME": 2,
    "NOAA_NCEI_CLIMATE_AT_A_GLANCE": 2,
}
# Section 3.3 of the paper: tasks per family.
FAMILY_TASKS = {"environmental monitoring": 24, "regulatory resources": 22, "scholarly archives": 18,
                "life-science resources": 18, "official statistics": 12, "vulnerability databases": 6}


@pytest.fixture(scope="module")
def demo():
    return build_demo(seed=DEFAULT_SEED)


@pytest.fixture(scope="module")
def tasks():
    return load_tasks(DEMO / "constraint.jsonl", DEMO / "goal.jsonl")


@pytest.fixture(scope="module")
def report():
    return check_folder(DEMO)


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.slow
def test_regenerates_committed_files_byte_identically(demo, tmp_path):
    files = demo_files(demo)
    assert sorted(files) == sorted(FILES)
    for name in FILES:
        assert files[name].encode("utf-8") == (DEMO / name).read_bytes(), f"{name} differs: run `make demo`"


@pytest.mark.slow
def test_write_demo_refuses_to_overwrite_a_different_file(tmp_path):
    (tmp_path / "audit.csv").write_text("something else\n")
    with pytest.raises(SgrKitError, match=r"audit\.csv already exists with different content"):
        write_demo(tmp_path)
    paths = write_demo(tmp_path, force=True)
    assert [p.name for p in paths] == list(FILES)
    assert (tmp_path / "audit.csv").read_bytes() == (DEMO / "audit.csv").read_bytes()
    assert write_demo(tmp_path) == paths  # identical files: nothing to refuse


def test_write_demo_rejects_a_file_as_folder(tmp_path):
    target = tmp_path / "file.txt"
    target.write_text("x")
    with pytest.raises(SgrKitError, match="expected a folder"):
        write_demo(target)


def test_domains_families_rows_and_columns():
    constraint = _jsonl(DEMO / "constraint.jsonl")
    goal = _jsonl(DEMO / "goal.jsonl")
    assert len(constraint) == len(goal) == 50
    assert Counter(r["domain"] for r in constraint) == DOMAIN_COUNTS
    rows = [r["oracle_output_cardinality"] for r in constraint + goal]
    # Paper, section 3.3: 2 to 44 rows, mean 6.42, median 4.0, 72 of the 100 tasks at most seven rows.
    assert (min(rows), max(rows)) == (2, 44) and sum(n <= 7 for n in rows) == 72
    assert statistics.mean(rows) == pytest.approx(6.42) and statistics.median(rows) == 4
    ncols = [len(r["rubric"]["normalization"]["schema"]) for r in constraint]
    assert min(ncols) == 4 and max(ncols) == 18 and 7.5 <= statistics.mean(ncols) <= 8.5
    for c, g in zip(constraint, goal):
        assert g["task_id"] == c["task_id"] + "-g"
        assert g["oracle_answer"] == c["oracle_answer"]
        assert {k: v for k, v in c["rubric"]["normalization"].items() if k in ("schema", "record_separator")} == \
            {k: v for k, v in g["rubric"]["normalization"].items() if k in ("schema", "record_separator")}
        assert set(c) == {"task_id", "domain", "autonomy_type", "oracle_output_cardinality", "instruction",
                          "start_url", "output_format", "oracle_answer", "metadata", "rubric", "all_involved_urls"}
        assert "columns" not in c["rubric"] and "State-Gated Retrieval" in c["metadata"]
    for r in constraint + goal:  # SYNTHETIC wherever a task is shown
        assert r["metadata"]["synthetic"] is True and r["metadata"]["generator"] == "sgr_kit.demo"
        assert "SYNTHETIC" in r["instruction"] and "synthetic" in r["output_format"].lower()
        assert json.loads(r["all_involved_urls"])[0] == r["start_url"]


@pytest.mark.slow
def test_loads_with_the_package_loaders_as_generated(tasks, demo):
    assert len(tasks) == 100 and all(t.synthetic for t in tasks.values())
    assert Counter(t.family for t in tasks.values()) == FAMILY_TASKS
    assert len(tasks.pairs) == 50
    for rec in demo.constraint + demo.goal:  # the loader's reading is the demo's own, task by task
        mine, loaded = as_task(rec), tasks[rec["task_id"]]
        assert (mine.schema.columns, mine.schema.row_key, mine.schema.record_separator, mine.gold_rows,
                mine.base_id, mine.variant) == \
            (loaded.schema.columns, loaded.schema.row_key, loaded.schema.record_separator, loaded.gold_rows,
             loaded.base_id, loaded.variant), rec["task_id"]
        assert loaded.prose["inclusion_conditions"] == rec["rubric"]["inclusion_conditions"]
    keys = Counter(t.schema.key_from.split(",")[0].split(":")[0] for t in tasks.values())
    assert len(keys) >= 3  # declared, first column unique, a leading run of columns
    runs = load_runs(DEMO / "runs.jsonl", tasks=tasks)
    assert len(runs) == len(demo.runs) and len(set(runs.systems)) == 11


def test_a_correct_answer_scores_the_same_in_every_layout(tasks):
    # The reference rows written in every answer format (one line, one record per line, under a
    # header in the task's spelling, Markdown, CSV, JSON ...) score 1/1/1: the layouts are read.
    from sgr_kit.score import prepare_task, score_answer

    for p in make_problems(seed=DEFAULT_SEED):
        for task_id in (p.base_id, p.base_id + "-g"):
            prepared = prepare_task(tasks[task_id], profile="paper")
            assert score_answer(prepared, tasks[task_id].reference).item_f1 == 1.0
            variant = "goal" if task_id.endswith("-g") else "constraint"
            for fmt in TABLE_FORMATS:
                text = render([list(r) for r in p.rows], list(p.names), fmt, Random(1),
                              spellings=p.answer_spellings(variant), composite=p.composite, separator=p.separator)
                r = score_answer(prepared, text)
                assert (r.item_f1, r.row_f1, r.poa) == (1.0, 1.0, 1.0), (task_id, fmt, text[:200])


def test_calibration_from_the_committed_files(report):
    # Tolerances of the issue: Table 2 within 3 (Item-F1, Row-F1) and 6 (P.O.A.);
    # family and bin means within 5; Table 6 within 5; Tables 4 and 5 exactly.
    assert set(report["group"]) == {"table2_item_f1", "table2_row_f1", "table2_poa", "family", "bin",
                                    "table6", "table4", "table5"}
    assert len(report.query("group.str.startswith('table2')")) == 66
    outside = report[~report["within"]]
    assert outside.empty, outside.to_string()


def test_readme_reports_the_computed_calibration(report):
    text = (DEMO / "README.md").read_text(encoding="utf-8")
    assert text.startswith("# SYNTHETIC")
    assert "`normalization`" in text and "all_involved_urls" in text
    assert "python -m sgr_kit.demo data/demo" in text
    for row in summary(report).itertuples():
        assert f"| {row.targets} | {row.max_abs_deviation:.2f} |" in text


def test_audit_labels_agree_with_the_injected_errors():
    audit = pd.read_csv(DEMO / "audit.csv", dtype=str)
    truth = pd.read_csv(DEMO / "truth.csv", dtype={"repeat": int}, keep_default_na=False)
    assert len(audit) == 176 and audit.groupby("system").size().eq(22).all()
    assert audit["task_id"].nunique() == 22 and "vulnerability databases" not in set(audit["family"])
    merged = audit.merge(truth, on=["system", "task_id"], how="left")
    assert merged["injected"].notna().all()
    assert (merged["injected"] == merged["label"]).all()


def test_repeats_formats_and_statuses(tasks):
    truth = pd.read_csv(DEMO / "truth.csv", dtype={"repeat": int}, keep_default_na=False)
    rep = truth[truth["repeat"] == 1]
    assert rep["task_id"].nunique() >= 10 and rep.groupby("system")["task_id"].nunique().eq(10).all()
    pairs = truth.pivot_table(index=["system", "task_id"], columns="repeat", values="injected", aggfunc="first")
    both = pairs.dropna()
    assert (both[0] == both[1]).all()
    formats = set(truth["format"])
    assert {"markdown", "markdown_prose", "pipe", "pipe_rows", "one_line", "csv", "fenced", "none"} <= formats
    assert formats & {"prose", "header_only"}
    # answers on one line and one record per line, for tasks asking for either
    one_line = {t.task_id for t in tasks.values() if t.schema.record_separator}
    asked = truth.assign(one_line_task=truth["task_id"].isin(one_line))
    assert set(asked.groupby(["one_line_task", "format"]).size().loc[[(True, "one_line"), (True, "pipe_rows"),
                                                                     (False, "one_line"), (False, "pipe_rows")]])
    from sgr_kit.score import score_runs

    scores = score_runs(tasks, load_runs(DEMO / "runs.jsonl", tasks=tasks))
    status = scores["status"].value_counts()
    assert status["empty"] > 0 and 0 < status["parse_failure"] < 0.05 * len(scores)
    assert "missing" not in status
    assert scores["synthetic"].all()
