"""Pairing goal tasks with constraint tasks; pairing files; the validation report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sgr_kit.errors import SgrKitError
from sgr_kit.prepare import load_tasks, validate
from sgr_kit.prepare.pairing import read_pairing_file, variant_of

RUBRIC = {"columns": ["cve_id", "score"], "fields": {"score": {"type": "decimal"}}}
REF_A = "CVE-1|9.8\nCVE-2|7.5"
REF_B = "CVE-3|5.0\nCVE-4|4.1"


def task(task_id: str, answer: str = REF_A, *, domain: str = "NVD", **extra) -> dict:
    return {"task_id": task_id, "domain": domain, "oracle_answer": answer, "rubric": RUBRIC, **extra}


def write_jsonl(path: Path, records: list, extra_lines: tuple[str, ...] = ()) -> Path:
    path.write_text("\n".join([json.dumps(r) for r in records] + list(extra_lines)) + "\n", encoding="utf-8")
    return path


def rules(tasks) -> dict[str, tuple[str, str]]:
    return {d.task_id: (d.base_id, d.rule) for d in tasks.decisions}


def test_variant_by_suffix():
    assert variant_of("x_001-g") == "goal" and variant_of("x_001") == "constraint" and variant_of("x-G") == "constraint"


def test_suffix_pairing_compares_canonical_tables(tmp_path):
    # 9.80 == 9.8 in a decimal column; Markdown pipes and bold are presentation only
    goal = task("nvd_001-g", "| cve_id | score |\n|---|---|\n| **CVE-1** | 9.80 |\n| CVE-2 | 7.5 |")
    tasks = load_tasks(write_jsonl(tmp_path / "t.jsonl", [task("nvd_001"), goal]))
    assert rules(tasks) == {"nvd_001-g": ("nvd_001", "suffix")}
    assert tasks["nvd_001-g"].base_id == "nvd_001" and tasks["nvd_001"].base_id == "nvd_001"
    assert tasks.pairs == (("nvd_001", "nvd_001-g"),) and tasks.warnings == ()


def test_same_reference_in_another_constraint_task_of_the_domain(tmp_path):
    records = [task("nvd_001", REF_B), task("nvd_002", REF_A), task("kegg_001", REF_A, domain="KEGG_BRITE"),
               task("nvd_001-g", REF_A)]
    with pytest.warns(UserWarning, match=r"task nvd_001-g -> base nvd_002 \[same_reference\]: nvd_001 differs: "
                                         r"reference tables differ \(2 vs 2 rows; first at row 1, column 'cve_id': "
                                         r"'CVE-1' vs 'CVE-3'\); nvd_002 has the same reference"):
        tasks = load_tasks(write_jsonl(tmp_path / "t.jsonl", records))
    assert tasks["nvd_001-g"].base_id == "nvd_002"
    assert list(tasks) == ["kegg_001", "nvd_001", "nvd_002", "nvd_001-g"]
    assert ("nvd_002", "nvd_001-g") in tasks.pairs


def test_suffix_mismatch_keeps_the_partner_with_a_warning(tmp_path):
    records = [task("nvd_001", REF_B), task("nvd_001-g", REF_A)]
    with pytest.warns(UserWarning, match=r"nvd_001-g -> base nvd_001 \[suffix_mismatch\]: reference tables differ"):
        tasks = load_tasks(write_jsonl(tmp_path / "t.jsonl", records))
    assert rules(tasks)["nvd_001-g"] == ("nvd_001", "suffix_mismatch")


def test_schema_difference_is_a_mismatch(tmp_path):
    other = dict(RUBRIC, row_key=["cve_id", "score"])
    records = [task("nvd_001"), task("nvd_001-g", rubric=other)]
    with pytest.warns(UserWarning, match=r"\[suffix_mismatch\]: row keys differ \(cve_id\|score vs cve_id\)"):
        load_tasks(write_jsonl(tmp_path / "t.jsonl", records))


def test_ambiguous_same_reference_is_not_guessed(tmp_path):
    records = [task("nvd_001", REF_B), task("nvd_002"), task("nvd_003"), task("nvd_001-g")]
    with pytest.warns(UserWarning, match=r"\[suffix_mismatch\]: .*; same reference in nvd_002, nvd_003"):
        tasks = load_tasks(write_jsonl(tmp_path / "t.jsonl", records))
    assert tasks["nvd_001-g"].base_id == "nvd_001"


def test_unpaired_goal_and_constraint(tmp_path):
    records = [task("nvd_001"), task("nvd_009-g", REF_B)]
    with pytest.warns(UserWarning, match=r"nvd_009-g -> base nvd_009 \[unpaired\]: no task nvd_009 is loaded"):
        tasks = load_tasks(write_jsonl(tmp_path / "t.jsonl", records))
    assert tasks["nvd_009-g"].base_id == "nvd_009" and tasks.pairs == ()
    assert rules(tasks) == {"nvd_009-g": ("nvd_009", "unpaired"), "nvd_001": ("nvd_001", "unpaired")}


def test_many_unpaired_goal_tasks_give_one_warning(tmp_path, recwarn):
    load_tasks(write_jsonl(tmp_path / "goal.jsonl", [task(f"nvd_00{i}-g") for i in range(1, 6)]))
    messages = [str(w.message) for w in recwarn]
    assert len(messages) == 1
    assert messages[0].startswith("5 goal tasks have no constraint task loaded (nvd_001-g, ")


def test_two_goal_variants_of_one_base_warn(tmp_path):
    records = [task("nvd_001"), task("nvd_001-g"), task("nvd_002-g")]
    with pytest.warns(UserWarning) as record:
        load_tasks(write_jsonl(tmp_path / "t.jsonl", records))
    messages = [str(w.message) for w in record]
    assert any("nvd_002-g -> base nvd_001 [same_reference]: no task nvd_002;" in m for m in messages)
    assert "base nvd_001 has 2 goal variants: nvd_001-g, nvd_002-g" in messages


def test_pairing_file_overrides(tmp_path):
    records = [task("nvd_001", REF_B), task("nvd_002"), task("nvd_001-g")]
    path = write_jsonl(tmp_path / "t.jsonl", records)
    pairing = tmp_path / "pairing.csv"
    pairing.write_text("task_id,base_id\nnvd_001-g,nvd_002\nnvd_002,nvd_002\n", encoding="utf-8")
    tasks = load_tasks(path, pairing=pairing)
    assert rules(tasks)["nvd_001-g"] == ("nvd_002", "pairing_file")
    assert [d.detail for d in tasks.decisions if d.task_id == "nvd_001-g"] == [f"from {pairing}:2"]


def test_pairing_file_against_the_reference_warns(tmp_path):
    path = write_jsonl(tmp_path / "t.jsonl", [task("nvd_001", REF_B), task("nvd_002"), task("nvd_002-g")])
    pairing = tmp_path / "pairing.json"
    pairing.write_text(json.dumps({"nvd_002-g": "nvd_001"}), encoding="utf-8")
    with pytest.warns(UserWarning, match=r"\[pairing_file\]: from .*pairing\.json:1; note: reference tables differ"):
        tasks = load_tasks(path, pairing=pairing)
    assert tasks["nvd_002-g"].base_id == "nvd_001"


@pytest.mark.parametrize(
    ("content", "suffix", "message"),
    [
        ("task_id,base_id\nnvd_001-g,nvd_001\nnvd_404-g,nvd_001\n", ".csv",
         r"pairing\.csv:3: task nvd_404-g is not among the loaded tasks"),
        ("task_id,base_id\nnvd_001-g,nvd_404\n", ".csv",
         r"pairing\.csv:2: base nvd_404 of task nvd_001-g is not among"),
        ("task_id,base_id\nnvd_001-g,nvd_001-g\n", ".csv", r"pairing\.csv:2: base nvd_001-g .* is a goal task"),
        ("task_id,base_id\nnvd_001,nvd_002\n", ".csv", r"pairing\.csv:2: task nvd_001 is a constraint task, which is "
                                                       r"its own base"),
        ("task_id,base_id\nnvd_001-g,nvd_001\nnvd_001-g,nvd_002\n", ".csv",
         r"pairing\.csv:3: task nvd_001-g is paired twice \(also at .*pairing\.csv:2\)"),
        ("goal,constraint\nnvd_001-g,nvd_001\n", ".csv", r"pairing\.csv:1: the header should name task_id and base_id"),
        ("task_id,base_id\nnvd_001-g,\n", ".csv", r"pairing\.csv:2: task_id and base_id must both be given"),
        ('{"task_id": "nvd_001-g", "base_id": "nvd_001"}\n{"task_id": "x-g", "base_id": "nvd_001"}\n', ".jsonl",
         r"pairing\.jsonl:2: task x-g is not among the loaded tasks"),
        ('[\n  {"task_id": "nvd_001-g", "base_id": "nvd_001"},\n  {"task_id": "x-g", "base_id": "nvd_001"}\n]', ".json",
         r"pairing\.json:3: task x-g is not among the loaded tasks"),
        ("task_id: x", ".yaml", r"pairing\.yaml: expected a \.csv, \.json or \.jsonl file"),
    ],
)
def test_pairing_file_problems_name_file_and_line(tmp_path, content, suffix, message):
    path = write_jsonl(tmp_path / "t.jsonl", [task("nvd_001"), task("nvd_002", REF_B), task("nvd_001-g")])
    pairing = tmp_path / f"pairing{suffix}"
    pairing.write_text(content, encoding="utf-8")
    with pytest.raises(SgrKitError, match=message):
        load_tasks(path, pairing=pairing)


def test_missing_pairing_file(tmp_path):
    with pytest.raises(SgrKitError, match=r"pairing file .*nope\.csv: no such file"):
        read_pairing_file(tmp_path / "nope.csv")


def test_validate_collects_every_problem(tmp_path):
    good = [task("nvd_001"), task("nvd_001-g"), task("nvd_002", REF_B)]
    first = write_jsonl(tmp_path / "constraint.jsonl", good, extra_lines=("{oops",))
    second = write_jsonl(tmp_path / "more.jsonl", [
        task("nvd_002", REF_A),                                   # duplicate id, different content
        task("nvd_003", "prose only"),                            # unparseable reference
        task("nvd_004", rubric={"columns": ["a"], "row_key": ["z"]}),  # schema problem
        task("nvd_005", oracle_output_cardinality=9),             # cardinality
        task("mars_001", domain="MARS"),                          # unknown domain
        task("nvd_002-g", REF_A),                                 # pairs by suffix mismatch... or not at all
    ])
    report = validate([first, second])
    frame = report.frame()
    assert list(frame.columns) == ["severity", "task_id", "kind", "message"]
    assert not report.ok
    kinds = set(zip(frame["severity"], frame["kind"]))
    assert {("error", "read"), ("error", "duplicate"), ("error", "unparseable_reference"), ("error", "schema"),
            ("warning", "cardinality"), ("warning", "domain"), ("warning", "pairing"), ("info", "pairing")} <= kinds
    text = report.text()
    assert "constraint.jsonl:4: not valid JSON" in text and "result: FAILED (4 errors" in text
    assert "nvd_001-g -> nvd_001 [suffix] reference and schema match" in text
    assert "task nvd_002 appears twice with different content" in text


def test_validate_the_fixtures_reports_both_pairs(release_dir):
    report = validate(release_dir / "constraint.jsonl", release_dir / "goal.jsonl")
    assert report.ok
    text = report.text()
    assert "4 tasks loaded: 2 constraint, 2 goal, 2 pairs" in text
    assert "cardinality bins: 6-10: 2, 11+: 2" in text
    assert "wqp_activity_panel_001-g -> wqp_activity_panel_001 [suffix]" in text
    assert text.endswith("result: OK (0 errors, 0 warnings)")


def test_fixture_goal_task_with_changed_reference_is_a_mismatch(release_dir, tmp_path):
    constraint = [json.loads(ln) for ln in (release_dir / "constraint.jsonl").open()]
    goal = [json.loads(ln) for ln in (release_dir / "goal.jsonl").open()]
    goal[0]["oracle_answer"] = goal[0]["oracle_answer"].replace("v6", "v5")
    path = write_jsonl(tmp_path / "t.jsonl", constraint + goal)
    with pytest.warns(UserWarning, match=r"arxiv_historical_title_001-g -> base arxiv_historical_title_001 "
                                         r"\[suffix_mismatch\]: reference tables differ \(8 vs 8 rows; first at row 5, "
                                         r"column 'selected_version': 'v5' vs 'v6'\)"):
        load_tasks(path)


def test_strict_pairing_turns_pairing_warnings_into_errors(tmp_path):
    path = write_jsonl(tmp_path / "t.jsonl", [task("nvd_001", REF_B), task("nvd_001-g", REF_A)])
    with pytest.raises(SgrKitError, match=r"t\.jsonl:2: task nvd_001-g -> base nvd_001 \[suffix_mismatch\]"):
        load_tasks(path, strict_pairing=True)
    report = validate(path, strict_pairing=True)
    assert not report.ok and report.frame()["severity"].tolist().count("error") == 1
    assert validate(path).ok
