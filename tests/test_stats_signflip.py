"""Tests of sgr_kit.stats.signflip: exact enumeration and the Monte Carlo p-value."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sgr_kit.stats import signflip
from sgr_kit.stats.signflip import signflip_exact, signflip_pvalues
from conftest import examples


def brute_force(d):
    d = np.asarray(d, dtype=float)
    d = d[d != 0]
    t = abs(d.sum())
    sums = [abs(np.dot(s, np.abs(d))) for s in itertools.product((1.0, -1.0), repeat=len(d))]
    return np.mean([x >= t - 1e-9 * np.abs(d).sum() for x in sums])


@given(st.lists(st.sampled_from([-1.0, -0.5, -0.25, 0.0, 0.25, 0.5, 0.75, 1.0]), min_size=1, max_size=11))
@settings(max_examples=examples(60))
def test_exact_equals_brute_force_with_ties_and_zeros(d):
    expected = brute_force(d) if any(x != 0 for x in d) else np.nan
    np.testing.assert_allclose(signflip_exact(d), expected, atol=1e-15)


def test_exact_for_many_differences_is_consistent_with_the_t_test():
    rng = np.random.default_rng(1)
    d = rng.normal(0.3, 1, size=28)
    from scipy import stats

    assert signflip_exact(d) == pytest.approx(stats.ttest_1samp(d, 0).pvalue, abs=0.02)


def test_monte_carlo_approaches_the_exact_value(monkeypatch):
    rng = np.random.default_rng(2)
    d = rng.normal(0.2, 1, size=(16, 1))
    exact = signflip_exact(d[:, 0])
    monkeypatch.setattr(signflip, "EXACT_MAX", 0)
    p, method = signflip_pvalues(d, np.random.default_rng(3), n_perm=20000)
    assert method[0] == "monte carlo"
    assert p[0] == pytest.approx(exact, abs=4 * np.sqrt(exact * (1 - exact) / 20000) + 1e-4)


def test_monte_carlo_p_is_never_zero():
    d = np.full((40, 1), 0.5)  # every sign pattern but two is less extreme
    p, method = signflip_pvalues(d, np.random.default_rng(0), n_perm=999)
    assert method[0] == "monte carlo" and p[0] >= 1 / 1000


def test_all_zero_column_is_nan():
    p, method = signflip_pvalues(np.zeros((5, 2)) + np.array([0.0, 0.1]), np.random.default_rng(0), n_perm=100)
    assert np.isnan(p[0]) and method[0] == "" and method[1] == "exact" and p[1] == pytest.approx(2 / 32)
