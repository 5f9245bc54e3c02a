"""Tests of sgr_kit.stats.paired (paired_tests): values checked against scipy, statsmodels and by hand."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from sgr_kit.errors import SgrKitError
from sgr_kit.stats import PAIRED_COLUMNS, paired_tests, smallest_p, wilcoxon_test
from sgr_kit.stats.simulate import SimulationDesign, simulate_scores

statsmodels_multitest = pytest.importorskip("statsmodels.stats.multitest")
statsmodels_power = pytest.importorskip("statsmodels.stats.power")


def paired_table(constraint, goal, *, system="s"):
    rows = []
    for i, (c, g) in enumerate(zip(constraint, goal)):
        base = f"x_{i:03d}"
        rows.append((system, base, base, "constraint", "parsed", c))
        rows.append((system, base + "-g", base, "goal", "parsed", g))
    table = pd.DataFrame(rows, columns=["system", "task_id", "base_id", "variant", "status", "item_f1"])
    return table.assign(row_f1=0.0, poa=0.0)


@pytest.fixture
def scores():
    return simulate_scores(SimulationDesign(abilities=(0.6, 0.1, -0.4, -1.0), shift=0.4, n_problems=40), seed=21)


@pytest.fixture
def result(scores):
    return paired_tests(scores, n_boot=500, n_perm=2000, seed=1)


def differences(scores, metric="item_f1"):
    """Constraint minus goal per system and base problem, from scratch (zero policy, one repeat)."""
    s = scores.assign(value=scores[metric].fillna(0.0))
    wide = s.pivot_table(index=["system", "base_id"], columns="variant", values="value")
    return (wide["constraint"] - wide["goal"]).unstack("system")


def test_columns_rows_and_counts(result, scores):
    assert tuple(result.columns) == PAIRED_COLUMNS
    assert result["system"].tolist() == ["sys_01", "sys_02", "sys_03", "sys_04", "all systems"]
    assert (result["n_pairs"] == 40).all()
    assert result["n_tasks"].tolist() == [80, 80, 80, 80, 320]
    assert (result["wins"] + result["ties"] + result["losses"] == result["n_pairs"]).all()
    assert result["synthetic"].all() and set(result["method"]) == {"percentile"} and set(result["ci"]) == {0.95}


def test_t_wilcoxon_and_effect_sizes_agree_with_scipy(result, scores):
    # Independent values: scipy.stats.ttest_rel and scipy.stats.wilcoxon on the same pairs.
    d = differences(scores)
    for _, row in result.iloc[:-1].iterrows():
        x = d[row["system"]].to_numpy()
        wide = scores[scores["system"] == row["system"]].assign(v=lambda t: t["item_f1"].fillna(0.0))
        wide = wide.pivot_table(index="base_id", columns="variant", values="v")
        t = stats.ttest_rel(wide["constraint"], wide["goal"])
        assert row["t"] == pytest.approx(t.statistic, abs=1e-10)
        assert row["p_t"] == pytest.approx(t.pvalue, abs=1e-10)
        exact = row["wilcoxon_method"] == "exact"
        w = stats.wilcoxon(wide["constraint"], wide["goal"], zero_method="wilcox", correction=not exact,
                           method="exact" if exact else "asymptotic")  # fmt: skip
        assert row["w"] == pytest.approx(w.statistic, abs=1e-10)
        assert row["p_wilcoxon"] == pytest.approx(w.pvalue, abs=1e-10)
        assert row["cohens_dz"] == pytest.approx(t.statistic / np.sqrt(len(x)), abs=1e-10)
        nonzero = x[x != 0]
        ranks = stats.rankdata(np.abs(nonzero))
        kerby = (ranks[nonzero > 0].sum() - ranks[nonzero < 0].sum()) / ranks.sum()
        assert row["rank_biserial"] == pytest.approx(kerby, abs=1e-10)
        assert row["diff"] == pytest.approx(100 * x.mean(), abs=1e-10)
        assert (row["wins"], row["ties"], row["losses"]) == ((x > 0).sum(), (x == 0).sum(), (x < 0).sum())


def test_pooled_row_tests_the_per_problem_mean_over_systems(result, scores):
    pooled = differences(scores).mean(axis=1).to_numpy()
    row = result.iloc[-1]
    assert row["system"] == "all systems" and row["n_pairs"] == len(pooled) == 40
    assert row["diff"] == pytest.approx(100 * pooled.mean(), abs=1e-10)
    assert row["t"] == pytest.approx(stats.ttest_1samp(pooled, 0).statistic, abs=1e-10)
    assert row["mean_constraint"] - row["mean_goal"] == pytest.approx(row["diff"], abs=1e-10)
    assert np.isnan(row["p_holm"]) and np.isnan(row["p_bh"])


def test_holm_and_bh_agree_with_statsmodels(result):
    p = result["p_signflip"].to_numpy()[:-1]
    holm = statsmodels_multitest.multipletests(p, method="holm")[1]
    bh = statsmodels_multitest.multipletests(p, method="fdr_bh")[1]
    np.testing.assert_allclose(result["p_holm"].to_numpy()[:-1], holm, atol=1e-12)
    np.testing.assert_allclose(result["p_bh"].to_numpy()[:-1], bh, atol=1e-12)


def test_mde_agrees_with_statsmodels(result, scores):
    d = differences(scores)
    solver = statsmodels_power.TTestPower()
    for _, row in result.iloc[:-1].iterrows():
        sd = 100 * d[row["system"]].std(ddof=1)
        dz = solver.solve_power(effect_size=None, nobs=row["n_pairs"], alpha=0.05, power=0.8, alternative="two-sided")
        assert row["mde"] == pytest.approx(dz * sd, rel=1e-6)


def test_mde_uses_alpha(scores):
    row = paired_tests(scores, alpha=0.1, n_boot=200, n_perm=200).iloc[0]
    sd = 100 * differences(scores)[row["system"]].std(ddof=1)
    dz = statsmodels_power.TTestPower().solve_power(effect_size=None, nobs=row["n_pairs"], alpha=0.1, power=0.8)
    assert row["mde"] == pytest.approx(dz * sd, rel=1e-5) and row["ci"] == pytest.approx(0.9)


def test_five_pairs_by_hand():
    # Differences 0.5, 0.25, 0, -0.125, 1 (one zero). Sign-flip over the 4 nonzero ones, by
    # enumeration: sums with |sum| >= 1.625 are the observed pattern and its mirror, plus
    # (0.5, 0.25, 0.125, 1) -> 1.875 and its mirror: p = 4 / 16.
    table = paired_table([1.0, 0.75, 0.5, 0.375, 1.0], [0.5, 0.5, 0.5, 0.5, 0.0])
    row = paired_tests(table, n_boot=200, n_perm=200).iloc[0]
    assert row["p_signflip"] == 0.25 and row["signflip_method"] == "exact"
    assert (row["wins"], row["ties"], row["losses"]) == (3, 1, 1)
    assert row["diff"] == pytest.approx(100 * 1.625 / 5)
    # Wilcoxon without the zero: |d| ranks 3, 2, 1, 4 -> R+ = 9, R- = 1; exact two-sided p = 2 * 2 / 16.
    assert row["w"] == 1.0 and row["p_wilcoxon"] == pytest.approx(0.25) and row["wilcoxon_method"] == "exact"
    assert row["rank_biserial"] == pytest.approx((9 - 1) / 10)


def test_exact_signflip_matches_full_enumeration():
    rng = np.random.default_rng(4)
    c, g = rng.random(9), rng.random(9)
    d = c - g
    patterns = itertools.product((1, -1), repeat=9)
    extreme = sum(abs(np.dot(signs, np.abs(d))) >= abs(d.sum()) - 1e-12 for signs in patterns)
    row = paired_tests(paired_table(c, g), n_boot=200, n_perm=200).iloc[0]
    assert row["p_signflip"] == pytest.approx(extreme / 2**9, abs=1e-15)


def test_monte_carlo_signflip_beyond_30_differences():
    rng = np.random.default_rng(8)
    c = rng.random(45)
    g = np.clip(c - 0.05 + rng.normal(0, 0.2, 45), 0, 1)
    row = paired_tests(paired_table(c, g), n_boot=200, n_perm=5000, seed=3).iloc[0]
    assert row["signflip_method"] == "monte carlo"
    assert row["p_signflip"] == pytest.approx(row["p_t"], abs=0.03)  # the two agree closely for n = 45
    b = round(row["p_signflip"] * 5001 - 1)
    assert row["p_signflip"] == pytest.approx((b + 1) / 5001, abs=1e-12)


def test_constraint_higher_gives_a_positive_difference():
    row = paired_tests(paired_table([0.9, 0.8, 0.7, 0.9, 0.6, 0.8], [0.1, 0.2, 0.3, 0.4, 0.5, 0.2]),
                       n_boot=200, n_perm=200).iloc[0]
    assert row["diff"] > 0 and row["rank_biserial"] == 1.0 and row["t"] > 0 and row["ci_low"] > 0


def test_below_six_pairs_no_interval_is_drawn_and_the_smallest_p_is_stated():
    # Two pairs, both differences 0.75: the bootstrap interval would be the point [75, 75] and
    # exclude 0, while the exact sign-flip and Wilcoxon tests cannot go below 2 / 2^2 = 0.5.
    row = paired_tests(paired_table([1.0, 1.0], [0.25, 0.25]), n_boot=200, n_perm=200).iloc[0]
    assert row["diff"] == 75.0 and np.isnan(row["ci_low"]) and np.isnan(row["ci_high"])
    assert "2 base problem(s): no interval drawn" in row["note"] and "from 6 problems on" in row["note"]
    assert row["p_min"] == 0.5 and "smallest attainable p" in row["note"]
    # scipy's exact tests reach exactly that bound when every difference has one sign
    assert row["p_signflip"] == pytest.approx(0.5)
    assert stats.wilcoxon([0.5, 0.25, 0.75], method="exact").pvalue == pytest.approx(smallest_p(3))
    assert stats.wilcoxon([0.5, 0.25, 0.75, 0.1, 0.2, 0.3], method="exact").pvalue == pytest.approx(smallest_p(6))


def test_a_system_with_fewer_than_two_pairs_gets_a_row_with_the_reason():
    table = pd.concat([paired_table([0.9, 0.8, 0.7], [0.1, 0.2, 0.3], system="a"),
                       paired_table([0.5], [0.1], system="b")], ignore_index=True)
    result = paired_tests(table, n_boot=200, n_perm=200).set_index("system")
    assert list(result.columns) == list(PAIRED_COLUMNS[1:])
    assert result.loc["b", "n_pairs"] == 1 and result.loc["b", "diff"] == pytest.approx(40.0)
    assert np.isnan(result.loc["b", "p_signflip"]) and np.isnan(result.loc["b", "p_t"])
    assert "1 base problem with both variants scored on item_f1" in result.loc["b", "note"]
    assert result.loc["a", "n_pairs"] == 3 and np.isfinite(result.loc["a", "p_signflip"])


def test_all_differences_zero_is_undefined_not_p_one():
    row = paired_tests(paired_table([0.5, 0.2, 1.0], [0.5, 0.2, 1.0]), n_boot=200, n_perm=200).iloc[0]
    for column in ("t", "p_t", "w", "p_wilcoxon", "p_signflip", "cohens_dz", "rank_biserial", "p_holm"):
        assert np.isnan(row[column]), column
    assert "every difference is zero" in row["note"]
    assert row["diff"] == 0.0 and row["ties"] == 3


def test_constant_nonzero_differences_leave_t_undefined():
    row = paired_tests(paired_table([0.75, 0.5, 1.0, 0.25], [0.5, 0.25, 0.75, 0.0]), n_boot=200, n_perm=200).iloc[0]
    assert np.isnan(row["t"]) and np.isnan(row["cohens_dz"]) and "no spread" in row["note"]
    assert row["p_signflip"] == pytest.approx(2 / 2**4)


def test_unpaired_tasks_are_left_out_and_counted():
    table = paired_table([1.0, 0.5, 0.0, 0.25], [0.5, 0.5, 1.0, 0.75])
    table.loc[table["task_id"] == "x_002-g", ["status", "item_f1"]] = ["missing", np.nan]
    row = paired_tests(table, failure_policy="exclude", n_boot=200, n_perm=200).iloc[0]
    assert row["n_pairs"] == 3 and row["n_tasks"] == 6
    assert "1 task(s) without a value for the other variant left out" in row["note"]
    zero = paired_tests(table, n_boot=200, n_perm=200).iloc[0]
    assert zero["n_pairs"] == 4 and "left out" not in zero["note"]


def test_wilcoxon_uses_the_normal_approximation_with_ties():
    d = np.array([0.5, 0.5, -0.25, 0.75, 0.0, 0.5])
    w, p, method, r = wilcoxon_test(d)
    reference = stats.wilcoxon(d, zero_method="wilcox", correction=True, method="asymptotic")
    assert method == "normal" and w == reference.statistic and p == pytest.approx(reference.pvalue, abs=1e-12)


def test_same_seed_same_table(scores):
    a = paired_tests(scores, metric="poa", n_boot=300, n_perm=300, seed=4)
    b = paired_tests(scores, metric="poa", n_boot=300, n_perm=300, seed=4)
    pd.testing.assert_frame_equal(a, b)


@pytest.mark.parametrize(
    ("table", "kwargs", "message"),
    [
        (paired_table([0.5, 0.4], [0.1, 0.2]).drop(columns="base_id"), {}, "lacks column.*base_id"),
        (paired_table([0.5, 0.4], [0.1, 0.2]).drop(columns="variant"), {}, "lacks column.*variant"),
        (paired_table([0.5, 0.4], [0.1, 0.2]), {"n_boot": 50}, "n_boot must be an integer of at least 100"),
        (paired_table([0.5, 0.4], [0.1, 0.2]), {"n_perm": 10}, "n_perm must be an integer of at least 100"),
        (paired_table([0.5, 0.4], [0.1, 0.2]), {"alpha": 1.5}, "alpha must be a number strictly between 0 and 1"),
        (paired_table([0.5, 0.4], [0.1, 0.2]), {"metric": "row"}, "metric must be one of"),
        (paired_table([0.5, 0.4], [0.1, 0.2]), {"method": "normal"}, "method must be one of 'bca', 'percentile'"),
    ],
)
def test_bad_input_is_a_clear_error(table, kwargs, message):
    with pytest.raises(SgrKitError, match=message):
        paired_tests(table, **{"n_boot": 100, "n_perm": 100, **kwargs})
