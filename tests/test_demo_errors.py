"""The generative error model (sgr_kit.demo.errors): each type changes the answer as Appendix G says."""

from __future__ import annotations

from random import Random

import pytest

from sgr_kit.demo import read_records
from sgr_kit.demo.errors import ERROR_TYPES, INJECT, apply_slips, inject
from sgr_kit.demo.render import render
from sgr_kit.demo.tasks import make_problems, task_records
from sgr_kit.score import prepare_task, score_answer

PROBLEMS = make_problems(seed=11)
TASKS = read_records(task_records(PROBLEMS, seed=11)[0])  # as the package's loader reads them
CASES = [p for p in PROBLEMS if len(p.rows) >= 3][:12] + [p for p in PROBLEMS if len(p.rows) == 2][:4]


def _score(p, rows):
    task = prepare_task(TASKS[p.base_id], profile="paper")
    text = render(rows, list(p.names), "markdown", Random(0), spellings=p.answer_spellings(), composite=p.composite)
    return score_answer(task, text)


def _keys(p, rows):
    return [tuple(r[: len(p.row_key)]) for r in rows]


def test_the_six_types_and_correct():
    assert set(INJECT) == {"correct", *ERROR_TYPES} and len(ERROR_TYPES) == 6


@pytest.mark.parametrize("p", CASES, ids=lambda p: p.base_id)
def test_effects_of_each_type(p):
    ref_keys = _keys(p, p.rows)
    for seed in range(4):
        rng = Random(seed)
        assert _score(p, inject(p, "correct", rng, 0.5)).item_f1 == 1.0
        # criterion mismatch: same keys in the same order, values systematically wrong
        cm = inject(p, "criterion_mismatch", rng, 1.0)
        r = _score(p, cm)
        assert _keys(p, cm) == ref_keys and r.row_f1 < 1 and r.item_f1 < 1 and r.poa == 1.0
        # scope drift at full severity: no reference row survives
        sd = inject(p, "scope_drift", rng, 1.0)
        assert not set(_keys(p, sd)) & set(ref_keys) and _score(p, sd).item_f1 == 0.0
        # intent rewriting: a strict subset of the reference rows
        ir = inject(p, "intent_rewriting", rng, 0.6)
        assert set(_keys(p, ir)) < set(ref_keys) or len(ref_keys) == 1
        # page misreading: same number of rows, some cells wrong
        pm = inject(p, "page_misreading", rng, 0.3)
        assert len(pm) == len(p.rows) and _score(p, pm).item_f1 < 1
        # dependency error and final answer composition both lose credit
        assert _score(p, inject(p, "dependency_error", rng, 0.5)).item_f1 < 1
        assert _score(p, inject(p, "final_answer", rng, 0.5)).item_f1 < 1


@pytest.mark.parametrize("p", CASES[:6], ids=lambda p: p.base_id)
def test_slips(p):
    rng = Random(2)
    ref = [list(r) for r in p.rows]
    r = _score(p, apply_slips(p, ref, rng, order=True, fmt=False, loss=False))
    assert (r.item_f1, r.row_f1) == (1.0, 1.0) and r.poa < 1
    r = _score(p, apply_slips(p, ref, rng, order=False, fmt=True, loss=False))
    assert (r.item_f1, r.row_f1, r.poa) == (1.0, 1.0, 1.0)  # tolerated formatting
    n = len(ref)
    r = _score(p, apply_slips(p, ref, rng, order=False, fmt=False, loss=False, total=True))
    assert r.item_f1 == pytest.approx(2 * n / (2 * n + 1)) and r.row_f1 == pytest.approx(2 * n / (2 * n + 1))
    r = _score(p, apply_slips(p, ref, rng, order=False, fmt=False, loss=True))
    assert r.item_f1 == pytest.approx(1 - 1 / (n * len(p.columns)))
