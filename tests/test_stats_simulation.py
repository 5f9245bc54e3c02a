"""A reduced simulation of benchmarks/statistical_validity.py: coverage, type-I error and power.

Few replications (seeded), with tolerances a broken method cannot meet: each test also
computes the broken alternative on the same data (resampling tasks instead of problems,
treating system x problem as independent, flipping the sign) and checks that it fails
the same threshold, so the threshold is shown to separate.

Independent replications are packed into one call where the statistics allow it: with
``shared_problems=False`` every simulated system has its own problems, so each
system's row of one table is an independent replication (the resampled problem
indices are shared, which does not change any one row's coverage).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from sgr_kit.stats import bootstrap_means, paired_tests
from sgr_kit.stats.simulate import SimulationDesign, simulate_scores, true_means

N_SYSTEMS = 250  # independent replications per call
CORRELATED = dict(sd_problem=1.5, sd_variant=0.3, sd_task=0.4, sd_repeat=0.3)  # variants strongly correlated


def abilities(seed: int, n: int = N_SYSTEMS) -> tuple[float, ...]:
    return tuple(np.random.default_rng(seed).normal(0.0, 0.7, n))


def covered(low, high, truth) -> np.ndarray:
    return (np.asarray(low) <= np.asarray(truth)) & (np.asarray(truth) <= np.asarray(high))


def test_bootstrap_means_coverage_and_a_task_bootstrap_fails():
    design = SimulationDesign(abilities=abilities(1), shared_problems=False, **CORRELATED)
    scores = simulate_scores(design, seed=11)
    means = bootstrap_means(scores, n_boot=1000, seed=2)
    truth = true_means(design).set_index(["system", "variant", "metric"])["value"]
    expected = truth.loc[list(zip(means["system"], means["variant"], means["metric"]))]
    hit = covered(means["ci_low"], means["ci_high"], expected)
    rates = means.assign(hit=hit).groupby(["variant", "metric"])["hit"].mean()
    assert rates.between(0.90, 0.99).all(), rates.to_dict()
    # Broken: the overall mean with its 100 tasks resampled as if independent (normal interval).
    tasks = scores.assign(v=scores["item_f1"].fillna(0.0)).groupby(["system", "task_id"])["v"].mean()
    by_system = tasks.groupby("system")
    half = 1.96 * by_system.std(ddof=1) / np.sqrt(by_system.size())
    t = truth.xs(("overall", "item_f1"), level=("variant", "metric")).loc[half.index] / 100
    broken = covered(by_system.mean() - half, by_system.mean() + half, t).mean()
    assert broken < 0.90 <= rates[("overall", "item_f1")]


@pytest.fixture(scope="module")
def null_tests():
    design = SimulationDesign(abilities=abilities(2), shift=0.0, shared_problems=False)
    scores = simulate_scores(design, seed=12)
    tables = [paired_tests(scores, metric=m, n_boot=200, n_perm=1000, seed=3).iloc[:-1] for m in ("item_f1", "poa")]
    return pd.concat(tables)


@pytest.mark.parametrize("column", ["p_t", "p_wilcoxon", "p_signflip"])
def test_type_one_error_when_variants_are_exchangeable(null_tests, column):
    rate = (null_tests[column] < 0.05).mean()
    assert 0.01 <= rate <= 0.09, rate


def test_paired_interval_coverage_power_and_a_flipped_sign_fails():
    design = SimulationDesign(abilities=abilities(3), shift=0.6, shared_problems=False)
    scores = simulate_scores(design, seed=13)
    table = paired_tests(scores, n_boot=1000, n_perm=1000, seed=4).iloc[:-1]
    truth = true_means(design).query("metric == 'item_f1' and variant != 'overall'")
    truth = truth.pivot(index="system", columns="variant", values="value")
    diff = (truth["constraint"] - truth["goal"]).loc[table["system"]].to_numpy()
    assert diff.mean() > 5  # a real effect of several points
    coverage = covered(table["ci_low"], table["ci_high"], diff).mean()
    assert 0.90 <= coverage <= 0.99, coverage
    assert covered(-table["ci_high"], -table["ci_low"], diff).mean() < 0.90  # goal minus constraint
    for column in ("p_t", "p_wilcoxon", "p_signflip"):
        assert (table[column] < 0.05).mean() >= 0.5, column


@pytest.mark.slow
def test_pooled_paired_row_respects_the_shared_problems():
    # Systems share the variant-specific problem effects, so their differences on one problem
    # are strongly correlated: the pooled unit must be the problem, not system x problem.
    design = SimulationDesign(abilities=(0.8, 0.6, 0.4, 0.2, -0.2, -0.4, -0.6, -0.8), shift=0.4, n_problems=30,
                              sd_variant=1.0, sd_task=0.3)
    truth = true_means(design).query("system == 'all systems' and metric == 'item_f1'").set_index("variant")["value"]
    true_diff = truth["constraint"] - truth["goal"]
    hits, broken = [], []
    for rep in range(60):
        scores = simulate_scores(design, seed=1000 + rep)
        row = paired_tests(scores, n_boot=200, n_perm=100, seed=rep).iloc[-1]
        hits.append(row["ci_low"] <= true_diff <= row["ci_high"])
        values = scores.assign(v=scores["item_f1"].fillna(0.0))
        wide = values.pivot_table(index=["system", "base_id"], columns="variant", values="v")
        d = 100 * (wide["constraint"] - wide["goal"]).to_numpy()  # 240 system x problem values, wrongly as independent
        half = stats.t.ppf(0.975, len(d) - 1) * d.std(ddof=1) / np.sqrt(len(d))
        broken.append(abs(d.mean() - true_diff) <= half)
    assert np.mean(hits) >= 0.85, np.mean(hits)
    assert np.mean(broken) < 0.85, np.mean(broken)


def test_pooled_means_coverage_with_shared_problems():
    # 100 replications of 3 systems sharing their problems, stacked as groups of one table:
    # `by` resamples each group's own problems, so every group is an independent replication.
    design = SimulationDesign(abilities=(0.5, 0.0, -0.5), n_problems=30, sd_variant=0.8, sd_task=0.3)
    reps = [simulate_scores(design, seed=2000 + r).assign(rep=r) for r in range(100)]
    scores = pd.concat(reps, ignore_index=True)
    scores["base_id"] = scores["rep"].astype(str) + ":" + scores["base_id"]
    scores["task_id"] = scores["rep"].astype(str) + ":" + scores["task_id"]
    means = bootstrap_means(scores, metrics="item_f1", by="rep", pooled=True, n_boot=500, seed=5)
    pooled = means[(means["system"] == "all systems") & (means["variant"] == "overall")]
    truth = true_means(design).set_index(["system", "variant", "metric"])["value"]
    truth = truth[("all systems", "overall", "item_f1")]
    coverage = covered(pooled["ci_low"], pooled["ci_high"], truth).mean()
    assert len(pooled) == 100 and 0.87 <= coverage <= 0.99, coverage
    # Broken: the 180 system x task values of a replication taken as independent.
    values = scores.assign(v=100 * scores["item_f1"].fillna(0.0)).groupby("rep")["v"]
    half = 1.96 * values.std(ddof=1) / np.sqrt(values.size())
    assert covered(values.mean() - half, values.mean() + half, truth).mean() < 0.87
