"""The audit sample: aligned slots, reproducible from a seed, balanced on request."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from sgr_kit.errors import SgrKitError
from sgr_kit.schema import SAMPLE_COLUMNS
from sgr_kit.stats.sample import audit_sample, check_balance

FAMILIES = ["scholarly archives", "official statistics", "regulatory resources", "vulnerability databases"]


@pytest.fixture
def scores():
    """8 systems, 60 tasks (30 constraint + 30 goal) over 4 families of unequal size, 2 repeats."""
    sizes = {"scholarly archives": 14, "official statistics": 8, "regulatory resources": 6,
             "vulnerability databases": 2}
    rows = []
    k = 0
    for family, n in sizes.items():
        for i in range(n):
            k += 1
            for variant, suffix in (("constraint", ""), ("goal", "-g")):
                for system in [f"agent{s}" for s in range(8)]:
                    for repeat in (0, 1):
                        rows.append((system, f"task_{k:03d}{suffix}", repeat, variant, family))
    return pd.DataFrame(rows, columns=["system", "task_id", "repeat", "variant", "family"])


def test_every_system_gets_the_same_slots(scores):
    sheet = audit_sample(scores, slots=22, seed=5)
    assert tuple(sheet.columns) == SAMPLE_COLUMNS
    assert len(sheet) == 22 * 8  # the paper's 176
    per_slot = sheet.groupby("slot")
    assert (per_slot["task_id"].nunique() == 1).all()
    assert (per_slot["system"].apply(sorted).apply(tuple) == tuple(f"agent{s}" for s in range(8))).all()
    assert sheet["task_id"].nunique() == 22 and sheet["slot"].tolist() == sorted(sheet["slot"])
    assert sheet.duplicated(["system", "task_id", "repeat"]).sum() == 0
    assert set(sheet["repeat"]) <= {0, 1}


def test_same_seed_same_sheet_other_seed_other_sheet(scores):
    a, b = audit_sample(scores, slots=22, seed=5), audit_sample(scores, slots=22, seed=5)
    pd.testing.assert_frame_equal(a, b)
    c = audit_sample(scores, slots=22, seed=6)
    assert set(a["task_id"]) != set(c["task_id"])
    # and it does not depend on the row order of the scores table
    shuffled = scores.sample(frac=1.0, random_state=1).reset_index(drop=True)
    pd.testing.assert_frame_equal(audit_sample(shuffled, slots=22, seed=5), a)


@pytest.mark.slow
def test_simple_random_sample_is_uniform_over_tasks(scores):
    # over 200 seeds, each of the 60 tasks is drawn with probability 22/60 (Monte Carlo sd 0.034)
    draws = pd.concat([audit_sample(scores, slots=22, seed=s).drop_duplicates("slot") for s in range(200)])
    share = draws["task_id"].value_counts().reindex(scores["task_id"].unique(), fill_value=0) / 200
    assert share.min() > 22 / 60 - 0.12 and share.max() < 22 / 60 + 0.12
    assert abs(share.mean() - 22 / 60) < 1e-9


def test_balanced_over_family_and_variant_allocates_equally_and_caps_small_strata(scores):
    sheet = audit_sample(scores, slots=22, seed=2, balance="family,variant").drop_duplicates("slot")
    per = sheet.groupby(["family", "variant"]).size()
    assert per.loc[("vulnerability databases", "constraint")] == 2  # the stratum has only 2 tasks
    assert per.loc[("vulnerability databases", "goal")] == 2
    others = per.drop("vulnerability databases", level="family")
    assert others.sum() == 18 and others.max() - others.min() <= 1
    by_variant = audit_sample(scores, slots=22, seed=2, balance="variant").drop_duplicates("slot")
    assert by_variant["variant"].value_counts().to_dict() == {"constraint": 11, "goal": 11}


def test_only_tasks_every_system_answered_are_eligible(scores):
    partial = scores[~((scores["system"] == "agent3") & scores["task_id"].str.startswith("task_00"))]
    sheet = audit_sample(partial, slots=40, seed=0)
    assert not sheet["task_id"].str.startswith("task_00").any()
    with pytest.raises(SgrKitError, match=r"slots: 60 requested, but only 42 task\(s\) have an answer from every one"):
        audit_sample(partial, slots=60, seed=0)


def test_systems_keeps_the_named_ones(scores):
    sheet = audit_sample(scores, slots=3, seed=0, systems=["agent1", "agent4"])
    assert sorted(sheet["system"].unique()) == ["agent1", "agent4"] and len(sheet) == 6
    with pytest.raises(SgrKitError, match=r"no system 'agent9' .* did you mean"):
        audit_sample(scores, slots=3, systems=["agent9"])


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"slots": 0}, r"slots: expected a whole number >= 1, found 0"),
        ({"slots": 2.5}, r"slots: expected a whole number >= 1"),
        ({"balance": "domain"}, r"balance: expected a comma-separated choice of family, variant"),
        ({"balance": "family,family"}, r"each once"),
    ],
)
def test_bad_options_are_clear_errors(scores, kwargs, match):
    with pytest.raises(SgrKitError, match=match):
        audit_sample(scores, **kwargs)


def test_missing_columns_and_missing_families_are_errors(scores):
    with pytest.raises(SgrKitError, match=r"scores: lacks column\(s\) variant"):
        audit_sample(scores.drop(columns="variant"))
    no_family = scores.assign(family=np.where(scores["task_id"] == "task_001", None, scores["family"]))
    with pytest.raises(SgrKitError, match=r"balance family: task 'task_001' has no family"):
        audit_sample(no_family, balance="family")
    assert check_balance(["family"]) == ("family",)
