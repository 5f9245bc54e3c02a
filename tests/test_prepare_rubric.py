"""The rubric -> Schema (sgr_kit.prepare.rubric): the public release's normalization, inferred keys,
composite template cells, the task's own header spelling, and the bad input each must name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sgr_kit.errors import SgrKitError
from sgr_kit.prepare import load_tasks, validate
from sgr_kit.prepare.rubric import build_schema, dedup_names, name_key, template_cells


def write_jsonl(path: Path, records: list) -> Path:
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path


def test_names_compare_ignoring_case_and_underscores_and_templates_give_cells():
    assert name_key("Organics_Other_start") == name_key("organics other  start")
    assert dedup_names(["A"], ["a", "b"], loc="t") == ["a"]
    assert template_cells("rows as <County>:<Site>|<year>") == [["County", "Site"], ["year"]]
    schema = build_schema({"normalization": {"schema": ["a", "b"], "record_separator": "\n"}}, reference="x|1\ny|2")
    assert schema.record_separator is None and schema.row_key == ("a",) and schema.declared
    with pytest.raises(SgrKitError, match=r"t: rubric 'field_separator' ';' is not supported; expected '\|'"):
        build_schema({"normalization": {"schema": ["a", "b"], "field_separator": ";"}}, reference="x|1", loc="t")
    with pytest.raises(SgrKitError, match=r"t: rubric 'normalization' should be an object; found list"):
        build_schema({"normalization": []}, reference="x|1", loc="t")


def _norm(schema, answer, **normalization) -> dict:
    return {"task_id": "census_001", "domain": "CENSUS_GOV", "oracle_answer": answer,
            "rubric": {"normalization": {"schema": schema, **normalization}}}


def test_dedup_key_names_are_matched_tolerantly_and_checked(tmp_path):
    rec = _norm(["accepted name", "year", "n"], "Boa|1990|3\nBoa|1991|4", dedup_key="(Accepted_Name, year)")
    assert load_tasks(write_jsonl(tmp_path / "a.jsonl", [rec]))["census_001"].schema.row_key == ("accepted name", "year")
    bad = _norm(["a", "b"], "x|1\ny|2", dedup_key="(a, county)")
    with pytest.raises(SgrKitError, match=r"b\.jsonl:1: task census_001: normalization 'dedup_key' '\(a, county\)' "
                                          r"names 'county', not among the schema's columns \(a, b\)"):
        load_tasks(write_jsonl(tmp_path / "b.jsonl", [bad]))


def test_key_inferred_as_the_shortest_unique_leading_run_and_said_in_validate(tmp_path):
    # README: a genome task's reference has two rows whose first cell is api+buc
    rec = _norm(["pair", "gene", "n"], "api+buc|K1|3\napi+buc|K2|4\nhsa|K1|5")
    path = write_jsonl(tmp_path / "t.jsonl", [rec])
    assert load_tasks(path)["census_001"].schema.row_key == ("pair", "gene")
    text = validate(path).text()
    assert ("no row key declared and the first column repeats in the reference; rows are keyed by the first 2 "
            "columns: the shortest leading run unique in the reference (pair, gene)") in text


def test_repeated_rows_under_every_candidate_key_are_an_error(tmp_path):
    rec = _norm(["a", "b"], "x|1\nx|1")
    with pytest.raises(SgrKitError, match=r"task census_001: no row key: the rubric declares none .* repeats a whole "
                                          r"row \('x\|1'\) so no run of columns is unique"):
        load_tasks(write_jsonl(tmp_path / "t.jsonl", [rec]))


def test_a_schema_whose_width_disagrees_with_the_reference_is_an_error(tmp_path):
    rec = _norm(["a", "b", "c"], "x|1\ny|2")
    with pytest.raises(SgrKitError, match=r"task census_001: rubric\.normalization\.schema has 3 columns \(a, b, c\), "
                                          r"but the reference's rows have 2 cells .* expected rows of 3 cells"):
        load_tasks(write_jsonl(tmp_path / "t.jsonl", [rec]))


def test_a_separator_splitting_the_reference_otherwise_than_its_width_warns(tmp_path):
    # README: consumerfinance_012 holds 'TRANSUNION INTERMEDIATE HOLDINGS, INC.' in a one-line ','-joined answer
    rec = {**_norm(["kind", "company", "n"], "Peak|TRANSUNION INTERMEDIATE HOLDINGS, INC.|9,Low|EQUIFAX, INC.|4",
                   record_separator=","), "oracle_output_cardinality": 2}
    with pytest.warns(UserWarning, match=r"task census_001: a plain split on the record separator ',' gives 4 records, "
                                         r"but 2 records of 3 fields are read by the schema's width"):
        task = load_tasks(write_jsonl(tmp_path / "t.jsonl", [rec]))["census_001"]
    assert task.gold_rows == 2


def test_composite_template_cell_is_split_when_the_schema_counts_its_parts(tmp_path):
    # README: waterquality_002's format <County>:<MonitoringLocationIdentifier>|<common_start_year>|...
    rec = {**_norm(["County", "MonitoringLocationIdentifier", "common_start_year"],
                   "Hidalgo:TCEQMAIN-15808|1998,Cameron:TCEQMAIN-13177|1995", record_separator=","),
           "output_format": "Output <County>:<MonitoringLocationIdentifier>|<common_start_year>, joined by commas."}
    task = load_tasks(write_jsonl(tmp_path / "t.jsonl", [rec]))["census_001"]
    assert task.schema.composite == ((0, ":", 2),) and task.gold_rows == 2


def test_columns_from_a_placeholder_template_without_normalization(tmp_path):
    rec = {"task_id": "nvd_001", "domain": "NVD", "oracle_answer": "CVE-1|9.8\nCVE-2|7.5",
           "output_format": "each row formatted as <cve id>|<base score>."}
    task = load_tasks(write_jsonl(tmp_path / "t.jsonl", [rec]))["nvd_001"]
    assert task.schema.columns == ("cve id", "base score")
    assert task.schema.columns_from == "the <placeholder> template in output_format"


def test_a_header_in_the_tasks_own_spelling_is_a_header(tmp_path):
    # README: the header in the task's own spelling ('arXiv ID|term family|...') above normalization.schema names
    rec = {**_norm(["arxiv_id", "term_family"], "arXiv ID|term family\n2101.1|x\n2101.2|y"),
           "oracle_output_cardinality": 2}
    task = load_tasks(write_jsonl(tmp_path / "t.jsonl", [rec]))["census_001"]
    assert task.gold_rows == 2 and task.schema.header_names == ("arXiv ID", "term family")
