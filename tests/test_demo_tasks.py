"""Synthetic base problems and their release-format task records (sgr_kit.demo.tasks)."""

from __future__ import annotations

from collections import Counter
from random import Random

from sgr_kit.demo.columns import DOMAIN_COLUMNS, KINDS
from sgr_kit.demo.tasks import PLAN, make_problems, task_records
from sgr_kit.taxonomy import TAXONOMY


def test_plan_matches_the_release_shape():
    # Row histogram of the release (issue, section 3): 2 x13, 3 x9, ..., 44 x1; mean 6.42.
    rows = [r for plan in PLAN.values() for r, _ in plan]
    assert Counter(rows) == {2: 13, 3: 9, 4: 4, 5: 6, 6: 3, 7: 1, 8: 4, 9: 3, 10: 2, 13: 1, 20: 2, 21: 1, 44: 1}
    assert sum(rows) == 321
    assert set(PLAN) == set(TAXONOMY)
    two_row = {d for d, plan in PLAN.items() if any(r == 2 for r, _ in plan)}
    assert two_row == {"CENSUS_GOV", "CFPB_REPORTS", "CFPB_COMPLAINT_DATABASE", "CDC_WONDER"}
    for domain, plan in PLAN.items():
        assert all(4 <= c <= len(DOMAIN_COLUMNS[domain]) for _, c in plan), domain


def test_columns_generate_typed_values():
    rng = Random(5)
    for columns in DOMAIN_COLUMNS.values():
        for col in columns:
            assert col.kind in KINDS
            value = col.gen(rng)
            assert value and "|" not in value and "\n" not in value
            if col.type in ("integer", "decimal"):
                float(value)
            if col.uppercase:
                assert value == value.upper()


def test_problems_are_deterministic_with_unique_sorted_keys():
    a, b = make_problems(seed=3), make_problems(seed=3)
    assert a == b
    assert make_problems(seed=4)[0].rows != a[0].rows
    for p in a:
        keys = [r[: len(p.row_key)] for r in p.rows]
        assert len(set(keys)) == len(keys) and keys == sorted(keys)
        assert all(len(r) == len(p.columns) for r in p.rows)
        lines = p.reference_text().splitlines()
        assert len(lines) == len(p.rows) + p.header


def test_task_records_pair_and_mark_synthetic():
    problems = make_problems(seed=3)
    constraint, goal = task_records(problems, seed=3)
    for p, c, g in zip(problems, constraint, goal):
        assert c["task_id"] == p.base_id and g["task_id"] == p.base_id + "-g"
        assert c["metadata"]["variant"] == "constraint" and g["metadata"]["variant"] == "goal"
        assert c["metadata"]["seed"] == 3 and c["metadata"]["synthetic"] is True
        assert c["rubric"]["columns"] == list(p.names) and set(c["rubric"]["fields"]) == set(p.names)
        assert c["instruction"] != g["instruction"] and c["output_format"] == g["output_format"]
