from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from sgr_kit.aggregate import apply_failure_policy, system_means, task_means
from sgr_kit.errors import SgrKitError


@pytest.fixture
def scores():
    return pd.DataFrame({
        "system": ["a"] * 5 + ["b"] * 2,
        "task_id": ["t1", "t1", "t1-g", "t2", "t2-g", "t1", "t1-g"],
        "variant": ["constraint", "constraint", "goal", "constraint", "goal", "constraint", "goal"],
        "repeat": [0, 1, 0, 0, 0, 0, 0],
        "status": ["parsed", "parsed", "parse_failure", "empty", "missing", "parsed", "parsed"],
        "item_f1": [1.0, 0.5, np.nan, 0.0, np.nan, 0.25, 0.75],
        "row_f1": [1.0, 0.0, np.nan, 0.0, np.nan, 0.0, 0.5],
        "poa": [1.0, 1.0, np.nan, 0.0, np.nan, 0.0, 1.0],
    })


def test_zero_policy_counts_failures_as_zero(scores):
    m = system_means(scores).set_index(["system", "variant", "metric"])["value"]
    # a: constraint tasks t1 (mean of repeats 0.75) and t2 (empty: 0) -> 37.5
    assert m[("a", "constraint", "item_f1")] == pytest.approx(37.5)
    assert m[("a", "goal", "item_f1")] == pytest.approx(0.0)
    assert m[("a", "overall", "item_f1")] == pytest.approx(75 / 4)


def test_exclude_policy_drops_failures(scores):
    m = system_means(scores, failure_policy="exclude").set_index(["system", "variant", "metric"])
    assert np.isnan(m.loc[("a", "goal", "item_f1"), "value"])
    assert m.loc[("a", "goal", "item_f1"), "n_tasks"] == 0
    assert m.loc[("a", "goal", "item_f1"), "n_failed"] == 2


def test_empty_answers_are_scored_not_failures(scores):
    # An `empty` answer (NONE) is a scored answer with 0/0/0, never excluded.
    kept = apply_failure_policy(scores, failure_policy="exclude")
    assert "empty" in set(kept["status"])


def test_repeats_are_averaged_before_tasks(scores):
    t = task_means(scores).set_index(["system", "task_id"])
    assert t.loc[("a", "t1"), "repeats"] == 2
    assert t.loc[("a", "t1"), "item_f1"] == pytest.approx(0.75)


def test_bad_policy_and_bad_table(scores):
    with pytest.raises(SgrKitError, match="failure_policy must be one of 'zero', 'exclude'; found 'drop'"):
        system_means(scores, failure_policy="drop")
    with pytest.raises(SgrKitError, match="lacks column.*poa"):
        system_means(scores.drop(columns="poa"))


@pytest.mark.parametrize("policy", ["zero", "exclude"])
def test_a_scorer_error_is_never_a_zero(scores, policy):
    broken = scores.copy()
    broken.loc[0, "status"] = "scorer_error"  # a's t1 repeat 0 (1.0 if it had been scored)
    broken.loc[0, ["item_f1", "row_f1", "poa"]] = np.nan
    kept = apply_failure_policy(broken, failure_policy=policy)
    assert "scorer_error" not in set(kept["status"])
    means = task_means(broken, failure_policy=policy).set_index(["system", "task_id"])
    assert means.loc[("a", "t1"), "item_f1"] == 0.5  # only repeat 1 (0.5) is left, not (0 + 0.5) / 2


def test_repeats_are_averaged_per_language_never_across(scores):
    both = pd.concat([scores.assign(language="en"), scores.assign(language="zh", item_f1=scores["item_f1"] / 2)])
    means = task_means(both)
    # the same (system, task) in two languages: two rows, each the mean of its own repeats
    t1 = means[(means["system"] == "a") & (means["task_id"] == "t1")].set_index("language")["item_f1"]
    assert t1.to_dict() == {"en": pytest.approx(0.75), "zh": pytest.approx(0.375)}
    assert len(means) == 2 * len(task_means(scores))
