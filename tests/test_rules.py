from __future__ import annotations

import json
from decimal import Decimal

import pytest

from sgr_kit.errors import SgrKitError
from sgr_kit.rules import Rules, load_rules
from sgr_kit.score import score_answer

YAML = """\
tasks:
  "*":
    aliases: {county: {"Saint Louis": "St. Louis"}}
  census_001:
    aliases: {county: {"St. Louis": "Saint Louis"}}
    types: {population: integer}
    tolerance: {share_pct: 0.05}
    key: [state, county]
  census_001-g:
    tolerance: {share_pct: "0.5"}
"""

COLUMNS = ("state", "county", "population", "share_pct")


@pytest.fixture
def census(make_task):
    def build(task_id):
        return make_task(COLUMNS, rows=[("MO", "Saint Louis", "1000", "1.25")], task_id=task_id,
                         fields={"county": {"aliases": {"STL": "Saint Louis"}}})
    return build


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_yaml_rules_apply_to_the_task_and_its_base(tmp_path, census):
    rules = load_rules(write(tmp_path, "rules.yaml", YAML))
    schema, tolerance = rules.apply(census("census_001"))
    assert schema.row_key == ("state", "county")
    assert schema.rule("population").type == "integer"
    # the task entry wins over "*" on the same spelling; rubric aliases are kept
    assert dict(schema.rule("county").aliases) == {"STL": "Saint Louis", "Saint Louis": "St. Louis",
                                                   "St. Louis": "Saint Louis"}
    assert tolerance == {"share_pct": Decimal("0.05")}
    goal_schema, goal_tolerance = rules.apply(census("census_001-g"))
    assert goal_schema.row_key == ("state", "county")  # base id entry applies to the goal variant
    assert goal_tolerance == {"share_pct": Decimal("0.5")}  # the task id entry is more specific


def test_json_rules_are_the_same_as_yaml(tmp_path):
    data = {"tasks": {"census_001": {"types": {"population": "integer"}, "tolerance": {"share_pct": 0.05},
                                     "key": ["state", "county"]}}}
    yaml_text = ("tasks:\n  census_001:\n    types: {population: integer}\n    tolerance: {share_pct: 0.05}\n"
                 "    key: [state, county]\n")
    from_json = load_rules(write(tmp_path, "rules.json", json.dumps(data)))
    from_yaml = load_rules(write(tmp_path, "rules.yml", yaml_text))
    assert from_json.entries == from_yaml.entries


def test_a_float_tolerance_is_read_as_its_decimal_text(tmp_path):
    rules = load_rules(write(tmp_path, "rules.json", '{"tasks": {"t": {"tolerance": {"x": 0.1, "y": 2}}}}'))
    assert rules.entries[0][1].tolerance == (("x", Decimal("0.1")), ("y", Decimal("2")))


def test_star_entry_skips_tasks_without_its_columns(tmp_path, make_task):
    rules = load_rules(write(tmp_path, "rules.yaml", 'tasks:\n  "*": {types: {population: integer}}\n'))
    task = make_task(("id", "name"))
    assert rules.apply(task) == (task.schema, {})


def test_unknown_column_in_a_task_entry_names_file_task_column_and_columns(tmp_path, make_task):
    path = write(tmp_path, "rules.yaml", "tasks:\n  t_001: {tolerance: {shares: 1}}\n")
    with pytest.raises(SgrKitError, match=r"rules\.yaml: entry 't_001' names column\(s\) 'shares' that task "
                                          r"t_001-g does not have \(its columns: id, share\)"):
        load_rules(path).apply(make_task(("id", "share"), task_id="t_001-g"))


def test_unknown_key_column_is_reported(tmp_path, make_task):
    rules = load_rules(write(tmp_path, "r.yaml", "tasks:\n  t_001: {key: [id, nope]}\n"))
    with pytest.raises(SgrKitError, match="names column\\(s\\) 'nope'"):
        rules.apply(make_task(("id", "a"), task_id="t_001"))


def test_no_entry_leaves_the_schema_unchanged(tmp_path, make_task):
    rules = load_rules(write(tmp_path, "r.yaml", "tasks:\n  other_001: {key: [id]}\n"))
    task = make_task(("id", "a"), task_id="t_001")
    schema, tolerance = rules.apply(task)
    assert schema is task.schema and tolerance == {}
    assert rules.unused(["t_001", "t_001-g"]) == ("other_001",)


def test_empty_and_describe(tmp_path):
    assert len(Rules.empty()) == 0 and Rules.empty().describe() == "no user rules"
    text = load_rules(write(tmp_path, "rules.yaml", YAML)).describe()
    assert "3 entries" in text
    assert "census_001: aliases county (1); types population=integer; tolerance share_pct=0.05; key state, county" in text


def test_rules_are_hashable(tmp_path):
    rules = load_rules(write(tmp_path, "rules.yaml", YAML))
    assert hash(rules) == hash(load_rules(write(tmp_path, "rules.yaml", YAML)))


# --- validation on load: every message names the file, the task and the key


@pytest.mark.parametrize("text, message", [
    ("[1, 2]", r"expected a mapping with the key 'tasks', found list"),
    ("", r"expected a mapping with the key 'tasks', found NoneType"),
    ("tasks: {}\nversion: 2\n", r"unknown top-level key\(s\) 'version'"),
    ("tasks: [a]\n", r"'tasks' must be a mapping of task id -> rules, found list"),
    ("tasks:\n  t_001: [x]\n", r"task 't_001': expected a mapping with keys among aliases, types, tolerance, key"),
    ("tasks:\n  t_001: {alias: {}}\n", r"task 't_001': unknown key\(s\) 'alias'; expected keys among"),
    ("tasks:\n  t_001: {types: {n: float}}\n", r"task 't_001', types\.n: unknown type 'float'; expected one of "
                                              r"string, integer, decimal, id_list"),
    ("tasks:\n  t_001: {types: [n]}\n", r"task 't_001', types: expected a mapping column -> type"),
    ("tasks:\n  t_001: {tolerance: {n: -1}}\n", r"task 't_001', tolerance\.n: expected a finite number >= 0, found -1"),
    ("tasks:\n  t_001: {tolerance: {n: abc}}\n", r"tolerance\.n: expected a number >= 0, found 'abc'"),
    ("tasks:\n  t_001: {tolerance: {n: true}}\n", r"tolerance\.n: expected a number >= 0, found true"),
    ("tasks:\n  t_001: {tolerance: {n: .nan}}\n", r"tolerance\.n: expected a finite number >= 0"),
    ("tasks:\n  t_001: {key: id}\n", r"task 't_001', key: expected a non-empty list of column names, found 'id'"),
    ("tasks:\n  t_001: {key: []}\n", r"key: expected a non-empty list of column names, found a list \[\]"),
    ("tasks:\n  t_001: {key: [id, id]}\n", r"key: a column appears twice"),
    ("tasks:\n  t_001: {aliases: [a]}\n", r"task 't_001', aliases: expected a mapping column -> \{spelling"),
    ("tasks:\n  t_001: {aliases: {c: [a]}}\n", r"aliases\.c: expected a mapping spelling -> canonical spelling"),
    ("tasks:\n  t_001: {aliases: {c: {a: 0.50}}}\n", r"aliases\.c: aliases must be strings \(quote 0\.5 in the file\)"),
    ("tasks:\n  1: {key: [id]}\n", r"task selector must be a non-empty string, found 1"),
])
def test_malformed_rules_are_rejected_on_load(tmp_path, text, message):
    path = write(tmp_path, "rules.yaml", text)
    with pytest.raises(SgrKitError, match=r"rules\.yaml: .*" + message):
        load_rules(path)


def test_integer_alias_spellings_are_text(tmp_path):
    rules = load_rules(write(tmp_path, "rules.yaml", "tasks:\n  t: {aliases: {c: {1: one}}}\n"))
    assert rules.entries[0][1].aliases == (("c", (("1", "one"),)),)


def test_file_errors_name_the_file_and_line(tmp_path):
    with pytest.raises(SgrKitError, match=r"rules\.toml: rules file must end in \.json, \.yaml or \.yml"):
        load_rules(tmp_path / "rules.toml")
    with pytest.raises(SgrKitError, match=r"missing\.yaml: cannot read the rules file"):
        load_rules(tmp_path / "missing.yaml")
    with pytest.raises(SgrKitError, match=r"bad\.json:2: not valid JSON"):
        load_rules(write(tmp_path, "bad.json", '{"tasks":\n  {,}}'))
    with pytest.raises(SgrKitError, match=r"bad\.yaml:3: column 1: not valid YAML"):
        load_rules(write(tmp_path, "bad.yaml", "tasks:\n  t: {key: [a]}\n\tu: 1\n"))  # a TAB on line 3


# --- the rules reach the scorer


def test_aliases_types_and_tolerance_change_scores(tmp_path, make_task):
    task = make_task(("county", "pop", "share"), rows=[("Saint Louis", "1000", "1.25")], task_id="census_001")
    answer = "county|pop|share\nSt. Louis|1,000.0|1.27"
    before = score_answer(task, answer)
    assert before.correct_fields == 0  # the key "St. Louis" is not the reference's: an extra row
    rules = load_rules(write(tmp_path, "rules.yaml",
                             'tasks:\n  census_001:\n    aliases: {county: {"St. Louis": "Saint Louis"}}\n'
                             '    types: {share: decimal}\n    tolerance: {share: 0.05}\n'))
    after = score_answer(task, answer, rules=rules)
    assert (after.correct_fields, after.correct_rows) == (3, 1)
