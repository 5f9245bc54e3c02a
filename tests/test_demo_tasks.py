"""Synthetic base problems and their task records in the release's own format (sgr_kit.demo.tasks)."""

from __future__ import annotations

import json
import statistics
from collections import Counter
from random import Random

import pytest

from sgr_kit.demo import reference_rows
from sgr_kit.demo.columns import COMPOSITE, DOMAIN_COLUMNS, KINDS
from sgr_kit.demo.tasks import KEYS, PLAN, PREFIX, hf_record, inferred_key, make_problems, task_records
from sgr_kit.taxonomy import TAXONOMY, cardinality_bin

PROBLEMS = make_problems(seed=3)
RECORDS = task_records(PROBLEMS, seed=3)

# Keys of a task in the public release (../shared/fixtures/release-original/README.md).
RELEASE_KEYS = {"task_id", "domain", "autonomy_type", "oracle_output_cardinality", "instruction", "start_url",
                "output_format", "oracle_answer", "metadata", "rubric"}
METADATA_KEYS = {"State-Gated Retrieval", "dependency_type", "intra_chain", "inter_chain", "data_dependency",
                 "control_dependency", "freeze", "answer_type"}


def test_plan_has_the_shape_of_section_3():
    rows = [r for plan in PLAN.values() for r, _, _ in plan]
    tasks = rows * 2  # both variants share the reference
    # Paper, section 3.3 and Appendix K: 2 to 44 rows, mean 6.42, median 4.0, 72 tasks at most 7 rows,
    # bins 1-2 / 3-5 / 6-10 / 11+ holding 26 / 38 / 26 / 10 of the 100 tasks.
    assert (min(tasks), max(tasks), len(tasks)) == (2, 44, 100)
    assert statistics.mean(tasks) == pytest.approx(6.42) and statistics.median(tasks) == 4
    assert sum(n <= 7 for n in tasks) == 72
    assert Counter(cardinality_bin(n) for n in tasks) == {"1-2": 26, "3-5": 38, "6-10": 26, "11+": 10}
    assert set(PLAN) == set(TAXONOMY)
    two_row = Counter(d for d, plan in PLAN.items() for r, _, _ in plan if r == 2)
    low = {"CENSUS_GOV", "CFPB_REPORTS", "CFPB_COMPLAINT_DATABASE", "CDC_WONDER"}
    assert sum(n for d, n in two_row.items() if d in low) >= 12  # Appendix K: mostly Census and CFPB
    for domain, plan in PLAN.items():
        assert all(4 <= c <= len(DOMAIN_COLUMNS[domain]) for _, c, _ in plan), domain
        assert all(("c" not in lay or domain in COMPOSITE) and ("2" in lay or "c" in lay or 1 in KEYS[domain])
                   for _, _, lay in plan), domain


def test_ids_use_the_release_prefixes():
    constraint, _ = RECORDS
    prefixes = {r["task_id"].rsplit("_", 1)[0] for r in constraint}
    release = {"arxiv", "census", "climategov", "comptox", "consumerfinance", "genome", "nvd", "reptile",
               "wateroffice", "waterquality", "wonder"}
    assert prefixes - release == {"europepmc"}  # the release's own Europe PMC prefix is not known
    assert len({r["task_id"] for r in constraint}) == 50
    assert {PREFIX["KEGG_BRITE"], PREFIX["CFPB_REPORTS"]} == {"genome", "consumerfinance"}


def test_columns_generate_values_the_layouts_can_hold():
    rng = Random(5)
    for domain, columns in DOMAIN_COLUMNS.items():
        for col in columns:
            assert col.kind in KINDS
            values = [col.gen(rng) for _ in range(30)]
            assert all(v and "|" not in v and "\n" not in v for v in values), col.name
            if col.kind in ("integer", "decimal"):
                [float(v) for v in values]
            if col.comma:
                assert any(", " in v for v in values), col.name
        for i in {i for key in KEYS[domain].values() for i in key}:
            values = [columns[i].gen(rng) for _ in range(30)]
            assert not any(ch in v for v in values for ch in ",;:"), (domain, columns[i].name)


def test_problems_are_deterministic_with_unique_keys_and_readable_references():
    assert make_problems(seed=3) == PROBLEMS and make_problems(seed=4)[0].rows != PROBLEMS[0].rows
    for p in PROBLEMS:
        keys = [r[: len(p.row_key)] for r in p.rows]
        assert len(set(keys)) == len(keys) and p.sort_rows(list(p.rows)) == list(p.rows)
        assert all(len(r) == len(p.columns) for r in p.rows)
        if not p.declared_key:  # what a reader infers without dedup_key
            assert inferred_key(p.names, p.rows) == p.row_key
        text = p.reference_text()
        assert reference_rows(text, p.names, p.separator, header=p.header, composite=p.composite) == list(p.rows)
        if p.one_line:
            assert "\n" not in text and text.count(p.separator) >= len(p.rows) - 1
        else:
            assert len(text.splitlines()) == len(p.rows) + p.header
        for c in p.columns[:1] + p.columns[-1:]:  # a record's first and last cells hold no separator
            assert not c.comma and c.kind != "id_list"


def test_every_layout_of_the_release_occurs():
    ps = PROBLEMS
    seps = Counter(p.separator for p in ps)
    assert set(seps) == {"\n", ",", ";"} and min(seps.values()) >= 5
    assert sum(p.header for p in ps) >= 8 and sum(not p.header and not p.one_line for p in ps) >= 15
    assert 10 <= sum(p.declared_key for p in ps) <= 40
    assert sum(p.composite for p in ps) >= 3
    # a first column that is not unique, with and without a declared key
    repeats = [p for p in ps if len({r[0] for r in p.rows}) < len(p.rows)]
    assert {p.declared_key for p in repeats} == {True, False}
    # cells that hold the record separator, in records written on one line
    in_cells = [p for p in ps if p.one_line and any(p.separator in c for r in p.rows for c in r)]
    assert {p.separator for p in in_cells} == {",", ";"}
    assert any(p.sort for p in ps) and any(not p.sort for p in ps)


def test_task_records_in_the_release_format():
    constraint, goal = RECORDS
    for p, c, g in zip(PROBLEMS, constraint, goal):
        assert c["task_id"] == p.base_id and g["task_id"] == p.base_id + "-g"
        for rec in (c, g):
            assert set(rec) == RELEASE_KEYS | {"all_involved_urls"}
            assert list(rec)[:3] == ["task_id", "domain", "autonomy_type"]
            assert rec["autonomy_type"] == "ordered table" and rec["oracle_output_cardinality"] == len(p.rows)
            assert METADATA_KEYS <= set(rec["metadata"]) and rec["metadata"]["synthetic"] is True
            assert rec["metadata"]["seed"] == 3 and "SYNTHETIC" in rec["metadata"]["note"]
            assert "SYNTHETIC" in rec["instruction"] and "Synthetic" in rec["output_format"]
            assert "columns" not in rec["rubric"] and "fields" not in rec["rubric"]
            urls = json.loads(rec["all_involved_urls"])
            assert isinstance(rec["all_involved_urls"], str) and urls[0] == rec["start_url"] and len(urls) >= 2
            norm = rec["rubric"]["normalization"]
            assert norm["schema"] == list(p.names) and norm["field_separator"] == "|"
            assert norm["record_separator"] == p.separator
            assert ("dedup_key" in norm) == p.declared_key
            if p.declared_key:
                assert norm["dedup_key"] == "(" + ", ".join(p.row_key) + ")"
            assert isinstance(norm["sorting_or_selection"], dict if p.sort else str)
            assert rec["rubric"]["inclusion_conditions"] == rec["metadata"]["State-Gated Retrieval"]
            assert p.template("constraint" if rec is c else "goal") in rec["output_format"]
            for col in p.columns:  # notes keyed by column name, `_` for spaces
                if col.note:
                    assert norm[col.name.replace(" ", "_")].casefold() == col.note.casefold()
        # the pair shares reference, cardinality, schema, separators and key; its prose differs
        assert g["oracle_answer"] == c["oracle_answer"]
        machine = ("schema", "field_separator", "record_separator", "dedup_key")
        assert [c["rubric"]["normalization"].get(k) for k in machine] == \
            [g["rubric"]["normalization"].get(k) for k in machine]
        assert c["instruction"] != g["instruction"] and c["rubric"] != g["rubric"]
    layouts = Counter(type(r["rubric"]["normalization"].get("header_row")).__name__ for r in constraint)
    assert layouts["str"] >= 10 and layouts["NoneType"] >= 10  # header_row prose present and absent
    assert {list(r).index("oracle_output_cardinality") for r in constraint} == {3, 7}


def test_hf_records_encode_metadata_and_rubric_as_text():
    rec = RECORDS[1][7]
    hf = hf_record(rec)
    assert isinstance(hf["metadata"], str) and isinstance(hf["rubric"], str)
    assert json.loads(hf["metadata"]) == rec["metadata"] and json.loads(hf["rubric"]) == rec["rubric"]
    assert hf["all_involved_urls"] == rec["all_involved_urls"] and list(hf) == list(rec)
