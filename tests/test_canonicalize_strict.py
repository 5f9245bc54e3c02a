"""Strict cell cleaning and column rules, and the column_canonicalizers dispatcher.

Source of the rules: the benchmark's deterministic scorer (public repository
Ninggggy/sgr-bench-extend, ten_task_phase/runtime/score.py, ``clean`` and
``norm``), restated in the project's reference-scorer notes, "Cleaning every cell".
Unit conversions: the WATER_QUALITY_PORTAL fixture rubric (deg F offset 32,
scale 5/9; mS/cm scale 1000; ug/L scale 1/1000).
"""

from __future__ import annotations

import decimal
from decimal import Decimal
from fractions import Fraction as F

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sgr_kit.canonicalize import INVALID, INVALID_UNIT, apply_rule, column_canonicalizers
from sgr_kit.parse.cells import clean_cell
from sgr_kit.canonicalize.strict import rule_function, strict_canonicalizers
from sgr_kit.errors import SgrKitError
from sgr_kit.types import FieldRule, Schema

ONE = (F(0), F(1), F(1))
TEMPERATURE = FieldRule(type="decimal", units={"deg C": ONE, "°C": ONE, "deg F": (F(32), F(5), F(9))})
CONDUCTANCE = FieldRule(type="decimal", units={"uS/cm": ONE, "uS/cm @25C": ONE, "mS/cm": (F(0), F(1000), F(1))})
OXYGEN = FieldRule(type="decimal", units={"mg/L": ONE, "ug/L": (F(0), F(1), F(1000))})
INTEGER = FieldRule(type="integer")
DECIMAL = FieldRule(type="decimal")
ID_LIST = FieldRule(type="id_list")


# clean_cell
@pytest.mark.parametrize(
    ("raw", "cleaned"),
    [
        ("  a  ", "a"),
        ("\uff21\uff22\uff23", "ABC"),  # NFKC: full-width letters
        ("\u2460", "1"),  # NFKC: circled digit
        ("x\u00a0y", "x y"),  # NFKC: no-break space
        ("[GSE1234](https://example.org/q?a=1)", "GSE1234"),
        ("see [a](u) and [b](v)", "see a and b"),
        ("[not a link]", "[not a link]"),
        ("**bold**", "bold"),
        ("`code`", "code"),
        ("* ` mixed ` *", "mixed"),
        ("a  \t b\n c", "a b c"),
        ("", ""),
        ("   ", ""),
        ("a*b", "a*b"),  # only the ends are stripped
    ],
)
def test_clean_cell(raw, cleaned):
    assert clean_cell(raw) == cleaned


# aliases and uppercase
def test_aliases_apply_to_the_exact_cleaned_string_before_uppercase():
    rule = FieldRule(aliases={"pos": "positive"}, uppercase=True)
    assert apply_rule("pos", rule) == "POSITIVE"
    assert apply_rule("Pos", rule) == "POS"  # aliases are exact


def test_string_comparison_is_case_sensitive():
    assert apply_rule("Abc", FieldRule()) != apply_rule("abc", FieldRule())


# integer and decimal
@pytest.mark.parametrize(
    ("cleaned", "rule", "canonical"),
    [
        ("12", INTEGER, "12"),
        ("12.0", INTEGER, "12"),
        ("+12", INTEGER, "12"),
        ("1e3", INTEGER, "1000"),
        ("12.5", INTEGER, INVALID + "12.5"),
        ("8.40", DECIMAL, "8.4"),
        ("400.00", DECIMAL, "400"),
        ("8.404", DECIMAL, "8.404"),  # never rounded
        ("0.10", DECIMAL, "0.1"),
        (".5", DECIMAL, "0.5"),
        ("NA", DECIMAL, INVALID + "NA"),
        ("inf", DECIMAL, INVALID + "inf"),
        ("nan", INTEGER, INVALID + "nan"),
        ("1e999999999", DECIMAL, INVALID + "1e999999999"),  # overflow is invalid, not a crash
        ("8.4 mg/L", DECIMAL, INVALID + "8.4 mg/L"),  # units only when declared
    ],
)
def test_numbers(cleaned, rule, canonical):
    assert apply_rule(cleaned, rule) == canonical


def test_invalid_marker_equals_only_identical_text():
    assert apply_rule("NA", DECIMAL) == apply_rule("NA", DECIMAL)
    assert apply_rule("NA", DECIMAL) != apply_rule("N/A", DECIMAL)
    assert apply_rule("NA", DECIMAL) != apply_rule("na", DECIMAL)


@pytest.mark.parametrize("rule", [FieldRule(), INTEGER, DECIMAL, ID_LIST, TEMPERATURE])
def test_empty_cells_are_empty_in_every_type(rule):
    # "An empty predicted cell is never correct": empty stays "" (never a marker)
    assert apply_rule("", rule) == ""


@pytest.mark.parametrize(
    ("cleaned", "rule", "canonical"),
    [
        ("46.4 deg F", TEMPERATURE, "8"),  # (46.4 - 32) * 5 / 9 = 8
        ("8 deg C", TEMPERATURE, "8"),
        ("8.0°C", TEMPERATURE, "8"),
        ("8", TEMPERATURE, "8"),  # a bare number is in the canonical unit
        ("61.34 deg F", TEMPERATURE, "16.3"),
        ("47 deg F", TEMPERATURE, "8.333333333333333333333333333"),  # 28 significant digits
        ("0.4 mS/cm", CONDUCTANCE, "400"),
        ("400.00 uS/cm @25C", CONDUCTANCE, "400"),
        ("8400 ug/L", OXYGEN, "8.4"),
        ("8.4mg/L", OXYGEN, "8.4"),
        ("8 K", TEMPERATURE, INVALID_UNIT + "8 K"),
        ("about 8", TEMPERATURE, INVALID + "about 8"),
        ("-4 deg F", TEMPERATURE, "-20"),
    ],
)
def test_unit_conversion(cleaned, rule, canonical):
    assert apply_rule(cleaned, rule) == canonical


def test_unit_spellings_are_cleaned_before_lookup():
    rule = FieldRule(type="decimal", units={" deg   F ": (F(32), F(5), F(9))})
    assert apply_rule("46.4 deg F", rule) == "8"


def test_units_given_as_release_objects_are_accepted():
    rule = FieldRule(type="decimal", units={"mS/cm": {"scale_num": 1000}})
    assert apply_rule("0.4 mS/cm", rule) == "400"


def test_integer_with_units_must_be_integral_after_conversion():
    rule = FieldRule(type="integer", units={"k": (F(0), F(1000), F(1))})
    assert apply_rule("1.5 k", rule) == "1500"
    assert apply_rule("1.5", rule) == INVALID + "1.5"


def test_a_callers_decimal_context_does_not_change_results():
    with decimal.localcontext() as context:
        context.prec = 3
        context.rounding = decimal.ROUND_DOWN
        assert apply_rule("47 deg F", TEMPERATURE) == "8.333333333333333333333333333"
        assert apply_rule("1.23456", DECIMAL) == "1.23456"


# id_list
@pytest.mark.parametrize(
    ("cleaned", "canonical"),
    [
        ("USGS-2;USGS-1", "USGS-1;USGS-2"),
        ("USGS-2, USGS-1", "USGS-1;USGS-2"),
        ("USGS-2 USGS-1 USGS-2", "USGS-1;USGS-2"),
        ("['b', 'a']", "a;b"),
        ('"a";;"b"', "a;b"),
        (";", ""),
    ],
)
def test_id_list(cleaned, canonical):
    assert apply_rule(cleaned, ID_LIST) == canonical


@given(st.lists(st.from_regex(r"[A-Z]{1,3}-[0-9]{1,3}", fullmatch=True), min_size=1, max_size=6), st.randoms())
def test_id_list_ignores_order_separators_and_repeats(members, random):
    shuffled = list(members) + members[:1]
    random.shuffle(shuffled)
    separators = [";", ",", " ", "; ", " , "]
    text = "".join(m + random.choice(separators) for m in shuffled).strip(" ,;")
    assert apply_rule(text, ID_LIST) == ";".join(sorted(set(members)))


@given(st.text(max_size=30), st.sampled_from([FieldRule(), INTEGER, DECIMAL, ID_LIST, TEMPERATURE]))
def test_no_text_breaks_a_rule(text, rule):
    assert isinstance(apply_rule(clean_cell(text), rule), str)


# compiled rules and canonicalizers
def test_rule_function_rejects_bad_rules():
    with pytest.raises(SgrKitError, match="field type must be one of string, integer, decimal, id_list; found 'date'"):
        rule_function(FieldRule(type="date"))
    with pytest.raises(SgrKitError, match="expected a FieldRule, found dict"):
        rule_function({"type": "integer"})
    with pytest.raises(SgrKitError, match=r"unit 'x': expected \(offset, scale_num, scale_den\), found 3"):
        rule_function(FieldRule(type="decimal", units={"x": 3}))
    with pytest.raises(SgrKitError, match="unit 'x': scale_den must not be 0"):
        rule_function(FieldRule(type="decimal", units={"x": (F(0), F(1), F(0))}))


def test_strict_canonicalizers_clean_then_apply_the_rule():
    schema = Schema(("id", "t", "ids"), ("id",), fields={"t": TEMPERATURE, "ids": ID_LIST})
    functions = strict_canonicalizers(schema)
    raw = [" **[A1](u)** ", "46.4  deg F", "`b, a`"]
    assert [f(x) for f, x in zip(functions, raw)] == ["A1", "8", "a;b"]
    assert [f(x) for f, x in zip(functions, raw)] == [
        apply_rule(clean_cell(x), schema.rule(c)) for x, c in zip(raw, schema.columns)
    ]


def test_column_canonicalizers_strict_profile():
    schema = Schema(("id", "v"), ("id",), fields={"v": DECIMAL})
    functions = column_canonicalizers(schema, profile="strict", reference_rows=[("a", "1")])
    assert [f(x) for f, x in zip(functions, ["a", "8.40"])] == ["a", "8.4"]


def test_column_canonicalizers_paper_profile_gives_one_function_per_column():
    schema = Schema(("id", "v"), ("id",), fields={"v": DECIMAL})
    functions = column_canonicalizers(schema, profile="paper", reference_rows=[("a", "8.40")])
    assert len(functions) == 2
    assert functions[1]("8.400") == functions[1]("8.4")


def test_column_canonicalizers_validates_its_inputs():
    schema = Schema(("id", "v"), ("id",))
    with pytest.raises(SgrKitError, match="profile must be one of 'paper', 'strict'; found 'exact'"):
        column_canonicalizers(schema, profile="exact", reference_rows=[])
    with pytest.raises(SgrKitError, match=r"tolerance names column 'w', which is not in the schema \(id, v\)"):
        column_canonicalizers(schema, profile="strict", reference_rows=[], tolerance={"w": Decimal("0.1")})
    with pytest.raises(SgrKitError, match="tolerance of column 'v': expected a Decimal >= 0, found Decimal"):
        column_canonicalizers(schema, profile="strict", reference_rows=[], tolerance={"v": Decimal("-1")})
    with pytest.raises(SgrKitError, match="expected a Schema, found list"):
        column_canonicalizers(["id"], profile="strict", reference_rows=[])
