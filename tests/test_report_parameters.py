"""The notebooks' parameters: one definition, values read as data, checked before any work (issue: a -p value is never code)."""

from __future__ import annotations

import ast
import base64
import math
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from papermill.translators import PythonTranslator

from sgr_kit.errors import SgrKitError
from sgr_kit.report import NOTEBOOKS, notebook_parameters
from sgr_kit.report.build import plan_report
from sgr_kit.report.parameters import (ANALYSIS, PARAMETERS, RESERVED, accepted_names, check_parameter,
                                       check_parameters_values, parse_parameter)
from sgr_kit.resources import notebooks_dir
from conftest import examples

#: The payload of the issue: a !!binary value that papermill would have written between quotes, unescaped.
PWNED = '!!binary ' + base64.b64encode(b'"+str(__import__("os").system("touch PWNED"))+"').decode()
ALLOWED = (str, int, float, bool, type(None))


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("text, found", [
    (PWNED, r"a YAML tag \(!!binary\)"),
    ("!!omap [a: 1]", r"a YAML tag \(!!omap\)"),
    ("!!pairs [a: 1, b: 2]", r"a YAML tag \(!!pairs\)"),
    ("!!set {a, b}", r"a YAML tag \(!!set\)"),
    ("!!python/object/apply:os.system [true]", r"a YAML tag \(!!python/object/apply:os.system\)"),
    ("!!str text", r"a YAML tag \(!!str\)"),
    ("{a: 1}", "a mapping"),
    ("[a, [b]]", "a nested list"),
    ("[&x a, *x]", "a YAML anchor or alias"),
    (".inf", "inf, not a finite number"),
    ("[1, .nan]", "nan, not a finite number"),
])
def test_a_value_that_is_not_plain_data_is_refused_naming_the_parameter_and_the_type(text, found):
    with pytest.raises(SgrKitError, match=r"^-p figure_format: expected a number, text, true/false, null or a flat "
                                          r"list; found " + found):
        parse_parameter("figure_format", text)


def test_plain_values_are_read_as_data_and_a_date_stays_text():
    assert parse_parameter("n_boot", "2000") == 2000
    assert parse_parameter("alpha", "0.1") == 0.1
    assert parse_parameter("systems", "[GPT-5.5, 'Kimi K2.5']") == ["GPT-5.5", "Kimi K2.5"]
    assert parse_parameter("systems", "null") is None
    assert parse_parameter("x", "2024-05-01") == "2024-05-01"  # a timestamp is kept as the text written
    assert parse_parameter("x", "'unclosed") == "'unclosed"  # not YAML: the text itself


@pytest.mark.parametrize("name, text, message", [
    ("n_boot", "abc", r"-p n_boot: expected an integer from 100 to 1,000,000; found 'abc' \(str\)"),
    ("n_boot", "null", r"-p n_boot: expected an integer from 100 to 1,000,000; found None \(null\)"),
    ("n_boot", "[1,2]", r"-p n_boot: expected an integer .*; found \[1, 2\] \(list\)"),
    ("n_boot", "true", r"-p n_boot: expected an integer .*; found True \(bool\)"),
    ("n_boot", "10", r"-p n_boot: expected an integer from 100 .*; found 10 \(int\)"),
    ("n_boot", "2000.0", r"-p n_boot: expected an integer .*found 2000.0 \(float\)"),
    ("seed", "-1", r"-p seed: expected an integer from 0 to .*; found -1 \(int\)"),
    ("alpha", "1.5", r"-p alpha: expected a number strictly between 0.0 and 1.0; found 1.5"),
    ("figure_format", "gif", r"-p figure_format: expected one of png, svg, pdf, png\+svg, png\+pdf; found 'gif'"),
    ("failure_policy", "drop", r"-p failure_policy: expected one of zero, exclude; found 'drop'"),
    ("systems", "[A, 3]", r"-p systems: expected null or a list of names"),
    ("metrics", "[item_f1, item_f1]", r"-p metrics: expected a list of distinct values among item_f1"),
])
def test_each_value_is_checked_against_what_its_notebook_accepts(name, text, message):
    with pytest.raises(SgrKitError, match=message):
        check_parameter(name, parse_parameter(name, text))


def test_the_unknown_parameter_error_lists_no_reserved_name():
    with pytest.raises(SgrKitError, match=r"unknown notebook parameter\(s\) n_bot; .* define and the build does "
                                          r"not set itself: ") as info:
        check_parameters_values({"n_bot": 5})
    listed = str(info.value).split("itself: ")[1].split(", ")
    assert "n_boot" in listed and not set(listed) & set(RESERVED), listed


def test_a_reserved_parameter_names_the_option_that_sets_it():
    with pytest.raises(SgrKitError, match=r"-p output_dir: set by the report build itself; use --out instead"):
        check_parameters_values({"output_dir": "/tmp"})


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_the_notebooks_parameters_cells_agree_with_the_one_definition(name):
    cell = notebook_parameters(notebooks_dir() / f"{name}.ipynb")
    for key, default in cell.items():
        assert key in PARAMETERS, f"{name} defines {key}, which sgr_kit.report.parameters does not know"
        spec = PARAMETERS[key]
        value = ast.literal_eval(default)
        assert value == spec.default, f"{name}: {key} = {default}; the definition says {spec.default!r}"
        if not spec.reserved:
            assert check_parameter(key, value) == value
    assert set(ANALYSIS) - {"n_perm", "metrics"} <= set(cell)


@given(st.text(max_size=60) | st.from_regex(r"\A(!!?[a-z/:.]{1,20} )?[\[{]?[-\w .,:&*!'\"\[\]{}]{0,40}\Z"))
@settings(max_examples=examples(300))
def test_no_yaml_reaches_a_notebook_except_as_an_allowed_type(text):
    """Any YAML at -p: refused, or a value that papermill writes as a Python literal equal to it."""
    try:
        value = parse_parameter("systems", text)
    except SgrKitError:
        return
    items = value if isinstance(value, list) else [value]
    assert all(isinstance(v, ALLOWED) and not isinstance(v, list) for v in items), value
    assert all(math.isfinite(v) for v in items if isinstance(v, float))
    code = PythonTranslator.translate(value)  # what papermill writes into the parameters cell
    assert ast.literal_eval(code) == value, code  # a literal: nothing in it runs


@given(st.text(max_size=40))
@settings(max_examples=examples(60))
def test_arbitrary_yaml_at_p_changes_nothing_outside_the_report_folder(tmp_path_factory, text):
    """Every -p value is refused before anything is written, or injected as checked data."""
    folder = tmp_path_factory.mktemp("project")
    (folder / "thesis.tex").write_text("mine")
    before = _snapshot(folder)
    try:
        plan = plan_report(None, None, folder / "report", notebooks=["01"],
                           parameters={"figure_format": parse_parameter("figure_format", text)})
    except SgrKitError:
        assert _snapshot(folder) == before and not (folder / "report").exists()
        return
    assert _snapshot(folder) == before
    for job in plan.jobs(folder / "report"):
        for key, value in job[3].items():
            assert ast.literal_eval(PythonTranslator.translate(value)) == value, key


def test_the_issue_payload_runs_nothing_end_to_end(tmp_path, monkeypatch):
    from sgr_kit.cli import main

    monkeypatch.chdir(tmp_path)
    status = main(["report", "--notebooks", "01", "-p", "figure_format", PWNED, "--out", "R", "--quiet"])
    assert status == 2
    assert not (tmp_path / "PWNED").exists() and not (tmp_path / "R").exists()
    assert sorted(os.listdir(tmp_path)) == []


def test_accepted_names_are_the_unreserved_parameters():
    assert set(accepted_names()) == {n for n, s in PARAMETERS.items() if not s.reserved}
    assert "output_dir" not in accepted_names() and "scores_path" not in accepted_names()
