"""Candidate pools and calibration by selection (sgr_kit.demo.simulate)."""

from __future__ import annotations

from collections import Counter

import numpy as np

from sgr_kit.demo.simulate import PER_TYPE, Group, candidate_pool, cell_options, select
from sgr_kit.demo.tasks import make_problems

PROBLEM = make_problems(seed=5)[3]


def test_pool_covers_every_type_and_is_deterministic():
    pool = candidate_pool(PROBLEM, PROBLEM.base_id, seed=5)
    assert pool == candidate_pool(PROBLEM, PROBLEM.base_id, seed=5)
    counts = Counter(c.injected for c in pool)
    assert counts["correct"] == PER_TYPE and counts["intent_rewriting"] == PER_TYPE + 2
    assert {"none", "prose", "header_only"} <= {c.fmt for c in pool}
    assert all(c.severity == 0 for c in pool if c.injected == "correct")


def test_cell_options_restrict_to_the_label_and_pair_repeats():
    pool = candidate_pool(PROBLEM, PROBLEM.base_id, seed=5)
    single = cell_options(pool, label="criterion_mismatch", repeats=False)
    assert len(single) == PER_TYPE and all(pool[i].injected == "criterion_mismatch" for (i,) in single)
    pairs = cell_options(pool, label=None, repeats=True)
    assert all(a != b and pool[a].injected == pool[b].injected for a, b in pairs)


def test_select_hits_reachable_targets():
    rng = np.random.default_rng(0)
    options = [rng.random((12, 3)) for _ in range(200)]
    groups = [Group("first half item", 0, 0.3, 0.01, tuple(range(100))),
              Group("all row", 1, 0.6, 0.01, tuple(range(200))),
              Group("second half poa", 2, 0.7, 0.01, tuple(range(100, 200)))]
    choice = select(options, groups, seed=1)
    assert choice == select(options, groups, seed=1)
    for g in groups:
        mean = np.mean([options[c][choice[c], g.metric] for c in g.cells])
        assert abs(mean - g.target) < 0.005
