"""Tests of sgr_kit.stats.describe: one plain sentence per result row."""

from __future__ import annotations

import numpy as np
import pytest

from sgr_kit.stats import (
    bootstrap_means, describe_comparison, describe_matrix, describe_mean, describe_paired, describe_power,
    describe_repeats, paired_tests, power, repeat_stats, system_matrix,
)  # fmt: skip
from sgr_kit.stats.simulate import SimulationDesign, simulate_scores


@pytest.fixture(scope="module")
def scores():
    return simulate_scores(SimulationDesign(abilities=(1.0, -1.0), shift=0.8, n_problems=30, n_repeats=2), seed=6)


def test_paired_sentences_quote_holm_for_systems_and_unadjusted_p_pooled(scores):
    table = paired_tests(scores, n_boot=200, n_perm=500)
    first, pooled = describe_paired(table.iloc[0]), describe_paired(table.iloc[-1])
    assert first.startswith("sys_01: constraint minus goal Item-F1 = ")
    assert f"{table['diff'].iloc[0]:.1f} points" in first and "Holm-adjusted p" in first
    assert "95% CI [" in first and first.endswith("[synthetic data]")
    assert pooled.startswith("All systems (per problem, the mean over systems)") and "unadjusted p" in pooled
    assert "significant at 0.05: constraint tasks score higher" in pooled


def test_undefined_test_is_said_plainly():
    row = {"system": "x", "metric": "poa", "diff": 0.0, "ci_low": 0.0, "ci_high": 0.0, "p_holm": np.nan,
           "p_signflip": np.nan, "n_pairs": 3, "ci": 0.95,
           "note": "every difference is zero: the tests are undefined"}  # fmt: skip
    text = describe_paired(row)
    assert "p = undefined" in text and "the test is undefined" in text and "Note: every difference is zero" in text
    assert "-0.0" not in describe_paired({**row, "diff": -0.0001})


def test_other_sentences(scores):
    mean = describe_mean(bootstrap_means(scores, metrics="row_f1", n_boot=200).iloc[0])
    assert mean.startswith("sys_01, constraint tasks, Row-F1: ") and "over 30 base problems" in mean
    matrix = system_matrix(scores, n_boot=200, n_perm=500)
    assert "sys_01 minus sys_02, Item-F1 (overall)" in describe_comparison(matrix.iloc[0])
    assert describe_matrix(matrix).startswith("1 of 1 system comparisons on Item-F1 (overall) are significant")
    assert "sys_01 > sys_02" in describe_matrix(matrix)
    repeats = describe_repeats(repeat_stats(scores).iloc[0])
    assert "answered 2 times" in repeats and "of the variance lies between repeats" in repeats
    planned = describe_power(power(sd=20.0, n_problems=50, diffs=5.0).iloc[0])
    assert "a difference of 5 points needs 128 base problems for 80% power" in planned
    assert "[synthetic data]" not in planned
