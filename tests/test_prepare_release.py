"""A task set beside the public release (sgr_kit.prepare.release): coverage, domains, ids, fingerprint."""

from __future__ import annotations

import dataclasses
import json

import pytest

from sgr_kit.prepare import load_tasks, validate
from sgr_kit.prepare.release import RENUMBERED_NOTE, release_check, task_fingerprint
from sgr_kit.taxonomy import RELEASE_DOMAIN_TASKS, TAXONOMY

from conftest import build_task


def _pair(task_id: str, domain: str, reference: str = "a|1\nb|2") -> list:
    return [build_task(("id", "n"), reference, task_id=t, domain=domain, gold_rows=2) for t in (task_id, task_id + "-g")]


_PREFIX = {"ARXIV": "arxiv", "CDC_WONDER": "wonder", "CENSUS_GOV": "census", "CFPB_COMPLAINT_DATABASE": "consumerfinance",
           "CFPB_REPORTS": "consumerfinance", "COMPTOX_CHEMEXPO": "comptox", "EUROPEPMC_PMC": "europepmc",
           "KEGG_BRITE": "genome", "KEGG_GENOME": "genome", "NOAA_NCEI_CLIMATE_AT_A_GLANCE": "climategov",
           "NVD": "nvd", "REPTILE_DATABASE": "reptile", "WATER_OFFICE": "wateroffice",
           "WATER_QUALITY_PORTAL": "waterquality"}  # fmt: skip


def _full_release() -> dict:
    tasks, number = {}, {}
    for domain, count in RELEASE_DOMAIN_TASKS.items():
        for _ in range(count):
            prefix = _PREFIX[domain]
            number[prefix] = number.get(prefix, 0) + 1
            for t in _pair(f"{prefix}_{number[prefix]:03d}", domain):
                tasks[t.task_id] = t
    return tasks


def test_release_facts_agree_with_the_taxonomy_and_the_paper():
    # README of the release fixtures: 50 base tasks over the 14 domains of the taxonomy
    assert sum(RELEASE_DOMAIN_TASKS.values()) == 50
    assert set(RELEASE_DOMAIN_TASKS) == set(TAXONOMY)


def test_a_full_release_is_recognised():
    tasks = _full_release()
    lines, findings = release_check(tasks)
    assert lines[0] == ("release: the full release: 50 of the 50 base tasks, 100 of the 100 tasks "
                        "(50 constraint, 50 goal), 50 of the 50 pairs")
    assert "KEGG_BRITE 2/2" in lines[1] and "WATER_OFFICE 5/5" in lines[1]
    assert findings == []  # every id of the release's shape, no domain above the release's count


def test_a_partial_release_lists_missing_variants_unknown_ids_and_the_renumbering_note():
    tasks = {t.task_id: t for t in _pair("nvd_001", "NVD") + _pair("nvd_002", "NVD")[:1]
             + _pair("cve_003", "NVD")[1:]}  # fmt: skip
    lines, findings = release_check(tasks)
    assert lines[0].startswith("release: a partial release: 3 of the 50 base tasks, 4 of the 100 tasks "
                               "(2 constraint, 2 goal), 1 of the 50 pairs")
    assert "  variants missing (2): cve_003 (constraint variant), nvd_002-g (goal variant)" in lines
    unknown = [f for f in findings if f.task_id == "cve_003-g"]
    assert unknown[0].severity == "info" and "expected nvd_NNN[-g]" in unknown[0].message
    assert any(f.message == RENUMBERED_NOTE for f in findings)


def test_unknown_prefix_names_the_closest_release_prefixes_and_excess_domains_warn():
    tasks = {t.task_id: t for t in _pair("waterqualty_001", "NOT_A_DOMAIN")}
    _, findings = release_check(tasks)
    assert "closest release prefixes: waterquality" in findings[0].message
    many = {t.task_id: t for i in range(1, 5) for t in _pair(f"nvd_{i:03d}", "NVD")}
    _, findings = release_check(many)
    warned = [f for f in findings if f.severity == "warning"]
    assert len(warned) == 1 and warned[0].message.startswith("domain NVD: 4 base tasks loaded, the release has 3")


def test_crossed_pairs_are_reported_with_what_the_ids_suggest():
    a, a_g = _pair("genome_003", "KEGG_GENOME", "x|1\ny|2")
    b, b_g = _pair("genome_004", "KEGG_GENOME", "u|1\nv|2")
    tasks = {t.task_id: t for t in (a, dataclasses.replace(a_g, base_id="genome_004"), b,
                                    dataclasses.replace(b_g, base_id="genome_003"))}
    lines, _ = release_check(tasks)
    assert ("  crossed pair: genome_003-g shares the reference of genome_004 (its id suggests genome_003); "
            "scored as the references pair them") in lines


def test_crossed_pairs_are_found_by_their_shared_reference(tmp_path):
    # The release: genome_003 pairs with genome_004-g and genome_004 with genome_003-g (shared references).
    rows = [{"task_id": tid, "domain": "KEGG_GENOME", "oracle_answer": ref,
             "rubric": {"normalization": {"schema": ["org", "n"]}}}
            for tid, ref in (("genome_003", "api+buc|1\nhsa|2"), ("genome_004", "eco|3\nbsu|4"),
                             ("genome_003-g", "eco|3\nbsu|4"), ("genome_004-g", "api+buc|1\nhsa|2"))]
    path = tmp_path / "tasks.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    with pytest.warns(UserWarning) as caught:
        tasks = load_tasks(path)
    messages = [str(w.message) for w in caught]
    assert any("genome_003-g -> base genome_004 [same_reference]: genome_003 differs" in m for m in messages)
    assert any("genome_004-g -> base genome_003 [same_reference]: genome_004 differs" in m for m in messages)
    assert tasks["genome_003-g"].base_id == "genome_004" and tasks["genome_004-g"].base_id == "genome_003"
    decision = next(d for d in tasks.decisions if d.task_id == "genome_004-g")
    assert "a crossed pair: the id suggests genome_004; scored with genome_003" in decision.detail
    report = validate(path)
    assert report.ok
    assert "crossed pair: genome_004-g shares the reference of genome_003 (its id suggests genome_004)" in report.text()


def test_fingerprint_ignores_order_and_prose_but_not_scored_content():
    tasks = _full_release()
    reordered = dict(reversed(list(tasks.items())))
    assert task_fingerprint(reordered) == task_fingerprint(tasks)
    first = next(iter(tasks))
    reworded = {**tasks, first: dataclasses.replace(tasks[first], instruction="other words", prose={"x": "y"})}
    assert task_fingerprint(reworded) == task_fingerprint(tasks)
    changed = {**tasks, first: dataclasses.replace(tasks[first], reference="a|1\nb|3")}
    assert task_fingerprint(changed) != task_fingerprint(tasks)
    chinese = {k: dataclasses.replace(t, language="zh") for k, t in tasks.items()}
    assert task_fingerprint(chinese) != task_fingerprint(tasks)
    assert len(task_fingerprint(tasks)) == 64 and int(task_fingerprint(tasks), 16) >= 0


def test_fingerprint_is_the_same_whatever_files_the_tasks_came_from(original_dir, tmp_path):
    # the released per-task files, and the same tasks as one JSONL file in another order
    records = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(original_dir.glob("*.json"), reverse=True)]
    path = tmp_path / "all.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records), encoding="utf-8")
    assert task_fingerprint(load_tasks(path)) == task_fingerprint(load_tasks(original_dir))


def test_validate_prints_the_release_lines_and_the_fingerprint(original_dir):
    report = validate(original_dir)
    text = report.text()
    assert "release: a partial release: 2 of the 50 base tasks, 4 of the 100 tasks" in text
    assert "COMPTOX_CHEMEXPO 1/4" in text and "WATER_QUALITY_PORTAL 1/5" in text
    assert f"task-set fingerprint (SHA-256 of the scored content): {task_fingerprint(report.tasks)}" in text
    assert RENUMBERED_NOTE not in text  # every id of the release's shape: nothing may be renumbered


def test_answers_to_unknown_ids_name_the_closest_ids_and_the_renumbering(original_dir, tmp_path):
    runs = tmp_path / "runs.jsonl"
    runs.write_text(json.dumps({"system": "S", "task_id": "comptox_010", "answer": "x"}) + "\n", encoding="utf-8")
    report = validate(original_dir, runs=runs)
    text = report.text()
    assert "unknown task id 'comptox_010' (not among the 4 loaded tasks); closest known ids: comptox_012" in text
    assert RENUMBERED_NOTE in text and not report.ok


def test_synthetic_tasks_are_never_called_the_release():
    from sgr_kit.prepare import load_tasks
    from sgr_kit.resources import demo_paths

    demo = demo_paths()
    lines, _ = release_check(load_tasks(demo["constraint"], demo["goal"]))
    assert lines[0].startswith("release: SYNTHETIC tasks shaped like the full release: 50 of the 50 base tasks")


def test_ids_not_of_the_release_are_not_counted_toward_its_domains():
    # three NVD tasks of the release's shape and two of a lab's own: NVD has 3 of its 3, no excess warned
    tasks = {t.task_id: t for i in range(1, 4) for t in _pair(f"nvd_{i:03d}", "NVD")}
    tasks.update({t.task_id: t for name in ("mycve_1", "nvd-extra") for t in _pair(name, "NVD")})
    lines, findings = release_check(tasks)
    assert "NVD 3/3" in lines[1] and "(the 4 task(s) whose id is not of the release's shape not counted)" in lines[1]
    assert not [f for f in findings if f.severity == "warning"]
    assert {f.task_id for f in findings if "not an id of the release's shape" in f.message} == {
        "mycve_1", "mycve_1-g", "nvd-extra", "nvd-extra-g"}
