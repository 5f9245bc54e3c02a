"""Tests of sgr_kit.stats.repeats (repeat_stats)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from sgr_kit.errors import SgrKitError
from sgr_kit.stats import REPEAT_COLUMNS, repeat_stats
from sgr_kit.stats.simulate import SimulationDesign, simulate_scores


def repeated(values, *, variant="constraint", system="s", statuses=None):
    """One task per entry of ``values`` (a list of its repeats' Item-F1)."""
    rows = []
    for i, reps in enumerate(values):
        task = f"t{i}" + ("-g" if variant == "goal" else "")
        for r, v in enumerate(reps):
            status = statuses[i][r] if statuses else "parsed"
            rows.append((system, task, f"t{i}", variant, r, status, v))
    table = pd.DataFrame(rows, columns=["system", "task_id", "base_id", "variant", "repeat", "status", "item_f1"])
    return table.assign(row_f1=0.0, poa=0.0)


def test_values_by_hand():
    # Three tasks with two repeats: (0, 0.1), (0.9, 1), (0.5, 0.5).
    # Within-task variances 0.005, 0.005, 0 -> pooled 0.01 / 3. Task means 0.05, 0.95, 0.5,
    # grand mean 0.5, MS_between = 2 (0.2025 + 0.2025 + 0) / 2 = 0.405, n0 = 2,
    # between = (0.405 - 0.01 / 3) / 2 (one-way ANOVA estimator, Searle et al. 1992, ch. 3).
    row = repeat_stats(repeated([[0.0, 0.1], [0.9, 1.0], [0.5, 0.5]])).iloc[0]
    within, between = 0.01 / 3, (0.405 - 0.01 / 3) / 2
    assert (row["n_tasks"], row["repeats_min"], row["repeats_max"]) == (3, 2, 2)
    assert row["avg_at_n"] == pytest.approx(50.0)
    assert row["best_at_n"] == pytest.approx(100 * (0.1 + 1.0 + 0.5) / 3)
    assert row["worst_at_n"] == pytest.approx(100 * (0.0 + 0.9 + 0.5) / 3)
    assert row["sd_within"] == pytest.approx(100 * np.sqrt(within))
    assert row["sd_between"] == pytest.approx(100 * np.sqrt(between))
    assert row["share_within"] == pytest.approx(within / (within + between))


def test_rows_per_system_and_variant_with_columns():
    table = pd.concat([repeated([[0.1, 0.3], [0.6, 0.9]]), repeated([[0.2, 0.2, 0.8]], variant="goal")])
    out = repeat_stats(table)
    assert tuple(out.columns) == REPEAT_COLUMNS
    assert out["variant"].tolist() == ["constraint", "goal", "overall"]
    assert out["n_tasks"].tolist() == [2, 1, 3]
    assert out["repeats_max"].tolist() == [2, 3, 3]
    goal = out.iloc[1]
    assert np.isnan(goal["share_within"]) and "one repeated task" in goal["note"]
    assert not out["synthetic"].any()


def test_no_repeats_gives_an_empty_table_with_the_columns():
    out = repeat_stats(repeated([[0.5], [0.7]]))
    assert out.empty and tuple(out.columns) == REPEAT_COLUMNS


def test_failure_policy_for_failed_repeats():
    table = repeated([[0.5, np.nan, 0.7], [0.2, 0.4]], statuses=[["parsed", "parse_failure", "parsed"], ["parsed"] * 2])
    zero = repeat_stats(table).iloc[0]
    excluded = repeat_stats(table, failure_policy="exclude").iloc[0]
    assert zero["repeats_max"] == 3 and zero["worst_at_n"] == pytest.approx(100 * (0.0 + 0.2) / 2)
    assert excluded["repeats_max"] == 2 and excluded["worst_at_n"] == pytest.approx(100 * (0.5 + 0.2) / 2)


def test_simulated_repeat_noise_is_recovered():
    design = SimulationDesign(abilities=(0.0,), n_problems=400, n_repeats=4, sd_repeat=0.4, p_failure=0.0)
    out = repeat_stats(simulate_scores(design, seed=2)).set_index("variant")
    assert 0 < out.loc["overall", "share_within"] < 0.4
    assert out.loc["overall", "best_at_n"] > out.loc["overall", "avg_at_n"] > out.loc["overall", "worst_at_n"]
    assert out["synthetic"].all()


def test_bad_input_is_a_clear_error():
    with pytest.raises(SgrKitError, match="metric must be one of"):
        repeat_stats(repeated([[0.1, 0.2]]), metric="f1")
    with pytest.raises(SgrKitError, match="lacks column.*base_id"):
        repeat_stats(repeated([[0.1, 0.2]]).drop(columns="base_id"))
    with pytest.raises(SgrKitError, match="failure_policy must be one of"):
        repeat_stats(repeated([[0.1, 0.2]]), failure_policy="ignore")
