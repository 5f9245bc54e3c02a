"""Tests of sgr_kit.stats.multiple: Holm and Benjamini-Hochberg against statsmodels and a published example."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sgr_kit.stats import benjamini_hochberg, holm

multitest = pytest.importorskip("statsmodels.stats.multitest")


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_agree_with_statsmodels(seed):
    p = np.random.default_rng(seed).uniform(0, 0.2, size=12)
    np.testing.assert_allclose(holm(p), multitest.multipletests(p, method="holm")[1], atol=1e-15)
    np.testing.assert_allclose(benjamini_hochberg(p), multitest.multipletests(p, method="fdr_bh")[1], atol=1e-15)


def test_benjamini_hochberg_worked_example():
    # Benjamini and Hochberg (1995), section 4: 15 p-values; at q = 0.05 the four smallest are rejected.
    p = [0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344, 0.0459, 0.3240, 0.4262, 0.5719,
         0.6528, 0.7590, 1.000]  # fmt: skip
    assert (benjamini_hochberg(p) <= 0.05).sum() == 4
    assert (holm(p) <= 0.05).sum() == 3


def test_nan_entries_stay_nan_and_do_not_count():
    p = np.array([0.01, np.nan, 0.04])
    np.testing.assert_allclose(holm(p), [0.02, np.nan, 0.04])
    np.testing.assert_allclose(benjamini_hochberg(p), [0.02, np.nan, 0.04])
    assert holm([]).shape == (0,)


@given(st.lists(st.floats(0, 1), min_size=1, max_size=30))
def test_adjusted_values_are_bounded_and_not_smaller(p):
    for adjust in (holm, benjamini_hochberg):
        out = adjust(p)
        assert ((out >= np.asarray(p) - 1e-15) & (out <= 1)).all()
    assert (holm(p) >= benjamini_hochberg(p) - 1e-15).all()
