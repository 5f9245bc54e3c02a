"""Audit-slot labels (sgr_kit.demo.audit): Table 4 and Table 5 margins reproduced exactly."""

from __future__ import annotations

from collections import Counter

import pytest

from sgr_kit.demo.targets import paper_targets
from sgr_kit.demo.audit import slot_counts, solve_labels
from sgr_kit.errors import SgrKitError


def test_paper_margins_are_reproduced():
    t = paper_targets()  # Tables 4 and 5 of the paper (Appendices H and I), via sgr_kit.reference
    failures = {f: sum(c.values()) for f, c in t.table5.items()}
    counts = slot_counts(failures, n_slots=22, n_models=8, n_correct=20)
    assert counts == {"scholarly archives": 10, "official statistics": 4, "life-science resources": 3,
                      "environmental monitoring": 3, "regulatory resources": 2}
    families = [f for f, n in counts.items() for _ in range(n)]
    sol = solve_labels(t.table4, t.table5, families, seed=4)
    assert len(sol) == 176 and sol == solve_labels(t.table4, t.table5, families, seed=4)
    by_model = Counter((m, lab) for (m, _), lab in sol.items())
    assert by_model == Counter({(m, lab): n for m, c in t.table4.items() for lab, n in c.items() if n})
    by_family = Counter((families[s], lab) for (_, s), lab in sol.items() if lab != "correct")
    assert by_family == Counter({(f, lab): n for f, c in t.table5.items() for lab, n in c.items() if n})


def test_infeasible_margins():
    with pytest.raises(SgrKitError, match="no label table reproduces both margins"):
        solve_labels({"m": {"a": 2, "correct": 0}}, {"f": {"a": 1}, "g": {"a": 0}}, ["f", "g"], seed=0)
    with pytest.raises(SgrKitError, match="cannot hold 30 failures"):
        slot_counts({"f": 30}, n_slots=3, n_models=8, n_correct=0)
