"""Tests of sgr_kit.stats.compare (system_matrix)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from sgr_kit.errors import SgrKitError
from sgr_kit.stats import MATRIX_COLUMNS, system_matrix
from sgr_kit.stats.simulate import SimulationDesign, simulate_scores

multitest = pytest.importorskip("statsmodels.stats.multitest")


@pytest.fixture
def scores():
    return simulate_scores(SimulationDesign(abilities=(0.9, 0.4, 0.3, -0.8), n_problems=35), seed=9)


@pytest.fixture
def matrix(scores):
    return system_matrix(scores, n_boot=400, n_perm=1000, seed=2)


def problem_values(scores, variant="overall"):
    """Per system and base problem, the mean of its tasks of ``variant`` (zero policy), from scratch."""
    s = scores.assign(value=scores["item_f1"].fillna(0.0))
    if variant != "overall":
        s = s[s["variant"] == variant]
    return s.groupby(["system", "base_id"])["value"].mean().unstack("system")


def test_columns_and_every_ordered_pair(matrix):
    assert tuple(matrix.columns) == MATRIX_COLUMNS
    assert len(matrix) == 4 * 3
    assert matrix[["system_a", "system_b"]].iloc[0].tolist() == ["sys_01", "sys_02"]
    assert (matrix["n_tasks"] == 70).all() and (matrix["n_problems"] == 35).all()
    assert matrix["synthetic"].all()


@pytest.mark.parametrize("variant", ["overall", "constraint", "goal"])
def test_diff_is_the_mean_over_problems_of_a_minus_b(scores, variant):
    matrix = system_matrix(scores, variant=variant, n_boot=100, n_perm=100)
    values = problem_values(scores, variant)
    for _, row in matrix.iterrows():
        expected = 100 * (values[row["system_a"]] - values[row["system_b"]]).mean()
        assert row["diff"] == pytest.approx(expected, abs=1e-10)


def test_orders_mirror_each_other(matrix):
    forward = matrix.set_index(["system_a", "system_b"])
    for (a, b), row in forward.iterrows():
        back = forward.loc[(b, a)]
        assert back["diff"] == pytest.approx(-row["diff"], abs=1e-12)
        assert (back["ci_low"], back["ci_high"]) == pytest.approx((-row["ci_high"], -row["ci_low"]), abs=1e-12)
        assert back["p"] == row["p"] and back["p_holm"] == row["p_holm"]


def test_holm_across_distinct_comparisons_agrees_with_statsmodels(matrix):
    distinct = matrix[matrix["system_a"] < matrix["system_b"]]
    expected = multitest.multipletests(distinct["p"], method="holm")[1]
    np.testing.assert_allclose(distinct["p_holm"], expected, atol=1e-12)


def test_clear_differences_are_significant_and_close_ones_are_not(matrix):
    row = matrix.set_index(["system_a", "system_b"])
    assert row.loc[("sys_01", "sys_04"), "p_holm"] < 0.01 and row.loc[("sys_01", "sys_04"), "ci_low"] > 0
    assert row.loc[("sys_02", "sys_03"), "p"] > 0.05


def test_resamples_problems_for_overall():
    # Each system scores its two variants alike: overall carries the information of 40
    # problems, not 80 tasks, so its interval is as wide as one variant's.
    rng = np.random.default_rng(3)
    rows = []
    for system, shift in (("a", 0.0), ("b", 0.1)):
        x = np.clip(rng.random(40) + shift, 0, 1)
        for i, v in enumerate(x):
            rows.append((system, f"p{i}", f"p{i}", "constraint", "parsed", v))
            rows.append((system, f"p{i}-g", f"p{i}", "goal", "parsed", v))
    table = pd.DataFrame(rows, columns=["system", "task_id", "base_id", "variant", "status", "item_f1"])
    table = table.assign(row_f1=0.0, poa=0.0)
    overall = system_matrix(table, n_boot=2000, n_perm=100).iloc[0]
    constraint = system_matrix(table, variant="constraint", n_boot=2000, n_perm=100).iloc[0]
    width = overall["ci_high"] - overall["ci_low"]
    assert width == pytest.approx(constraint["ci_high"] - constraint["ci_low"], rel=1e-12)
    assert overall["n_tasks"] == 80 and constraint["n_tasks"] == 40


def test_only_tasks_both_answered_enter(scores):
    table = scores.copy()
    dropped = table["system"].eq("sys_02") & table["base_id"].isin(["sim_000", "sim_001"]) & table["variant"].eq("goal")
    table.loc[dropped, ["status", "item_f1", "row_f1", "poa"]] = ["missing", np.nan, np.nan, np.nan]
    matrix = system_matrix(table, failure_policy="exclude", n_boot=100, n_perm=100).set_index(["system_a", "system_b"])
    answered = table.pivot_table(index="task_id", columns="system", values="item_f1").notna()
    for a, b in (("sys_01", "sys_02"), ("sys_01", "sys_03"), ("sys_03", "sys_04")):
        assert matrix.loc[(a, b), "n_tasks"] == (answered[a] & answered[b]).sum()
    assert matrix.loc[("sys_01", "sys_02"), "n_tasks"] < answered["sys_01"].sum()


def test_pairs_sharing_fewer_than_two_problems_get_nan_and_a_note():
    rows = [
        ("a", "p1", "p1", "constraint", "parsed", 0.5), ("a", "p2", "p2", "constraint", "parsed", 0.7),
        ("b", "p1", "p1", "constraint", "parsed", 0.2), ("b", "p2", "p2", "constraint", "missing", np.nan),
    ]  # fmt: skip
    table = pd.DataFrame(rows, columns=["system", "task_id", "base_id", "variant", "status", "item_f1"])
    table = table.assign(row_f1=0.0, poa=0.0)
    row = system_matrix(table, failure_policy="exclude", n_boot=100, n_perm=100).iloc[0]
    assert row["n_problems"] == 1 and row["diff"] == pytest.approx(30.0)
    assert np.isnan(row["ci_low"]) and np.isnan(row["p"]) and np.isnan(row["p_holm"])
    assert "fewer than 2 shared base problems" in row["note"]


def test_identical_systems_are_undefined_not_p_one(scores):
    twin = pd.concat([scores[scores["system"] == "sys_01"], scores[scores["system"] == "sys_01"].assign(system="twin")])
    row = system_matrix(twin, n_boot=100, n_perm=100).iloc[0]
    assert row["diff"] == 0.0 and np.isnan(row["p"]) and "every difference is zero" in row["note"]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"variant": "both"}, "variant must be one of 'constraint', 'goal', 'overall'; found 'both'"),
        ({"metric": "recall"}, "metric must be one of"),
        ({"n_boot": 10}, "n_boot must be an integer of at least 100"),
        ({"n_perm": 0}, "n_perm must be an integer of at least 100"),
        ({"ci": -0.1}, "ci must be a number strictly between 0 and 1"),
        ({"method": "basic"}, "method must be one of 'bca', 'percentile'"),
    ],
)
def test_bad_options_are_clear_errors(scores, kwargs, message):
    with pytest.raises(SgrKitError, match=message):
        system_matrix(scores, **{"n_boot": 100, "n_perm": 100, **kwargs})


def test_one_system_is_an_error(scores):
    with pytest.raises(SgrKitError, match="system_matrix compares systems; the scores table holds 1"):
        system_matrix(scores[scores["system"] == "sys_01"], n_boot=100, n_perm=100)


def test_missing_base_id_is_an_error(scores):
    with pytest.raises(SgrKitError, match="lacks column.*base_id"):
        system_matrix(scores.drop(columns="base_id"))
