"""The rubric -> Schema (sgr_kit.prepare.rubric): the public release's normalization, inferred keys,
composite template cells, the task's own header spelling, and the bad input each must name."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from sgr_kit.errors import SgrKitError
from sgr_kit.prepare import load_tasks, validate
from sgr_kit.parse import parse_answer, parse_reference
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


def test_cells_holding_the_separator_are_a_validate_note_not_a_warning_at_load(tmp_path):
    # README: consumerfinance_012 holds 'TRANSUNION INTERMEDIATE HOLDINGS, INC.' in a one-line ','-joined answer
    rec = {**_norm(["kind", "company", "n"], "Peak|TRANSUNION INTERMEDIATE HOLDINGS, INC.|9,Low|EQUIFAX, INC.|4",
                   record_separator=","), "oracle_output_cardinality": 2}
    path = write_jsonl(tmp_path / "t.jsonl", [rec, {**rec, "task_id": "census_002"}])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # loading warns about none of it, however many tasks
        tasks = load_tasks(path)
    assert tasks["census_001"].gold_rows == 2  # read by width: 2 records of 3 fields
    # a plain split on ',' gives 4 pieces: 'Peak|TRANSUNION INTERMEDIATE HOLDINGS', ' INC.|9', 'Low|EQUIFAX', ' INC.|4'
    said = ("task census_001: cells hold the record separator ',': a plain split gives 4 records, the schema's "
            "width reads 2 records of 3 fields")
    assert any(said in note for note in tasks.notes)
    report = validate(path)
    found = report.frame().query("kind == 'separator'")
    assert list(found["severity"]) == ["info", "info"] and list(found["task_id"]) == ["census_001", "census_002"]
    assert said in report.text() and "the strict profile splits answers plainly on ','" in report.text()


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


def test_a_header_spelled_like_the_schema_up_to_case_spaces_and_punctuation_is_a_header(tmp_path):
    # the release spells a column 'accepted name' in one place and 'accepted_name' in another
    schema = ["Site_id", "Inorganics_start", "accepted_name"]
    rec = _norm(schema, "site id|Inorganics start|Accepted-Name\nA|1990|Boa\nB|1991|Elaps")  # no cardinality
    task = load_tasks(write_jsonl(tmp_path / "t.jsonl", [rec]))["census_001"]
    # 3 lines, the first a header: 2 data rows
    assert task.gold_rows == 2 and task.schema.header_names == ("site id", "Inorganics start", "Accepted-Name")
    bare = load_tasks(write_jsonl(tmp_path / "u.jsonl", [_norm(schema, "A|1990|Boa\nB|1991|Elaps")]))["census_001"]
    assert bare.schema.header_names == () and bare.gold_rows == 2
    answer = "SITE ID|inorganics start|accepted name\nB|1991|Elaps\nA|1990|Boa"
    for t in (task, bare):  # the answer's header in that spelling is read as a header (paper profile)
        parsed = parse_answer(answer, t.schema, profile="paper")
        assert parsed.rows == (("B", "1991", "Elaps"), ("A", "1990", "Boa"))  # 2 rows, header dropped


def test_one_separator_inside_a_one_line_reference_is_not_taken_for_a_header(tmp_path):
    # a plain split on ',' gives 3 pieces ('Low|Acme|9', 'Peak|EQUIFAX', ' INC.|4') = cardinality 2 + 1, and
    # the first piece has the schema's 3 fields: by the schema's width it is a data record, not a header
    rec = {**_norm(["kind", "company", "n"], "Low|Acme|9,Peak|EQUIFAX, INC.|4", record_separator=","),
           "oracle_output_cardinality": 2}
    task = load_tasks(write_jsonl(tmp_path / "t.jsonl", [rec]))["census_001"]
    assert task.gold_rows == 2 and task.schema.header_names == ()
    for profile in ("paper", "strict"):
        assert parse_reference(task.reference, task.schema, profile=profile).rows == (
            ("Low", "Acme", "9"), ("Peak", "EQUIFAX, INC.", "4"))
    # a first record whose cells name the columns (2 of 3, spelled otherwise) is a header: 2 data rows
    headed = {**rec, "oracle_answer": "KIND|Company|count,Low|Acme|9,Peak|EQUIFAX, INC.|4"}
    task = load_tasks(write_jsonl(tmp_path / "u.jsonl", [headed]))["census_001"]
    assert task.gold_rows == 2 and task.schema.header_names == ("KIND", "Company", "count")


def test_an_answer_header_in_the_templates_spelling_is_read_by_the_paper_profile(tmp_path):
    # the reference has no header; the answer heads its rows with the template's placeholders
    rec = {**_norm(["site", "first_year", "n"], "A|1990|3\nB|1991|4"),
           "output_format": "Each row as <site>|<earliest year with all six categories>|<result count>."}
    goal = {**rec, "task_id": "census_001-g", "output_format": "Rows: <Site>|<first year>|<number of results>."}
    tasks = load_tasks(write_jsonl(tmp_path / "t.jsonl", [rec, goal]))
    assert tasks.pairs == (("census_001", "census_001-g"),)  # templates worded otherwise still pair
    answer = "site|earliest year with all six categories|result count\nB|1991|4\nA|1990|3"
    paper = parse_answer(answer, tasks["census_001"].schema, profile="paper")
    assert paper.rows == (("B", "1991", "4"), ("A", "1990", "3"))  # 2 rows: the header line dropped
    strict = parse_answer(answer, tasks["census_001"].schema, profile="strict")
    assert len(strict.rows) == 3  # strict keeps the benchmark scorer's rule: only the schema's names are a header
    goal_answer = "Site|First year|Number of results\nA|1990|3\nB|1991|4"
    assert len(parse_answer(goal_answer, tasks["census_001-g"].schema, profile="paper").rows) == 2


def test_a_composite_template_spelled_otherwise_on_one_line_with_separators_in_cells(tmp_path):
    # README: waterquality_002's <County>:<MonitoringLocationIdentifier>|...; waterquality_005's 'Organics, Other'
    schema = ["County", "MonitoringLocationIdentifier", "CharacteristicGroup", "n"]
    reference = "Hidalgo:TCEQMAIN-15808|Organics, Other|3,Cameron:TCEQMAIN-13177|Physical|5"
    rec = {**_norm(schema, reference, record_separator=","), "oracle_output_cardinality": 2,
           "output_format": "Output <county>:<monitoring_location identifier>|<Characteristic group>|<N>."}
    task = load_tasks(write_jsonl(tmp_path / "t.jsonl", [rec]))["census_001"]
    # 5 cells on the line = 2 records of the template's 3 written cells (2 * 3 - 1)
    assert task.schema.composite == ((0, ":", 2),) and task.gold_rows == 2
    expected = (("Hidalgo", "TCEQMAIN-15808", "Organics, Other", "3"), ("Cameron", "TCEQMAIN-13177", "Physical", "5"))
    assert parse_reference(task.reference, task.schema, profile="strict").rows == expected
    answer = "county:monitoring location identifier|characteristic group|n\n" + reference.replace("3,C", "3\nC")
    assert parse_answer(answer, task.schema, profile="paper").rows == expected  # one record per line, headed
