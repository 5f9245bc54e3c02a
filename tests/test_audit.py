"""Tests for sgr_kit.reference.audit: the consistency audit of the paper's published numbers."""

from __future__ import annotations

import re
import unicodedata
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sgr_kit import reference
from sgr_kit.errors import SgrKitError
from sgr_kit.reference.audit import audit, audit_summary, half_unit, rounding_tolerance
from sgr_kit.schema import AUDIT_COLUMNS as COLUMNS
from sgr_kit.schema import AUDIT_VERDICTS as VERDICTS
from conftest import examples

# The claims that do not follow from their components (worked by hand from the paper):
# Table 2, Kimi K2.5: (47.54 + 45.17) / 2 = 46.355, printed Overall 47.39;
# Finding 1: the 22 variant Item-F1 cells of Table 2 average 47.76, printed mean 47.85;
# Section 4.2: the 16 variant Item-F1 cells of the CLI systems average 53.29375, printed 53.42.
INCONSISTENT = {
    "table2.overall.Kimi K2.5": (47.39, 46.355),
    "f1.mean_item_f1.from_variants": (47.85, 47.76),
    "s4_2.cli_mean_item_f1.from_variants": (53.42, 53.29375),
}


@pytest.fixture(scope="module")
def result() -> pd.DataFrame:
    return audit()


@pytest.fixture
def frames() -> dict[str, pd.DataFrame]:
    return {name: reference.load(name) for name in reference.NAMES}


def claim(frame: pd.DataFrame, cid: str) -> pd.Series:
    return frame.set_index("id").loc[cid]


def set_value(frame: pd.DataFrame, value: float, **where: str) -> None:
    mask = pd.Series(True, index=frame.index)
    for column, wanted in where.items():
        mask &= frame[column] == wanted
    assert mask.sum() == 1
    frame.loc[mask, "value"] = value


# --- shape ---------------------------------------------------------------------------------


def test_columns_and_values(result):
    assert list(result.columns) == list(COLUMNS)
    assert result["id"].is_unique
    assert set(result["verdict"]) <= set(VERDICTS)
    assert set(result["kind"]) == {"derivation", "equality", "bound", "ordering"}
    for column in ("published", "recomputed", "difference", "tolerance"):
        assert result[column].dtype == float
    assert (result["tolerance"] >= 0).all()


def test_every_claim_has_a_location_and_inputs(result):
    assert result["location"].str.match(r"(Table \d|Section \d|Appendix [A-K]|Abstract)").all()
    assert result["claim"].str.len().gt(0).all() and result["inputs"].str.len().gt(0).all()


def test_quoted_locations_are_verbatim(result):
    paper = Path(__file__).resolve().parents[1].parent / "shared" / "paper" / "sgr-bench-paper.txt"
    if not paper.is_file():
        pytest.skip("paper text absent: expected ../shared/paper/sgr-bench-paper.txt beside the checkout")
    text = re.sub(r"\s+", " ", unicodedata.normalize("NFKC", paper.read_text(encoding="utf-8")))
    quotes = result["location"].str.extract(r': "(.*)"$')[0].dropna()
    assert len(quotes) > 100
    for quote in quotes:
        assert quote in text, quote


def test_claim_count(result):
    # 95 table claims (Table 2: 11; Table 3: 33 + order; Table 4: 24; Table 5: 12; Table 6: 14),
    # 13 for section 3.3, 11 for Appendix K, 2 for Finding 3, 120 derived or repeated text numbers
    # plus 2 recomputations from Table 2's variant cells, and 19 ranks and orders stated in words.
    assert len(result) == 262
    # equality: 33 repeated text numbers, Table 3's 11 Item-F1, Table 6's 7 n, the 50/50 split;
    # bound: 4 tiers, 4 cardinality ranges, 3 weighted means, the mean-rows parity, the 22 audit slots;
    # ordering: the 19 worded ranks, 2 printed ranks, Table 3's and Finding 3's orders, 2 parity counts.
    assert result["kind"].value_counts().to_dict() == {"derivation": 173, "equality": 52, "ordering": 25,
                                                       "bound": 12}


def test_verdict_follows_the_rule(result):
    assert ((result["difference"].abs() <= result["tolerance"]) == (result["verdict"] == "consistent")).all()


def test_every_checkable_text_number_is_audited(result):
    text = reference.text_numbers()
    checkable = set(text.loc[text["kind"] != "standalone", "id"])
    assert checkable <= set(result["id"])
    assert not set(text.loc[text["kind"] == "standalone", "id"]) & set(result["id"])


# --- known verdicts --------------------------------------------------------------------------


def test_known_inconsistent_claims_are_flagged(result):
    flagged = result[result["verdict"] == "inconsistent"]
    assert set(flagged["id"]) == set(INCONSISTENT)
    for cid, (published, recomputed) in INCONSISTENT.items():
        row = claim(result, cid)
        assert (row["published"], row["recomputed"]) == pytest.approx((published, recomputed))


@pytest.mark.parametrize("cid, published, recomputed", [
    ("table2.overall.GPT-5.5", 66.18, 66.185),  # Table 2: (68.22 + 64.15) / 2
    ("table3.row_f1.Seed-2.0 Pro", 20.45, 20.455),  # Table 3 from Table 2: (22.73 + 18.18) / 2
    ("table3.poa.Qwen3.6-Plus", 60.86, 60.855),  # (79.29 + 42.42) / 2
    ("table3.item_f1.Kimi K2.5", 47.39, 47.39),  # Table 3 repeats Table 2's (inconsistent) Overall
    ("abstract.share_scope_drift", 37.2, 100 * 58 / 156),  # Table 4 Total row
    ("intro.share_scope_or_mismatch", 64.7, 100 * 101 / 156),
    ("fig2.share_final_answer", 10.3, 100 * 16 / 156),
    ("f1.gap", 21.04, 47.8536363636 - 26.8063636364),
    ("s4_2.delta_item_f1", 1.90, 48.7118181818 - 46.8081818182),
    ("s4_2.commercial_mean_item_f1", 33.00, 33.0),
    ("appH.gemini_drift_share", 58, 100 * 11 / 19),  # Appendix H from Table 4
    ("appH.kimi_dependency_share", 23, 100 * 5 / 22),
    ("appI.official_mismatch_share", 38, 37.5),  # 12 / 32: exactly half a unit away, still consistent
    ("appF.kimi_row_f1", 90.9, 100 * 10 / 11),  # Appendix F: 2 x 5 / (5 + 6)
    ("table6.gap.criterion_mismatch", 45.2, 45.2),
    ("table4.total.fail", 156, 156),
])
def test_known_consistent_claims(result, cid, published, recomputed):
    row = claim(result, cid)
    assert row["verdict"] == "consistent"
    assert (row["published"], row["recomputed"]) == pytest.approx((published, recomputed))


def test_bounds_and_ranks(result):
    top = claim(result, "appE.top_tier_threshold")  # "above 60%": lowest top-tier Item-F1 is 60.98
    assert (top["kind"], top["recomputed"], top["difference"]) == ("bound", 60.98, 0.0)
    middle = claim(result, "appE.middle_tier_high")  # "54-59%": Gemini 3.1 Pro's 59.06 is within rounding
    assert middle["difference"] == pytest.approx(-0.06) and middle["verdict"] == "consistent"
    assert claim(result, "appE.openai_dr_row_f1_rank")["recomputed"] == 2  # "second-highest Row-F1"
    assert claim(result, "appE.openai_dr_item_f1_rank")["recomputed"] == 6  # "ranking sixth"
    assert claim(result, "appI.task_slots_bound")["recomputed"] == 20  # 64/8 + 32/8 + 24/8 + 21/8 + 15/8, rounded up
    implied = claim(result, "appK.item_f1_vs_overall")["inputs"]
    assert "implied mean of the unpublished part 41.02" in implied  # (4785 - 945.36 - 2068.34 - 1361.1) / 10


# --- the tolerance rule ----------------------------------------------------------------------


def test_half_unit():
    assert half_unit(2) == Fraction(1, 200) and half_unit(0) == Fraction(1, 2) and half_unit(None) == 0


def test_rounding_tolerance_examples():
    # Mean of two 2-decimal values printed with 2 decimals: 0.005 + 2 x 0.5 x 0.005.
    assert rounding_tolerance(2, inputs=[(Fraction(1, 2), 2)] * 2) == Fraction(1, 100)
    # Mean of 11 values: still half a unit of the inputs' last digit.
    assert rounding_tolerance(2, inputs=[(Fraction(1, 11), 2)] * 11) == Fraction(1, 100)
    # Difference of two 1-decimal values printed with 1 decimal: 0.05 + 0.05 + 0.05.
    assert rounding_tolerance(1, inputs=[(1, 1), (-1, 1)]) == Fraction(3, 20)
    # Share of exact counts printed as a whole percent: only the published rounding.
    assert rounding_tolerance(0, inputs=[(1, None), (1, None)]) == Fraction(1, 2)
    # An exact count compared with exact counts: no tolerance at all.
    assert rounding_tolerance(None, inputs=[(1, None)]) == 0


def rounded(x: Fraction, decimals: int) -> Fraction:
    q = Decimal(1).scaleb(-decimals)
    return Fraction((Decimal(x.numerator) / Decimal(x.denominator)).quantize(q, rounding=ROUND_HALF_UP))


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=10_000_000), min_size=2, max_size=22))
def test_tolerance_covers_any_mean_of_rounded_values(micro):
    # True values with 5 decimals, printed with 2; the mean printed with 2: the rule must cover the gap.
    true = [Fraction(m, 100_000) for m in micro]
    n = len(true)
    published = rounded(sum(true) / n, 2)
    recomputed = sum(rounded(x, 2) for x in true) / n
    assert abs(published - recomputed) <= rounding_tolerance(2, inputs=[(Fraction(1, n), 2)] * n)


@settings(max_examples=examples(200), deadline=None)
@given(st.integers(min_value=0, max_value=1_000_000), st.integers(min_value=0, max_value=1_000_000))
def test_tolerance_covers_any_difference_of_rounded_values(a, b):
    x, y = Fraction(a, 10_000), Fraction(b, 10_000)
    published = rounded(x - y, 1)
    recomputed = rounded(x, 1) - rounded(y, 1)
    assert abs(published - recomputed) <= rounding_tolerance(1, inputs=[(1, 1), (-1, 1)])


# --- the rule applied to edited numbers --------------------------------------------------------


@pytest.mark.parametrize("overall, verdict", [(66.18, "consistent"), (66.19, "consistent"),
                                              (66.20, "inconsistent"), (66.17, "inconsistent")])
def test_overall_tolerance_on_hand_made_values(frames, overall, verdict):
    # (68.22 + 64.15) / 2 = 66.185; tolerance 0.01 admits 66.175 .. 66.195.
    set_value(frames["table2"], overall, system="GPT-5.5", variant="overall")
    assert claim(audit(frames), "table2.overall.GPT-5.5")["verdict"] == verdict


def test_a_changed_count_breaks_every_sum_it_enters(frames):
    set_value(frames["table4"], 14.0, label="Seed-2.0", error_type="scope_drift")
    a = audit(frames)
    flagged = set(a.loc[a["verdict"] == "inconsistent", "id"])
    # The printed Fail (20) and Total (58) no longer follow, nor does Appendix H's 75% (now 14/20);
    # Table 5 and Table 6 are checked against the printed Total row, which is unchanged.
    assert flagged == set(INCONSISTENT) | {"table4.fail.Seed-2.0", "table4.total.scope_drift",
                                           "appH.seed_drift_share"}
    assert claim(a, "appH.seed_drift_share")["recomputed"] == pytest.approx(70.0)


def test_correcting_kimi_moves_the_inconsistency_to_table3(frames):
    set_value(frames["table2"], 46.36, system="Kimi K2.5", variant="overall")
    a = audit(frames)
    assert claim(a, "table2.overall.Kimi K2.5")["verdict"] == "consistent"
    assert claim(a, "table3.item_f1.Kimi K2.5")["verdict"] == "inconsistent"
    assert claim(a, "f1.mean_item_f1")["verdict"] == "inconsistent"  # 47.76 against 47.85


@pytest.mark.parametrize("value, verdict", [(38, "consistent"), (37, "consistent"), (39, "inconsistent"),
                                            (36, "inconsistent")])
def test_share_of_counts_has_only_the_published_rounding(frames, value, verdict):
    # 12 / 32 = 37.5% exactly: 37 and 38 are both half a unit away (either rounding direction).
    set_value(frames["text_numbers"], value, id="appI.official_mismatch_share")
    assert claim(audit(frames), "appI.official_mismatch_share")["verdict"] == verdict


@pytest.mark.parametrize("threshold, verdict", [(61, "consistent"), (62, "inconsistent")])
def test_bound_tolerance(frames, threshold, verdict):
    # "above 60%" with the lowest top-tier Item-F1 60.98: a printed 61 is within half a unit, 62 is not.
    set_value(frames["text_numbers"], threshold, id="appE.top_tier_threshold")
    assert claim(audit(frames), "appE.top_tier_threshold")["verdict"] == verdict


def test_order_claims_detect_a_swap(frames):
    t3 = frames["table3"]
    t3.loc[t3["system"] == "GPT-5.5", "position"] = 3
    t3.loc[t3["system"] == "Claude Opus 4.7", "position"] = 1
    row = claim(audit(frames), "table3.order")
    # Printed order Claude Opus 4.7, GLM-5.1, GPT-5.5: three pairs out of order.
    assert (row["recomputed"], row["verdict"]) == (3.0, "inconsistent")


# --- errors and summary ------------------------------------------------------------------------


def test_missing_rows_are_reported(frames):
    frames["table4"] = frames["table4"][frames["table4"]["label"] != "Total"]
    with pytest.raises(SgrKitError, match=r"audit: the reference tables lack the published number \('Total', "):
        audit(frames)


def test_derived_text_number_without_rule_is_refused(frames):
    text = frames["text_numbers"]
    text.loc[text["id"] == "appC.max_runtime", ["id", "kind"]] = ["appC.runtime_limit", "derived"]
    with pytest.raises(SgrKitError, match=r"id 'appC.runtime_limit': marked 'derived' but the audit has no rule"):
        audit(frames)


def test_ids_sharing_a_rule_must_make_one_claim(frames):
    text = frames["text_numbers"]
    text.loc[text["id"] == "intro.tasks", "claim"] = "something else"
    with pytest.raises(SgrKitError, match=r"id 'intro.tasks': ids ending in 'tasks' share one rule"):
        audit(frames)


def test_summary(result):
    s = audit_summary(result)
    assert list(s.columns) == ["location", "claims", "consistent", "inconsistent"]
    total = s.iloc[-1]
    assert total["location"] == "all" and total["claims"] == len(result) == s["claims"].iloc[:-1].sum()
    assert total["inconsistent"] == len(INCONSISTENT)
    by_place = s.set_index("location")["inconsistent"]
    assert by_place["Table 2"] == 1 and by_place["Section 4.2"] == 2
