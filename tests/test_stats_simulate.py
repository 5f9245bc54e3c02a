"""Tests of sgr_kit.stats.simulate: the generator's structure and its true means."""

from __future__ import annotations

import numpy as np
import pytest

from sgr_kit.aggregate import system_means
from sgr_kit.stats.simulate import SimulationDesign, simulate_scores, true_means


def test_structure_of_the_simulated_table():
    design = SimulationDesign(abilities=(0.0, 1.0, -1.0), n_problems=20, n_repeats=3)
    s = simulate_scores(design, seed=0)
    assert len(s) == 3 * 20 * 2 * 3
    assert s.groupby(["system", "task_id"]).size().eq(3).all()
    assert (s.loc[s["variant"] == "goal", "task_id"] == s.loc[s["variant"] == "goal", "base_id"] + "-g").all()
    failed = s["status"] == "parse_failure"
    assert s.loc[failed, "item_f1"].isna().all() and s.loc[~failed, "item_f1"].between(0, 1).all()
    assert (s["item_f1"] == 0).any() and (s["item_f1"] == 1).any()  # ties at the bounds
    assert s["synthetic"].all()


def test_variants_and_systems_are_correlated_through_the_problem():
    s = simulate_scores(SimulationDesign(abilities=(0.0, 0.0), n_problems=400, p_failure=0.0), seed=1)
    wide = s.pivot_table(index="base_id", columns=["system", "variant"], values="item_f1")
    assert np.corrcoef(wide[("sys_01", "constraint")], wide[("sys_01", "goal")])[0, 1] > 0.3
    assert np.corrcoef(wide[("sys_01", "constraint")], wide[("sys_02", "constraint")])[0, 1] > 0.3
    own = simulate_scores(SimulationDesign(abilities=(0.0, 0.0), n_problems=400, shared_problems=False), seed=1)
    wide = own.pivot_table(index="base_id", columns=["system", "variant"], values="item_f1")
    a, b = wide[("sys_01", "constraint")].fillna(0), wide[("sys_02", "constraint")].fillna(0)
    assert abs(np.corrcoef(a, b)[0, 1]) < 0.15


def test_true_means_match_a_large_simulation():
    design = SimulationDesign(abilities=(0.7, -0.4), shift=0.5, n_problems=60_000)
    truth = true_means(design).set_index(["system", "variant", "metric"])["value"]
    observed = system_means(simulate_scores(design, seed=3)).set_index(["system", "variant", "metric"])["value"]
    # Monte Carlo error of a mean over 60,000 problems: below 0.3 points (score SD < 50 points, shared problems).
    np.testing.assert_allclose(observed, truth.loc[observed.index], atol=0.6)
    both = truth.loc[[("sys_01", "overall", "item_f1"), ("sys_02", "overall", "item_f1")]].mean()
    assert truth.loc[("all systems", "overall", "item_f1")] == pytest.approx(both)


def test_true_means_agree_with_numerical_integration():
    # Independent value: the trapezoid rule over the latent normal density on a fine grid.
    from scipy import integrate

    from sgr_kit.stats.simulate import _score

    design = SimulationDesign(abilities=(0.9,), shift=0.4, p_failure=0.1)
    truth = true_means(design).query("system == 'sys_01'").set_index(["variant", "metric"])["value"]
    sd = design.latent_sd()
    z = np.linspace(-12 * sd, 12 * sd, 400_001)
    density = np.exp(-0.5 * (z / sd) ** 2) / (sd * np.sqrt(2 * np.pi))
    for variant, shift in (("constraint", 0.2), ("goal", -0.2)):
        for metric in ("item_f1", "row_f1", "poa"):
            expected = 100 * 0.9 * integrate.trapezoid(_score(z + 0.9 + shift, metric) * density, z)
            assert truth[(variant, metric)] == pytest.approx(expected, abs=1e-3)
