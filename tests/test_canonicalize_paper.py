from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sgr_kit.canonicalize import column_canonicalizers
from sgr_kit.canonicalize.paper import column_kinds, paper_canonicalizers, plain_number, unify_text
from sgr_kit.parse import parse_answer
from sgr_kit.types import FieldRule, Schema
from conftest import examples


def canon(column, reference, *, rule=None):
    """The paper canonicalizer of one column named ``column`` with reference values ``reference``."""
    schema = Schema(columns=(column,), row_key=(column,), fields={column: rule} if rule else {})
    return paper_canonicalizers(schema, reference_rows=[(v,) for v in reference])[0]


def same(f, a, b):
    return f(a) == f(b)


# --- strings: case, dashes, quotes, spaces, trailing punctuation (paper section 3.4:
# "whitespace and punctuation differences ... capitalization")


def test_strings_compare_ignoring_case():
    f = canon("county", ["Saint Louis"])
    assert same(f, "Saint Louis", "SAINT LOUIS")
    assert same(f, "saint louis", "**Saint  Louis**")


def test_distinct_entities_are_not_merged():
    # Section 3.4: canonicalization does not "merge entities that are distinct in the target source".
    f = canon("county", ["St. Louis County", "St. Louis city"])
    assert not same(f, "St. Louis County", "St. Louis city")
    assert not same(f, "St. Louis", "Saint Louis")  # an abbreviation needs an alias


@pytest.mark.parametrize("dash", ["\u2010", "\u2011", "\u2012", "\u2013", "\u2014", "\u2015", "\u2212"])
def test_unicode_dashes_are_hyphens(dash):
    f = canon("name", ["Smith-Jones"])
    assert same(f, f"Smith{dash}Jones", "Smith-Jones")


def test_a_dash_is_not_a_missing_character():
    f = canon("name", ["Smith-Jones"])
    assert not same(f, "SmithJones", "Smith-Jones")
    assert not same(f, "Smith Jones", "Smith-Jones")


@pytest.mark.parametrize("text, plain", [("\u2018a\u2019", "'a'"), ("\u201ca\u201d", '"a"'), ("a\u00a0b", "a b"),
                                         ("a\u2009b", "a b"), ("a\u202fb", "a b"), ("a\u200bb", "ab")])
def test_quotes_and_spaces_are_unified(text, plain):
    f = canon("name", ["x"])
    assert same(f, text, plain)


def test_a_trailing_period_or_semicolon_is_dropped_but_not_inner_punctuation():
    f = canon("name", ["Acme Inc"])
    assert same(f, "Acme Inc.", "Acme Inc") and same(f, "Acme Inc;", "Acme Inc")
    assert not same(f, "Acme, Inc", "Acme Inc")
    assert unify_text("a.b.") == "a.b"


# --- numbers: exact decimals, no rounding, no tolerance (reference scorer: "predictions are
# never rounded (8.404 != 8.40)"; "trailing zeros dropped (8.40 = 8.4, 400.00 = 400)")


def test_numbers_in_a_string_column_compare_as_exact_decimals():
    f = canon("share", ["8.4", "400"])
    assert same(f, "8.40", "8.4") and same(f, "400.00", "400") and same(f, "+8.4", "8.4")
    assert not same(f, "8.404", "8.4")
    assert not same(f, "8.41", "8.4")  # no tolerance nobody asked for
    assert not same(f, "8", "8.4")  # no rounding


def test_trailing_zeros_compare_equal_in_a_rubric_decimal_column():
    # Reference scorer: "trailing zeros dropped (8.40 = 8.4, 400.00 = 400)" for integer/decimal fields.
    f = canon("ph", ["8.40", "400.00"], rule=FieldRule(type="decimal"))
    assert same(f, "8.4", "8.40") and same(f, "400", "400.00") and same(f, "8.400", "8.40")
    assert not same(f, "8.404", "8.40")
    g = canon("release_count", ["10.0"], rule=FieldRule(type="decimal"))  # the rubric type beats the name
    assert same(g, "10", "10.0")


# --- numbers that are labels: version, section and taxon numbers (review finding B; the issue:
# "identifiers that merely look numeric ... stay text: decide per column from the rubric and the
# reference values")


@pytest.mark.parametrize("column", ["version", "python_version", "Release", "section", "chapter", "build", "taxid",
                                    "ncbi_taxon"])
def test_numbering_words_make_a_string_column_an_identifier(column):
    f = canon(column, ["3.1", "9606"])
    assert not same(f, "3.10", "3.1") and not same(f, "9606.0", "9606") and not same(f, "+3.1", "3.1")
    assert same(f, "3.1", "3.1") and same(f, "V3.1", "v3.1")


def test_an_untyped_column_of_decimals_ignores_trailing_zeros():
    # The issue: numbers compare as exact decimals "ignoring ... trailing zeros" when both sides
    # parse as numbers; the official release's rubrics often declare no types.
    f = canon("dissolved_oxygen", ["8.40", "16.30", "400.00"])
    assert same(f, "8.4", "8.40") and same(f, "400", "400.00")
    assert not same(f, "8.404", "8.40")  # never rounded


def test_counts_with_thousands_separators_stay_numbers():
    f = canon("population", ["1234567", "89"])
    assert column_kinds(Schema(columns=("population",), row_key=("population",)),
                        reference_rows=[("1234567",), ("89",)]) == ["numeric"]
    assert same(f, "1,234,567", "1234567") and same(f, "1 234 567.0", "1234567")
    f = canon("population", ["1,234,567.50"])  # a formatted number, not a label
    assert same(f, "1234567.5", "1,234,567.50")


@pytest.mark.parametrize("written", ["1,234,567", "1 234 567", "1\u00a0234\u00a0567", "+1,234,567.00"])
def test_thousands_separators_are_ignored(written):
    f = canon("population", ["1234567"])
    assert same(f, written, "1234567")


def test_malformed_thousands_groups_are_not_numbers():
    f = canon("population", ["1234"])
    assert not same(f, "1,5", "1.5")
    assert not same(f, "12,34", "1234")
    assert not same(f, "1,234", "1.234")


def test_a_percent_sign_the_reference_does_not_carry_is_ignored():
    f = canon("share", ["12.5"])
    assert same(f, "12.5%", "12.5") and same(f, "12.50 %", "12.5")


def test_a_percent_sign_the_reference_carries_is_kept():
    # the issue ignores only "a % sign the reference does not carry": the rule is asymmetric
    f = canon("share", ["12.5%"])
    assert same(f, "12.50 %", "12.5%")
    assert not same(f, "12.5", "12.5%")
    g = canon("share", ["0.45"])
    assert not same(g, "45%", "0.45")  # never rescaled


def test_integer_and_decimal_rubric_rules_with_paper_number_spellings():
    integer = canon("n", ["1234"], rule=FieldRule(type="integer"))
    assert same(integer, "1,234", "1234") and same(integer, "+1 234", "1234")
    assert not same(integer, "1,234.5", "1234")
    units = {"mg/L": (0, 1, 1), "ug/L": (0, 1, 1000)}
    conc = canon("c", ["8.40"], rule=FieldRule(type="decimal", units=units))
    assert same(conc, "8.4 mg/L", "8.40") and same(conc, "8,400 ug/L", "8.40")
    assert not same(conc, "8.4 g/L", "8.40")  # undeclared unit


def test_invalid_numbers_match_only_the_same_text_ignoring_case():
    # Reference scorer: "an invalid marker that matches only an identical invalid text (so NA matches gold NA)".
    f = canon("n", ["NA"], rule=FieldRule(type="decimal"))
    assert same(f, "na", "NA")
    assert not same(f, "N/A", "NA") and not same(f, "", "NA")


def test_plain_number_shapes():
    assert plain_number("007") == "7" and plain_number("-0") == "0" and plain_number("-1.50") == "-1.5"
    assert plain_number("1.2.3") is None and plain_number("nan") is None and plain_number("+") is None


# --- identifiers stay text (only prefixes are removed)


def test_arxiv_ids_are_not_numbers():
    f = canon("paper", ["1910.02550"])
    assert not same(f, "1910.0255", "1910.02550")
    assert same(f, "arXiv:1910.02550", "1910.02550")
    assert same(f, "https://arxiv.org/abs/1910.02550", "1910.02550")
    assert same(f, "https://arxiv.org/pdf/1910.02550.pdf", "1910.02550")
    assert not same(f, "1910.02550v2", "1910.02550")  # a version is not a prefix


def test_identifier_columns_by_name_keep_their_digits():
    f = canon("naics_code", ["541715"])
    assert not same(f, "541,715", "541715")
    g = canon("CVE_ID", ["CVE-2021-44228"])
    assert same(g, "cve-2021-44228", "CVE-2021-44228")


def test_leading_zeros_make_a_column_an_identifier():
    f = canon("station", ["08065350", "12"])
    assert not same(f, "8065350", "08065350")


def test_doi_prefixes_are_removed_and_case_ignored():
    f = canon("doi", ["10.1000/ABC.123"])
    for written in ("https://doi.org/10.1000/abc.123", "http://dx.doi.org/10.1000/ABC.123", "doi:10.1000/abc.123",
                    "DOI: 10.1000/abc.123", "doi.org/10.1000/abc.123", "https://www.doi.org/10.1000/abc.123"):
        assert same(f, written, "10.1000/ABC.123"), written
    assert not same(f, "10.1000/ABC.124", "10.1000/ABC.123")


def test_id_list_members_compare_as_sets_ignoring_case():
    f = canon("ids", ["USGS-1;USGS-2"], rule=FieldRule(type="id_list"))
    assert same(f, "usgs-2, USGS-1", "USGS-1;USGS-2")
    assert not same(f, "USGS-1", "USGS-1;USGS-2")


# --- dates and timestamps


@pytest.mark.parametrize("written", ["2019-10-06", "2019/10/06", "2019-10-6", "Oct 6, 2019", "Oct. 6 2019",
                                     "October 6, 2019", "6 October 2019", "6 Oct 2019", "6th October, 2019"])
def test_dates_in_common_spellings_are_iso(written):
    f = canon("day", ["2019-10-06"])
    assert f(written) == "2019-10-06"


def test_dates_that_differ_or_do_not_exist_stay_unequal():
    f = canon("day", ["2019-10-06"])
    assert not same(f, "2019-06-10", "2019-10-06")
    assert f("2019-02-30") == "2019-02-30"  # not a date: compared as text
    assert not same(f, "10/06/2019", "2019-10-06")  # ambiguous day/month order is not read


def test_dates_are_only_read_in_date_columns():
    f = canon("event", ["launch"])
    assert not same(f, "Oct 6, 2019", "2019-10-06")


@pytest.mark.parametrize("written", ["2021-03-01T12:30:00Z", "2021-03-01 12:30:00Z", "2021-03-01 12:30:00 UTC",
                                     "2021-03-01T12:30:00+00:00", "2021-03-01T12:30Z"])
def test_utc_timestamps_are_equal_however_written(written):
    f = canon("submitted", ["2021-03-01T12:30:00Z"])
    assert f(written) == "2021-03-01T12:30:00Z"


def test_timestamps_that_differ_stay_unequal():
    f = canon("submitted", ["2021-03-01T12:30:00Z"])
    assert not same(f, "2021-03-01T12:30:01Z", "2021-03-01T12:30:00Z")
    assert not same(f, "2021-03-01T12:30:00", "2021-03-01T12:30:00Z")  # no zone: not assumed UTC
    assert not same(f, "2021-03-01T14:30:00+02:00", "2021-03-01T12:30:00Z")  # offsets are not converted


# --- rubric rules (aliases, uppercase) as in strict


def test_rubric_aliases_apply_exactly_and_ignoring_case():
    rule = FieldRule(aliases={"St. Louis": "Saint Louis"})
    f = canon("county", ["Saint Louis"], rule=rule)
    assert same(f, "St. Louis", "Saint Louis") and same(f, "ST. LOUIS", "Saint Louis")
    assert not same(f, "St Louis", "Saint Louis")


def test_uppercase_rule_and_case_folding_agree():
    f = canon("code", ["ABC"], rule=FieldRule(uppercase=True))
    assert same(f, "abc", "ABC")


# --- the column kinds and their guarantees


def test_column_kinds_from_rubric_names_and_reference_values():
    schema = Schema(
        columns=("pred_id", "n", "v", "ids", "when", "at", "doi", "name", "mixed"),
        row_key=("pred_id",),
        fields={"v": FieldRule(type="decimal"), "ids": FieldRule(type="id_list")},
    )
    rows = [("2102.13653", "12", "x", "a;b", "2019-10-06", "2019-10-06T01:02:03Z", "10.1/x", "Ann", "12"),
            ("hep-th/9901001", "1,204", "1", "c", "Oct 6, 2019", "2019-10-06 01:02Z", "doi:10.2/y", "Bo", "x")]
    assert column_kinds(schema, reference_rows=rows) == [
        "arxiv", "numeric", "numeric", "id_list", "date", "timestamp", "doi", "text", "text",
    ]


def test_missing_reference_cells_do_not_break_kind_detection():
    schema = Schema(columns=("a", "b"), row_key=("a",))
    assert column_kinds(schema, reference_rows=[("x",), ("y", "")]) == ["text", "text"]


def test_an_empty_cell_is_never_filled():
    # Section 3.4: canonicalization "does not fill in missing fields".
    for f in (canon("n", ["0"]), canon("name", [""]), canon("day", ["2019-10-06"]),
              canon("v", ["1"], rule=FieldRule(type="decimal"))):
        assert f("") == "" and f("  ** **  ") == ""


def test_the_reference_equals_itself_in_every_column(release_dir):
    for name in ("constraint.jsonl", "goal.jsonl"):
        for line in (release_dir / name).read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            rubric = record["rubric"]
            schema = Schema(columns=tuple(rubric["columns"]), row_key=tuple(rubric["row_key"]),
                            fields={c: FieldRule(type=r["type"]) for c, r in rubric["fields"].items()})
            rows = parse_answer(record["oracle_answer"], schema).rows
            fs = paper_canonicalizers(schema, reference_rows=rows)
            for row in rows:
                assert all(f(c) == f(c) != "" for f, c in zip(fs, row))


def test_release_fixture_known_answers(release_dir):
    # Reference rows of wqp_activity_panel_001 (release fixture): "8.40" written "8.4",
    # "2014-03-11" written "Mar 11, 2014", ids re-cased; "7.70" written "7.7" but "7.71" is wrong.
    record = json.loads((release_dir / "constraint.jsonl").read_text(encoding="utf-8").splitlines()[1])
    rubric = record["rubric"]
    schema = Schema(columns=tuple(rubric["columns"]), row_key=tuple(rubric["row_key"]),
                    fields={c: FieldRule(type=r["type"]) for c, r in rubric["fields"].items()})
    rows = parse_answer(record["oracle_answer"], schema).rows
    fs = paper_canonicalizers(schema, reference_rows=rows)
    gold = [f(c) for f, c in zip(fs, rows[0])]
    written = list(rows[0])
    written[3], written[7], written[14], written[17] = "Mar 11, 2014", "usgs-08067000, USGS-08057410", "8.4", "7.7"
    assert [f(c) for f, c in zip(fs, written)] == gold
    written[17] = "7.71"
    assert [f(c) for f, c in zip(fs, written)][17] != gold[17]


def test_dispatch_from_column_canonicalizers_and_caching():
    schema = Schema(columns=("id", "n"), row_key=("id",))
    paper = column_canonicalizers(schema, profile="paper", reference_rows=[("A", "1,000")])
    strict = column_canonicalizers(schema, profile="strict", reference_rows=[("A", "1,000")])
    assert paper[0]("a") == paper[0]("A") == "a" and strict[0]("a") != strict[0]("A")
    assert paper[1]("1000") == paper[1]("1,000") == paper[1]("1,000")


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.text(max_size=12), min_size=1, max_size=4), st.text(max_size=30))
def test_canonicalizers_never_raise_and_are_deterministic(reference, raw):
    schema = Schema(columns=("a", "n", "ids"), row_key=("a",),
                    fields={"n": FieldRule(type="decimal", units={"mg/L": (0, 1, 1)}), "ids": FieldRule(type="id_list")})
    fs = paper_canonicalizers(schema, reference_rows=[(v, v, v) for v in reference])
    for f in fs:
        value = f(raw)
        assert isinstance(value, str) and value == f(raw)
        for v in reference:
            assert f(v) == f(v)


@settings(max_examples=examples(200), deadline=None)
@given(st.text(alphabet="abcXYZ -.,", max_size=20))
def test_text_columns_ignore_ascii_case(raw):
    f = canon("name", ["x"])
    assert f(raw.upper()) == f(raw.lower())
