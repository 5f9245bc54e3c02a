"""Tests of sgr_kit.stats.bootstrap (bootstrap_means) and the resampling engine behind it."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from sgr_kit.aggregate import system_means
from sgr_kit.errors import SgrKitError
from sgr_kit.stats import bootstrap_means, mean_columns
from sgr_kit.stats._resample import expanded_level, problem_weights
from sgr_kit.stats.simulate import SimulationDesign, simulate_scores


def paired_table(constraint, goal, *, system="s", metric_fill=0.5):
    """A scores table of one system: problem i has the constraint score constraint[i] and the goal score goal[i]."""
    rows = []
    for i, (c, g) in enumerate(zip(constraint, goal)):
        base = f"x_{i:03d}"
        rows.append((system, base, base, "constraint", 0, "parsed", c))
        rows.append((system, base + "-g", base, "goal", 0, "parsed", g))
    table = pd.DataFrame(rows, columns=["system", "task_id", "base_id", "variant", "repeat", "status", "item_f1"])
    table["row_f1"] = metric_fill
    table["poa"] = metric_fill
    return table


@pytest.fixture
def scores():
    return simulate_scores(SimulationDesign(abilities=(0.5, 0.0, -0.7), n_problems=30, n_repeats=2), seed=3)


def test_values_are_the_aggregate_means(scores):
    # Source of the expected values: sgr_kit.aggregate.system_means (the paper's means).
    means = bootstrap_means(scores, n_boot=200)
    expected = system_means(scores)
    merged = means.merge(expected, on=["system", "variant", "metric"], suffixes=("", "_aggregate"))
    assert len(merged) == len(means) == 3 * 3 * 3
    np.testing.assert_allclose(merged["value"], merged["value_aggregate"], rtol=0, atol=1e-10)
    assert (merged["n_tasks"] == merged["n_tasks_aggregate"]).all()
    assert (means["n_problems"] == 30).all()


def test_columns_are_fixed_and_ordered(scores):
    plain = bootstrap_means(scores, n_boot=100)
    assert tuple(plain.columns) == mean_columns()
    grouped = bootstrap_means(scores, n_boot=100, by=("family", "bin"), pooled=True)
    assert tuple(grouped.columns) == mean_columns(("family", "bin"))
    assert list(plain["system"].unique()) == ["sys_01", "sys_02", "sys_03"]
    assert list(plain["variant"].unique()) == ["constraint", "goal", "overall"]
    assert plain["synthetic"].dtype == bool and plain["synthetic"].all()
    assert set(plain["method"]) == {"bca"} and set(plain["ci"]) == {0.95}


def test_same_seed_same_table_other_seed_other_bounds(scores):
    a = bootstrap_means(scores, n_boot=300, seed=7)
    b = bootstrap_means(scores, n_boot=300, seed=7)
    c = bootstrap_means(scores, n_boot=300, seed=8)
    pd.testing.assert_frame_equal(a, b)
    assert not np.allclose(a["ci_low"], c["ci_low"])
    np.testing.assert_array_equal(a["value"], c["value"])


@pytest.mark.parametrize("method", ["bca", "percentile"])
def test_resamples_base_problems_not_tasks(method):
    # Both variants of every problem score the same: the 100 tasks carry the information of
    # 50 problems. Resampling problems gives the overall mean the interval of one variant;
    # resampling tasks would make it about sqrt(2) narrower.
    rng = np.random.default_rng(11)
    x = rng.beta(0.6, 0.6, size=50)
    means = bootstrap_means(paired_table(x, x), metrics="item_f1", n_boot=4000, method=method)
    width = (means["ci_high"] - means["ci_low"]).to_numpy()
    constraint, goal, overall = width
    assert constraint == pytest.approx(goal, rel=1e-12)
    assert overall == pytest.approx(constraint, rel=1e-12)


def test_same_resampled_problems_for_every_system():
    rng = np.random.default_rng(5)
    c, g = rng.random(40), rng.random(40)
    two = pd.concat([paired_table(c, g, system="a"), paired_table(c, g, system="b")], ignore_index=True)
    means = bootstrap_means(two, metrics="item_f1", n_boot=500).set_index(["system", "variant"])
    np.testing.assert_array_equal(means.loc["a", ["ci_low", "ci_high"]], means.loc["b", ["ci_low", "ci_high"]])


def test_interval_width_matches_the_problem_level_standard_error():
    # With one value per problem, a 95% interval is about 2 x 1.96 x sd / sqrt(n) wide.
    rng = np.random.default_rng(2)
    c = rng.random(50)
    row = bootstrap_means(paired_table(c, c), metrics="item_f1", n_boot=5000, method="percentile").iloc[0]
    se = 100 * c.std(ddof=1) / np.sqrt(50)
    assert (row["ci_high"] - row["ci_low"]) / (2 * 1.96 * se) == pytest.approx(1.0, abs=0.08)


def test_pooled_rows_average_systems_per_problem(scores):
    means = bootstrap_means(scores, n_boot=200, pooled=True)
    pooled = means[means["system"] == "all systems"].set_index(["variant", "metric"])
    per_system = means[means["system"] != "all systems"].groupby(["variant", "metric"])["value"].mean()
    np.testing.assert_allclose(pooled["value"], per_system.loc[pooled.index], atol=1e-10)
    assert (pooled["n_tasks"].loc["overall"] == 3 * 60).all()
    assert (pooled["n_problems"] == 30).all()
    assert pooled.loc[("overall", "item_f1"), "ci_high"] > pooled.loc[("overall", "item_f1"), "ci_low"]


def test_by_groups_resample_their_own_problems(scores):
    means = bootstrap_means(scores, metrics="item_f1", n_boot=300, by="family", pooled=True)
    counts = scores.drop_duplicates("base_id").groupby("family").size()
    for family, part in means.groupby("family"):
        assert (part["n_problems"] == counts[family]).all()
        values = bootstrap_means(scores[scores["family"] == family], metrics="item_f1", n_boot=100)
        np.testing.assert_allclose(part[part["system"] != "all systems"]["value"], values["value"], atol=1e-10)


def test_group_with_one_problem_gets_nan_bounds_and_a_note(scores):
    one = scores.copy()
    one.loc[one["base_id"] == "sim_000", "bin"] = "11+"
    one.loc[(one["base_id"] != "sim_000") & (one["bin"] == "11+"), "bin"] = "1-2"
    means = bootstrap_means(one, metrics="item_f1", n_boot=200, by="bin")
    lonely = means[means["bin"] == "11+"]
    assert len(lonely) == 9 and lonely["ci_low"].isna().all() and lonely["value"].notna().all()
    assert lonely["note"].str.contains("1 base problem\\(s\\): no interval drawn").all()


@pytest.mark.parametrize(("n", "drawn"), [(2, False), (5, False), (6, True), (12, True)])
def test_an_interval_is_drawn_from_six_base_problems_at_95_percent(n, drawn):
    rng = np.random.default_rng(n)
    row = bootstrap_means(paired_table(rng.random(n), rng.random(n)), metrics="item_f1", n_boot=200).iloc[2]
    assert np.isfinite(row["ci_low"]) == drawn and np.isfinite(row["value"])
    assert ("no interval drawn" in row["note"]) != drawn


def test_all_zero_scores_give_a_point_interval_with_a_note():
    zeros = paired_table(np.zeros(10), np.zeros(10))
    row = bootstrap_means(zeros, metrics="item_f1", n_boot=200).iloc[2]
    assert (row["value"], row["ci_low"], row["ci_high"]) == (0.0, 0.0, 0.0)
    assert "same value" in row["note"]


def test_exclude_policy_counts_only_answered_tasks():
    table = paired_table([1.0, 0.5, 0.0], [0.5, 0.5, 1.0])
    table.loc[1, ["status", "item_f1", "row_f1", "poa"]] = ["parse_failure", np.nan, np.nan, np.nan]
    zero = bootstrap_means(table, metrics="item_f1", n_boot=100).set_index("variant")
    excluded = bootstrap_means(table, metrics="item_f1", n_boot=100, failure_policy="exclude").set_index("variant")
    assert zero.loc["goal", "value"] == pytest.approx(100 * 1.5 / 3) and zero.loc["goal", "n_tasks"] == 3
    assert excluded.loc["goal", "value"] == pytest.approx(100 * 1.5 / 2) and excluded.loc["goal", "n_tasks"] == 2


def test_not_synthetic_without_the_flag():
    assert not bootstrap_means(paired_table([0.1, 0.9], [0.2, 0.3]), n_boot=100)["synthetic"].any()


def test_expanded_level_is_hesterbergs():
    # Hesterberg (2015), section 4: alpha' / 2 = Phi(-sqrt(n / (n - 1)) t_{alpha / 2, n - 1});
    # n = 50: t = 2.00958, sqrt(50 / 49) = 1.01015, Phi(-2.03000) = 0.021178 -> level 0.95764.
    assert expanded_level(0.95, np.array([50]))[0] == pytest.approx(0.95764, abs=1e-5)
    assert np.isnan(expanded_level(0.95, np.array([1]))[0])


def test_problem_weights_count_draws():
    weights = problem_weights(np.random.default_rng(0), 7, 1000)
    assert weights.shape == (1000, 7) and (weights.sum(axis=1) == 7).all()
    assert weights.mean() == pytest.approx(1.0, abs=0.03)


@pytest.mark.parametrize(
    ("change", "kwargs", "message"),
    [
        (lambda s: s.drop(columns="base_id"), {}, "lacks column.*base_id"),
        (lambda s: s.drop(columns="variant"), {}, "lacks column.*variant"),
        (lambda s: s.assign(variant="both"), {}, "variant.*must hold constraint, goal; found 'both'"),
        (lambda s: s, {"n_boot": 99}, "n_boot must be an integer of at least 100; found 99"),
        (lambda s: s, {"ci": 1.0}, r"ci must be a number strictly between 0 and 1; found 1.0"),
        (lambda s: s, {"ci": 0}, r"ci must be a number strictly between 0 and 1; found 0"),
        (lambda s: s, {"method": "studentized"}, "method must be one of 'bca', 'percentile'; found 'studentized'"),
        (lambda s: s, {"metrics": "f1"}, "metric must be one of .*found 'f1'"),
        (lambda s: s, {"failure_policy": "drop"}, "failure_policy must be one of"),
        (lambda s: s, {"by": "colour"}, "by: the scores table has no column 'colour'"),
        (lambda s: s, {"by": "variant"}, "by: expected names of descriptive columns"),
        (lambda s: s, {"seed": 1.5}, "seed must be an integer"),
        (lambda s: s.iloc[:0], {}, "scores table has no rows"),
    ],
)
def test_bad_input_is_a_clear_error(scores, change, kwargs, message):
    with pytest.raises(SgrKitError, match=message):
        bootstrap_means(change(scores), **{"n_boot": 100, **kwargs})


def test_not_a_dataframe_is_an_error():
    with pytest.raises(SgrKitError, match="expected a pandas DataFrame"):
        bootstrap_means([1, 2, 3])
