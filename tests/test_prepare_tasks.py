"""Building tasks: schema from the rubric or inferred, record separators, taxonomy, cardinality."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sgr_kit.errors import SgrKitError
from sgr_kit.prepare import TaskSet, load_tasks, validate
from sgr_kit.prepare.tasks import build_schema, infer_separator
from conftest import examples

ANSWER = "cve_id|score\nCVE-1|9.8\nCVE-2|7.5"


def task(task_id: str, *, domain: str = "NVD", answer: str = ANSWER, **extra) -> dict:
    return {"task_id": task_id, "domain": domain, "oracle_answer": answer, "output_format": "cve_id|score", **extra}


def write_jsonl(path: Path, records: list) -> Path:
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path


def fixture_records(folder: Path, name: str = "constraint.jsonl") -> list[dict]:
    return [json.loads(ln) for ln in (folder / name).open()]


def test_real_fixtures_load(release_dir):
    # Known answers from the fixtures' README: two pairs, 8 and 12 reference rows.
    tasks = load_tasks([release_dir / "constraint.jsonl", release_dir / "goal.jsonl"])
    assert list(tasks) == [
        "arxiv_historical_title_001", "arxiv_historical_title_001-g",
        "wqp_activity_panel_001", "wqp_activity_panel_001-g",
    ]
    assert tasks.pairs == (
        ("arxiv_historical_title_001", "arxiv_historical_title_001-g"),
        ("wqp_activity_panel_001", "wqp_activity_panel_001-g"),
    )
    arxiv, wqp = tasks["arxiv_historical_title_001-g"], tasks["wqp_activity_panel_001"]
    assert (arxiv.gold_rows, arxiv.bin, arxiv.family, arxiv.variant) == (8, "6-10", "scholarly archives", "goal")
    assert (wqp.gold_rows, wqp.bin, wqp.family, wqp.ecosystem) == (12, "11+", "environmental monitoring",
                                                                   "Water Quality Portal")
    assert arxiv.schema.row_key == ("predecessor_id", "replacement_id") and arxiv.schema.declared
    assert wqp.schema.row_key == ("withdrawn_OrganizationIdentifier", "withdrawn_ActivityIdentifier",
                                  "start_year", "end_year")
    assert len(wqp.schema.columns) == 18 and wqp.schema.rule("cohort_station_ids").type == "id_list"
    # units become exact (offset, scale_num, scale_den) fractions, defaults 0, 1, 1
    units = wqp.schema.rule("temperature_deg_C").units
    assert units["deg F"] == (Fraction(32), Fraction(5), Fraction(9)) and units["deg C"] == (0, 1, 1)
    assert wqp.schema.rule("specific_conductance_uS_cm").units["mS/cm"] == (0, 1000, 1)
    assert tasks.warnings == ()


def test_fixture_frame_is_tidy(release_dir):
    frame = load_tasks(release_dir).frame()
    assert list(frame.columns) == ["task_id", "base_id", "variant", "domain", "ecosystem", "family", "gold_rows",
                                   "bin", "columns", "row_key", "synthetic", "source"]
    assert frame["gold_rows"].tolist() == [8, 8, 12, 12]
    assert frame["columns"].tolist() == [3, 3, 18, 18]
    assert frame.loc[0, "row_key"] == "predecessor_id|replacement_id"
    assert frame["source"].iloc[1].endswith("goal.jsonl:1")


def test_schema_inferred_from_header_line_and_output_format_matches_the_rubric(release_dir):
    # the release's other rubric shape: no columns/row_key/fields
    for rec in fixture_records(release_dir):
        rubric = {k: v for k, v in rec["rubric"].items() if k not in ("columns", "row_key", "fields")}
        schema = build_schema(rubric, reference=rec["oracle_answer"], output_format=rec["output_format"])
        assert schema.columns == tuple(rec["rubric"]["columns"])
        assert not schema.declared
        # no key declared: the first column when unique in the reference, else the shortest unique leading run
        rows = [line.split("|") for line in rec["oracle_answer"].splitlines()[1 if "|".join(schema.columns) in
                                                                            rec["oracle_answer"] else 0:]]
        n = next(n for n in range(1, len(schema.columns) + 1) if len({tuple(r[:n]) for r in rows}) == len(rows))
        assert schema.row_key == schema.columns[:n]
        assert schema.key_from.startswith("first column" if n == 1 else f"the first {n} columns")


def test_header_line_recognized_by_snake_case_without_output_format():
    schema = build_schema({}, reference="county_name|pop_2020\nAdams|12\nBrown|7", output_format="")
    assert schema.columns == ("county_name", "pop_2020")


def test_first_line_that_is_data_is_not_a_header():
    schema = build_schema({}, reference="Adams|12\nBrown|7", output_format="Return rows county|population.")
    assert schema.columns == ("county", "population")


def test_columns_from_code_span_and_from_columns_list():
    span = build_schema({}, reference="Adams|12", output_format="Format: `County Name | Population`, one per line.")
    assert span.columns == ("County Name", "Population")
    listed = build_schema({}, reference="Adams|12", output_format="Columns: county, population. Sort by name.")
    assert listed.columns == ("county", "population")


def test_columns_cannot_be_told(tmp_path):
    path = write_jsonl(tmp_path / "t.jsonl", [task("nvd_001", answer="Adams|12", output_format="a table")])
    with pytest.raises(SgrKitError, match=r"t\.jsonl:1: task nvd_001: cannot tell the columns: the rubric has no "
                                          r"'columns', the reference's first line 'Adams\|12' is not a header"):
        load_tasks(path)


def test_inferred_width_must_fit_the_reference():
    with pytest.raises(SgrKitError, match=r"3 columns inferred from the a\|b\|c sequence in output_format "
                                          r"\(a, b, c\), but the reference's rows have 2 cells"):
        build_schema({}, reference="x|1\ny|2", output_format="Return a|b|c.", loc="t.jsonl:1: task t")


def test_record_separator_inferred_from_one_line_reference(tmp_path):
    rec = task("census_001", domain="CENSUS_GOV", answer="Adams|12,Brown|7,Clark|3",
               output_format="county|population records separated by English commas")
    t = load_tasks(write_jsonl(tmp_path / "t.jsonl", [rec]))["census_001"]
    assert t.schema.record_separator == "," and t.gold_rows == 3 and t.bin == "3-5"
    assert t.schema.columns == ("county", "population")


def test_record_separator_inference_rules():
    assert infer_separator("Adams|12,Brown|7") == ","
    assert infer_separator("Adams|12;Brown|7") == ";"
    assert infer_separator("Adams|12,Brown|7", width=3) is None  # the rubric's width disagrees
    assert infer_separator("Smith, John|12") is None  # uneven pieces: a comma inside a cell
    assert infer_separator("Adams|12\nBrown|7") is None  # several lines
    assert infer_separator("Adams|12") is None


def test_declared_record_separator(tmp_path):
    rec = task("nvd_001", answer="CVE-1|9.8;CVE-2|7.5",
               rubric={"columns": ["cve_id", "score"], "record_separator": ";"})
    t = load_tasks(write_jsonl(tmp_path / "t.jsonl", [rec]))["nvd_001"]
    assert t.schema.record_separator == ";" and t.gold_rows == 2
    with pytest.raises(SgrKitError, match=r"t: rubric 'record_separator' should be ',' or ';'; found '/'"):
        build_schema({"columns": ["a"], "record_separator": "/"}, reference="x", loc="t")


@pytest.mark.parametrize(
    ("rubric", "message"),
    [
        ({"columns": ["a", "b"], "row_key": ["c"]}, r"row_key names c, not among the columns a, b"),
        ({"columns": ["a", "b"], "fields": {"z": {"type": "string"}}}, r"fields name column 'z', not among"),
        ({"columns": ["a", "b"], "fields": {"b": {"type": "float"}}}, r"field 'b': type should be one of string, "),
        ({"columns": ["a", "a"]}, r"rubric 'columns' repeats a name"),
        ({"columns": []}, r"rubric 'columns' should be a non-empty list"),
        ({"columns": ["a", "b"], "fields": {"b": {"type": "decimal", "units": {"kg": {"scale_den": 0}}}}},
         r"unit 'kg': scale_num and scale_den must not be 0"),
        ({"columns": ["a", "b"], "fields": {"b": {"type": "decimal", "units": {"kg": {"factor": 2}}}}},
         r"unit 'kg' should be an object with keys among offset, scale_num, scale_den"),
        ({"columns": ["a", "b"], "fields": {"b": {"type": "decimal", "units": {"kg": {"offset": "x"}}}}},
         r"unit 'kg' offset: expected a number; found 'x'"),
        ({"columns": ["a", "b"], "fields": {"b": {"uppercase": "yes"}}}, r"uppercase should be true or false"),
        ({"columns": ["a", "b"], "fields": {"b": {"aliases": {"x": 1}}}}, r"aliases should map strings to strings"),
    ],
)
def test_rubric_problems_name_the_task(tmp_path, rubric, message):
    path = write_jsonl(tmp_path / "t.jsonl", [task("nvd_001", answer="a|b\nx|1", rubric=rubric)])
    with pytest.raises(SgrKitError, match=r"t\.jsonl:1: task nvd_001: .*" + message):
        load_tasks(path)


def test_units_accept_decimal_strings_and_floats_exactly():
    rule = {"type": "decimal", "units": {"ft": {"scale_num": "0.3048"}, "in": {"scale_num": 0.0254}}}
    schema = build_schema({"columns": ["a", "b"], "fields": {"b": rule}}, reference="x|1")
    assert schema.rule("b").units["ft"] == (0, Fraction(3048, 10000), 1)
    assert schema.rule("b").units["in"][1] == Fraction(254, 10000)


def test_unparseable_reference_raises_unless_allowed(tmp_path):
    rec = task("nvd_001", answer="just prose here", rubric={"columns": ["cve_id", "score"]},
               oracle_output_cardinality=4)
    path = write_jsonl(tmp_path / "t.jsonl", [rec])
    with pytest.raises(SgrKitError, match=r"t\.jsonl:1: task nvd_001: the reference answer does not parse with the "
                                          r"strict parser \(no data row"):
        load_tasks(path)
    with pytest.warns(UserWarning, match=r"gold_rows taken from oracle_output_cardinality"):
        tasks = load_tasks(path, allow_invalid=True)
    assert tasks["nvd_001"].gold_rows == 4 and tasks["nvd_001"].bin == "3-5"


def test_cardinality_disagreement_warns(tmp_path):
    path = write_jsonl(tmp_path / "t.jsonl", [task("nvd_001", oracle_output_cardinality=3)])
    with pytest.warns(UserWarning, match=r"t\.jsonl:1: task nvd_001: oracle_output_cardinality is 3 but the "
                                         r"reference has 2 rows"):
        tasks = load_tasks(path)
    assert tasks["nvd_001"].gold_rows == 2


def test_empty_reference_warns(tmp_path):
    path = write_jsonl(tmp_path / "t.jsonl", [task("nvd_001", answer="NONE", rubric={"columns": ["cve_id", "score"]})])
    with pytest.warns(UserWarning, match=r"task nvd_001: the reference answer is empty"):
        assert load_tasks(path)["nvd_001"].gold_rows == 0


def test_unknown_domain_is_other_with_a_warning(tmp_path):
    path = write_jsonl(tmp_path / "t.jsonl", [task("mars_001", domain="MARS_ROVER")])
    with pytest.warns(UserWarning, match=r"task mars_001: unknown domain 'MARS_ROVER'"):
        t = load_tasks(path)["mars_001"]
    assert (t.ecosystem, t.family) == ("other", "other")


def test_reference_with_repeated_keys_is_an_error(tmp_path):
    # The reference scorer: "Reference keys must be unique"; the scorer could not align such a task.
    path = write_jsonl(tmp_path / "t.jsonl", [task("nvd_001", answer="cve_id|score\nCVE-1|1\n**CVE-1**|2",
                                                         rubric={"columns": ["cve_id", "score"]})])
    with pytest.raises(SgrKitError, match=r"the reference repeats row key\(s\) CVE-1; reference keys must be unique"):
        load_tasks(path)
    report = validate(path)
    assert not report.ok
    assert report.frame().query("severity == 'error'")["message"].str.contains("repeats row key").sum() == 1


def test_validate_reports_keys_that_only_the_paper_profile_would_merge(tmp_path):
    path = write_jsonl(tmp_path / "t.jsonl", [task("nvd_001", answer="cve_id|score\nAlpha|1\nALPHA|2")])
    report = validate(path)
    assert report.ok
    assert report.frame()["message"].str.contains("would merge distinct reference rows").any()


def test_empty_task_file_is_an_error(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text("\n")
    assert not validate(path).ok
    with pytest.raises(SgrKitError, match="no task found in .*t.jsonl"):
        load_tasks(path)


def test_reference_width_problem_is_a_warning(tmp_path):
    path = write_jsonl(tmp_path / "t.jsonl", [task("nvd_001", answer="cve_id|score\nCVE-1|1\nCVE-2|2|extra")])
    with pytest.warns(UserWarning, match=r"task nvd_001: reference line 3: wrong_width \(3 cells, expected 2\)"):
        load_tasks(path)


def test_every_error_is_reported_at_once(tmp_path):
    bad_rubric = task("nvd_002", rubric={"columns": ["a"], "row_key": ["b"]})
    path = write_jsonl(tmp_path / "t.jsonl", [task("nvd_001", answer="prose only"), bad_rubric])
    message = r"(?s)t\.jsonl:1: task nvd_001: the reference .*\n.*t\.jsonl:2: task nvd_002"
    with pytest.raises(SgrKitError, match=message):
        load_tasks(path)


def test_taskset_is_a_read_only_ordered_mapping(tmp_path):
    records = [task("b_001-g"), task("b_001"), task("a_002"), task("a_001-g"), task("a_001")]
    tasks = load_tasks(write_jsonl(tmp_path / "t.jsonl", records))
    assert isinstance(tasks, TaskSet)
    assert list(tasks) == ["a_001", "a_001-g", "a_002", "b_001", "b_001-g"]
    assert repr(tasks) == "TaskSet(5 tasks: 3 constraint, 2 goal, 2 pairs)"
    with pytest.raises(TypeError, match="does not support item assignment"):
        tasks["x"] = tasks["a_001"]
    with pytest.raises(TypeError, match="does not support item assignment"):
        tasks["a_001"].rubric["columns"] = []


def test_metadata_synthetic_flag(tmp_path):
    tasks = load_tasks(write_jsonl(tmp_path / "t.jsonl", [task("nvd_001", metadata={"synthetic": True})]))
    assert tasks["nvd_001"].synthetic and tasks.frame()["synthetic"].tolist() == [True]


_CELL = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789.-", min_size=1, max_size=6)


@settings(max_examples=examples(60), deadline=None)
@given(width=st.integers(2, 5), data=st.data())
def test_one_line_records_round_trip(width, data):
    rows = data.draw(st.lists(st.lists(_CELL, min_size=width, max_size=width), min_size=2, max_size=6))
    sep = data.draw(st.sampled_from([",", ";"]))
    line = sep.join("|".join(row) for row in rows)
    assert infer_separator(line) == sep
    assert infer_separator(line, width=width) == sep
    assert infer_separator(line, width=width + 1) is None


@settings(max_examples=examples(25), deadline=None)
@given(order=st.permutations(["a_001", "a_001-g", "a_002", "b_001-g", "b_001", "c_001"]))
def test_taskset_order_does_not_depend_on_file_order(tmp_path_factory, order):
    path = write_jsonl(tmp_path_factory.mktemp("order") / "t.jsonl", [task(t) for t in order])
    tasks = load_tasks(path)
    assert list(tasks) == ["a_001", "a_001-g", "a_002", "b_001", "b_001-g", "c_001"]
    assert tasks.pairs == (("a_001", "a_001-g"), ("b_001", "b_001-g"))


def test_the_stated_cardinality_tells_a_header_line(tmp_path):
    # the reference's first line looks like data to the name rules, output_format names no
    # columns, but oracle_output_cardinality says 2 data rows in 3 lines: the first is the header
    reference = "County Name|Pop. (2020)\nAdams|12\nBrown|7"
    record = task("census_001", domain="CENSUS_GOV", answer=reference, output_format="Give the counties.",
                  oracle_output_cardinality=2)
    tasks = load_tasks(write_jsonl(tmp_path / "t.jsonl", [record]))
    t = tasks["census_001"]
    assert t.schema.columns == ("County Name", "Pop. (2020)") and t.gold_rows == 2
    without = dict(record, oracle_output_cardinality=3)
    with pytest.raises(SgrKitError, match=r"cannot tell the columns: .*oracle_output_cardinality \(3\) is not one "
                                          r"less than its 3 lines"):
        load_tasks(write_jsonl(tmp_path / "u.jsonl", [without]))


def test_a_cardinality_contradicting_the_reference_warns(tmp_path):
    record = task("nvd_001", oracle_output_cardinality=5)
    with pytest.warns(UserWarning, match=r"oracle_output_cardinality is 5 but the reference has 2 rows \(its first "
                                         r"line 'cve_id\|score' was read as the header\)"):
        load_tasks(write_jsonl(tmp_path / "t.jsonl", [record]))


def test_an_unknown_task_id_is_a_key_error_naming_the_closest_ids(tmp_path):
    from sgr_kit.errors import UnknownIdError

    tasks = load_tasks(write_jsonl(tmp_path / "t.jsonl", [task("nvd_001"), task("nvd_002")]))
    with pytest.raises(KeyError, match=r"unknown task id 'nvd_01': not among the 2 loaded tasks; closest known ids: "
                                       r"nvd_001, nvd_002"):
        tasks["nvd_01"]
    with pytest.raises(UnknownIdError, match=r"unknown task id 'x'"):
        tasks["x"]
    assert "nvd_01" not in tasks and tasks.get("nvd_01") is None and tasks.get(["unhashable"]) is None
    assert isinstance(UnknownIdError("x"), SgrKitError)


# --- the public release's own format: rubric.normalization (../shared/fixtures/release-original)


def _original(original_dir: Path, task_id: str) -> dict:
    return json.loads((original_dir / f"{task_id}.json").read_text(encoding="utf-8"))


def test_every_released_task_loads_and_validates_cleanly(original_dir, release_dir):
    for folder in (original_dir, release_dir):
        report = validate(folder)
        assert report.ok, report.text()
        assert not [f for f in report.findings if f.severity == "warning"], report.text()
    tasks = load_tasks(original_dir)
    assert tasks.pairs == (("comptox_012", "comptox_012-g"), ("waterquality_004", "waterquality_004-g"))
    comptox, water = tasks["comptox_012"], tasks["waterquality_004"]
    # README: one line, records joined by ',', fields by '|', a 4-column dedup_key; 2 records
    assert comptox.schema.columns == tuple(_original(original_dir, "comptox_012")["rubric"]["normalization"]["schema"])
    assert comptox.schema.record_separator == "," and comptox.gold_rows == 2
    assert comptox.schema.row_key == ("generalPUCID", "familyPUCID", "typePUCID", "side")
    assert (comptox.schema.columns_from, comptox.schema.key_from) == ("rubric.normalization.schema",
                                                                      "normalization.dedup_key")
    # README: one record per line, no header, no key declared: the first column (HUC) is unique; 3 records
    assert water.schema.record_separator is None and water.gold_rows == 3
    assert water.schema.row_key == ("HUC",) and water.schema.key_from == "first column, unique in the reference"


def test_released_prose_is_kept_on_the_task_and_never_applied(original_dir):
    tasks = load_tasks(original_dir)
    record = _original(original_dir, "waterquality_004")
    prose = tasks["waterquality_004"].prose
    assert prose["inclusion_conditions"] == record["rubric"]["inclusion_conditions"]
    assert prose["exclusion_conditions"] == record["rubric"]["exclusion_conditions"]
    assert prose["header_row"] == "omit the header row; emit data rows only"
    assert prose["sorting_or_selection"] == "upstream to downstream along the mainstem"
    assert prose["column_notes"]["common_start_year"] == "emit the maximum of the six per-group start years"
    assert prose["state_conditions"] == record["metadata"]["State-Gated Retrieval"]
    assert set(tasks["comptox_012"].prose["sorting_or_selection"]) == {"primary", "secondary", "tertiary"}
    # the variants' prose differs (even in capitalisation): not a pairing problem
    assert tasks["comptox_012"].prose["column_notes"]["side"] != tasks["comptox_012-g"].prose["column_notes"]["side"]
    assert tasks["comptox_012-g"].base_id == "comptox_012"


def test_validate_verbose_shows_schema_sources_and_prose(original_dir):
    text = validate(original_dir).text(verbose=True)
    assert "    columns (6, from rubric.normalization.schema): generalPUCID | familyPUCID | typePUCID" in text
    assert "    row key (from normalization.dedup_key): generalPUCID, familyPUCID, typePUCID, side" in text
    assert "    records: records on one line, joined by ','; fields joined by '|'" in text
    assert "      header_row: omit the header row; emit data rows only" in text
    assert "        common_start_year: emit the maximum of the six per-group start years" in text
    assert "tasks in detail:" not in validate(original_dir).text()


def test_validate_warns_about_an_answer_in_which_no_table_can_be_read(tmp_path):
    task = {"task_id": "nvd_001", "domain": "NVD", "oracle_answer": "id|n\nA|1", "output_format": "id|n"}
    tasks = tmp_path / "t.jsonl"
    tasks.write_text(json.dumps(task) + "\n" + json.dumps({**task, "task_id": "nvd_001-g"}) + "\n")
    runs = tmp_path / "runs.jsonl"
    runs.write_text(json.dumps({"system": "s", "task_id": "nvd_001", "answer": "I looked but could not find it."})
                    + "\n" + json.dumps({"system": "s", "task_id": "nvd_001-g", "answer": "id|n\nA|1"}) + "\n")
    report = validate(tasks, runs=runs)
    found = report.frame()
    unreadable = found[found["kind"] == "unreadable_answer"]
    assert len(unreadable) == 1 and unreadable["task_id"].iloc[0] == "nvd_001"
    assert unreadable["severity"].iloc[0] == "warning"
    assert "it will be scored 'parse_failure'" in unreadable["message"].iloc[0]
    assert "runs.jsonl:1" in unreadable["message"].iloc[0]
    assert "[unreadable_answer]" in report.text()
