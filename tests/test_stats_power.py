"""Tests of sgr_kit.stats.power against statsmodels' TTestPower and by brute force."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sgr_kit.errors import SgrKitError
from sgr_kit.stats import POWER_COLUMNS, describe_power, detectable_difference, power, problems_needed, t_power
from sgr_kit.stats.simulate import SimulationDesign, simulate_scores

sm_power = pytest.importorskip("statsmodels.stats.power")


@pytest.mark.parametrize(("dz", "n", "alpha"), [(0.2, 50, 0.05), (0.5, 12, 0.05), (0.8, 5, 0.01), (0.05, 400, 0.1)])
def test_t_power_agrees_with_statsmodels(dz, n, alpha):
    expected = sm_power.TTestPower().power(effect_size=dz, nobs=n, alpha=alpha, alternative="two-sided")
    assert t_power(dz, n, alpha=alpha) == pytest.approx(expected, abs=1e-10)


def test_far_tail_power_is_one_not_nan():
    assert t_power(3.0, 50) == pytest.approx(1.0)


@pytest.mark.parametrize(("n", "target"), [(50, 0.8), (20, 0.9), (200, 0.8)])
def test_detectable_difference_agrees_with_statsmodels(n, target):
    dz = sm_power.TTestPower().solve_power(effect_size=None, nobs=n, alpha=0.05, power=target, alternative="two-sided")
    mine = detectable_difference(12.0, n, power=target)
    assert mine == pytest.approx(12.0 * dz, rel=1e-5)  # statsmodels' root finder stops at about 1e-6
    assert t_power(mine / 12.0, n) == pytest.approx(target, abs=1e-10)


@pytest.mark.parametrize(("diff", "sd"), [(2.0, 15.0), (5.0, 30.0), (10.0, 25.0)])
def test_problems_needed_is_the_rounded_up_statsmodels_solution(diff, sd):
    n = sm_power.TTestPower().solve_power(effect_size=diff / sd, nobs=None, alpha=0.05, power=0.8)
    assert problems_needed(diff, sd) == math.ceil(n)
    assert t_power(diff / sd, problems_needed(diff, sd)) >= 0.8 > t_power(diff / sd, problems_needed(diff, sd) - 1)


def test_assumed_design_rows_and_columns():
    out = power(sd=20.0, sd_within=15.0, n_problems=50, diffs=(5.0, 10.0))
    assert tuple(out.columns) == POWER_COLUMNS
    assert out["system"].tolist() == ["assumed", "assumed"] and not out["synthetic"].any()
    assert out["n_problems_needed"].tolist() == [problems_needed(5.0, 20.0), problems_needed(10.0, 20.0)]
    assert out["mde"].iloc[0] == pytest.approx(detectable_difference(20.0, 50))


def test_repeats_needed_by_brute_force():
    # sd 20 at 1 repeat, sd_within 12: between variance 400 - 2 * 144 = 112; with r repeats
    # the difference has variance 112 + 288 / r. Smallest r giving 80% power for 8 points, 50 problems:
    out = power(sd=20.0, sd_within=12.0, n_problems=50, diffs=8.0).iloc[0]
    r = next(r for r in range(1, 100) if t_power(8.0 / math.sqrt(112 + 288 / r), 50) >= 0.8)
    assert out["n_repeats_needed"] == r and r > 1


def test_repeats_cannot_beat_the_between_problem_spread():
    out = power(sd=20.0, sd_within=5.0, n_problems=50, diffs=2.0).iloc[0]
    assert np.isnan(out["n_repeats_needed"]) and "more problems are needed" in out["note"]
    unknown = power(sd=20.0, n_problems=50, diffs=5.0).iloc[0]
    assert np.isnan(unknown["n_repeats_needed"]) and "spread across repeats is unknown" in unknown["note"]


def test_observed_spread_from_scores():
    scores = simulate_scores(SimulationDesign(abilities=(0.5, -0.5, 0.0), n_problems=40, n_repeats=2), seed=4)
    paired = power(scores)
    assert paired["system"].unique().tolist() == ["sys_01", "sys_02", "sys_03", "all systems"]
    assert (paired["n_problems"] == 40).all() and (paired["n_repeats"] == 2).all()
    assert paired["sd_within"].notna().all() and paired["synthetic"].all()
    # Pooling over systems averages away system-specific noise: smaller spread, smaller detectable difference.
    pooled, one = paired[paired["system"] == "all systems"].iloc[0], paired.iloc[0]
    assert pooled["sd"] < one["sd"] and pooled["mde"] < one["mde"]
    systems = power(scores, comparison="systems", diffs=5.0)
    assert systems["system"].tolist() == ["sys_01 vs sys_02", "sys_01 vs sys_03", "sys_02 vs sys_03", "median pair"]
    assert systems["comparison"].iloc[0] == "system vs system (overall)"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({}, "give a scores table or an assumed spread sd"),
        ({"sd": -1.0}, "sd must be a positive number"),
        ({"sd": 10.0, "diffs": (0.0,)}, "diffs: expected non-zero finite differences"),
        ({"sd": 10.0, "n_problems": 1}, "n_problems must be an integer of at least 2"),
        ({"sd": 10.0, "comparison": "models"}, "comparison must be one of 'paired', 'systems'"),
        ({"sd": 10.0, "target_power": 1.2}, "target_power must be a number strictly between 0 and 1"),
        ({"sd": 10.0, "alpha": 0.0}, "alpha must be a number strictly between 0 and 1"),
    ],
)
def test_bad_input_is_a_clear_error(kwargs, message):
    with pytest.raises(SgrKitError, match=message):
        power(**kwargs)


def test_power_is_finite_and_increasing_far_into_the_tails():
    for n in (2, 5, 50, 1000):
        values = [t_power(dz, n) for dz in np.linspace(0, 30, 121)]
        assert np.isfinite(values).all() and (np.diff(values) >= -1e-12).all() and values[-1] <= 1 + 1e-12


def test_a_design_that_already_has_the_power_needs_one_repeat():
    out = power(sd=20.0, sd_within=25.0, n_problems=50, diffs=10.0).iloc[0]
    assert out["power_at_n"] > 0.8 and out["n_repeats_needed"] == 1
    assert "all of it taken as run-to-run noise" in out["note"]


def test_a_detectable_difference_beyond_the_scale_is_not_reachable():
    # Two problems and an SD of 75 points: the t-test with 1 degree of freedom would need a
    # difference of several hundred points (statsmodels agrees), more than the 0-100 scale allows.
    statsmodels_power = pytest.importorskip("statsmodels.stats.power")
    dz = statsmodels_power.TTestPower().solve_power(effect_size=None, nobs=2, alpha=0.05, power=0.8)
    assert dz * 75.0 > 100
    row = power(sd=75.0, n_problems=2, diffs=5.0).iloc[0]
    assert np.isnan(row["mde"]) and "mde not reachable" in row["note"] and "2 base problems" in row["note"]
    assert "not reachable" in describe_power(row)
    assert power(sd=20.0, n_problems=50, diffs=5.0).iloc[0]["mde"] < 100
